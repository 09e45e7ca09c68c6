/* The sparse allreduce's recursive-doubling merge (sparse_merge.c) on the
 * loopback transport: every rank ends with the dense sum of every rank's
 * selection, bitwise the same everywhere, at 1 to 9, 12, 16 and 17 ranks
 * (powers of two and folds), on the model's path and both forced ones;
 * the stage the merge goes dense at and the bytes it sends, from the
 * sizes; its model against what a run sends; and a bad selection failing
 * every rank instead of leaving any waiting. */
#include "coll/core/sparse/sparse.h"
#include "coll/core/filter/pairs.h"
#include "test/unit/support/check_main.h"
#include "test/unit/support/loopback_harness.h"

#include <check.h>
#include <math.h>
#include <stdint.h>
#include <stdlib.h>
#include <string.h>

#define MAX_RANKS 17
/* The merge's header before every payload: five 64-bit words. */
#define HDR_BYTES 40

static const int rank_counts[] = { 1, 2, 3, 4, 5, 6, 7, 8, 9, 12, 16, 17 };
#define NRANK_COUNTS ((int)(sizeof(rank_counts) / sizeof(rank_counts[0])))

/* One rank's selection: k pairs at the given indices, as floats or
 * doubles. */
typedef struct pick {
    loom_filter_type_t  type;
    size_t              count;
    size_t              k;
    uint32_t            *idx;
    double              *val;
    int                 calls;
    size_t              k_claimed;  /* what select says it wrote (tests a liar) */
} pick_t;

static loom_status_t pick_select(void *ctx, void *block, size_t *k_p)
{
    pick_t *pk = ctx;
    float *f = malloc((pk->k + 1) * sizeof(float));
    size_t i;

    ++pk->calls;
    if (pk->type == LOOM_FILTER_FLOAT) {
        for (i = 0; i < pk->k; ++i) {
            f[i] = (float)pk->val[i];
        }
        loom_pairs_encode(pk->idx, f, pk->k, pk->type, block);
    } else {
        loom_pairs_encode(pk->idx, pk->val, pk->k, pk->type, block);
    }
    free(f);
    *k_p = pk->k_claimed;
    return LOOM_OK;
}

/* k random distinct indices of count, ascending, values small nonzero
 * integers (every sum exact), or any value in -1..1 when real. */
static void pick_random(pick_t *pk, size_t k, int real, unsigned *seed)
{
    size_t i, n = 0;

    for (i = 0; i < pk->count && n < k; ++i) {
        if ((size_t)rand_r(seed) % (pk->count - i) < k - n) {
            pk->idx[n] = (uint32_t)i;
            pk->val[n] = real ? (double)rand_r(seed) / RAND_MAX * 2 - 1
                              : (double)(rand_r(seed) % 8 + 1) * (rand_r(seed) % 2 ? 1 : -1);
            ++n;
        }
    }
    pk->k = pk->k_claimed = n;
}

/* k consecutive indices from first, values 1 + (index % 5). */
static void pick_range(pick_t *pk, size_t first, size_t k)
{
    size_t j;

    for (j = 0; j < k; ++j) {
        pk->idx[j] = (uint32_t)(first + j);
        pk->val[j] = (double)(1 + (first + j) % 5);
    }
    pk->k = pk->k_claimed = k;
}

typedef struct run {
    int                     p;
    size_t                  count;
    loom_filter_type_t      type;
    loom_sparse_path_t      path;
    pick_t                  picks[MAX_RANKS];
    loom_sparse_args_t      sp[MAX_RANKS];
    loom_sparse_outcome_t   out[MAX_RANKS];
    loom_status_t           status[MAX_RANKS];
    char                    *recv[MAX_RANKS];
    double                  *expect;
} run_t;

static void run_init(run_t *rn, int p, size_t count, loom_filter_type_t type, size_t kmax)
{
    int r;

    memset(rn, 0, sizeof(*rn));
    rn->p = p;
    rn->count = count;
    rn->type = type;
    rn->expect = calloc(count + 1, sizeof(double));
    for (r = 0; r < p; ++r) {
        rn->picks[r] = (pick_t){ .type = type, .count = count,
                                 .idx = calloc(count + 1, sizeof(uint32_t)),
                                 .val = calloc(count + 1, sizeof(double)) };
        rn->recv[r] = calloc(count + 1, sizeof(double));
        rn->sp[r] = (loom_sparse_args_t){
            .select = pick_select, .ctx = &rn->picks[r], .kmax = kmax,
            .cost = { .alpha = 2e-6, .beta = 1e-10, .gamma = 1e-10 },
        };
    }
}

static void run_fini(run_t *rn)
{
    int r;

    for (r = 0; r < rn->p; ++r) {
        free(rn->picks[r].idx);
        free(rn->picks[r].val);
        free(rn->recv[r]);
    }
    free(rn->expect);
}

/* Plans every rank with the merge, runs them round robin until every rank
 * is done or failed (rn->status); the first failure, or LOOM_OK. */
static loom_status_t run_go(run_t *rn, harness_t *h)
{
    loom_sched_t *sched[MAX_RANKS] = { NULL };
    loom_status_t first = LOOM_OK;
    int r, busy, rounds = 0;
    size_t i, j;

    for (i = 0; i < rn->count; ++i) {
        rn->expect[i] = 0;
    }
    for (r = 0; r < rn->p; ++r) {
        loom_coll_args_t a = {
            .recvbuf = rn->recv[r], .count = rn->count,
            .elem_size = loom_filter_type_size(rn->type),
            .op = { .fn = harness_sum_double, .commutative = 1 },
            .sparse = &rn->sp[r], .in_place = 1,
        };

        rn->sp[r].path = rn->path;
        /* Garbage where the result goes: the schedule must write it all. */
        memset(rn->recv[r], 0x5a, rn->count * a.elem_size);
        for (j = 0; j < rn->picks[r].k; ++j) {
            rn->expect[rn->picks[r].idx[j]] += rn->picks[r].val[j];
        }
        ck_assert_int_eq(loom_sparse_merge_plan(&a, h->teams[r], &sched[r]), LOOM_OK);
        rn->status[r] = LOOM_INPROGRESS;
    }
    do {
        busy = 0;
        for (r = 0; r < rn->p; ++r) {
            if (rn->status[r] == LOOM_INPROGRESS) {
                rn->status[r] = loom_sched_progress(sched[r]);
                busy |= rn->status[r] == LOOM_INPROGRESS;
            }
        }
    } while (busy && ++rounds < 1000000);
    ck_assert_int_lt(rounds, 1000000);
    for (r = 0; r < rn->p; ++r) {
        if (rn->status[r] == LOOM_OK) {
            ck_assert_int_eq(loom_sparse_outcome(sched[r], &rn->out[r]), LOOM_OK);
        } else if (first == LOOM_OK) {
            first = rn->status[r];
        }
        loom_sched_destroy(sched[r]);
    }
    return first;
}

static double run_got(const run_t *rn, int r, size_t i)
{
    return rn->type == LOOM_FILTER_FLOAT ? ((const float *)rn->recv[r])[i]
                                         : ((const double *)rn->recv[r])[i];
}

/* Every rank holds the same bytes, within tol of the expected sum (0:
 * exactly), and agrees on the outcome; each selected once. */
static void run_check(const run_t *rn, double tol)
{
    size_t i, es = loom_filter_type_size(rn->type);
    int r;

    for (r = 0; r < rn->p; ++r) {
        for (i = 0; i < rn->count; ++i) {
            double got = run_got(rn, r, i);

            ck_assert_msg(fabs(got - rn->expect[i]) <= tol,
                          "p %d rank %d element %zu: %g, expected %g", rn->p, r, i, got,
                          rn->expect[i]);
        }
        ck_assert_int_eq(memcmp(rn->recv[r], rn->recv[0], rn->count * es), 0);
        ck_assert_int_eq(rn->picks[r].calls, 1);
        ck_assert_int_eq(rn->out[r].alg, LOOM_SPARSE_MERGE);
        ck_assert_uint_eq(rn->out[r].pairs, rn->picks[r].k);
        ck_assert_int_eq(rn->out[r].dense, rn->out[0].dense);
        ck_assert_int_eq(rn->out[r].dense_stage, rn->out[0].dense_stage);
        ck_assert_int_eq(rn->out[r].dense, rn->out[r].dense_stage >= 0);
    }
}

/* The first slot of a forced dense run: the fold where there is one. */
static int dense_first(int p)
{
    return p == 1 ? -1 : (p & (p - 1)) != 0 ? 0 : 1;
}

/* Random supports, overlapping, some empty, counts below p among them;
 * both types, every path. */
START_TEST(test_random_supports)
{
    static const size_t counts[] = { 1, 7, 100, 1000 };
    unsigned seed = 17;
    size_t ci, total;
    int pi, p, path, t, r;
    run_t rn;
    harness_t h;

    for (pi = 0; pi < NRANK_COUNTS; ++pi) {
        p = rank_counts[pi];
        harness_init(&h, p);
        for (ci = 0; ci < sizeof(counts) / sizeof(counts[0]); ++ci) {
            for (t = 0; t < LOOM_FILTER_TYPE_COUNT; ++t) {
                for (path = 0; path <= LOOM_SPARSE_PATH_DENSE; ++path) {
                    size_t kmax = counts[ci] / 3 + 1;

                    run_init(&rn, p, counts[ci], (loom_filter_type_t)t, kmax);
                    rn.path = (loom_sparse_path_t)path;
                    total = 0;
                    for (r = 0; r < p; ++r) {
                        size_t k = r % 3 == 1 ? 0 : (size_t)rand_r(&seed) % (kmax + 1);

                        pick_random(&rn.picks[r], k, 0, &seed);
                        total += rn.picks[r].k;
                    }
                    ck_assert_int_eq(run_go(&rn, &h), LOOM_OK);
                    run_check(&rn, 0);
                    for (r = 0; r < p; ++r) {
                        ck_assert_uint_eq(rn.out[r].union_bound, total);
                        if (path == LOOM_SPARSE_PATH_DENSE) {
                            ck_assert_int_eq(rn.out[r].dense_stage, dense_first(p));
                        }
                    }
                    run_fini(&rn);
                }
            }
        }
        harness_fini(&h);
    }
}
END_TEST

/* Real values: the sums round, but every rank rounds alike. */
START_TEST(test_random_values)
{
    unsigned seed = 23;
    int pi, p, t, r;
    run_t rn;
    harness_t h;

    for (pi = 0; pi < NRANK_COUNTS; ++pi) {
        p = rank_counts[pi];
        harness_init(&h, p);
        for (t = 0; t < LOOM_FILTER_TYPE_COUNT; ++t) {
            run_init(&rn, p, 500, (loom_filter_type_t)t, 200);
            for (r = 0; r < p; ++r) {
                pick_random(&rn.picks[r], 20 + (size_t)rand_r(&seed) % 180, 1, &seed);
            }
            ck_assert_int_eq(run_go(&rn, &h), LOOM_OK);
            run_check(&rn, t == LOOM_FILTER_FLOAT ? 1e-4 * p : 1e-12 * p);
            run_fini(&rn);
        }
        harness_fini(&h);
    }
}
END_TEST

/* 1000 floats (4000 bytes), pairs of 8 bytes, k = 130 on every rank:
 * even ranks pick [0, 130), odd ones [130, 260), a fold's extra
 * [260, 390), so every merge up to stage 2 is disjoint.  Stage 1's union
 * bound, 260 pairs, 2080 bytes, stays pairs; stage 2's, 520 pairs, 4160
 * bytes, passes the vector's 4000: dense at stage 2.  With k = 120,
 * stage 2's bound is 3840 bytes: pairs throughout at p = 4.  Each stage
 * sends a header and this rank's data entering it. */
START_TEST(test_dense_stage)
{
    static const int ps[] = { 4, 5, 8, 16 };
    size_t k, w = 8, pairs_stage1;
    int pi, p, r;
    run_t rn;
    harness_t h;

    for (pi = 0; pi < 4; ++pi) {
        p = ps[pi];
        harness_init(&h, p);
        for (k = 120; k <= 130; k += 10) {
            run_init(&rn, p, 1000, LOOM_FILTER_FLOAT, 400);
            for (r = 0; r < p; ++r) {
                pick_range(&rn.picks[r], r >= (p & ~3) && p == 5 ? 2 * k : (size_t)(r % 2) * k,
                           k);
            }
            ck_assert_int_eq(run_go(&rn, &h), LOOM_OK);
            run_check(&rn, 0);
            if (k == 130) {
                ck_assert_int_eq(rn.out[0].dense_stage, 2);
                ck_assert_int_eq(rn.out[0].dense, 1);
            }
            if (p == 4) {
                pairs_stage1 = 2 * k * w;
                ck_assert_int_eq(rn.out[0].dense_stage, k == 130 ? 2 : -1);
                /* Stage 1: k pairs; stage 2: the disjoint union of 2k. */
                ck_assert_uint_eq(rn.out[0].bytes_sent, 2 * HDR_BYTES + k * w + pairs_stage1);
            }
            run_fini(&rn);
        }
        harness_fini(&h);
    }
}
END_TEST

/* The selections of test_dense_stage with each path forced: the model
 * goes dense at stage 2; SPARSE keeps the pairs while they fit the
 * buffers (kmax 1000 makes them 8000 bytes: stage 2's bound of 4160
 * does, and stage 3's, 260 + 260 pairs after stage 2's overlap); DENSE
 * goes dense at the first merge. */
START_TEST(test_paths_forced)
{
    static const int want[3] = { 2, -1, 1 };
    int path, r;
    run_t rn;
    harness_t h;

    harness_init(&h, 8);
    for (path = 0; path <= LOOM_SPARSE_PATH_DENSE; ++path) {
        run_init(&rn, 8, 1000, LOOM_FILTER_FLOAT, 1000);
        rn.path = (loom_sparse_path_t)path;
        for (r = 0; r < 8; ++r) {
            pick_range(&rn.picks[r], (size_t)(r % 2) * 130, 130);
        }
        ck_assert_int_eq(run_go(&rn, &h), LOOM_OK);
        run_check(&rn, 0);
        ck_assert_int_eq(rn.out[0].dense_stage, want[path]);
        ck_assert_uint_eq(rn.out[0].union_bound, 8 * 130);
        run_fini(&rn);
    }
    harness_fini(&h);
}
END_TEST

/* What the model says the busiest rank (position 0) sends is what it
 * sends, where supports are disjoint (the model's assumption): at every
 * rank count, across the switch to dense. */
START_TEST(test_model_bytes)
{
    static const size_t ks[] = { 0, 1, 10, 40, 60 };
    loom_cost_t m = { .alpha = 1e-6, .beta = 1e-9, .gamma = 1e-10 };
    size_t ki, bytes, count = 1024;
    int pi, p, r;
    double t;
    run_t rn;
    harness_t h;

    for (pi = 0; pi < NRANK_COUNTS; ++pi) {
        p = rank_counts[pi];
        harness_init(&h, p);
        for (ki = 0; ki < sizeof(ks) / sizeof(ks[0]); ++ki) {
            if ((size_t)p * ks[ki] > count) {
                continue;
            }
            run_init(&rn, p, count, LOOM_FILTER_FLOAT, 64);
            for (r = 0; r < p; ++r) {
                pick_range(&rn.picks[r], (size_t)r * ks[ki], ks[ki]);
            }
            ck_assert_int_eq(run_go(&rn, &h), LOOM_OK);
            run_check(&rn, 0);
            t = loom_sparse_merge_model(&m, p, count, 4, ks[ki], &bytes);
            ck_assert_msg(bytes == rn.out[0].bytes_sent, "p %d k %zu: model %zu, sent %zu", p,
                          ks[ki], bytes, rn.out[0].bytes_sent);
            ck_assert(p == 1 ? t == 0 : t >= 2 * m.alpha);
            run_fini(&rn);
        }
        harness_fini(&h);
    }
}
END_TEST

/* A descending selection, or more pairs than kmax, fails its rank with
 * LOOM_ERR_INVALID_PARAM, and every other rank too: none is left
 * waiting for it. */
START_TEST(test_bad_selection)
{
    unsigned seed = 9;
    harness_t h;
    run_t rn;
    int pi, p, r, bad;

    loom_log_set_level((loom_log_level_t)-1);
    for (pi = 1; pi < NRANK_COUNTS; ++pi) {
        p = rank_counts[pi];
        harness_init(&h, p);
        for (bad = 0; bad < 2; ++bad) {
            run_init(&rn, p, 50, LOOM_FILTER_FLOAT, 5);
            for (r = 0; r < p; ++r) {
                pick_random(&rn.picks[r], 5, 0, &seed);
            }
            if (bad == 0) {
                uint32_t x = rn.picks[p - 1].idx[0];

                rn.picks[p - 1].idx[0] = rn.picks[p - 1].idx[1];
                rn.picks[p - 1].idx[1] = x;
            } else {
                rn.picks[p / 2].k_claimed = 6;
            }
            ck_assert_int_eq(run_go(&rn, &h), LOOM_ERR_INVALID_PARAM);
            for (r = 0; r < p; ++r) {
                ck_assert_int_eq(rn.status[r], LOOM_ERR_INVALID_PARAM);
            }
            run_fini(&rn);
        }
        harness_fini(&h);
    }
    loom_log_set_level(LOOM_LOG_WARN);
}
END_TEST

/* The names the settings take, and what the plan refuses. */
START_TEST(test_table_and_refusals)
{
    char buf[64];
    loom_sparse_args_t sp = { .select = pick_select, .kmax = 4 };
    loom_coll_args_t a = { .recvbuf = buf, .count = 8, .elem_size = 2, .sparse = &sp,
                           .in_place = 1 };
    loom_sched_t *sched = NULL;
    harness_t h;

    ck_assert_str_eq(loom_sparse_alg_names[LOOM_SPARSE_MERGE], "merge");
    ck_assert(loom_sparse_algorithms[LOOM_SPARSE_MERGE].plan == loom_sparse_merge_plan);
    harness_init(&h, 3);
    loom_log_set_level((loom_log_level_t)-1);
    ck_assert_int_eq(loom_sparse_merge_plan(&a, h.teams[0], &sched), LOOM_ERR_INVALID_PARAM);
    a.elem_size = 4;
    sp.path = (loom_sparse_path_t)3;
    ck_assert_int_eq(loom_sparse_merge_plan(&a, h.teams[0], &sched), LOOM_ERR_INVALID_PARAM);
    a.sparse = NULL;
    ck_assert_int_eq(loom_sparse_merge_plan(&a, h.teams[0], &sched), LOOM_ERR_INVALID_PARAM);
    ck_assert_ptr_null(sched);
    loom_log_set_level(LOOM_LOG_WARN);
    harness_fini(&h);
}
END_TEST

static Suite *merge_suite(void)
{
    Suite *s = suite_create("sparse_merge");
    TCase *tc = tcase_create("merge");

    tcase_set_timeout(tc, 120);
    tcase_add_test(tc, test_random_supports);
    tcase_add_test(tc, test_random_values);
    tcase_add_test(tc, test_dense_stage);
    tcase_add_test(tc, test_paths_forced);
    tcase_add_test(tc, test_model_bytes);
    tcase_add_test(tc, test_bad_selection);
    tcase_add_test(tc, test_table_and_refusals);
    suite_add_tcase(s, tc);
    return s;
}

int main(void)
{
    return loom_check_run(merge_suite());
}
