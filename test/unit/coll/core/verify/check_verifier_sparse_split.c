/*
 * The verifier (verifier.h) on split-and-reduce (sparse_split.c): every
 * message of the all-to-all exchanges, the report and kept-slot gathers
 * (Bruck) and the dense ring meets its receive, no compute step reads
 * what is in flight or was never written (the steps declare their
 * memory, sched.h), nothing deadlocks, in both delivery orders, under
 * random rank orders, in place or not.  The result is not the dense sum
 * loom_verify_sparse_allreduce expects: without a state every call
 * estimates, so each owner keeps its region's top ceil(K/p) sums; the
 * reference below computes that from the very selections the ranks make.
 */
#include "test/unit/support/verifier.h"
#include "coll/core/parts/partition.h"
#include "common/log.h"

#include <check.h>
#include "test/unit/support/check_main.h"
#include <math.h>
#include <stdlib.h>
#include <string.h>

static const size_t counts[] = { 1, 4, 13 };

/* The reference for the parameters it was computed for. */
static struct {
    uint64_t                seed;
    int                     p;
    size_t                  count;
    loom_verify_sparse_t    sp;
    double                  *ref;   /* 2 * count doubles */
} cache;

typedef struct cand {
    double  mag;
    size_t  i;
} cand_t;

static int cand_cmp(const void *a, const void *b)
{
    const cand_t *x = a, *y = b;

    if (x->mag != y->mag) {
        return x->mag < y->mag ? 1 : -1;
    }
    return x->i < y->i ? -1 : x->i > y->i;
}

/* Every rank's selection, as its select writes it, summed into sum. */
static size_t ref_sum(const loom_verify_params_t *pa, size_t n, double *sum)
{
    double *block = calloc(2 * n + 2, sizeof(double));
    size_t k, j, total = 0;
    uint32_t idx;
    double v;
    int q;

    for (q = 0; q < pa->nranks; ++q) {
        loom_coll_args_t a = { .count = 0 };

        loom_verify_sparse_allreduce.args(pa, q, &a);
        ck_assert_ptr_nonnull(a.sparse);
        ck_assert_int_eq(a.sparse->select(a.sparse->ctx, block, &k), LOOM_OK);
        for (j = 0; j < k; ++j) {
            memcpy(&v, (char *)block + j * sizeof(double), sizeof(v));
            memcpy(&idx, (char *)block + k * sizeof(double) + j * sizeof(idx), sizeof(idx));
            sum[idx] += v;
        }
        total += k;
    }
    free(block);
    return total;
}

static void ref_compute(const loom_verify_params_t *pa)
{
    size_t n = 2 * pa->count, K, m, lo, hi, i, c, q;
    loom_spread_t s = loom_spread(n, pa->nranks);
    double *sum = calloc(n + 1, sizeof(double));
    cand_t *cand = calloc(n + 1, sizeof(cand_t));
    int j;

    K = (ref_sum(pa, n, sum) + (size_t)pa->nranks - 1) / (size_t)pa->nranks;
    m = (K + (size_t)pa->nranks - 1) / (size_t)pa->nranks;
    free(cache.ref);
    cache.ref = calloc(n + 1, sizeof(double));
    for (j = 0; j < pa->nranks; ++j) {
        lo = loom_spread_offset(s, j);
        hi = loom_spread_offset(s, j + 1);
        for (c = 0, i = lo; i < hi; ++i) {
            if (sum[i] != 0) {
                cand[c++] = (cand_t){ fabs(sum[i]), i };
            }
        }
        qsort(cand, c, sizeof(cand_t), cand_cmp);
        for (q = 0; q < c && q < m; ++q) {
            cache.ref[cand[q].i] = sum[cand[q].i];
        }
    }
    free(sum);
    free(cand);
    cache.seed = pa->seed;
    cache.p = pa->nranks;
    cache.count = pa->count;
    cache.sp = *pa->sparse;
}

static int split_expected(const loom_verify_params_t *pa, int rank, size_t i, void *elem)
{
    (void)rank;
    if (cache.ref == NULL || cache.seed != pa->seed || cache.p != pa->nranks ||
        cache.count != pa->count || memcmp(&cache.sp, pa->sparse, sizeof(cache.sp)) != 0) {
        ref_compute(pa);
    }
    memcpy(elem, cache.ref + 2 * i, 2 * sizeof(double));
    return 1;
}

static void verify_one(int p, size_t count, const loom_verify_sparse_t *sp, uint64_t seed)
{
    loom_verify_coll_t coll = loom_verify_sparse_allreduce;
    loom_verify_params_t pa = {
        .name = "sparse split", .coll = &coll, .plan = loom_sparse_split_plan, .nranks = p,
        .count = count, .op = LOOM_VERIFY_OP_SUM, .seed = seed, .sparse = sp,
        .order = seed & 1 ? LOOM_VERIFY_ORDER_LATE_DELIVERY : LOOM_VERIFY_ORDER_UNIFORM,
        .rank_permute = (seed >> 1) & 1,
        .in_place = (seed >> 2) & 1,
        .seg_bytes = (seed >> 3) & 1 ? 16 : 0,
    };
    loom_verify_report_t rep;

    coll.name = "sparse_split";
    coll.expected = split_expected;
    ck_assert_int_eq(loom_verify_run(&pa, &rep), LOOM_OK);
    ck_assert_msg(rep.verdict == LOOM_VERIFY_PASS, "p %d count %zu support %d kmax %zu path %d: "
                  "%s: %s", p, count, (int)sp->support, sp->kmax, (int)sp->path,
                  loom_verify_verdict_name(rep.verdict), rep.message);
}

static void sweep(loom_verify_support_t support, int kmax_third, int nseeds)
{
    loom_verify_sparse_t sp = { .support = support };
    uint64_t seed;
    size_t ci;
    int p, path;

    for (p = 1; p <= 9; ++p) {
        for (ci = 0; ci < sizeof(counts) / sizeof(counts[0]); ++ci) {
            for (path = LOOM_SPARSE_PATH_MODEL; path <= LOOM_SPARSE_PATH_DENSE; ++path) {
                sp.path = (loom_sparse_path_t)path;
                sp.kmax = kmax_third ? 2 * counts[ci] / 3 + 1 : 0;
                for (seed = 0; seed < (uint64_t)nseeds; ++seed) {
                    verify_one(p, counts[ci], &sp, seed * 0x9E3779B9u + (uint64_t)p);
                }
            }
        }
    }
}

START_TEST(test_random_supports)
{
    sweep(LOOM_VERIFY_SUPPORT_RANDOM, 0, 16);
    sweep(LOOM_VERIFY_SUPPORT_RANDOM, 1, 16);
}
END_TEST

START_TEST(test_all_empty)
{
    sweep(LOOM_VERIFY_SUPPORT_EMPTY, 0, 8);
}
END_TEST

START_TEST(test_all_full)
{
    sweep(LOOM_VERIFY_SUPPORT_FULL, 0, 8);
}
END_TEST

/* Beyond the small sweeps: 16 and 33 ranks, where most regions get few
 * pairs and some none. */
START_TEST(test_many_ranks)
{
    loom_verify_sparse_t sp = { .support = LOOM_VERIFY_SUPPORT_RANDOM, .kmax = 5 };
    uint64_t seed;

    for (seed = 0; seed < 4; ++seed) {
        verify_one(16, 40, &sp, seed * 0x9E3779B9u + 16);
        verify_one(33, 20, &sp, seed * 0x9E3779B9u + 33);
    }
}
END_TEST

int main(void)
{
    Suite *s = suite_create("verifier_sparse_split");
    TCase *tc = tcase_create("split");
    int rc;

    tcase_set_timeout(tc, 300);
    tcase_add_test(tc, test_random_supports);
    tcase_add_test(tc, test_all_empty);
    tcase_add_test(tc, test_all_full);
    tcase_add_test(tc, test_many_ranks);
    suite_add_tcase(s, tc);
    rc = loom_check_run(s);
    free(cache.ref);
    return rc;
}
