/*
 * The datatypes and reduction ops loom-bench can measure, by the names
 * users type (-d, -o), with what is needed to fill and check buffers.
 */
#ifndef LOOM_BENCH_TYPES_H
#define LOOM_BENCH_TYPES_H

#include <mpi.h>
#include <stddef.h>
#include <stdint.h>

typedef enum {
    LOOM_BENCH_INT8, LOOM_BENCH_UINT8, LOOM_BENCH_INT16, LOOM_BENCH_UINT16,
    LOOM_BENCH_INT32, LOOM_BENCH_UINT32, LOOM_BENCH_INT64, LOOM_BENCH_UINT64,
    LOOM_BENCH_FLOAT, LOOM_BENCH_DOUBLE
} loom_bench_dtype_id_t;

typedef struct loom_bench_dtype {
    const char            *name;
    loom_bench_dtype_id_t  id;
    size_t                 size;      /* bytes per element */
    int                    is_float;  /* bitwise and logical ops do not apply */
} loom_bench_dtype_t;

typedef enum {
    LOOM_BENCH_SUM, LOOM_BENCH_PROD, LOOM_BENCH_MIN, LOOM_BENCH_MAX,
    LOOM_BENCH_BAND, LOOM_BENCH_BOR, LOOM_BENCH_BXOR,
    LOOM_BENCH_LAND, LOOM_BENCH_LOR, LOOM_BENCH_LXOR
} loom_bench_op_id_t;

typedef struct loom_bench_op {
    const char          *name;
    loom_bench_op_id_t   id;
    int                  floats_ok;   /* MPI allows it on float and double */
} loom_bench_op_t;

/* Look up by name; NULL when unknown. */
const loom_bench_dtype_t *loom_bench_dtype_find(const char *name);
const loom_bench_op_t *loom_bench_op_find(const char *name);

/* The accepted names, comma separated, for error messages and --help. */
const char *loom_bench_dtype_names(void);
const char *loom_bench_op_names(void);

/* The MPI handles (looked up at run time: MPI handles need not be
 * compile-time constants). */
MPI_Datatype loom_bench_dtype_mpi(const loom_bench_dtype_t *dtype);
MPI_Op loom_bench_op_mpi(const loom_bench_op_t *op);

/* Store the integer v as one element of dtype at dst.  Integer types wrap
 * as the C conversion does, which is also what MPI's reductions yield. */
void loom_bench_dtype_store(const loom_bench_dtype_t *dtype, int64_t v, void *dst);

/* acc (op) v, in 64-bit integers; exact for the values check.c makes. */
int64_t loom_bench_op_apply(const loom_bench_op_t *op, int64_t acc, int64_t v);

#endif
