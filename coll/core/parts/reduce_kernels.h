/*
 * Loom's own reduction kernels for the common types and ops.
 *
 * Each kernel computes dst[i] = src[i] (op) dst[i] with the semantics of
 * Open MPI's predefined ops (so Loom and Open MPI agree bitwise); anything
 * not covered here goes through the adapter's callback.
 */
#ifndef LOOM_REDUCE_KERNELS_H
#define LOOM_REDUCE_KERNELS_H

#include "coll/core/engine/args.h"

typedef enum loom_dtype {
    LOOM_DTYPE_INT8, LOOM_DTYPE_INT16, LOOM_DTYPE_INT32, LOOM_DTYPE_INT64,
    LOOM_DTYPE_UINT8, LOOM_DTYPE_UINT16, LOOM_DTYPE_UINT32, LOOM_DTYPE_UINT64,
    LOOM_DTYPE_FLOAT, LOOM_DTYPE_DOUBLE,
    LOOM_DTYPE_COUNT
} loom_dtype_t;

typedef enum loom_op {
    LOOM_OP_SUM, LOOM_OP_PROD, LOOM_OP_MIN, LOOM_OP_MAX,
    LOOM_OP_LAND, LOOM_OP_LOR, LOOM_OP_LXOR,
    LOOM_OP_BAND, LOOM_OP_BOR, LOOM_OP_BXOR,
    LOOM_OP_COUNT
} loom_op_t;

size_t loom_dtype_size(loom_dtype_t dtype);
const char *loom_dtype_name(loom_dtype_t dtype);
const char *loom_op_name(loom_op_t op);

/* The kernel for (op, dtype), or NULL where MPI does not define the op on
 * the type (bitwise ops on floating point). ctx is unused. */
loom_reduce_fn_t loom_reduce_kernel(loom_op_t op, loom_dtype_t dtype);

#endif
