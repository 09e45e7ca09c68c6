/* Datatype and op tables (see types.h). */
#include "types.h"

#include <string.h>

static const loom_bench_dtype_t loom_bench_dtypes[] = {
    { "int8", LOOM_BENCH_INT8, 1, 0 },     { "uint8", LOOM_BENCH_UINT8, 1, 0 },
    { "int16", LOOM_BENCH_INT16, 2, 0 },   { "uint16", LOOM_BENCH_UINT16, 2, 0 },
    { "int32", LOOM_BENCH_INT32, 4, 0 },   { "uint32", LOOM_BENCH_UINT32, 4, 0 },
    { "int64", LOOM_BENCH_INT64, 8, 0 },   { "uint64", LOOM_BENCH_UINT64, 8, 0 },
    { "float", LOOM_BENCH_FLOAT, 4, 1 },   { "double", LOOM_BENCH_DOUBLE, 8, 1 },
};

static const loom_bench_op_t loom_bench_ops[] = {
    { "sum", LOOM_BENCH_SUM, 1 },   { "prod", LOOM_BENCH_PROD, 1 },
    { "min", LOOM_BENCH_MIN, 1 },   { "max", LOOM_BENCH_MAX, 1 },
    { "band", LOOM_BENCH_BAND, 0 }, { "bor", LOOM_BENCH_BOR, 0 },
    { "bxor", LOOM_BENCH_BXOR, 0 }, { "land", LOOM_BENCH_LAND, 0 },
    { "lor", LOOM_BENCH_LOR, 0 },   { "lxor", LOOM_BENCH_LXOR, 0 },
};

#define LOOM_BENCH_NELEMS(a) (sizeof(a) / sizeof((a)[0]))

const loom_bench_dtype_t *loom_bench_dtype_find(const char *name)
{
    size_t i;

    for (i = 0; i < LOOM_BENCH_NELEMS(loom_bench_dtypes); ++i) {
        if (strcmp(loom_bench_dtypes[i].name, name) == 0) {
            return &loom_bench_dtypes[i];
        }
    }
    return NULL;
}

const loom_bench_op_t *loom_bench_op_find(const char *name)
{
    size_t i;

    for (i = 0; i < LOOM_BENCH_NELEMS(loom_bench_ops); ++i) {
        if (strcmp(loom_bench_ops[i].name, name) == 0) {
            return &loom_bench_ops[i];
        }
    }
    return NULL;
}

const char *loom_bench_dtype_names(void)
{
    return "int8, uint8, int16, uint16, int32, uint32, int64, uint64, float, double";
}

const char *loom_bench_op_names(void)
{
    return "sum, prod, min, max (all types); band, bor, bxor, land, lor, lxor (integer types)";
}

MPI_Datatype loom_bench_dtype_mpi(const loom_bench_dtype_t *dtype)
{
    switch (dtype->id) {
    case LOOM_BENCH_INT8:   return MPI_INT8_T;
    case LOOM_BENCH_UINT8:  return MPI_UINT8_T;
    case LOOM_BENCH_INT16:  return MPI_INT16_T;
    case LOOM_BENCH_UINT16: return MPI_UINT16_T;
    case LOOM_BENCH_INT32:  return MPI_INT32_T;
    case LOOM_BENCH_UINT32: return MPI_UINT32_T;
    case LOOM_BENCH_INT64:  return MPI_INT64_T;
    case LOOM_BENCH_UINT64: return MPI_UINT64_T;
    case LOOM_BENCH_FLOAT:  return MPI_FLOAT;
    case LOOM_BENCH_DOUBLE: return MPI_DOUBLE;
    }
    return MPI_DATATYPE_NULL;
}

MPI_Op loom_bench_op_mpi(const loom_bench_op_t *op)
{
    switch (op->id) {
    case LOOM_BENCH_SUM:  return MPI_SUM;
    case LOOM_BENCH_PROD: return MPI_PROD;
    case LOOM_BENCH_MIN:  return MPI_MIN;
    case LOOM_BENCH_MAX:  return MPI_MAX;
    case LOOM_BENCH_BAND: return MPI_BAND;
    case LOOM_BENCH_BOR:  return MPI_BOR;
    case LOOM_BENCH_BXOR: return MPI_BXOR;
    case LOOM_BENCH_LAND: return MPI_LAND;
    case LOOM_BENCH_LOR:  return MPI_LOR;
    case LOOM_BENCH_LXOR: return MPI_LXOR;
    }
    return MPI_OP_NULL;
}

void loom_bench_dtype_store(const loom_bench_dtype_t *dtype, int64_t v, void *dst)
{
    /* memcpy: dst need not be aligned for the type. */
    switch (dtype->id) {
    case LOOM_BENCH_INT8:   { int8_t x = (int8_t)v;     memcpy(dst, &x, sizeof(x)); break; }
    case LOOM_BENCH_UINT8:  { uint8_t x = (uint8_t)v;   memcpy(dst, &x, sizeof(x)); break; }
    case LOOM_BENCH_INT16:  { int16_t x = (int16_t)v;   memcpy(dst, &x, sizeof(x)); break; }
    case LOOM_BENCH_UINT16: { uint16_t x = (uint16_t)v; memcpy(dst, &x, sizeof(x)); break; }
    case LOOM_BENCH_INT32:  { int32_t x = (int32_t)v;   memcpy(dst, &x, sizeof(x)); break; }
    case LOOM_BENCH_UINT32: { uint32_t x = (uint32_t)v; memcpy(dst, &x, sizeof(x)); break; }
    case LOOM_BENCH_INT64:  { int64_t x = v;            memcpy(dst, &x, sizeof(x)); break; }
    case LOOM_BENCH_UINT64: { uint64_t x = (uint64_t)v; memcpy(dst, &x, sizeof(x)); break; }
    case LOOM_BENCH_FLOAT:  { float x = (float)v;       memcpy(dst, &x, sizeof(x)); break; }
    case LOOM_BENCH_DOUBLE: { double x = (double)v;     memcpy(dst, &x, sizeof(x)); break; }
    }
}

int64_t loom_bench_op_apply(const loom_bench_op_t *op, int64_t acc, int64_t v)
{
    switch (op->id) {
    case LOOM_BENCH_SUM:  return acc + v;
    case LOOM_BENCH_PROD: return acc * v;
    case LOOM_BENCH_MIN:  return v < acc ? v : acc;
    case LOOM_BENCH_MAX:  return v > acc ? v : acc;
    case LOOM_BENCH_BAND: return acc & v;
    case LOOM_BENCH_BOR:  return acc | v;
    case LOOM_BENCH_BXOR: return acc ^ v;
    case LOOM_BENCH_LAND: return (acc != 0) && (v != 0);
    case LOOM_BENCH_LOR:  return (acc != 0) || (v != 0);
    case LOOM_BENCH_LXOR: return (acc != 0) != (v != 0);
    }
    return acc;
}
