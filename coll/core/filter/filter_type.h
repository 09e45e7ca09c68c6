/*
 * The element types gradient filtering works on: float and double, the
 * types MPI_SUM gradients come in.  Every piece of coll/core/filter takes
 * one of these; the component maps MPI_FLOAT / MPI_DOUBLE to them and
 * runs anything else dense.
 */
#ifndef LOOM_FILTER_TYPE_H
#define LOOM_FILTER_TYPE_H

#include <stddef.h>

typedef enum loom_filter_type {
    LOOM_FILTER_FLOAT  = 0,     /* IEEE 754 binary32 */
    LOOM_FILTER_DOUBLE = 1,     /* IEEE 754 binary64 */
    LOOM_FILTER_TYPE_COUNT
} loom_filter_type_t;

/* Bytes of one element; 0 for a value outside the enum. */
static inline size_t loom_filter_type_size(loom_filter_type_t type)
{
    switch (type) {
    case LOOM_FILTER_FLOAT:  return sizeof(float);
    case LOOM_FILTER_DOUBLE: return sizeof(double);
    default:                 return 0;
    }
}

#endif
