/*
 * Top-k selection against a reference written here: qsort of (magnitude
 * key, index) pairs, largest key first, lower index first among equals.
 * Exact selection must match it bit for bit on every shape of data (ties,
 * negatives, denormals, zeros, NaN, Inf) and every k from 0 to past n;
 * sampled selection must take about k entries, never misorder them, and
 * fall back to exact when too many pass.
 */
#include "coll/core/filter/topk.h"

#include <check.h>
#include "test/unit/support/check_main.h"
#include <math.h>
#include <stdint.h>
#include <stdlib.h>
#include <string.h>

typedef struct ref_entry {
    uint64_t key;
    uint32_t index;
} ref_entry_t;

static int ref_cmp(const void *a, const void *b)
{
    const ref_entry_t *x = a, *y = b;

    if (x->key != y->key) {
        return x->key > y->key ? -1 : 1;
    }
    return x->index < y->index ? -1 : (x->index > y->index);
}

static int ref_cmp_index(const void *a, const void *b)
{
    const ref_entry_t *x = a, *y = b;

    return x->index < y->index ? -1 : (x->index > y->index);
}

/* The key, computed independently of topk.c: |x| ordered, NaN on top. */
static uint64_t ref_key(loom_filter_type_t type, const void *acc, size_t i)
{
    if (type == LOOM_FILTER_FLOAT) {
        uint32_t u;
        memcpy(&u, (const float *)acc + i, 4);
        return u & 0x7fffffffu;
    } else {
        uint64_t u;
        memcpy(&u, (const double *)acc + i, 8);
        return u & ~(UINT64_C(1) << 63);
    }
}

static uint64_t test_rand_state = 88172645463325252ull;

static uint64_t test_rand(void)
{
    test_rand_state ^= test_rand_state << 13;
    test_rand_state ^= test_rand_state >> 7;
    test_rand_state ^= test_rand_state << 17;
    return test_rand_state;
}

enum { DATA_RANDOM, DATA_TIES, DATA_DENORMAL, DATA_SPECIAL, DATA_KINDS };

/* A value of the kind: uniform in (-1, 1); few distinct values, both
 * signs (ties between x and -x too); denormals and zeros; some NaN and
 * Inf among ordinary values. */
static double test_value(int kind, loom_filter_type_t type)
{
    uint64_t r = test_rand();

    switch (kind) {
    case DATA_TIES:
        return (double)((int)(r % 7) - 3) * 0.5;
    case DATA_DENORMAL:
        if (r % 4 == 0) {
            return (r & 16) ? -0.0 : 0.0;
        }
        return (type == LOOM_FILTER_FLOAT ? 1e-40 : 1e-310) *
               (double)((int)((r >> 8) % 9) - 4);
    case DATA_SPECIAL:
        switch (r % 16) {
        case 0: return NAN;
        case 1: return INFINITY;
        case 2: return -INFINITY;
        default: break;
        }
        /* fall through */
    default:
        return ((double)(r >> 11) / 9007199254740992.0) * 2.0 - 1.0;
    }
}

static void *test_data(loom_filter_type_t type, int kind, size_t n)
{
    size_t size = loom_filter_type_size(type), i;
    char *acc = malloc(n * size + 1);

    ck_assert_ptr_nonnull(acc);
    for (i = 0; i < n; i++) {
        double v = test_value(kind, type);
        if (type == LOOM_FILTER_FLOAT) {
            float f = (float)v;
            memcpy(acc + i * size, &f, size);
        } else {
            memcpy(acc + i * size, &v, size);
        }
    }
    return acc;
}

/* Exact selection of k from acc, compared with the reference. */
static void test_exact_one(loom_filter_type_t type, const void *acc, size_t n,
                           size_t k)
{
    size_t size = loom_filter_type_size(type);
    size_t want = k < n ? k : n, cap = loom_topk_capacity(n, k, n);
    ref_entry_t *ref = malloc((n + 1) * sizeof(*ref));
    uint32_t *index = malloc((cap + 1) * sizeof(*index));
    char *value = malloc((cap + 1) * size);
    loom_topk_args_t args = {
        .type = type, .acc = acc, .count = n, .k = k, .exact_max = n,
        .index_out = index, .value_out = value,
    };
    size_t selected = (size_t)-1, i;

    ck_assert_uint_eq(cap, want);
    for (i = 0; i < n; i++) {
        ref[i].key = ref_key(type, acc, i);
        ref[i].index = (uint32_t)i;
        ck_assert_uint_eq(loom_topk_key(type, acc, i), ref[i].key);
    }
    qsort(ref, n, sizeof(*ref), ref_cmp);
    qsort(ref, want, sizeof(*ref), ref_cmp_index);

    ck_assert_int_eq(loom_topk_select(&args, &selected), LOOM_OK);
    ck_assert_uint_eq(selected, want);
    for (i = 0; i < want; i++) {
        ck_assert_msg(index[i] == ref[i].index,
                      "type %d n %zu k %zu: entry %zu is %u, want %u", type,
                      n, k, i, index[i], ref[i].index);
        ck_assert(memcmp(value + i * size, (const char *)acc +
                         (size_t)ref[i].index * size, size) == 0);
    }
    free(value);
    free(index);
    free(ref);
}

START_TEST(test_exact_against_sort)
{
    static const size_t ns[] = { 0, 1, 2, 3, 7, 64, 100, 1000, 4097 };
    loom_filter_type_t type = (loom_filter_type_t)(_i % 2);
    int kind = _i / 2;
    size_t t;

    for (t = 0; t < sizeof(ns) / sizeof(ns[0]); t++) {
        size_t n = ns[t];
        size_t ks[] = { 0, 1, 2, n / 100, n / 10, n / 2, n > 0 ? n - 1 : 0,
                        n, n + 5 };
        void *acc = test_data(type, kind, n);
        size_t j;

        for (j = 0; j < sizeof(ks) / sizeof(ks[0]); j++) {
            test_exact_one(type, acc, n, ks[j]);
        }
        free(acc);
    }
}
END_TEST

START_TEST(test_all_equal_takes_lowest_indices)
{
    float acc[50];
    uint32_t index[10];
    float value[10];
    loom_topk_args_t args = {
        .type = LOOM_FILTER_FLOAT, .acc = acc, .count = 50, .k = 10,
        .exact_max = 50, .index_out = index, .value_out = value,
    };
    size_t selected, i;

    for (i = 0; i < 50; i++) {
        acc[i] = (i % 2) ? -2.0f : 2.0f;
    }
    ck_assert_int_eq(loom_topk_select(&args, &selected), LOOM_OK);
    ck_assert_uint_eq(selected, 10);
    for (i = 0; i < 10; i++) {
        ck_assert_uint_eq(index[i], i);
        ck_assert(value[i] == acc[i]);
    }
}
END_TEST

START_TEST(test_nan_first_then_inf)
{
    double acc[6] = { 1.0, -INFINITY, 3.0, NAN, -1e300, 0.0 };
    uint32_t index[6];
    double value[6];
    loom_topk_args_t args = {
        .type = LOOM_FILTER_DOUBLE, .acc = acc, .count = 6, .k = 1,
        .exact_max = 6, .index_out = index, .value_out = value,
    };
    size_t selected;

    ck_assert_int_eq(loom_topk_select(&args, &selected), LOOM_OK);
    ck_assert_uint_eq(selected, 1);
    ck_assert_uint_eq(index[0], 3);
    ck_assert(isnan(value[0]));
    args.k = 3;
    ck_assert_int_eq(loom_topk_select(&args, &selected), LOOM_OK);
    ck_assert_uint_eq(selected, 3);
    ck_assert_uint_eq(index[0], 1);
    ck_assert_uint_eq(index[1], 3);
    ck_assert_uint_eq(index[2], 4);
}
END_TEST

START_TEST(test_rejects)
{
    float one = 1.0f;
    uint32_t index[1];
    float value[1];
    loom_topk_args_t args = {
        .type = LOOM_FILTER_FLOAT, .acc = &one, .count = (size_t)1 << 32,
        .k = 1, .exact_max = 1, .index_out = index, .value_out = value,
    };
    size_t selected = 12345;

    if (sizeof(size_t) > 4) {
        ck_assert_int_eq(loom_topk_select(&args, &selected),
                         LOOM_ERR_INVALID_PARAM);
    }
    args.count = 1;
    args.type = LOOM_FILTER_TYPE_COUNT;
    ck_assert_int_eq(loom_topk_select(&args, &selected),
                     LOOM_ERR_INVALID_PARAM);
    ck_assert_uint_eq(selected, 12345);
}
END_TEST

/* Sampled: about k taken, in index order, every taken magnitude >= every
 * untaken one. */
static void test_sampled_one(loom_filter_type_t type, const void *acc,
                             size_t n, size_t k, size_t exact_max,
                             size_t *selected_p)
{
    size_t size = loom_filter_type_size(type);
    size_t cap = loom_topk_capacity(n, k, exact_max);
    uint32_t *index = malloc(cap * sizeof(*index));
    char *value = malloc(cap * size);
    char *taken = calloc(n, 1);
    loom_topk_args_t args = {
        .type = type, .acc = acc, .count = n, .k = k, .exact_max = exact_max,
        .index_out = index, .value_out = value,
    };
    uint64_t min_taken = UINT64_MAX, max_untaken = 0;
    size_t selected, i;

    ck_assert_uint_eq(cap, k <= n / 2 ? 2 * k : n);
    ck_assert_int_eq(loom_topk_select(&args, &selected), LOOM_OK);
    ck_assert_uint_le(selected, cap);
    ck_assert_uint_ge(selected, 1);
    for (i = 0; i < selected; i++) {
        ck_assert_uint_lt(index[i], n);
        if (i > 0) {
            ck_assert_uint_gt(index[i], index[i - 1]);
        }
        ck_assert(memcmp(value + i * size,
                         (const char *)acc + (size_t)index[i] * size,
                         size) == 0);
        taken[index[i]] = 1;
        if (ref_key(type, acc, index[i]) < min_taken) {
            min_taken = ref_key(type, acc, index[i]);
        }
    }
    for (i = 0; i < n; i++) {
        if (!taken[i] && ref_key(type, acc, i) > max_untaken) {
            max_untaken = ref_key(type, acc, i);
        }
    }
    ck_assert_msg(selected == n || min_taken >= max_untaken,
                  "an untaken magnitude is above a taken one");
    *selected_p = selected;
    free(taken);
    free(value);
    free(index);
}

START_TEST(test_sampled_count_and_order)
{
    loom_filter_type_t type = (loom_filter_type_t)_i;
    size_t n = (size_t)1 << 20;
    size_t ks[] = { 1000, 10000, 100000 };
    void *acc = test_data(type, DATA_RANDOM, n);
    size_t j, selected;

    for (j = 0; j < 3; j++) {
        test_sampled_one(type, acc, n, ks[j], 4096, &selected);
        /* The stated tolerance (topk.h): within +-25% of k. */
        ck_assert_msg(selected * 4 >= ks[j] * 3 && selected * 4 <= ks[j] * 5,
                      "k %zu: took %zu", ks[j], selected);
    }
    free(acc);
}
END_TEST

/* Ties everywhere: the sampled threshold lets far more than 2k pass, so
 * the exact selection runs, and the result is exactly the reference. */
START_TEST(test_sampled_falls_back_on_ties)
{
    size_t n = (size_t)1 << 19, k = 2000, selected;
    void *acc = test_data(LOOM_FILTER_FLOAT, DATA_TIES, n);

    test_sampled_one(LOOM_FILTER_FLOAT, acc, n, k, 1024, &selected);
    ck_assert_uint_eq(selected, k);
    test_exact_one(LOOM_FILTER_FLOAT, acc, n, k);
    free(acc);
}
END_TEST

/* The same data gives the same choice: the sample is seeded. */
START_TEST(test_sampled_deterministic)
{
    size_t n = (size_t)1 << 18, k = 5000, cap = loom_topk_capacity(n, k, 1);
    double *acc = test_data(LOOM_FILTER_DOUBLE, DATA_RANDOM, n);
    uint32_t *a = malloc(cap * 4), *b = malloc(cap * 4);
    double *va = malloc(cap * 8), *vb = malloc(cap * 8);
    loom_topk_args_t args = {
        .type = LOOM_FILTER_DOUBLE, .acc = acc, .count = n, .k = k,
        .exact_max = 1, .index_out = a, .value_out = va,
    };
    size_t sa, sb;

    ck_assert_int_eq(loom_topk_select(&args, &sa), LOOM_OK);
    args.index_out = b;
    args.value_out = vb;
    ck_assert_int_eq(loom_topk_select(&args, &sb), LOOM_OK);
    ck_assert_uint_eq(sa, sb);
    ck_assert(memcmp(a, b, sa * 4) == 0);
    free(vb);
    free(va);
    free(b);
    free(a);
    free(acc);
}
END_TEST

int main(void)
{
    Suite *s = suite_create("topk");
    TCase *tc = tcase_create("topk");

    tcase_set_timeout(tc, 60);
    tcase_add_loop_test(tc, test_exact_against_sort, 0, 2 * DATA_KINDS);
    tcase_add_test(tc, test_all_equal_takes_lowest_indices);
    tcase_add_test(tc, test_nan_first_then_inf);
    tcase_add_test(tc, test_rejects);
    tcase_add_loop_test(tc, test_sampled_count_and_order, 0, 2);
    tcase_add_test(tc, test_sampled_falls_back_on_ties);
    tcase_add_test(tc, test_sampled_deterministic);
    suite_add_tcase(s, tc);
    return loom_check_run(s);
}
