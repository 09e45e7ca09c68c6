/*
 * Reduction kernels against a scalar reference written here from Open MPI
 * 4.1.4's definitions (ompi/mca/op/base/op_base_functions.c): there,
 * out = current_func(out, in) with out = dst and in = src.
 *
 * The reference is deliberately not the kernels' code: integers go through
 * 128-bit arithmetic, which cannot overflow, and are truncated at the end;
 * MIN and MAX spell out the NaN and signed-zero cases.  Results are
 * compared bitwise, except that a sum or product of two NaNs may carry
 * either payload (the compiler may swap the operands of a commutative add,
 * in Open MPI's build as in ours).
 *
 * The same file also runs against single-ISA builds of the kernels
 * (LOOM_KERNEL_TEST_ISA, see test/unit/Makefile.inc).
 */
#include "coll/core/parts/reduce_kernels.h"

#include <check.h>
#include "test/unit/support/check_main.h"
#include <inttypes.h>
#include <math.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

static const size_t test_counts[] = { 0, 1, 7, 33, 1000, 4097 };
#define TEST_NCOUNTS (sizeof(test_counts) / sizeof(test_counts[0]))

/* Elements of padding on each side of the tested range.  The range starts
 * one element into the buffer, so it is not aligned to a vector, and the
 * padding around it must come out untouched. */
#define TEST_PAD 1

static int test_is_float(loom_dtype_t dtype)
{
    return dtype == LOOM_DTYPE_FLOAT || dtype == LOOM_DTYPE_DOUBLE;
}

static int test_is_arith_or_order(loom_op_t op)
{
    return op == LOOM_OP_SUM || op == LOOM_OP_PROD || op == LOOM_OP_MIN ||
           op == LOOM_OP_MAX;
}

/* ------------------------------------------------------------ reference */

static __int128 ref_load_int(loom_dtype_t dtype, const void *buf, size_t i)
{
    switch (dtype) {
    case LOOM_DTYPE_INT8:   return ((const int8_t *)buf)[i];
    case LOOM_DTYPE_INT16:  return ((const int16_t *)buf)[i];
    case LOOM_DTYPE_INT32:  return ((const int32_t *)buf)[i];
    case LOOM_DTYPE_INT64:  return ((const int64_t *)buf)[i];
    case LOOM_DTYPE_UINT8:  return ((const uint8_t *)buf)[i];
    case LOOM_DTYPE_UINT16: return ((const uint16_t *)buf)[i];
    case LOOM_DTYPE_UINT32: return ((const uint32_t *)buf)[i];
    case LOOM_DTYPE_UINT64: return ((const uint64_t *)buf)[i];
    default:                abort();
    }
}

/* Keeps the low bits, as a two's complement machine does. */
static void ref_store_int(loom_dtype_t dtype, void *buf, size_t i, __int128 v)
{
    uint64_t low = (uint64_t)(unsigned __int128)v;

    switch (dtype) {
    case LOOM_DTYPE_INT8:   case LOOM_DTYPE_UINT8:
        ((uint8_t *)buf)[i] = (uint8_t)low;
        break;
    case LOOM_DTYPE_INT16:  case LOOM_DTYPE_UINT16:
        ((uint16_t *)buf)[i] = (uint16_t)low;
        break;
    case LOOM_DTYPE_INT32:  case LOOM_DTYPE_UINT32:
        ((uint32_t *)buf)[i] = (uint32_t)low;
        break;
    default:
        ((uint64_t *)buf)[i] = low;
        break;
    }
}

static __int128 ref_int(loom_op_t op, __int128 d, __int128 s)
{
    switch (op) {
    case LOOM_OP_SUM:  return d + s;
    /* Both factors fit in 64 bits; the product of two uint64 may not fit
     * a signed 128-bit value, so multiply those unsigned. */
    case LOOM_OP_PROD: return (__int128)((unsigned __int128)d * (unsigned __int128)s);
    case LOOM_OP_MIN:  return d < s ? d : s;
    case LOOM_OP_MAX:  return d > s ? d : s;
    case LOOM_OP_LAND: return d && s;
    case LOOM_OP_LOR:  return d || s;
    case LOOM_OP_LXOR: return (d ? 1 : 0) ^ (s ? 1 : 0);
    case LOOM_OP_BAND: return d & s;
    case LOOM_OP_BOR:  return d | s;
    case LOOM_OP_BXOR: return d ^ s;
    default:           abort();
    }
}

/* Open MPI's MIN keeps dst only when dst < src holds; a NaN on either
 * side, or equal values such as -0.0 and +0.0, give src.  MAX likewise. */
static double ref_float(loom_op_t op, double d, double s)
{
    switch (op) {
    case LOOM_OP_SUM:  return d + s;
    case LOOM_OP_PROD: return d * s;
    case LOOM_OP_MIN:
    case LOOM_OP_MAX:
        if (isnan(d) || isnan(s) || d == s) {
            return s;
        }
        if (op == LOOM_OP_MIN) {
            return d < s ? d : s;
        }
        return d > s ? d : s;
    default:
        abort();
    }
}

/* dst[i] = src[i] op dst[i] for one element. */
static void ref_apply(loom_op_t op, loom_dtype_t dtype, const void *src,
                      void *dst, size_t i)
{
    float *fdst = dst;
    double *ddst = dst;

    if (dtype == LOOM_DTYPE_FLOAT) {
        /* Double has more than twice float's precision, so a float sum or
         * product rounded once from double is the float result; NaN
         * payloads survive the round trip. */
        fdst[i] = (float)ref_float(op, fdst[i], ((const float *)src)[i]);
    } else if (dtype == LOOM_DTYPE_DOUBLE) {
        ddst[i] = ref_float(op, ddst[i], ((const double *)src)[i]);
    } else {
        ref_store_int(dtype, dst, i,
                      ref_int(op, ref_load_int(dtype, dst, i),
                              ref_load_int(dtype, src, i)));
    }
}

/* --------------------------------------------------------------- inputs */

static uint64_t test_rand_state;

static uint64_t test_rand(void)
{
    /* xorshift64*: deterministic, so a failure reproduces. */
    test_rand_state ^= test_rand_state >> 12;
    test_rand_state ^= test_rand_state << 25;
    test_rand_state ^= test_rand_state >> 27;
    return test_rand_state * 2685821657736338717ULL;
}

/* Floating-point inputs: ordinary values with many ties, and specials
 * (signed zeros, infinities, quiet NaNs of both signs with distinct
 * payloads) so that MIN and MAX meet every case in both positions. */
static double test_rand_double(void)
{
    static const double special[] = { 0.0, -0.0, INFINITY, -INFINITY };
    uint64_t r = test_rand();
    uint64_t nan_bits;
    double v;

    switch (r % 8) {
    case 0:
        return special[(r >> 8) % 4];
    case 1:
        nan_bits = 0x7ff8000000000000ULL | ((r >> 8) & 0xfffff) |
                   ((r >> 40) & 1) << 63;
        memcpy(&v, &nan_bits, sizeof(v));
        return v;
    default:
        return ((double)((int64_t)(r >> 11) % 2001) - 1000.0) / 8.0;
    }
}

static float test_rand_float(void)
{
    uint64_t r = test_rand();
    uint32_t nan_bits;
    float v;

    if (r % 8 == 1) {
        nan_bits = 0x7fc00000u | (uint32_t)((r >> 8) & 0xfff) |
                   (uint32_t)((r >> 40) & 1) << 31;
        memcpy(&v, &nan_bits, sizeof(v));
        return v;
    }
    return (float)test_rand_double();
}

static void test_fill(loom_dtype_t dtype, void *buf, size_t n)
{
    size_t i;

    for (i = 0; i < n; i++) {
        if (dtype == LOOM_DTYPE_FLOAT) {
            ((float *)buf)[i] = test_rand_float();
        } else if (dtype == LOOM_DTYPE_DOUBLE) {
            ((double *)buf)[i] = test_rand_double();
        } else {
            uint64_t r = test_rand();

            /* A quarter zeros, for the logical ops; the rest all bits. */
            ref_store_int(dtype, buf, i, (r & 3) == 0 ? 0 : (__int128)(r >> 2) * 7);
        }
    }
}

/* ------------------------------------------------------------ comparing */

static int test_elem_equal(loom_op_t op, loom_dtype_t dtype, const void *a,
                           const void *b, size_t i)
{
    size_t size = loom_dtype_size(dtype);
    const char *pa = (const char *)a + i * size;
    const char *pb = (const char *)b + i * size;

    if (memcmp(pa, pb, size) == 0) {
        return 1;
    }
    if (op == LOOM_OP_SUM || op == LOOM_OP_PROD) {
        if (dtype == LOOM_DTYPE_FLOAT) {
            return isnan(((const float *)a)[i]) && isnan(((const float *)b)[i]);
        }
        if (dtype == LOOM_DTYPE_DOUBLE) {
            return isnan(((const double *)a)[i]) && isnan(((const double *)b)[i]);
        }
    }
    return 0;
}

/* Runs (op, dtype) on count elements one element into padded buffers and
 * checks every element, the padding and the unchanged src. */
static void test_run_case(loom_op_t op, loom_dtype_t dtype, size_t count)
{
    loom_reduce_fn_t fn = loom_reduce_kernel(op, dtype);
    size_t size = loom_dtype_size(dtype);
    size_t total = count + 2 * TEST_PAD;
    char *src = malloc(total * size);
    char *dst = malloc(total * size);
    char *src_before = malloc(total * size);
    char *expect = malloc(total * size);
    size_t i;

    ck_assert_ptr_nonnull(fn);
    ck_assert(src && dst && src_before && expect);
    test_fill(dtype, src, total);
    test_fill(dtype, dst, total);
    memcpy(src_before, src, total * size);
    memcpy(expect, dst, total * size);
    for (i = TEST_PAD; i < TEST_PAD + count; i++) {
        ref_apply(op, dtype, src, expect, i);
    }

    fn(src + TEST_PAD * size, dst + TEST_PAD * size, count, NULL);

    for (i = 0; i < total; i++) {
        ck_assert_msg(test_elem_equal(op, dtype, expect, dst, i),
                      "%s on %s, count %zu: element %ld differs",
                      loom_op_name(op), loom_dtype_name(dtype), count,
                      (long)i - TEST_PAD);
    }
    ck_assert_msg(memcmp(src, src_before, total * size) == 0,
                  "%s on %s, count %zu: src was modified", loom_op_name(op),
                  loom_dtype_name(dtype), count);
    free(src);
    free(dst);
    free(src_before);
    free(expect);
}

/* ---------------------------------------------------------------- tests */

START_TEST(test_names_and_sizes)
{
    ck_assert_str_eq(loom_dtype_name(LOOM_DTYPE_INT8), "int8");
    ck_assert_str_eq(loom_dtype_name(LOOM_DTYPE_UINT64), "uint64");
    ck_assert_str_eq(loom_dtype_name(LOOM_DTYPE_FLOAT), "float");
    ck_assert_str_eq(loom_dtype_name(LOOM_DTYPE_DOUBLE), "double");
    ck_assert_str_eq(loom_dtype_name(LOOM_DTYPE_COUNT), "unknown");
    ck_assert_str_eq(loom_op_name(LOOM_OP_SUM), "sum");
    ck_assert_str_eq(loom_op_name(LOOM_OP_LXOR), "lxor");
    ck_assert_str_eq(loom_op_name(LOOM_OP_BXOR), "bxor");
    ck_assert_str_eq(loom_op_name((loom_op_t)-1), "unknown");
    ck_assert_uint_eq(loom_dtype_size(LOOM_DTYPE_INT8), 1);
    ck_assert_uint_eq(loom_dtype_size(LOOM_DTYPE_UINT16), 2);
    ck_assert_uint_eq(loom_dtype_size(LOOM_DTYPE_INT32), 4);
    ck_assert_uint_eq(loom_dtype_size(LOOM_DTYPE_UINT64), 8);
    ck_assert_uint_eq(loom_dtype_size(LOOM_DTYPE_FLOAT), 4);
    ck_assert_uint_eq(loom_dtype_size(LOOM_DTYPE_DOUBLE), 8);
    ck_assert_uint_eq(loom_dtype_size(LOOM_DTYPE_COUNT), 0);
}
END_TEST

/* A kernel exists exactly where Open MPI 4.1.4 defines the op on the C
 * type: everywhere but the logical and bitwise ops on float and double. */
START_TEST(test_kernel_table)
{
    int op, dtype;

    for (op = 0; op < LOOM_OP_COUNT; op++) {
        for (dtype = 0; dtype < LOOM_DTYPE_COUNT; dtype++) {
            int defined = !test_is_float(dtype) || test_is_arith_or_order(op);

            ck_assert_msg((loom_reduce_kernel(op, dtype) != NULL) == defined,
                          "%s on %s: kernel %s", loom_op_name(op),
                          loom_dtype_name(dtype), defined ? "missing" : "unexpected");
        }
    }
    ck_assert_ptr_null(loom_reduce_kernel(LOOM_OP_COUNT, LOOM_DTYPE_INT8));
    ck_assert_ptr_null(loom_reduce_kernel(LOOM_OP_SUM, LOOM_DTYPE_COUNT));
    ck_assert_ptr_null(loom_reduce_kernel((loom_op_t)-1, LOOM_DTYPE_INT8));
}
END_TEST

/* Loop index _i = op * LOOM_DTYPE_COUNT + dtype: every pair, every count. */
START_TEST(test_against_reference)
{
    loom_op_t op = (loom_op_t)(_i / LOOM_DTYPE_COUNT);
    loom_dtype_t dtype = (loom_dtype_t)(_i % LOOM_DTYPE_COUNT);
    size_t c;

    if (loom_reduce_kernel(op, dtype) == NULL) {
        return; /* test_kernel_table checks that this pair has none */
    }
    test_rand_state = 0x9e3779b97f4a7c15ULL + (uint64_t)_i;
    for (c = 0; c < TEST_NCOUNTS; c++) {
        test_run_case(op, dtype, test_counts[c]);
    }
}
END_TEST

/* Each pair (dst, src, expected) is repeated over 33 elements, so that the
 * vector body and the scalar tail both meet it. */
#define TEST_REPEAT 33

#define TEST_CHECK_PAIRS(type, op, dtype, fmt, cases)                          \
    do {                                                                       \
        size_t n_ = sizeof(cases) / sizeof(cases[0]);                          \
        for (size_t k_ = 0; k_ < n_; k_++) {                                   \
            type src_[TEST_REPEAT], dst_[TEST_REPEAT];                         \
            for (size_t j_ = 0; j_ < TEST_REPEAT; j_++) {                      \
                dst_[j_] = cases[k_][0];                                       \
                src_[j_] = cases[k_][1];                                       \
            }                                                                  \
            loom_reduce_kernel(op, dtype)(src_, dst_, TEST_REPEAT, NULL);      \
            for (size_t j_ = 0; j_ < TEST_REPEAT; j_++) {                      \
                ck_assert_msg(memcmp(&dst_[j_], &cases[k_][2], sizeof(type)) == 0, \
                              "%s %s: dst " fmt ", src " fmt ": got " fmt      \
                              ", want " fmt, loom_op_name(op),                 \
                              loom_dtype_name(dtype), cases[k_][0],            \
                              cases[k_][1], dst_[j_], cases[k_][2]);           \
            }                                                                  \
        }                                                                      \
    } while (0)

START_TEST(test_integer_wraparound)
{
    static const int8_t s8_sum[][3] = {
        { INT8_MAX, 1, INT8_MIN }, { INT8_MIN, -1, INT8_MAX }, { 100, 100, -56 },
    };
    static const int8_t s8_prod[][3] = {
        { INT8_MIN, -1, INT8_MIN }, { 16, 16, 0 }, { 15, 15, -31 },
    };
    static const uint8_t u8_sum[][3] = { { 255, 1, 0 }, { 200, 100, 44 } };
    static const uint8_t u8_prod[][3] = { { 255, 255, 1 }, { 16, 16, 0 } };
    static const int16_t s16_sum[][3] = { { INT16_MAX, 1, INT16_MIN } };
    static const int16_t s16_prod[][3] = { { 256, 256, 0 }, { -32768, -1, -32768 } };
    /* 65535 * 65535 overflows int, the type uint16 promotes to. */
    static const uint16_t u16_prod[][3] = { { 65535, 65535, 1 } };
    static const int32_t s32_sum[][3] = { { INT32_MAX, 1, INT32_MIN } };
    static const int32_t s32_prod[][3] = { { 65536, 65536, 0 }, { INT32_MIN, -1, INT32_MIN } };
    static const uint32_t u32_sum[][3] = { { UINT32_MAX, 2, 1 } };
    static const int64_t s64_sum[][3] = {
        { INT64_MAX, 1, INT64_MIN }, { INT64_MIN, INT64_MIN, 0 },
    };
    static const int64_t s64_prod[][3] = {
        { INT64_MAX, 2, -2 }, { INT64_MIN, -1, INT64_MIN },
        { (INT64_C(1) << 32) + 1, (INT64_C(1) << 32) + 1, (INT64_C(1) << 33) + 1 },
        { INT64_C(3037000500), INT64_C(3037000500), INT64_C(-9223372036709301616) },
    };
    static const uint64_t u64_prod[][3] = {
        { UINT64_MAX, UINT64_MAX, 1 }, { UINT64_C(1) << 32, UINT64_C(1) << 32, 0 },
    };

    TEST_CHECK_PAIRS(int8_t, LOOM_OP_SUM, LOOM_DTYPE_INT8, "%d", s8_sum);
    TEST_CHECK_PAIRS(int8_t, LOOM_OP_PROD, LOOM_DTYPE_INT8, "%d", s8_prod);
    TEST_CHECK_PAIRS(uint8_t, LOOM_OP_SUM, LOOM_DTYPE_UINT8, "%u", u8_sum);
    TEST_CHECK_PAIRS(uint8_t, LOOM_OP_PROD, LOOM_DTYPE_UINT8, "%u", u8_prod);
    TEST_CHECK_PAIRS(int16_t, LOOM_OP_SUM, LOOM_DTYPE_INT16, "%d", s16_sum);
    TEST_CHECK_PAIRS(int16_t, LOOM_OP_PROD, LOOM_DTYPE_INT16, "%d", s16_prod);
    TEST_CHECK_PAIRS(uint16_t, LOOM_OP_PROD, LOOM_DTYPE_UINT16, "%u", u16_prod);
    TEST_CHECK_PAIRS(int32_t, LOOM_OP_SUM, LOOM_DTYPE_INT32, "%d", s32_sum);
    TEST_CHECK_PAIRS(int32_t, LOOM_OP_PROD, LOOM_DTYPE_INT32, "%d", s32_prod);
    TEST_CHECK_PAIRS(uint32_t, LOOM_OP_SUM, LOOM_DTYPE_UINT32, "%u", u32_sum);
    TEST_CHECK_PAIRS(int64_t, LOOM_OP_SUM, LOOM_DTYPE_INT64, "%" PRId64, s64_sum);
    TEST_CHECK_PAIRS(int64_t, LOOM_OP_PROD, LOOM_DTYPE_INT64, "%" PRId64, s64_prod);
    TEST_CHECK_PAIRS(uint64_t, LOOM_OP_PROD, LOOM_DTYPE_UINT64, "%" PRIu64, u64_prod);
}
END_TEST

/* Open MPI: MIN is (dst < src) ? dst : src and MAX (dst > src) ? dst : src,
 * so a NaN in either position and any tie (-0.0 against +0.0) give src. */
START_TEST(test_float_min_max_specials)
{
    const float fnan = nanf("");
    const double dnan = nan("");
    const float f_min[][3] = {
        { fnan, 1.0f, 1.0f }, { 1.0f, fnan, fnan }, { fnan, -fnan, -fnan },
        { -0.0f, 0.0f, 0.0f }, { 0.0f, -0.0f, -0.0f },
        { 1.0f, 2.0f, 1.0f }, { 2.0f, 1.0f, 1.0f }, { -INFINITY, fnan, fnan },
    };
    const float f_max[][3] = {
        { fnan, 1.0f, 1.0f }, { 1.0f, fnan, fnan }, { -fnan, fnan, fnan },
        { -0.0f, 0.0f, 0.0f }, { 0.0f, -0.0f, -0.0f },
        { 1.0f, 2.0f, 2.0f }, { 2.0f, 1.0f, 2.0f }, { INFINITY, fnan, fnan },
    };
    const double d_min[][3] = {
        { dnan, 1.0, 1.0 }, { 1.0, dnan, dnan }, { dnan, -dnan, -dnan },
        { -0.0, 0.0, 0.0 }, { 0.0, -0.0, -0.0 },
        { 1.0, 2.0, 1.0 }, { 2.0, 1.0, 1.0 }, { -INFINITY, dnan, dnan },
    };
    const double d_max[][3] = {
        { dnan, 1.0, 1.0 }, { 1.0, dnan, dnan }, { -dnan, dnan, dnan },
        { -0.0, 0.0, 0.0 }, { 0.0, -0.0, -0.0 },
        { 1.0, 2.0, 2.0 }, { 2.0, 1.0, 2.0 }, { INFINITY, dnan, dnan },
    };

    TEST_CHECK_PAIRS(float, LOOM_OP_MIN, LOOM_DTYPE_FLOAT, "%g", f_min);
    TEST_CHECK_PAIRS(float, LOOM_OP_MAX, LOOM_DTYPE_FLOAT, "%g", f_max);
    TEST_CHECK_PAIRS(double, LOOM_OP_MIN, LOOM_DTYPE_DOUBLE, "%g", d_min);
    TEST_CHECK_PAIRS(double, LOOM_OP_MAX, LOOM_DTYPE_DOUBLE, "%g", d_max);
}
END_TEST

/* Logical ops treat any nonzero as true and produce exactly 0 or 1. */
START_TEST(test_logical_nonboolean_inputs)
{
    static const int8_t s8_land[][3] = { { 2, -3, 1 }, { 0, -3, 0 }, { 2, 0, 0 } };
    static const int8_t s8_lor[][3] = { { 2, -3, 1 }, { 0, -3, 1 }, { 0, 0, 0 } };
    static const int8_t s8_lxor[][3] = { { 2, -3, 0 }, { 0, -3, 1 }, { 2, 0, 1 } };
    static const uint16_t u16_lor[][3] = { { 0, 0xfffd, 1 }, { 0x100, 0, 1 } };
    static const int32_t s32_land[][3] = { { INT32_MIN, 2, 1 }, { 0, -3, 0 } };
    static const int32_t s32_lxor[][3] = { { INT32_MIN, -3, 0 }, { 256, 0, 1 } };
    static const uint64_t u64_land[][3] = { { UINT64_C(1) << 63, 2, 1 }, { 0, 7, 0 } };
    static const int64_t s64_lxor[][3] = { { INT64_C(1) << 40, -3, 0 }, { 0, INT64_MIN, 1 } };

    TEST_CHECK_PAIRS(int8_t, LOOM_OP_LAND, LOOM_DTYPE_INT8, "%d", s8_land);
    TEST_CHECK_PAIRS(int8_t, LOOM_OP_LOR, LOOM_DTYPE_INT8, "%d", s8_lor);
    TEST_CHECK_PAIRS(int8_t, LOOM_OP_LXOR, LOOM_DTYPE_INT8, "%d", s8_lxor);
    TEST_CHECK_PAIRS(uint16_t, LOOM_OP_LOR, LOOM_DTYPE_UINT16, "%u", u16_lor);
    TEST_CHECK_PAIRS(int32_t, LOOM_OP_LAND, LOOM_DTYPE_INT32, "%d", s32_land);
    TEST_CHECK_PAIRS(int32_t, LOOM_OP_LXOR, LOOM_DTYPE_INT32, "%d", s32_lxor);
    TEST_CHECK_PAIRS(uint64_t, LOOM_OP_LAND, LOOM_DTYPE_UINT64, "%" PRIu64, u64_land);
    TEST_CHECK_PAIRS(int64_t, LOOM_OP_LXOR, LOOM_DTYPE_INT64, "%" PRId64, s64_lxor);
}
END_TEST

int main(void)
{
    Suite *s = suite_create("reduce_kernels");
    TCase *tc = tcase_create("kernels");

#if defined(LOOM_KERNEL_TEST_ISA) && LOOM_KERNEL_TEST_ISA == 3 && \
    defined(__x86_64__) && defined(__GNUC__) && !defined(__clang__) && __GNUC__ >= 12
    if (!__builtin_cpu_supports("x86-64-v3")) {
        printf("skipped: this CPU cannot run the x86-64-v3 kernels\n");
        return 77; /* automake's "skipped" */
    }
#endif
    tcase_add_test(tc, test_names_and_sizes);
    tcase_add_test(tc, test_kernel_table);
    tcase_add_loop_test(tc, test_against_reference, 0,
                        LOOM_OP_COUNT * LOOM_DTYPE_COUNT);
    tcase_add_test(tc, test_integer_wraparound);
    tcase_add_test(tc, test_float_min_max_specials);
    tcase_add_test(tc, test_logical_nonboolean_inputs);
    suite_add_tcase(s, tc);
    return loom_check_run(s);
}
