/* The sparse allreduce on the loopback transport: every rank ends with the
 * dense sum of every rank's selection, bitwise the same everywhere, on
 * both paths, at 1 to 9 ranks, under rank orders; and what it refuses. */
#include "coll/core/sparse/sparse.h"
#include "coll/core/filter/encode.h"
#include "coll/core/filter/pairs.h"
#include "coll/core/select/coll_config.h"
#include "test/unit/support/check_main.h"
#include "test/unit/support/loopback_harness.h"

#include <check.h>
#include <math.h>
#include <stdint.h>
#include <stdlib.h>
#include <string.h>

#define MAX_RANKS 9

/* One rank's selection: k pairs at distinct sorted indices, each value a
 * small integer, so every sum is exact in float and double. */
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
    float *f;
    size_t i;

    ++pk->calls;
    if (pk->type == LOOM_FILTER_FLOAT) {
        f = malloc((pk->k + 1) * sizeof(float));
        for (i = 0; i < pk->k; ++i) {
            f[i] = (float)pk->val[i];
        }
        loom_pairs_encode(pk->idx, f, pk->k, pk->type, block);
        free(f);
    } else {
        loom_pairs_encode(pk->idx, pk->val, pk->k, pk->type, block);
    }
    *k_p = pk->k_claimed;
    return LOOM_OK;
}

/* k random distinct indices of count, ascending, values in -8..8 but 0. */
static void pick_random(pick_t *pk, size_t k, unsigned *seed)
{
    size_t i, n = 0;

    for (i = 0; i < pk->count && n < k; ++i) {
        /* Take i with probability (still needed) / (still left). */
        if ((size_t)rand_r(seed) % (pk->count - i) < k - n) {
            pk->idx[n] = (uint32_t)i;
            pk->val[n] = (double)(rand_r(seed) % 8 + 1) * (rand_r(seed) % 2 ? 1 : -1);
            ++n;
        }
    }
    pk->k = pk->k_claimed = n;
}

typedef struct run {
    int                     p;
    size_t                  count;
    loom_filter_type_t      type;
    loom_sparse_path_t      path;
    int                     encoding;
    int                     in_place;
    pick_t                  picks[MAX_RANKS];
    loom_sparse_args_t      sp[MAX_RANKS];
    loom_sparse_outcome_t   out[MAX_RANKS];
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

/* Plans every rank, runs them round robin to the end; the status of the
 * first rank that failed, or LOOM_OK. */
static loom_status_t run_go(run_t *rn, harness_t *h)
{
    loom_coll_config_t cfg;
    loom_sched_t *sched[MAX_RANKS] = { NULL };
    loom_status_t status = LOOM_OK, st;
    int r, busy, rounds = 0;
    size_t i, j;

    ck_assert_int_eq(loom_coll_config_init(&cfg), LOOM_OK);
    /* The allgather algorithm's plan, whichever the model would choose. */
    cfg.sparse_allreduce_algorithm = LOOM_SPARSE_ALLGATHER;
    for (i = 0; i < rn->count; ++i) {
        rn->expect[i] = 0;
    }
    for (r = 0; r < rn->p; ++r) {
        loom_coll_args_t a = {
            .recvbuf = rn->recv[r], .count = rn->count,
            .elem_size = loom_filter_type_size(rn->type),
            .op = { .fn = rn->type == LOOM_FILTER_FLOAT ? harness_sum_float : harness_sum_double,
                    .commutative = 1 },
            .sparse = &rn->sp[r], .in_place = 1,
        };

        rn->sp[r].path = rn->path;
        rn->sp[r].encoding = rn->encoding;
        /* Garbage where the result goes: the schedule must write it all. */
        memset(rn->recv[r], 0x5a, rn->count * a.elem_size);
        for (j = 0; j < rn->picks[r].k; ++j) {
            rn->expect[rn->picks[r].idx[j]] += rn->picks[r].val[j];
        }
        status = loom_coll_plan(&loom_sparse_allreduce_collective, &a, h->teams[r], &cfg,
                                &sched[r], NULL);
        if (status != LOOM_OK) {
            goto out;
        }
    }
    do {
        busy = 0;
        for (r = 0; r < rn->p; ++r) {
            st = loom_sched_progress(sched[r]);
            if (st == LOOM_INPROGRESS) {
                busy = 1;
            } else if (st != LOOM_OK && status == LOOM_OK) {
                status = st;
            }
        }
    } while (busy && status == LOOM_OK && ++rounds < 1000000);
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

/* Every rank holds the expected sum, exactly, and the same bytes. */
static void run_check(const run_t *rn)
{
    size_t i, es = loom_filter_type_size(rn->type);
    int r;

    for (r = 0; r < rn->p; ++r) {
        for (i = 0; i < rn->count; ++i) {
            double got = rn->type == LOOM_FILTER_FLOAT ? ((const float *)rn->recv[r])[i]
                                                       : ((const double *)rn->recv[r])[i];

            ck_assert_msg(got == rn->expect[i], "p %d rank %d element %zu: %g, expected %g",
                          rn->p, r, i, got, rn->expect[i]);
        }
        ck_assert_int_eq(memcmp(rn->recv[r], rn->recv[0], rn->count * es), 0);
        ck_assert_int_eq(rn->picks[r].calls, 1);
    }
}

/* Random supports on 1 to 9 ranks, both types, both paths and the
 * model's choice, in place; the outcome tells the path and the sizes. */
START_TEST(test_random_supports)
{
    static const size_t counts[] = { 1, 7, 100, 1000 };
    unsigned seed = 11;
    size_t ci, total;
    int p, path, t, r;
    run_t rn;
    harness_t h;

    for (p = 1; p <= MAX_RANKS; ++p) {
        harness_init(&h, p);
        for (ci = 0; ci < sizeof(counts) / sizeof(counts[0]); ++ci) {
            for (t = 0; t < LOOM_FILTER_TYPE_COUNT; ++t) {
                for (path = 0; path <= LOOM_SPARSE_PATH_DENSE; ++path) {
                    size_t kmax = counts[ci] / 3 + 1;

                    run_init(&rn, p, counts[ci], (loom_filter_type_t)t, kmax);
                    rn.path = (loom_sparse_path_t)path;
                    total = 0;
                    for (r = 0; r < p; ++r) {
                        pick_random(&rn.picks[r], (size_t)rand_r(&seed) % (kmax + 1), &seed);
                        total += rn.picks[r].k;
                    }
                    ck_assert_int_eq(run_go(&rn, &h), LOOM_OK);
                    run_check(&rn);
                    for (r = 0; r < p; ++r) {
                        ck_assert_uint_eq(rn.out[r].pairs, rn.picks[r].k);
                        ck_assert_uint_eq(rn.out[r].union_bound, total);
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

/* Nobody sends anything, or everybody everything: zeros, and the full
 * sum; the model keeps an empty exchange sparse and sends a full one
 * dense. */
START_TEST(test_empty_and_full)
{
    unsigned seed = 3;
    harness_t h;
    run_t rn;
    int p, r;

    for (p = 2; p <= 5; p += 3) {
        harness_init(&h, p);
        run_init(&rn, p, 4096, LOOM_FILTER_FLOAT, 4096);
        ck_assert_int_eq(run_go(&rn, &h), LOOM_OK);
        run_check(&rn);
        ck_assert_int_eq(rn.out[0].dense, 0);
        ck_assert_uint_eq(rn.out[0].union_bound, 0);
        run_fini(&rn);

        run_init(&rn, p, 4096, LOOM_FILTER_DOUBLE, 4096);
        for (r = 0; r < p; ++r) {
            pick_random(&rn.picks[r], 4096, &seed);
            ck_assert_uint_eq(rn.picks[r].k, 4096);
        }
        ck_assert_int_eq(run_go(&rn, &h), LOOM_OK);
        run_check(&rn);
        ck_assert_int_eq(rn.out[0].dense, 1);
        run_fini(&rn);
        harness_fini(&h);
    }
}
END_TEST

/* Under a rank order the result is still exact and the same everywhere;
 * on the sparse path it is the very bits of the identity's. */
START_TEST(test_rank_order)
{
    static const int reverse[5] = { 4, 3, 2, 1, 0 }, mixed[5] = { 2, 0, 4, 1, 3 };
    const int *orders[2] = { reverse, mixed };
    char first[5 * 100 * sizeof(double)];
    unsigned seed = 5;
    harness_t h;
    run_t rn;
    int o, r, path;

    for (path = LOOM_SPARSE_PATH_SPARSE; path <= LOOM_SPARSE_PATH_DENSE; ++path) {
        for (o = -1; o < 2; ++o) {
            harness_init(&h, 5);
            for (r = 0; o >= 0 && r < 5; ++r) {
                ck_assert_int_eq(loom_team_set_order(h.teams[r], orders[o], 5, 0), LOOM_OK);
            }
            run_init(&rn, 5, 100, LOOM_FILTER_FLOAT, 40);
            rn.path = (loom_sparse_path_t)path;
            seed = 5;
            for (r = 0; r < 5; ++r) {
                pick_random(&rn.picks[r], 10 + 5 * (size_t)r, &seed);
            }
            ck_assert_int_eq(run_go(&rn, &h), LOOM_OK);
            run_check(&rn);
            if (o < 0) {
                memcpy(first, rn.recv[0], 100 * sizeof(float));
            } else if (path == LOOM_SPARSE_PATH_SPARSE) {
                ck_assert_int_eq(memcmp(first, rn.recv[0], 100 * sizeof(float)), 0);
            }
            run_fini(&rn);
            harness_fini(&h);
        }
    }
}
END_TEST

/* A selection larger than it may be fails the call with its reason; a
 * call without a selection, or of another element size, is refused. */
START_TEST(test_refusals)
{
    loom_coll_config_t cfg;
    char buf[64];
    loom_sparse_args_t sp = { .select = pick_select, .kmax = 4 };
    loom_coll_args_t a = { .recvbuf = buf, .count = 8, .elem_size = 2, .sparse = &sp,
                           .in_place = 1 };
    loom_sched_t *sched = NULL;
    unsigned seed = 9;
    harness_t h;
    run_t rn;

    ck_assert_int_eq(loom_coll_config_init(&cfg), LOOM_OK);
    /* The allgather algorithm's plan, whichever the model would choose. */
    cfg.sparse_allreduce_algorithm = LOOM_SPARSE_ALLGATHER;
    harness_init(&h, 3);
    loom_log_set_level((loom_log_level_t)-1);
    ck_assert_int_eq(loom_coll_plan(&loom_sparse_allreduce_collective, &a, h.teams[0], &cfg,
                                    &sched, NULL), LOOM_ERR_INVALID_PARAM);
    a.elem_size = 4;
    a.sparse = NULL;
    ck_assert_int_eq(loom_coll_plan(&loom_sparse_allreduce_collective, &a, h.teams[0], &cfg,
                                    &sched, NULL), LOOM_ERR_INVALID_PARAM);
    ck_assert_ptr_null(sched);

    run_init(&rn, 3, 50, LOOM_FILTER_FLOAT, 5);
    pick_random(&rn.picks[1], 5, &seed);
    rn.picks[1].k_claimed = 6;
    ck_assert_int_eq(run_go(&rn, &h), LOOM_ERR_INVALID_PARAM);
    run_fini(&rn);
    loom_log_set_level(LOOM_LOG_WARN);
    harness_fini(&h);
}
END_TEST

/* ------------------------------------------------------------ encodings */

/* Each rank's exact size in every encoding, from its own picks. */
static void enc_sizes(const run_t *rn, size_t sizes[MAX_RANKS][LOOM_ENC_COUNT])
{
    int r;

    for (r = 0; r < rn->p; ++r) {
        ck_assert_int_eq(loom_encode_sizes(rn->picks[r].idx, rn->picks[r].k, rn->count, rn->type,
                                           sizes[r], NULL), LOOM_OK);
    }
}

/* The encoding every rank must take (sparse_allgather.c): the forced one
 * where every rank's block fits a block of kmax pairs (rounded to 64
 * bytes), else the smallest total over the ranks of those that fit,
 * ties to the lower value. */
static int enc_expected(const run_t *rn, size_t kmax, int forced,
                        size_t sizes[MAX_RANKS][LOOM_ENC_COUNT])
{
    size_t e = loom_filter_type_size(rn->type), total[LOOM_ENC_COUNT] = { 0 };
    size_t bound = ((kmax < rn->count ? kmax : rn->count) * (e + 4) + 63) / 64 * 64;
    int fits[LOOM_ENC_COUNT], best = LOOM_ENC_COO, enc, r;

    for (enc = LOOM_ENC_COO; enc < LOOM_ENC_COUNT; ++enc) {
        fits[enc] = 1;
        for (r = 0; r < rn->p; ++r) {
            total[enc] += sizes[r][enc];
            fits[enc] = fits[enc] && sizes[r][enc] <= bound;
        }
    }
    ck_assert(fits[LOOM_ENC_COO]);
    if (forced != LOOM_ENC_AUTO) {
        return fits[forced] ? forced : LOOM_ENC_COO;
    }
    for (enc = LOOM_ENC_COO + 1; enc < LOOM_ENC_COUNT; ++enc) {
        if (fits[enc] && total[enc] < total[best]) {
            best = enc;
        }
    }
    return best;
}

/* Bytes of the sizes gather a rank sends: Bruck's min(d, p - d) ranks'
 * 4 sizes of 8 bytes in round d = 1, 2, 4, ... */
static size_t sizes_gather_bytes(int p)
{
    size_t bytes = 0;
    int d;

    for (d = 1; d < p; d *= 2) {
        bytes += 32 * (size_t)(d < p - d ? d : p - d);
    }
    return bytes;
}

/* The sparse arm ran in enc on every rank, each sent the sizes and every
 * block but its right neighbour's (identity order). */
static void enc_check_outcome(const run_t *rn, int enc, size_t sizes[MAX_RANKS][LOOM_ENC_COUNT])
{
    int r, q;

    for (r = 0; r < rn->p; ++r) {
        size_t sent = sizes_gather_bytes(rn->p);

        for (q = 0; rn->p > 1 && q < rn->p; ++q) {
            sent += q != (r + 1) % rn->p ? sizes[q][enc] : 0;
        }
        ck_assert_int_eq(rn->out[r].dense, 0);
        ck_assert_msg(rn->out[r].encoding == enc, "p %d rank %d: %s, expected %s", rn->p, r,
                      loom_encoding_names[rn->out[r].encoding], loom_encoding_names[enc]);
        ck_assert_uint_eq(rn->out[r].bytes_sent, sent);
    }
}

/* Every encoding, forced and chosen, at 1 to 5 and 8 ranks, both types,
 * random supports of random sizes: the exact sum, the same bits on every
 * rank and in every encoding, and the outcome's encoding and bytes. */
START_TEST(test_encodings)
{
    static const size_t counts[] = { 1, 77, 1000 };
    static const int ps[] = { 1, 2, 3, 4, 5, 8 };
    size_t sizes[MAX_RANKS][LOOM_ENC_COUNT], ci, kmax, k[MAX_RANKS];
    unsigned seed = 29, pseed;
    int pi, t, enc, want, r;
    char *first;
    harness_t h;
    run_t rn;

    for (pi = 0; pi < (int)(sizeof(ps) / sizeof(ps[0])); ++pi) {
        harness_init(&h, ps[pi]);
        for (ci = 0; ci < sizeof(counts) / sizeof(counts[0]); ++ci) {
            for (t = 0; t < LOOM_FILTER_TYPE_COUNT; ++t) {
                first = malloc(counts[ci] * sizeof(double));
                pseed = seed++;
                for (r = 0; r < ps[pi]; ++r) {
                    k[r] = (size_t)rand_r(&seed) % (counts[ci] + 1);
                }
                for (enc = LOOM_ENC_AUTO; enc < LOOM_ENC_COUNT; ++enc) {
                    /* Forced: a bound of the whole vector, so every
                     * encoding fits; chosen: a third, so some may not. */
                    kmax = enc == LOOM_ENC_AUTO ? counts[ci] / 3 + 1 : counts[ci];
                    run_init(&rn, ps[pi], counts[ci], (loom_filter_type_t)t, kmax);
                    rn.path = LOOM_SPARSE_PATH_SPARSE;
                    rn.encoding = enc;
                    seed = pseed;
                    for (r = 0; r < ps[pi]; ++r) {
                        pick_random(&rn.picks[r], k[r] < kmax ? k[r] : kmax, &seed);
                    }
                    enc_sizes(&rn, sizes);
                    want = enc_expected(&rn, kmax, enc, sizes);
                    if (enc != LOOM_ENC_AUTO) {
                        ck_assert_int_eq(want, enc);
                    }
                    ck_assert_int_eq(run_go(&rn, &h), LOOM_OK);
                    run_check(&rn);
                    enc_check_outcome(&rn, want, sizes);
                    if (enc == LOOM_ENC_COO) {
                        memcpy(first, rn.recv[0], counts[ci] * loom_filter_type_size(rn.type));
                    } else if (enc > LOOM_ENC_COO) {
                        ck_assert_int_eq(memcmp(first, rn.recv[0],
                                                counts[ci] * loom_filter_type_size(rn.type)), 0);
                    }
                    run_fini(&rn);
                }
                free(first);
            }
        }
        harness_fini(&h);
    }
}
END_TEST

/* A run of p ranks at density q of n floats, every rank's bound its own
 * k; returns the encoding the ranks took, after checking it is the one
 * the sizes make cheapest. */
static int enc_at_density(harness_t *h, int p, size_t n, double q, unsigned *seed)
{
    size_t sizes[MAX_RANKS][LOOM_ENC_COUNT], k = (size_t)(q * (double)n);
    int want, r;
    run_t rn;

    run_init(&rn, p, n, LOOM_FILTER_FLOAT, k);
    rn.path = LOOM_SPARSE_PATH_SPARSE;
    for (r = 0; r < p; ++r) {
        pick_random(&rn.picks[r], k, seed);
    }
    enc_sizes(&rn, sizes);
    want = enc_expected(&rn, k, LOOM_ENC_AUTO, sizes);
    ck_assert_int_eq(run_go(&rn, h), LOOM_OK);
    run_check(&rn);
    enc_check_outcome(&rn, want, sizes);
    run_fini(&rn);
    return want;
}

/* The choice follows the density: at 30% the bitmap or block (whichever
 * the sizes say), at 0.1% the delta-coded indices. */
START_TEST(test_auto_by_density)
{
    unsigned seed = 31;
    harness_t h;
    int enc;

    harness_init(&h, 4);
    enc = enc_at_density(&h, 4, 20000, 0.3, &seed);
    ck_assert_msg(enc == LOOM_ENC_BITMAP || enc == LOOM_ENC_BLOCK, "30%%: %s",
                  loom_encoding_names[enc]);
    enc = enc_at_density(&h, 4, 20000, 0.001, &seed);
    ck_assert_msg(enc == LOOM_ENC_DELTA, "0.1%%: %s", loom_encoding_names[enc]);
    harness_fini(&h);
}
END_TEST

/* The dense arm uses no encoding; a forced one that does not fit gives
 * way to coo; an encoding out of range is refused. */
START_TEST(test_encoding_dense_and_refused)
{
    loom_coll_config_t cfg;
    loom_sched_t *sched = NULL;
    unsigned seed = 37;
    harness_t h;
    run_t rn;
    int r;

    harness_init(&h, 3);
    run_init(&rn, 3, 500, LOOM_FILTER_DOUBLE, 500);
    rn.path = LOOM_SPARSE_PATH_DENSE;
    rn.encoding = LOOM_ENC_BITMAP;
    for (r = 0; r < 3; ++r) {
        pick_random(&rn.picks[r], 100, &seed);
    }
    ck_assert_int_eq(run_go(&rn, &h), LOOM_OK);
    run_check(&rn);
    for (r = 0; r < 3; ++r) {
        ck_assert_int_eq(rn.out[r].dense, 1);
        ck_assert_int_eq(rn.out[r].encoding, LOOM_ENC_AUTO);
    }
    run_fini(&rn);

    /* A forced bitmap of 10000 bits (1250 bytes) passes a bound of 5
     * pairs (64 bytes): coo goes instead, on every rank. */
    run_init(&rn, 3, 10000, LOOM_FILTER_FLOAT, 5);
    rn.path = LOOM_SPARSE_PATH_SPARSE;
    rn.encoding = LOOM_ENC_BITMAP;
    for (r = 0; r < 3; ++r) {
        pick_random(&rn.picks[r], 5, &seed);
    }
    ck_assert_int_eq(run_go(&rn, &h), LOOM_OK);
    run_check(&rn);
    for (r = 0; r < 3; ++r) {
        ck_assert_int_eq(rn.out[r].encoding, LOOM_ENC_COO);
    }
    run_fini(&rn);

    ck_assert_int_eq(loom_coll_config_init(&cfg), LOOM_OK);
    /* The allgather algorithm's plan, whichever the model would choose. */
    cfg.sparse_allreduce_algorithm = LOOM_SPARSE_ALLGATHER;
    run_init(&rn, 3, 50, LOOM_FILTER_FLOAT, 5);
    rn.sp[0].encoding = LOOM_ENC_COUNT;
    loom_log_set_level((loom_log_level_t)-1);
    ck_assert_int_eq(loom_coll_plan(&loom_sparse_allreduce_collective,
                                    &(loom_coll_args_t){ .recvbuf = rn.recv[0], .count = 50,
                                                         .elem_size = 4, .sparse = &rn.sp[0],
                                                         .in_place = 1 },
                                    h.teams[0], &cfg, &sched, NULL), LOOM_ERR_INVALID_PARAM);
    loom_log_set_level(LOOM_LOG_WARN);
    ck_assert_ptr_null(sched);
    run_fini(&rn);
    harness_fini(&h);
}
END_TEST

/* A plan for the simulator sizes every rank's block by the model and
 * decides while planned: the encoding and bytes loom_sparse_allgather_model
 * predicts, delta at 0.1% and the bitmap at 30% of 100000 floats. */
START_TEST(test_modeled)
{
    static const double qs[] = { 0.001, 0.3 };
    static const int want[] = { LOOM_ENC_DELTA, LOOM_ENC_BITMAP };
    const loom_cost_t cost = { .alpha = 0, .beta = 1e-9, .gamma = 0 };
    const size_t n = 100000;
    loom_coll_config_t cfg;
    loom_sched_t *sched;
    size_t qi, bytes, size;
    char *buf = calloc(n, sizeof(float));
    double t;
    int enc, e, best;
    harness_t h;

    ck_assert_int_eq(loom_coll_config_init(&cfg), LOOM_OK);
    /* The allgather algorithm's plan, whichever the model would choose. */
    cfg.sparse_allreduce_algorithm = LOOM_SPARSE_ALLGATHER;
    harness_init(&h, 4);
    for (qi = 0; qi < 2; ++qi) {
        size_t k = (size_t)(qs[qi] * (double)n);
        loom_sparse_args_t sp = { .select = pick_select, .kmax = k, .cost = cost,
                                  .path = LOOM_SPARSE_PATH_SPARSE, .modeled = 1, .model_k = k };
        loom_coll_args_t a = { .recvbuf = buf, .count = n, .elem_size = 4, .sparse = &sp,
                               .in_place = 1 };
        const loom_sparse_head_t *head;

        /* The model's cheapest encoding, from the modeled sizes. */
        best = LOOM_ENC_COO;
        for (e = LOOM_ENC_COO + 1; e < LOOM_ENC_COUNT; ++e) {
            if (loom_encode_model_size(e, k, n, LOOM_FILTER_FLOAT) <
                loom_encode_model_size(best, k, n, LOOM_FILTER_FLOAT)) {
                best = e;
            }
        }
        ck_assert_int_eq(best, want[qi]);
        size = loom_encode_model_size(best, k, n, LOOM_FILTER_FLOAT);

        t = loom_sparse_allgather_model(&cost, 4, n, 4, k, &enc, &bytes);
        ck_assert_int_eq(enc, best);
        ck_assert_uint_eq(bytes, sizes_gather_bytes(4) + 3 * size);
        /* Bandwidth only: the sizes, and four blocks through each rank. */
        ck_assert_msg(fabs(t - 1e-9 * (double)(sizes_gather_bytes(4) + 4 * size)) < 1e-12 * t,
                      "%g s", t);

        sched = NULL;
        ck_assert_int_eq(loom_coll_plan(&loom_sparse_allreduce_collective, &a, h.teams[0], &cfg,
                                        &sched, NULL), LOOM_OK);
        head = sched->scratch;
        ck_assert_int_eq(head->out.encoding, best);
        ck_assert_int_eq(head->out.dense, 0);
        ck_assert_uint_eq(head->out.bytes_sent, bytes);
        ck_assert_int_eq(loom_sched_taken_arm(sched), LOOM_SPARSE_PATH_SPARSE);
        loom_sched_destroy(sched);
    }
    ck_assert(loom_sparse_allgather_model(&cost, 4, n, 2, 10, &enc, &bytes) == HUGE_VAL);
    ck_assert_int_eq(enc, LOOM_ENC_AUTO);
    harness_fini(&h);
    free(buf);
}
END_TEST

static Suite *sparse_suite(void)
{
    Suite *s = suite_create("sparse");
    TCase *tc = tcase_create("allgather");

    tcase_set_timeout(tc, 120);
    tcase_add_test(tc, test_random_supports);
    tcase_add_test(tc, test_empty_and_full);
    tcase_add_test(tc, test_rank_order);
    tcase_add_test(tc, test_refusals);
    tcase_add_test(tc, test_encodings);
    tcase_add_test(tc, test_auto_by_density);
    tcase_add_test(tc, test_encoding_dense_and_refused);
    tcase_add_test(tc, test_modeled);
    suite_add_tcase(s, tc);
    return s;
}

int main(void)
{
    return loom_check_run(sparse_suite());
}
