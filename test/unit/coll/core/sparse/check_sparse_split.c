/* Split-and-reduce (sparse_split.c) on the loopback transport, against a
 * reference computed here from the selections: an estimate call keeps
 * each owner's top ceil(K/p), a later call every |sum| >= theta; every
 * rank ends with the same bits; what is not kept is handed back, exactly;
 * the regions follow a skewed selection; the bytes stay under Ok-Topk's
 * bound; the dense arm gives the same result; a bad selection fails. */
#include "coll/core/sparse/sparse.h"
#include "coll/core/filter/pairs.h"
#include "coll/core/parts/partition.h"
#include "test/unit/support/check_main.h"
#include "test/unit/support/loopback_harness.h"

#include <check.h>
#include <math.h>
#include <stdint.h>
#include <stdlib.h>
#include <string.h>

#define MAX_RANKS 16

/* One rank's selection: k pairs at distinct sorted indices, small
 * integer values, so that every sum is exact in float and double; and
 * what the call handed back. */
typedef struct pick {
    loom_filter_type_t  type;
    size_t              count;
    size_t              k;
    uint32_t            *idx;
    double              *val;
    int                 liar;       /* 1: indices out of order */
    double              *back;      /* count: the values handed back, by index */
    size_t              nback;
} pick_t;

static loom_status_t pick_select(void *ctx, void *block, size_t *k_p)
{
    pick_t *pk = ctx;
    float f[4096];
    size_t i;

    if (pk->type == LOOM_FILTER_FLOAT) {
        for (i = 0; i < pk->k; ++i) {
            f[i] = (float)pk->val[i];
        }
        loom_pairs_encode(pk->idx, f, pk->k, pk->type, block);
    } else {
        loom_pairs_encode(pk->idx, pk->val, pk->k, pk->type, block);
    }
    if (pk->liar && pk->k > 1) {
        /* The first two indices swapped. */
        uint32_t *at = (uint32_t *)(void *)((char *)block + pk->k * loom_filter_type_size(pk->type));

        at[0] = pk->idx[1];
        at[1] = pk->idx[0];
    }
    *k_p = pk->k;
    return LOOM_OK;
}

static void pick_putback(void *ctx, const void *block, size_t k)
{
    pick_t *pk = ctx;
    size_t es = loom_filter_type_size(pk->type), j;
    uint32_t i;

    for (j = 0; j < k; ++j) {
        float f;
        double d;

        memcpy(&i, (const char *)block + k * es + j * sizeof(i), sizeof(i));
        ck_assert_uint_lt(i, pk->count);
        if (pk->type == LOOM_FILTER_FLOAT) {
            memcpy(&f, (const char *)block + j * es, sizeof(f));
            pk->back[i] += f;
        } else {
            memcpy(&d, (const char *)block + j * es, sizeof(d));
            pk->back[i] += d;
        }
    }
    pk->nback += k;
}

/* k random distinct indices of [lo, hi), ascending, values in -8..8 but 0. */
static void pick_random(pick_t *pk, size_t k, size_t lo, size_t hi, unsigned *seed)
{
    size_t i, n = 0;

    for (i = lo; i < hi && n < k; ++i) {
        if ((size_t)rand_r(seed) % (hi - i) < k - n) {
            pk->idx[n] = (uint32_t)i;
            pk->val[n] = (double)(rand_r(seed) % 8 + 1) * (rand_r(seed) % 2 ? 1 : -1);
            ++n;
        }
    }
    pk->k = n;
}

typedef struct run {
    int                     p;
    size_t                  count;
    loom_filter_type_t      type;
    pick_t                  picks[MAX_RANKS];
    loom_sparse_args_t      sp[MAX_RANKS];
    loom_sparse_outcome_t   out[MAX_RANKS];
    char                    *recv[MAX_RANKS];
    loom_sparse_state_t     *state[MAX_RANKS];
    double                  *sum;       /* every rank's selection, summed */
    double                  *ref;       /* what the call must leave */
    double                  t[MAX_RANKS]; /* the reference's cut per region */
    size_t                  kept[MAX_RANKS];
    size_t                  kmax;
    loom_status_t           status[MAX_RANKS]; /* how each rank's schedule ended */
} run_t;

/* every > 0: each rank keeps a state made for every calls. */
static void run_init(run_t *rn, int p, size_t count, loom_filter_type_t type, size_t kmax,
                     unsigned every)
{
    int r;

    memset(rn, 0, sizeof(*rn));
    rn->p = p;
    rn->count = count;
    rn->type = type;
    rn->kmax = kmax;
    rn->sum = calloc(count + 1, sizeof(double));
    rn->ref = calloc(count + 1, sizeof(double));
    for (r = 0; r < p; ++r) {
        rn->picks[r] = (pick_t){ .type = type, .count = count,
                                 .idx = calloc(count + 1, sizeof(uint32_t)),
                                 .val = calloc(count + 1, sizeof(double)),
                                 .back = calloc(count + 1, sizeof(double)) };
        rn->recv[r] = calloc(count + 1, sizeof(double));
        if (every > 0) {
            ck_assert_int_eq(loom_sparse_state_create(p, every, &rn->state[r]), LOOM_OK);
        }
        rn->sp[r] = (loom_sparse_args_t){
            .select = pick_select, .ctx = &rn->picks[r], .kmax = kmax,
            .cost = { .alpha = 2e-6, .beta = 1e-10, .gamma = 1e-10 },
            .putback = pick_putback, .state = rn->state[r],
        };
    }
}

static void run_fini(run_t *rn)
{
    int r;

    for (r = 0; r < rn->p; ++r) {
        free(rn->picks[r].idx);
        free(rn->picks[r].val);
        free(rn->picks[r].back);
        free(rn->recv[r]);
        loom_sparse_state_free(rn->state[r]);
    }
    free(rn->sum);
    free(rn->ref);
}

/* Plans every rank with split, runs them round robin to the end; the
 * status of the first rank that failed, or LOOM_OK. */
static loom_status_t run_go(run_t *rn, harness_t *h, loom_sparse_path_t path)
{
    loom_sched_t *sched[MAX_RANKS] = { NULL };
    int done[MAX_RANKS] = { 0 };
    loom_status_t status = LOOM_OK, st;
    int r, busy, rounds = 0;
    size_t j;

    memset(rn->sum, 0, rn->count * sizeof(double));
    for (r = 0; r < rn->p; ++r) {
        loom_coll_args_t a = {
            .recvbuf = rn->recv[r], .count = rn->count,
            .elem_size = loom_filter_type_size(rn->type),
            .op = { .fn = rn->type == LOOM_FILTER_FLOAT ? harness_sum_float : harness_sum_double,
                    .commutative = 1 },
            .sparse = &rn->sp[r], .in_place = 1,
        };

        rn->sp[r].path = path;
        memset(rn->recv[r], 0x5a, rn->count * a.elem_size);
        memset(rn->picks[r].back, 0, rn->count * sizeof(double));
        rn->picks[r].nback = 0;
        for (j = 0; j < rn->picks[r].k; ++j) {
            rn->sum[rn->picks[r].idx[j]] += rn->picks[r].val[j];
        }
        status = loom_sparse_split_plan(&a, h->teams[r], &sched[r]);
        if (status != LOOM_OK) {
            goto out;
        }
    }
    /* Every rank runs to its end, failed or not: a schedule left with
     * posted operations cannot be freed. */
    do {
        busy = 0;
        for (r = 0; r < rn->p; ++r) {
            if (done[r]) {
                continue;
            }
            st = loom_sched_progress(sched[r]);
            if (st == LOOM_INPROGRESS) {
                busy = 1;
                continue;
            }
            done[r] = 1;
            rn->status[r] = st;
            if (st != LOOM_OK && status == LOOM_OK) {
                status = st;
            }
        }
    } while (busy && ++rounds < 1000000);
    ck_assert_int_lt(rounds, 1000000);
    for (r = 0; status == LOOM_OK && r < rn->p; ++r) {
        ck_assert_int_eq(loom_sparse_outcome(sched[r], &rn->out[r]), LOOM_OK);
    }
out:
    for (r = 0; r < rn->p; ++r) {
        if (sched[r] != NULL) {
            loom_sched_destroy(sched[r]);
        }
    }
    return status;
}

/* ------------------------------------------------------ the reference */

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

/* K: the mean of the ranks' k, rounded up. */
static size_t ref_k(const run_t *rn)
{
    size_t total = 0;
    int r;

    for (r = 0; r < rn->p; ++r) {
        total += rn->picks[r].k;
    }
    return (total + (size_t)rn->p - 1) / (size_t)rn->p;
}

/* An estimate call over regions b (NULL: uniform): each region's top
 * ceil(K/p) nonzero sums by magnitude, the lower index first among
 * equals; rn->t the smallest kept magnitude per region. */
static void ref_estimate(run_t *rn, const size_t *b)
{
    size_t m = (ref_k(rn) + (size_t)rn->p - 1) / (size_t)rn->p, i, n, lo, hi, q;
    loom_spread_t s = loom_spread(rn->count, rn->p);
    cand_t *c = calloc(rn->count + 1, sizeof(*c));
    int j;

    memset(rn->ref, 0, rn->count * sizeof(double));
    for (j = 0; j < rn->p; ++j) {
        lo = b != NULL ? b[j] : loom_spread_offset(s, j);
        hi = b != NULL ? b[j + 1] : loom_spread_offset(s, j + 1);
        for (n = 0, i = lo; i < hi; ++i) {
            if (rn->sum[i] != 0) {
                c[n++] = (cand_t){ fabs(rn->sum[i]), i };
            }
        }
        qsort(c, n, sizeof(*c), cand_cmp);
        for (q = 0; q < n && q < m; ++q) {
            rn->ref[c[q].i] = rn->sum[c[q].i];
        }
        rn->kept[j] = q;
        rn->t[j] = q > 0 ? c[q - 1].mag : 0;
    }
    free(c);
}

/* B, the pairs an owner's slot holds: ceil(2 kmax/p), at least 1,
 * at most the widest region of bounds b (NULL: uniform). */
static size_t ref_cap(const run_t *rn, const size_t *b)
{
    loom_spread_t s = loom_spread(rn->count, rn->p);
    size_t cap = (2 * rn->kmax + (size_t)rn->p - 1) / (size_t)rn->p, widest = 0, w;
    int j;

    for (j = 0; j < rn->p; ++j) {
        w = b != NULL ? b[j + 1] - b[j] : loom_spread_count(s, j);
        widest = w > widest ? w : widest;
    }
    cap = cap < widest ? cap : widest;
    return cap > 0 ? cap : 1;
}

/* A threshold call over regions b (NULL: uniform): every |sum| >= theta,
 * but of a region where more than B reach it only the top B (the lower
 * index first among equals). */
static void ref_threshold(run_t *rn, double theta, const size_t *b)
{
    loom_spread_t s = loom_spread(rn->count, rn->p);
    cand_t *c = calloc(rn->count + 1, sizeof(*c));
    size_t cap = ref_cap(rn, b), i, n, lo, hi, q;
    int j;

    memset(rn->ref, 0, rn->count * sizeof(double));
    for (j = 0; j < rn->p; ++j) {
        lo = b != NULL ? b[j] : loom_spread_offset(s, j);
        hi = b != NULL ? b[j + 1] : loom_spread_offset(s, j + 1);
        for (n = 0, i = lo; i < hi; ++i) {
            if (rn->sum[i] != 0 && fabs(rn->sum[i]) >= theta) {
                c[n++] = (cand_t){ fabs(rn->sum[i]), i };
            }
        }
        qsort(c, n, sizeof(*c), cand_cmp);
        for (q = 0; q < n && q < cap; ++q) {
            rn->ref[c[q].i] = rn->sum[c[q].i];
        }
        rn->kept[j] = q;
    }
    free(c);
}

/* The median (the lower of an even count) of the cuts of the regions
 * that kept anything. */
static double ref_theta(const run_t *rn)
{
    double v[MAX_RANKS], x;
    int j, n = 0, a, b;

    for (j = 0; j < rn->p; ++j) {
        if (rn->kept[j] > 0) {
            v[n++] = rn->t[j];
        }
    }
    for (a = 1; a < n; ++a) {
        for (b = a; b > 0 && v[b - 1] > v[b]; --b) {
            x = v[b];
            v[b] = v[b - 1];
            v[b - 1] = x;
        }
    }
    ck_assert_int_gt(n, 0);
    return v[(n - 1) / 2];
}

/* Every rank holds the reference, exactly, and the same bytes; the
 * outcome counts the kept pairs; what was not kept was handed back. */
static void run_check(const run_t *rn)
{
    size_t i, es = loom_filter_type_size(rn->type), nz = 0, j;
    double total_sel = 0, total_acc = 0;
    size_t ksum = 0;
    int r;

    for (i = 0; i < rn->count; ++i) {
        nz += rn->ref[i] != 0;
    }
    for (r = 0; r < rn->p; ++r) {
        ksum += rn->picks[r].k;
    }
    for (r = 0; r < rn->p; ++r) {
        const pick_t *pk = &rn->picks[r];
        size_t back = 0;

        for (i = 0; i < rn->count; ++i) {
            double got = rn->type == LOOM_FILTER_FLOAT ? ((const float *)rn->recv[r])[i]
                                                       : ((const double *)rn->recv[r])[i];

            ck_assert_msg(got == rn->ref[i], "p %d rank %d element %zu: %g, expected %g",
                          rn->p, r, i, got, rn->ref[i]);
        }
        ck_assert_int_eq(memcmp(rn->recv[r], rn->recv[0], rn->count * es), 0);
        ck_assert_uint_eq(rn->out[r].alg, LOOM_SPARSE_SPLIT);
        ck_assert_uint_eq(rn->out[r].pairs, pk->k);
        ck_assert_uint_eq(rn->out[r].kept, nz);
        ck_assert_uint_eq(rn->out[r].union_bound, ksum);
        /* Accounting, per rank: a pair of a kept entry went into the
         * result, any other came back whole. */
        for (j = 0; j < pk->k; ++j) {
            size_t at = pk->idx[j];

            total_sel += pk->val[j];
            if (rn->ref[at] != 0) {
                ck_assert_msg(pk->back[at] == 0, "rank %d index %zu kept, yet handed back",
                              r, at);
                total_acc += pk->val[j];
            } else {
                ck_assert_msg(pk->back[at] == pk->val[j], "rank %d index %zu: %g back, "
                              "selected %g", r, at, pk->back[at], pk->val[j]);
                ++back;
            }
        }
        for (i = 0; i < rn->count; ++i) {
            total_acc += pk->back[i];
        }
        ck_assert_uint_eq(pk->nback, back);
        ck_assert_uint_eq(rn->out[r].put_back, back);
    }
    /* In total: the kept contributions and the put-back values make up
     * every value selected. */
    ck_assert(total_acc == total_sel);
}

static void run_pick(run_t *rn, unsigned *seed, size_t kmax, int same_k)
{
    size_t k = (size_t)rand_r(seed) % (kmax + 1);
    int r;

    for (r = 0; r < rn->p; ++r) {
        pick_random(&rn->picks[r], same_k ? k : (size_t)rand_r(seed) % (kmax + 1), 0,
                    rn->count, seed);
    }
}

static const int ranks_list[] = { 1, 2, 3, 4, 5, 6, 7, 8, 9, 16 };

/* (a), (c), (f): without a state every call estimates: each owner keeps
 * its top ceil(K/p); on both arms the same result. */
START_TEST(test_estimate)
{
    static const size_t counts[] = { 1, 7, 100, 1000 };
    unsigned seed = 17;
    size_t ci, pi;
    int t, path, r;
    harness_t h;
    run_t rn;

    for (pi = 0; pi < sizeof(ranks_list) / sizeof(ranks_list[0]); ++pi) {
        int p = ranks_list[pi];

        harness_init(&h, p);
        for (ci = 0; ci < sizeof(counts) / sizeof(counts[0]); ++ci) {
            for (t = 0; t < LOOM_FILTER_TYPE_COUNT; ++t) {
                for (path = 0; path <= LOOM_SPARSE_PATH_DENSE; ++path) {
                    size_t kmax = counts[ci] / 3 + 1;

                    run_init(&rn, p, counts[ci], (loom_filter_type_t)t, kmax, 0);
                    run_pick(&rn, &seed, kmax, path == LOOM_SPARSE_PATH_SPARSE);
                    ck_assert_int_eq(run_go(&rn, &h, (loom_sparse_path_t)path), LOOM_OK);
                    ref_estimate(&rn, NULL);
                    run_check(&rn);
                    for (r = 0; r < p; ++r) {
                        ck_assert_int_eq(rn.out[r].dense, rn.out[0].dense);
                        if (path != LOOM_SPARSE_PATH_MODEL) {
                            ck_assert_int_eq(rn.out[r].dense, path == LOOM_SPARSE_PATH_DENSE);
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

/* (b): with a state, the first call estimates and sets theta (the median
 * of the owners' cuts, the same on every rank); the next calls keep
 * every |sum| >= theta; the every-th call estimates again, over the
 * rebalanced regions. */
START_TEST(test_threshold)
{
    unsigned seed = 23;
    double theta = 0, th;
    size_t pi, b[MAX_RANKS + 1];
    int t, r, call;
    harness_t h;
    run_t rn;

    for (pi = 0; pi < sizeof(ranks_list) / sizeof(ranks_list[0]); ++pi) {
        int p = ranks_list[pi];

        harness_init(&h, p);
        for (t = 0; t < LOOM_FILTER_TYPE_COUNT; ++t) {
            run_init(&rn, p, 2000, (loom_filter_type_t)t, 200, 3);
            for (call = 0; call < 4; ++call) {
                for (r = 0; r < p; ++r) {
                    pick_random(&rn.picks[r], 200, 0, rn.count, &seed);
                }
                if (call > 0) {
                    memcpy(b, loom_sparse_state_bounds(rn.state[0], rn.count),
                           sizeof(size_t) * ((size_t)p + 1));
                }
                ck_assert_int_eq(run_go(&rn, &h, LOOM_SPARSE_PATH_MODEL), LOOM_OK);
                if (call % 3 == 0) {
                    ref_estimate(&rn, call > 0 ? b : NULL);
                    run_check(&rn);
                    theta = ref_theta(&rn);
                } else {
                    ref_threshold(&rn, theta, b);
                    run_check(&rn);
                }
                for (r = 0; r < p; ++r) {
                    ck_assert_int_eq(loom_sparse_state_theta(rn.state[r], &th), 1);
                    ck_assert_msg(th == theta, "p %d call %d rank %d: theta %g, expected %g",
                                  p, call, r, th, theta);
                }
            }
            run_fini(&rn);
        }
        harness_fini(&h);
    }
}
END_TEST

/* (d): every pair in the first tenth of the vector: the uniform regions
 * put them on two owners; after one estimate call the regions hold
 * about as many of the entries each. */
START_TEST(test_rebalance)
{
    const int p = 16;
    const size_t count = 16000, k = 800;
    size_t per[MAX_RANKS] = { 0 }, support = 0, i, most = 0, first;
    const size_t *b;
    unsigned seed = 29;
    harness_t h;
    run_t rn;
    int r, j;

    harness_init(&h, p);
    run_init(&rn, p, count, LOOM_FILTER_FLOAT, k, 16);
    for (r = 0; r < p; ++r) {
        pick_random(&rn.picks[r], k, 0, count / 10, &seed);
        ck_assert_uint_eq(rn.picks[r].k, k);
    }
    ck_assert_int_eq(run_go(&rn, &h, LOOM_SPARSE_PATH_MODEL), LOOM_OK);
    ref_estimate(&rn, NULL);
    run_check(&rn);
    b = loom_sparse_state_bounds(rn.state[0], count);
    ck_assert_ptr_nonnull(b);
    for (r = 1; r < p; ++r) {
        ck_assert_int_eq(memcmp(b, loom_sparse_state_bounds(rn.state[r], count),
                                sizeof(size_t) * (p + 1)), 0);
    }
    ck_assert_uint_eq(b[0], 0);
    ck_assert_uint_eq(b[p], count);
    for (i = 0, j = 0; i < count; ++i) {
        while (i >= b[j + 1]) {
            ++j;
        }
        if (rn.sum[i] != 0) {
            ++per[j];
            ++support;
        }
    }
    for (j = 0; j < p; ++j) {
        most = per[j] > most ? per[j] : most;
    }
    /* The uniform regions gave the first one most of them. */
    for (i = 0, first = 0; i < count / p; ++i) {
        first += rn.sum[i] != 0;
    }
    ck_assert_msg(first > 4 * ((support + p - 1) / p), "uniform: the first region holds "
                  "%zu of %zu", first, support);
    ck_assert_msg(most <= 2 * ((support + p - 1) / p), "the fullest region holds %zu of %zu",
                  most, support);
    run_fini(&rn);
    harness_fini(&h);
}
END_TEST

/* (e): at 16 ranks, what each rank sends is exactly the counts, its
 * pairs for other regions, the reports and the Bruck gather of p-1 kept
 * slots (B pairs each, however many are kept), and stays below Ok-Topk's
 * 6k(p-1)/p pairs, counts and reports included. */
START_TEST(test_bytes)
{
    const int p = 16;
    const size_t count = 32000, k = 320;
    loom_spread_t s = loom_spread(count, p);
    size_t w, expect, bound, reports = 0, own, slots;
    unsigned seed = 31;
    harness_t h;
    run_t rn;
    int r, j, d;

    harness_init(&h, p);
    run_init(&rn, p, count, LOOM_FILTER_FLOAT, k, 0);
    w = loom_pairs_bytes(1, LOOM_FILTER_FLOAT);
    for (r = 0; r < p; ++r) {
        pick_random(&rn.picks[r], k, 0, count, &seed);
    }
    ck_assert_int_eq(run_go(&rn, &h, LOOM_SPARSE_PATH_SPARSE), LOOM_OK);
    ref_estimate(&rn, NULL);
    run_check(&rn);
    for (d = 1; d < p; d *= 2) {
        reports += 8 * (size_t)(d < p - d ? d : p - d);
    }
    slots = (size_t)(p - 1) * ref_cap(&rn, NULL) * w;
    ck_assert_uint_eq(ref_cap(&rn, NULL), 2 * k / p);
    for (r = 0; r < p; ++r) {
        for (own = 0, j = 0; j < (int)rn.picks[r].k; ++j) {
            own += rn.picks[r].idx[j] >= loom_spread_offset(s, r) &&
                   rn.picks[r].idx[j] < loom_spread_offset(s, r + 1);
        }
        expect = 8 * (size_t)(p - 1) + (rn.picks[r].k - own) * w + reports + slots;
        bound = 6 * k * (size_t)(p - 1) / (size_t)p * w;
        ck_assert_uint_eq(rn.out[r].bytes_sent, expect);
        ck_assert_msg(expect < bound, "rank %d sends %zu bytes, the bound is %zu", r, expect,
                      bound);
    }
    run_fini(&rn);
    harness_fini(&h);
}
END_TEST

/* A threshold call where every rank puts 2B pairs of the same large
 * value into one region: its owner keeps exactly its top B (equal sums:
 * the lowest indices), and every other pair goes back whole. */
START_TEST(test_cap)
{
    const int p = 4;
    const size_t count = 400, kmax = 20;
    size_t b[MAX_RANKS + 1], cap, i, j, widest = 0, nz;
    unsigned seed = 37;
    double th;
    harness_t h;
    run_t rn;
    int r, q = 0;

    harness_init(&h, p);
    run_init(&rn, p, count, LOOM_FILTER_FLOAT, kmax, 1000);
    for (r = 0; r < p; ++r) {
        pick_random(&rn.picks[r], kmax, 0, count, &seed);
    }
    ck_assert_int_eq(run_go(&rn, &h, LOOM_SPARSE_PATH_SPARSE), LOOM_OK);
    ck_assert_int_eq(loom_sparse_state_theta(rn.state[0], &th), 1);
    memcpy(b, loom_sparse_state_bounds(rn.state[0], count), sizeof(size_t) * (p + 1));
    for (j = 0; j < (size_t)p; ++j) {
        if (b[j + 1] - b[j] > widest) {
            widest = b[j + 1] - b[j];
            q = (int)j;
        }
    }
    cap = ref_cap(&rn, b);
    ck_assert_uint_eq(cap, 2 * kmax / p);
    ck_assert_uint_ge(widest, 2 * cap);
    /* 2B indices of region q, value 8 on every rank: sums of 32 >= theta. */
    for (r = 0; r < p; ++r) {
        for (i = 0; i < 2 * cap; ++i) {
            rn.picks[r].idx[i] = (uint32_t)(b[q] + i);
            rn.picks[r].val[i] = 8;
        }
        rn.picks[r].k = 2 * cap;
    }
    ck_assert_int_eq(run_go(&rn, &h, LOOM_SPARSE_PATH_SPARSE), LOOM_OK);
    ck_assert(32 >= th);
    ref_threshold(&rn, th, b);
    for (i = 0, nz = 0; i < count; ++i) {
        nz += rn.ref[i] != 0;
        ck_assert(rn.ref[i] == (i >= b[q] && i < b[q] + cap ? 32 : 0));
    }
    ck_assert_uint_eq(nz, cap);
    run_check(&rn);
    for (r = 0; r < p; ++r) {
        ck_assert_uint_eq(rn.out[r].kept, cap);
        ck_assert_uint_eq(rn.out[r].put_back, cap);
    }
    run_fini(&rn);
    harness_fini(&h);
}
END_TEST

/* Under a rank order the regions move to other owners; the result is
 * the very bits of the identity's. */
START_TEST(test_rank_order)
{
    static const int mixed[5] = { 2, 0, 4, 1, 3 };
    char first[1000 * sizeof(float)];
    unsigned seed;
    harness_t h;
    run_t rn;
    int o, r;

    for (o = 0; o < 2; ++o) {
        harness_init(&h, 5);
        for (r = 0; o == 1 && r < 5; ++r) {
            ck_assert_int_eq(loom_team_set_order(h.teams[r], mixed, 5, 0), LOOM_OK);
        }
        run_init(&rn, 5, 1000, LOOM_FILTER_FLOAT, 100, 0);
        seed = 5;
        run_pick(&rn, &seed, 100, 0);
        ck_assert_int_eq(run_go(&rn, &h, LOOM_SPARSE_PATH_SPARSE), LOOM_OK);
        ref_estimate(&rn, NULL);
        run_check(&rn);
        if (o == 0) {
            memcpy(first, rn.recv[0], sizeof(first));
        } else {
            ck_assert_int_eq(memcmp(first, rn.recv[0], sizeof(first)), 0);
        }
        run_fini(&rn);
        harness_fini(&h);
    }
}
END_TEST

/* (f): indices out of order or more pairs than the bound fail the call;
 * no selection, or another element size, is refused at the plan. */
START_TEST(test_refusals)
{
    char buf[64];
    loom_sparse_args_t sp = { .select = pick_select, .kmax = 4 };
    loom_coll_args_t a = { .recvbuf = buf, .count = 8, .elem_size = 2, .sparse = &sp,
                           .in_place = 1 };
    loom_sched_t *sched = NULL;
    loom_sparse_state_t *st;
    unsigned seed = 9;
    harness_t h;
    run_t rn;
    int r;

    harness_init(&h, 3);
    loom_log_set_level((loom_log_level_t)-1);
    ck_assert_int_eq(loom_sparse_split_plan(&a, h.teams[0], &sched), LOOM_ERR_INVALID_PARAM);
    a.elem_size = 4;
    a.sparse = NULL;
    ck_assert_int_eq(loom_sparse_split_plan(&a, h.teams[0], &sched), LOOM_ERR_INVALID_PARAM);
    ck_assert_ptr_null(sched);
    ck_assert_int_eq(loom_sparse_state_create(3, 0, &st), LOOM_ERR_INVALID_PARAM);

    run_init(&rn, 3, 50, LOOM_FILTER_FLOAT, 5, 0);
    pick_random(&rn.picks[1], 5, 0, 50, &seed);
    rn.picks[1].liar = 1;
    ck_assert_int_eq(run_go(&rn, &h, LOOM_SPARSE_PATH_MODEL), LOOM_ERR_INVALID_PARAM);
    /* Every rank ends, and fails with it: none is left waiting. */
    for (r = 0; r < 3; ++r) {
        ck_assert_int_eq(rn.status[r], LOOM_ERR_INVALID_PARAM);
    }
    run_fini(&rn);

    run_init(&rn, 3, 50, LOOM_FILTER_FLOAT, 5, 0);
    pick_random(&rn.picks[2], 6, 0, 50, &seed);
    ck_assert_int_eq(run_go(&rn, &h, LOOM_SPARSE_PATH_MODEL), LOOM_ERR_INVALID_PARAM);
    for (r = 0; r < 3; ++r) {
        ck_assert_int_eq(rn.status[r], LOOM_ERR_INVALID_PARAM);
    }
    run_fini(&rn);
    loom_log_set_level(LOOM_LOG_WARN);
    harness_fini(&h);
}
END_TEST

int main(void)
{
    Suite *s = suite_create("sparse_split");
    TCase *tc = tcase_create("split");

    tcase_set_timeout(tc, 300);
    tcase_add_test(tc, test_estimate);
    tcase_add_test(tc, test_threshold);
    tcase_add_test(tc, test_rebalance);
    tcase_add_test(tc, test_bytes);
    tcase_add_test(tc, test_cap);
    tcase_add_test(tc, test_rank_order);
    tcase_add_test(tc, test_refusals);
    suite_add_tcase(s, tc);
    return loom_check_run(s);
}
