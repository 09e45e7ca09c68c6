/*
 * Error feedback: over many steps, everything sent plus the residual is
 * exactly everything put in, per element (inputs are small integers, so
 * every sum is exact in float and double); without momentum the residual
 * is exactly what was not sent; momentum correction follows DGC's update;
 * the warm-up schedule and k.
 */
#include "coll/core/filter/feedback.h"
#include "coll/core/filter/topk.h"

#include <check.h>
#include "test/unit/support/check_main.h"
#include <math.h>
#include <stdint.h>
#include <stdlib.h>
#include <string.h>

static uint64_t test_rand_state = 0x2545f4914f6cdd1dull;

static uint64_t test_rand(void)
{
    test_rand_state ^= test_rand_state << 13;
    test_rand_state ^= test_rand_state >> 7;
    test_rand_state ^= test_rand_state << 17;
    return test_rand_state;
}

static double test_get(loom_filter_type_t type, const void *buf, size_t i)
{
    return type == LOOM_FILTER_FLOAT ? (double)((const float *)buf)[i]
                                     : ((const double *)buf)[i];
}

static void test_set(loom_filter_type_t type, void *buf, size_t i, double v)
{
    if (type == LOOM_FILTER_FLOAT) {
        ((float *)buf)[i] = (float)v;
    } else {
        ((double *)buf)[i] = v;
    }
}

/* _i: type, and whether the sampled path runs (exact_max 1). */
START_TEST(test_exact_accounting)
{
    loom_filter_type_t type = (loom_filter_type_t)(_i % 2);
    size_t exact_max = (_i / 2) ? 1 : SIZE_MAX;
    size_t count = (_i / 2) ? 40000 : 3000, size = loom_filter_type_size(type);
    size_t steps = 60, k = count / 100;
    size_t cap = loom_topk_capacity(count, k, exact_max);
    char *input = malloc(count * size), *residual = calloc(count, size);
    char *before = malloc(count * size), *value = malloc(cap * size);
    uint32_t *index = malloc(cap * sizeof(*index));
    double *put = calloc(count, sizeof(double));
    double *sent = calloc(count, sizeof(double));
    char *chosen = malloc(count);
    size_t step, i, j, selected, total = 0;

    for (step = 0; step < steps; step++) {
        loom_feedback_args_t args = {
            .type = type, .count = count, .input = input,
            .residual = residual, .k = k, .exact_max = exact_max,
            .index_out = index, .value_out = value,
        };

        for (i = 0; i < count; i++) {
            /* Integers in [-8, 8], a few large ones: all sums exact. */
            double g = (double)((int)(test_rand() % 17) - 8);
            if (test_rand() % 50 == 0) {
                g *= 64.0;
            }
            test_set(type, input, i, g);
            put[i] += g;
        }
        memcpy(before, residual, count * size);
        ck_assert_int_eq(loom_feedback_run(&args, &selected), LOOM_OK);
        ck_assert_uint_le(selected, cap);
        total += selected;

        memset(chosen, 0, count);
        for (j = 0; j < selected; j++) {
            ck_assert(j == 0 || index[j] > index[j - 1]);
            chosen[index[j]] = 1;
            sent[index[j]] += test_get(type, value, j);
        }
        for (i = 0; i < count; i++) {
            double acc = test_get(type, before, i) + test_get(type, input, i);
            /* The residual is exactly what was not sent. */
            ck_assert(test_get(type, residual, i) == (chosen[i] ? 0.0 : acc));
        }
        for (j = 0; j < selected; j++) {
            ck_assert(test_get(type, value, j) ==
                      test_get(type, before, index[j]) +
                      test_get(type, input, index[j]));
        }
    }
    for (i = 0; i < count; i++) {
        ck_assert_msg(sent[i] + test_get(type, residual, i) == put[i],
                      "element %zu: sent %g + residual %g != put in %g", i,
                      sent[i], test_get(type, residual, i), put[i]);
    }
    /* About k a step, however it was selected. */
    ck_assert_uint_ge(total, steps * k * 3 / 4);
    ck_assert_uint_le(total, steps * k * 5 / 4);
    free(chosen);
    free(sent);
    free(put);
    free(index);
    free(value);
    free(before);
    free(residual);
    free(input);
}
END_TEST

/* DGC momentum correction: u = m u + g, v += u, select on v, clear u and
 * v where sent.  m = 0.5 and integer inputs keep everything exact. */
START_TEST(test_momentum_correction)
{
    enum { COUNT = 64, STEPS = 20, K = 4 };
    double input[COUNT], v[COUNT] = { 0 }, u[COUNT] = { 0 };
    double ref_v[COUNT] = { 0 }, ref_u[COUNT] = { 0 }, value[K];
    uint32_t index[K];
    size_t step, i, j, selected;

    for (step = 0; step < STEPS; step++) {
        loom_feedback_args_t args = {
            .type = LOOM_FILTER_DOUBLE, .count = COUNT, .input = input,
            .residual = v, .momentum = u, .momentum_factor = 0.5, .k = K,
            .exact_max = COUNT, .index_out = index, .value_out = value,
        };

        for (i = 0; i < COUNT; i++) {
            input[i] = (double)((int)(test_rand() % 9) - 4);
            ref_u[i] = 0.5 * ref_u[i] + input[i];
            ref_v[i] += ref_u[i];
        }
        ck_assert_int_eq(loom_feedback_run(&args, &selected), LOOM_OK);
        ck_assert_uint_eq(selected, K);
        for (j = 0; j < K; j++) {
            ck_assert(value[j] == ref_v[index[j]]);
            ref_v[index[j]] = 0.0;
            ref_u[index[j]] = 0.0;
        }
        for (i = 0; i < COUNT; i++) {
            ck_assert(v[i] == ref_v[i]);
            ck_assert(u[i] == ref_u[i]);
        }
    }
}
END_TEST

START_TEST(test_rejects)
{
    float one = 1.0f, value[1];
    uint32_t index[1];
    loom_feedback_args_t args = {
        .type = LOOM_FILTER_TYPE_COUNT, .count = 1, .input = &one,
        .residual = &one, .k = 1, .exact_max = 1, .index_out = index,
        .value_out = value,
    };
    size_t selected = 77;

    ck_assert_int_eq(loom_feedback_run(&args, &selected),
                     LOOM_ERR_INVALID_PARAM);
    ck_assert_uint_eq(selected, 77);
    ck_assert(one == 1.0f);
}
END_TEST

START_TEST(test_warmup_density)
{
    loom_filter_spec_t spec;

    loom_filter_spec_set_dense(&spec);
    ck_assert(loom_filter_density(&spec, 0) == 1.0);
    spec.enabled = 1;
    spec.density = 0.001;
    ck_assert(loom_filter_density(&spec, 0) == 0.001);
    spec.warmup = 4;
    /* DGC's schedule: 25%, 6.25%, 1.5625%, 0.4%, then 0.1%. */
    ck_assert(fabs(loom_filter_density(&spec, 0) - 0.2512) < 1e-4);
    ck_assert(fabs(loom_filter_density(&spec, 1) - 0.0631) < 1e-4);
    ck_assert(fabs(loom_filter_density(&spec, 2) - 0.0158) < 1e-4);
    ck_assert(fabs(loom_filter_density(&spec, 3) - 0.00398) < 1e-5);
    ck_assert(loom_filter_density(&spec, 4) == 0.001);
    ck_assert(loom_filter_density(&spec, UINT64_MAX) == 0.001);
}
END_TEST

START_TEST(test_k)
{
    ck_assert_uint_eq(loom_filter_k(0.01, 0), 0);
    ck_assert_uint_eq(loom_filter_k(0.01, 1), 1);
    ck_assert_uint_eq(loom_filter_k(0.01, 1000), 10);
    ck_assert_uint_eq(loom_filter_k(0.01, 1001), 11);
    ck_assert_uint_eq(loom_filter_k(1e-9, 1000), 1);
    ck_assert_uint_eq(loom_filter_k(1.0, 1000), 1000);
    ck_assert_uint_eq(loom_filter_k(0.5, 4294967295u), 2147483648u);
}
END_TEST

int main(void)
{
    Suite *s = suite_create("feedback");
    TCase *tc = tcase_create("feedback");

    tcase_set_timeout(tc, 60);
    tcase_add_loop_test(tc, test_exact_accounting, 0, 4);
    tcase_add_test(tc, test_momentum_correction);
    tcase_add_test(tc, test_rejects);
    tcase_add_test(tc, test_warmup_density);
    tcase_add_test(tc, test_k);
    suite_add_tcase(s, tc);
    return loom_check_run(s);
}
