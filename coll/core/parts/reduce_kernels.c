/*
 * Loom's reduction kernels: dst[i] = src[i] (op) dst[i] for the predefined
 * C types and ops, bitwise equal to Open MPI 4.1.4's ompi_op_base_2buff_*.
 *
 * Open MPI computes out = current_func(out, in), with out = dst and
 * in = src, so the operand order below follows that: MIN is
 * (dst < src) ? dst : src.  The order is what decides NaN and signed zero:
 * whenever the comparison is false (a NaN on either side, or -0.0 against
 * +0.0) the result is src.  x86's minps/maxps implement exactly this
 * select, so GCC can vectorize it without -ffast-math.
 *
 * Integer sums and products are computed in the unsigned type of at least
 * int's width and converted back: the result wraps modulo 2^bits as Open
 * MPI's (technically undefined) signed arithmetic does in practice, with
 * no signed overflow here.  8- and 16-bit values go through unsigned int,
 * not their own unsigned type, because that would promote to signed int
 * and 65535 * 65535 overflows it.
 *
 * Speed comes from the compiler: each kernel is a plain loop over restrict
 * pointers that GCC auto-vectorizes (the automake fragment test/kernels.am
 * gives this file its vectorizer flags), and where the target supports
 * ifuncs each kernel is cloned for AVX-512, AVX2 and the baseline ISA, the
 * loader picking the widest one the CPU has.  A build for a machine
 * without AVX2 still runs everywhere.
 */
#include "coll/core/parts/reduce_kernels.h"

#include <stdint.h>

/*
 * Function multi-versioning needs ifunc support (glibc on x86-64) and a
 * compiler that accepts ISA levels as clone targets (GCC 12 or later).
 * Elsewhere the kernels are built once, for the target the compiler was
 * given.
 *
 * The unit tests also build this file for a single ISA level
 * (LOOM_KERNEL_TEST_ISA: 3 = x86-64-v3, 1 = baseline), because the loader
 * only ever runs the widest clone: without those builds the AVX2 and SSE2
 * code of a machine with AVX-512 would go untested.
 */
#if defined(__x86_64__) && defined(__gnu_linux__) && !defined(__clang__) && \
    defined(__GNUC__) && __GNUC__ >= 12
#define LOOM_KERNEL_HAVE_CLONES 1
#else
#define LOOM_KERNEL_HAVE_CLONES 0
#endif

#if defined(LOOM_KERNEL_TEST_ISA) && LOOM_KERNEL_TEST_ISA == 3 && LOOM_KERNEL_HAVE_CLONES
#define LOOM_KERNEL_CLONES __attribute__((target("arch=x86-64-v3")))
#elif defined(LOOM_KERNEL_TEST_ISA)
#define LOOM_KERNEL_CLONES
#elif LOOM_KERNEL_HAVE_CLONES
#define LOOM_KERNEL_CLONES \
    __attribute__((target_clones("arch=x86-64-v4", "arch=x86-64-v3", "default")))
#else
#define LOOM_KERNEL_CLONES
#endif

/*
 * One kernel.  expr combines s = src[i] and d = dst[i]; the result is
 * converted back to type, which is where the unsigned arithmetic of the
 * integer sums and products wraps.  src and dst must not overlap: restrict
 * sits on the parameters because GCC ignores it on the typed locals and
 * would add a run-time overlap check to every call.
 */
#define LOOM_KERNEL(op, tname, type, expr)                                   \
    LOOM_KERNEL_CLONES                                                       \
    static void loom_reduce_##op##_##tname(const void *restrict src_v,      \
                                           void *restrict dst_v,            \
                                           size_t count, void *ctx)         \
    {                                                                        \
        const type *src = src_v;                                             \
        type *dst = dst_v;                                                   \
                                                                             \
        (void)ctx;                                                           \
        for (size_t i = 0; i < count; i++) {                                 \
            type s = src[i];                                                 \
            type d = dst[i];                                                 \
            dst[i] = (type)(expr);                                           \
        }                                                                    \
    }

/* The ten ops on an integer type; utype is the unsigned type that the
 * arithmetic runs in. */
#define LOOM_INT_KERNELS(tname, type, utype)                                 \
    LOOM_KERNEL(sum,  tname, type, (utype)d + (utype)s)                      \
    LOOM_KERNEL(prod, tname, type, (utype)d * (utype)s)                      \
    LOOM_KERNEL(min,  tname, type, d < s ? d : s)                            \
    LOOM_KERNEL(max,  tname, type, d > s ? d : s)                            \
    LOOM_KERNEL(land, tname, type, (d != 0) & (s != 0))                      \
    LOOM_KERNEL(lor,  tname, type, (d != 0) | (s != 0))                      \
    LOOM_KERNEL(lxor, tname, type, (d != 0) ^ (s != 0))                      \
    LOOM_KERNEL(band, tname, type, d & s)                                    \
    LOOM_KERNEL(bor,  tname, type, d | s)                                    \
    LOOM_KERNEL(bxor, tname, type, d ^ s)

/* Floating point: MPI defines only the arithmetic ops and MIN/MAX. */
#define LOOM_FLOAT_KERNELS(tname, type)                                      \
    LOOM_KERNEL(sum,  tname, type, d + s)                                    \
    LOOM_KERNEL(prod, tname, type, d * s)                                    \
    LOOM_KERNEL(min,  tname, type, d < s ? d : s)                            \
    LOOM_KERNEL(max,  tname, type, d > s ? d : s)

LOOM_INT_KERNELS(int8,   int8_t,   unsigned int)
LOOM_INT_KERNELS(int16,  int16_t,  unsigned int)
LOOM_INT_KERNELS(int32,  int32_t,  uint32_t)
LOOM_INT_KERNELS(int64,  int64_t,  uint64_t)
LOOM_INT_KERNELS(uint8,  uint8_t,  unsigned int)
LOOM_INT_KERNELS(uint16, uint16_t, unsigned int)
LOOM_INT_KERNELS(uint32, uint32_t, uint32_t)
LOOM_INT_KERNELS(uint64, uint64_t, uint64_t)
LOOM_FLOAT_KERNELS(float,  float)
LOOM_FLOAT_KERNELS(double, double)

/* A row of the table below: op on every type that has it. */
#define LOOM_INT_ROW(op)                                                     \
    [LOOM_DTYPE_INT8]   = loom_reduce_##op##_int8,                           \
    [LOOM_DTYPE_INT16]  = loom_reduce_##op##_int16,                          \
    [LOOM_DTYPE_INT32]  = loom_reduce_##op##_int32,                          \
    [LOOM_DTYPE_INT64]  = loom_reduce_##op##_int64,                          \
    [LOOM_DTYPE_UINT8]  = loom_reduce_##op##_uint8,                          \
    [LOOM_DTYPE_UINT16] = loom_reduce_##op##_uint16,                         \
    [LOOM_DTYPE_UINT32] = loom_reduce_##op##_uint32,                         \
    [LOOM_DTYPE_UINT64] = loom_reduce_##op##_uint64
#define LOOM_ALL_ROW(op)                                                     \
    LOOM_INT_ROW(op),                                                        \
    [LOOM_DTYPE_FLOAT]  = loom_reduce_##op##_float,                          \
    [LOOM_DTYPE_DOUBLE] = loom_reduce_##op##_double

/*
 * Which (op, type) pairs exist is Open MPI 4.1.4's table for the C types:
 * logical and bitwise ops are defined on integers only (MPI-3.1 5.9.2), so
 * their float and double entries stay NULL and the adapter keeps Open
 * MPI's own handling (an MPI_ERR_OP) for them.
 */
static const loom_reduce_fn_t loom_reduce_table[LOOM_OP_COUNT][LOOM_DTYPE_COUNT] = {
    [LOOM_OP_SUM]  = { LOOM_ALL_ROW(sum) },
    [LOOM_OP_PROD] = { LOOM_ALL_ROW(prod) },
    [LOOM_OP_MIN]  = { LOOM_ALL_ROW(min) },
    [LOOM_OP_MAX]  = { LOOM_ALL_ROW(max) },
    [LOOM_OP_LAND] = { LOOM_INT_ROW(land) },
    [LOOM_OP_LOR]  = { LOOM_INT_ROW(lor) },
    [LOOM_OP_LXOR] = { LOOM_INT_ROW(lxor) },
    [LOOM_OP_BAND] = { LOOM_INT_ROW(band) },
    [LOOM_OP_BOR]  = { LOOM_INT_ROW(bor) },
    [LOOM_OP_BXOR] = { LOOM_INT_ROW(bxor) },
};

loom_reduce_fn_t loom_reduce_kernel(loom_op_t op, loom_dtype_t dtype)
{
    if ((unsigned)op >= LOOM_OP_COUNT || (unsigned)dtype >= LOOM_DTYPE_COUNT) {
        return NULL;
    }
    return loom_reduce_table[op][dtype];
}

static const struct {
    const char  *name;
    size_t      size;
} loom_dtype_info[LOOM_DTYPE_COUNT] = {
    [LOOM_DTYPE_INT8]   = { "int8",   sizeof(int8_t) },
    [LOOM_DTYPE_INT16]  = { "int16",  sizeof(int16_t) },
    [LOOM_DTYPE_INT32]  = { "int32",  sizeof(int32_t) },
    [LOOM_DTYPE_INT64]  = { "int64",  sizeof(int64_t) },
    [LOOM_DTYPE_UINT8]  = { "uint8",  sizeof(uint8_t) },
    [LOOM_DTYPE_UINT16] = { "uint16", sizeof(uint16_t) },
    [LOOM_DTYPE_UINT32] = { "uint32", sizeof(uint32_t) },
    [LOOM_DTYPE_UINT64] = { "uint64", sizeof(uint64_t) },
    [LOOM_DTYPE_FLOAT]  = { "float",  sizeof(float) },
    [LOOM_DTYPE_DOUBLE] = { "double", sizeof(double) },
};

static const char *const loom_op_names[LOOM_OP_COUNT] = {
    [LOOM_OP_SUM]  = "sum",  [LOOM_OP_PROD] = "prod",
    [LOOM_OP_MIN]  = "min",  [LOOM_OP_MAX]  = "max",
    [LOOM_OP_LAND] = "land", [LOOM_OP_LOR]  = "lor",  [LOOM_OP_LXOR] = "lxor",
    [LOOM_OP_BAND] = "band", [LOOM_OP_BOR]  = "bor",  [LOOM_OP_BXOR] = "bxor",
};

/* Unknown values get 0 and "unknown" rather than a crash: they come from
 * callers' casts and end up in log messages. */
size_t loom_dtype_size(loom_dtype_t dtype)
{
    return (unsigned)dtype < LOOM_DTYPE_COUNT ? loom_dtype_info[dtype].size : 0;
}

const char *loom_dtype_name(loom_dtype_t dtype)
{
    return (unsigned)dtype < LOOM_DTYPE_COUNT ? loom_dtype_info[dtype].name : "unknown";
}

const char *loom_op_name(loom_op_t op)
{
    return (unsigned)op < LOOM_OP_COUNT ? loom_op_names[op] : "unknown";
}
