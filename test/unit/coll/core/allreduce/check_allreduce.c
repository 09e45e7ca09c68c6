/* Allreduce algorithms on the loopback transport (ring at 1..32 ranks,
 * every algorithm at 1..64 with random sizes and pipelining), checked
 * against a sum computed here; and the selection. */
#include "test/unit/support/loopback_harness.h"
#include "coll/core/parts/partition.h"
#include "coll/core/select/coll_config.h"
#include "coll/core/select/handoff.h"
#include "coll/core/parts/reduce_kernels.h"
#include "coll/core/engine/tag.h"

#include <check.h>
#include "test/unit/support/check_main.h"
#include <stdint.h>
#include <stdlib.h>
#include <string.h>

/* Rank r's input element i: integer-valued, so every summation order gives
 * the same double. */
static double input_value(int r, size_t i, unsigned salt)
{
    return (double)((int)((i * 2654435761u + (unsigned)r * 40503u + salt) % 2001u) - 1000);
}

/* Runs one allreduce of count doubles on p ranks with algorithm alg and
 * checks every rank. */
static void check_alg(loom_allreduce_alg_t alg, int p, size_t count, int in_place,
                      unsigned seed, size_t seg_bytes, int depth)
{
    loom_coll_args_t *args = calloc((size_t)p, sizeof(*args));
    double **in = calloc((size_t)p, sizeof(*in));
    double **out = calloc((size_t)p, sizeof(*out));
    double *expect = calloc(count ? count : 1, sizeof(double));
    harness_t h;
    size_t i, sent_elems;
    int r;

    for (r = 0; r < p; ++r) {
        in[r] = malloc(sizeof(double) * (count ? count : 1));
        out[r] = malloc(sizeof(double) * (count ? count : 1));
        for (i = 0; i < count; ++i) {
            in[r][i] = input_value(r, i, seed);
            expect[i] += in[r][i];
            out[r][i] = in_place ? in[r][i] : -12345.0;
        }
        args[r] = (loom_coll_args_t){
            .sendbuf = in_place ? NULL : in[r], .recvbuf = out[r], .count = count,
            .elem_size = sizeof(double), .in_place = in_place,
            .op = { .fn = harness_sum_double, .commutative = 1 },
            .seg_bytes = seg_bytes, .depth = depth,
        };
    }

    harness_init(&h, p);
    ck_assert_msg(harness_run(&h, loom_allreduce_algorithms[alg].plan, args, seed) == LOOM_OK,
                  "%s allreduce p=%d count=%zu in_place=%d did not complete",
                  loom_allreduce_alg_names[alg], p, count, in_place);
    for (r = 0; r < p; ++r) {
        for (i = 0; i < count; ++i) {
            ck_assert_msg(out[r][i] == expect[i],
                          "%s p=%d count=%zu rank %d element %zu: %g, expected %g",
                          loom_allreduce_alg_names[alg], p, count, r, i, out[r][i],
                          expect[i]);
        }
        /* Replicas must be bitwise identical, not just close. */
        ck_assert(count == 0 || memcmp(out[r], out[0], count * sizeof(double)) == 0);
        if (!in_place) {
            for (i = 0; i < count; ++i) {
                ck_assert(in[r][i] == input_value(r, i, seed)); /* input untouched */
            }
        }
        /* Exactly the ring's volume: every block but one in each phase. */
        sent_elems = p == 1 ? 0
                     : 2 * count - loom_spread_count(loom_spread(count, p), (r + 1) % p)
                                 - loom_spread_count(loom_spread(count, p), (r + 2) % p);
        if (alg == LOOM_ALLREDUCE_RING) {
            ck_assert_uint_eq(loom_loopback_bytes_sent(h.lb, r), sent_elems * sizeof(double));
        }
    }
    ck_assert_int_eq(loom_loopback_pending(h.lb), 0);
    harness_fini(&h);

    for (r = 0; r < p; ++r) {
        free(in[r]);
        free(out[r]);
    }
    free(in);
    free(out);
    free(expect);
    free(args);
}

static void check_ring(int p, size_t count, int in_place, unsigned seed)
{
    check_alg(LOOM_ALLREDUCE_RING, p, count, in_place, seed, 0, 0);
}

START_TEST(test_ring_edge_counts)
{
    int p = _i;

    check_ring(p, 0, 0, 1);
    check_ring(p, 1, 0, 2);
    check_ring(p, 1, 1, 3);
    if (p > 2) {
        check_ring(p, (size_t)p - 1, 0, 4); /* fewer elements than ranks */
    }
    check_ring(p, (size_t)p, 1, 5);
    check_ring(p, 2 * (size_t)p + 1, 0, 6); /* odd, uneven blocks */
}
END_TEST

START_TEST(test_ring_random_sizes)
{
    unsigned seed = 1000u + (unsigned)_i;
    int p, k;

    srand(seed);
    for (k = 0; k < 6; ++k) {
        p = 1 + rand() % 32;
        check_ring(p, (size_t)(rand() % 5000), rand() % 2, seed + (unsigned)k);
    }
}
END_TEST

/* Every algorithm at 1..64 ranks with random sizes and pipelining. */
START_TEST(test_every_algorithm)
{
    unsigned seed = 2000u + (unsigned)_i;
    int alg, p, k;
    size_t count, seg;

    srand(seed);
    for (alg = 1; alg < LOOM_ALLREDUCE_ALG_COUNT; ++alg) {
        for (k = 0; k < 4; ++k) {
            p = 1 + rand() % 64;
            seg = (size_t)(rand() % 3) * 8 * (size_t)(1 + rand() % 300);
            /* Small segments make many steps: keep those vectors shorter. */
            count = (size_t)(rand() % 3 == 0 ? rand() % (2 * p + 2)
                                             : rand() % (seg ? 3000 : 20000));
            check_alg((loom_allreduce_alg_t)alg, p, count, rand() % 2, seed + (unsigned)k,
                      seg, rand() % 5);
        }
    }
}
END_TEST

/* Every algorithm with Loom's kernels: a random (op, type) pair, small
 * integer inputs (so every reduction order gives the same bits), checked
 * against the ranks' inputs folded in rank order with the same kernel
 * (the kernels themselves are checked against scalar code in
 * check_kernels). */
static void fill_small(loom_dtype_t dt, loom_op_t op, void *buf, size_t count, int r,
                       unsigned salt)
{
    size_t i;
    long v;

    for (i = 0; i < count; ++i) {
        v = (long)((i * 2654435761u + (unsigned)r * 97u + salt) % 5);
        if (op == LOOM_OP_PROD) {
            v = v % 2 + 1; /* 1 or 2: products stay exact and in range */
        }
        switch (dt) {
        case LOOM_DTYPE_INT8:   ((int8_t *)buf)[i] = (int8_t)(v - 2); break;
        case LOOM_DTYPE_INT16:  ((int16_t *)buf)[i] = (int16_t)(v - 2); break;
        case LOOM_DTYPE_INT32:  ((int32_t *)buf)[i] = (int32_t)(v - 2); break;
        case LOOM_DTYPE_INT64:  ((int64_t *)buf)[i] = v - 2; break;
        case LOOM_DTYPE_UINT8:  ((uint8_t *)buf)[i] = (uint8_t)v; break;
        case LOOM_DTYPE_UINT16: ((uint16_t *)buf)[i] = (uint16_t)v; break;
        case LOOM_DTYPE_UINT32: ((uint32_t *)buf)[i] = (uint32_t)v; break;
        case LOOM_DTYPE_UINT64: ((uint64_t *)buf)[i] = (uint64_t)v; break;
        case LOOM_DTYPE_FLOAT:  ((float *)buf)[i] = (float)(v - 2); break;
        default:                ((double *)buf)[i] = (double)(v - 2); break;
        }
    }
}

START_TEST(test_every_algorithm_ops_types)
{
    unsigned seed = 3000u + (unsigned)_i;
    loom_reduce_fn_t fn;
    loom_coll_args_t *args;
    char **in, **out, *expect;
    loom_dtype_t dt;
    loom_op_t op;
    size_t count, es, i, seg;
    loom_status_t st;
    int alg, p, r, k, depth;
    harness_t h;

    srand(seed);
    for (alg = 1; alg < LOOM_ALLREDUCE_ALG_COUNT; ++alg) {
        for (k = 0; k < 3; ++k) {
            do {
                op = (loom_op_t)(rand() % LOOM_OP_COUNT);
                dt = (loom_dtype_t)(rand() % LOOM_DTYPE_COUNT);
                fn = loom_reduce_kernel(op, dt);
            } while (fn == NULL);
            p = 1 + rand() % 24;
            count = (size_t)(rand() % 3000);
            es = loom_dtype_size(dt);
            seg = (size_t)(rand() % 2) * es * 64;   /* all ranks agree on these */
            depth = rand() % 4;
            args = calloc((size_t)p, sizeof(*args));
            in = calloc((size_t)p, sizeof(*in));
            out = calloc((size_t)p, sizeof(*out));
            expect = malloc(count * es + 1);
            for (r = 0; r < p; ++r) {
                in[r] = malloc(count * es + 1);
                out[r] = malloc(count * es + 1);
                fill_small(dt, op, in[r], count, r, seed + (unsigned)k);
                args[r] = (loom_coll_args_t){
                    .sendbuf = in[r], .recvbuf = out[r], .count = count, .elem_size = es,
                    .op = { .fn = fn, .commutative = 1 },
                    .seg_bytes = seg, .depth = depth,
                };
            }
            memcpy(expect, in[0], count * es);
            for (r = 1; r < p; ++r) {
                memcpy(out[0], in[r], count * es);  /* fold: expect = expect op in[r] */
                fn(expect, out[0], count, NULL);
                memcpy(expect, out[0], count * es);
            }
            harness_init(&h, p);
            st = harness_run(&h, loom_allreduce_algorithms[alg].plan, args, seed + (unsigned)k);
            ck_assert_msg(st == LOOM_OK, "%s %s %s p=%d count=%zu seg=%zu depth=%d: %s",
                          loom_allreduce_alg_names[alg], loom_op_name(op),
                          loom_dtype_name(dt), p, count, args[0].seg_bytes, args[0].depth,
                          loom_status_string(st));
            for (r = 0; r < p; ++r) {
                for (i = 0; i < count * es; ++i) {
                    ck_assert_msg(out[r][i] == expect[i], "%s %s %s p=%d count=%zu: rank %d "
                                  "byte %zu differs", loom_allreduce_alg_names[alg],
                                  loom_op_name(op), loom_dtype_name(dt), p, count, r, i);
                }
                free(in[r]);
                free(out[r]);
            }
            harness_fini(&h);
            free(expect);
            free(in);
            free(out);
            free(args);
        }
    }
}
END_TEST

/* uint32 sums wrap modulo 2^32, the same on every rank. */
START_TEST(test_ring_u32_wraps)
{
    enum { P = 7, N = 33 };
    uint32_t in[P][N], out[P][N], expect[N] = { 0 };
    loom_coll_args_t args[P];
    harness_t h;
    int r, i;

    for (r = 0; r < P; ++r) {
        for (i = 0; i < N; ++i) {
            in[r][i] = 0xF0000000u + (uint32_t)(r * 977 + i);
            expect[i] += in[r][i];
        }
        args[r] = (loom_coll_args_t){ .sendbuf = in[r], .recvbuf = out[r], .count = N,
                                      .elem_size = 4,
                                      .op = { .fn = harness_sum_u32, .commutative = 1 } };
    }
    harness_init(&h, P);
    ck_assert_int_eq(harness_run(&h, loom_allreduce_ring_plan, args, 9), LOOM_OK);
    for (r = 0; r < P; ++r) {
        ck_assert_mem_eq(out[r], expect, sizeof(expect));
    }
    harness_fini(&h);
}
END_TEST

START_TEST(test_ring_refuses_noncommutative)
{
    double x = 1, y;
    loom_coll_args_t args = { .sendbuf = &x, .recvbuf = &y, .count = 1,
                              .elem_size = 8,
                              .op = { .fn = harness_sum_double, .commutative = 0 } };
    loom_sched_t *sched = NULL;
    harness_t h;

    harness_init(&h, 3);
    ck_assert_int_eq(loom_allreduce_ring_plan(&args, h.teams[0], &sched),
                     LOOM_ERR_UNSUPPORTED);
    ck_assert_ptr_null(sched);
    harness_fini(&h);
}
END_TEST

/* Every message of a schedule needs a tag step of its own (the verifier
 * found ring steps wrapping at 16385 ranks): a plan asked for more
 * segments than tags allow makes its segments larger instead. */
static int tags_unique(const loom_sched_t *s)
{
    size_t width = (size_t)LOOM_TAG_MAX_STEPS + 1, bit;
    unsigned char *seen = calloc((size_t)s->team->size * width / 8 + 1, 1);
    int i, ok = 1;

    for (i = 0; i < s->nsteps && ok; ++i) {
        const loom_step_desc_t *d = &s->steps[i].desc;

        if (d->type != LOOM_STEP_RECV) {
            continue;
        }
        bit = (size_t)d->peer * width + d->tag_step;
        ok = d->tag_step <= LOOM_TAG_MAX_STEPS && !(seen[bit / 8] & (1u << (bit % 8)));
        seen[bit / 8] |= (unsigned char)(1u << (bit % 8));
    }
    free(seen);
    return ok;
}

START_TEST(test_tag_budget)
{
    static double buf[300000];
    loom_coll_args_t args = {
        .sendbuf = NULL, .recvbuf = buf, .count = 300000, .elem_size = 8,
        .in_place = 1, .seg_bytes = 8, .depth = 2,
        .op = { .fn = harness_sum_double, .commutative = 1 },
    };
    const loom_allreduce_alg_t algs[] = { LOOM_ALLREDUCE_RING, LOOM_ALLREDUCE_DBTREE,
                                          LOOM_ALLREDUCE_HIER };
    loom_sched_t *sched;
    harness_t h;
    size_t k;
    int alg;

    harness_init(&h, 3);
    for (k = 0; k < sizeof(algs) / sizeof(algs[0]); ++k) {
        alg = algs[k];
        ck_assert_int_eq(loom_allreduce_algorithms[alg].plan(&args, h.teams[0], &sched),
                         LOOM_OK);
        ck_assert_msg(tags_unique(sched), "%s reuses a tag step",
                      loom_allreduce_alg_names[alg]);
        ck_assert_int_lt(sched->nsteps, 3 * (int)LOOM_TAG_MAX_STEPS);
        loom_sched_destroy(sched);
    }
    harness_fini(&h);
}
END_TEST

/* The hierarchical allreduce's cost: a value computed by hand for
 * 2 racks x 2 nodes x 2 ranks, whole and in 4 segments (pipelining must
 * lower it), and nothing to pay on one rank. */
START_TEST(test_hier_cost)
{
    const loom_cost_t cls[3] = {
        { .alpha = 1e-6, .beta = 1e-10, .gamma = 1e-10 },
        { .alpha = 5e-6, .beta = 1e-9, .gamma = 1e-10 },
        { .alpha = 2e-5, .beta = 4e-9, .gamma = 1e-10 },
    };
    double whole = loom_allreduce_hier_cost(cls, 2, 2, 2, NULL, 1e6, 0);
    /* 31250 bytes per top-level message, 8 of them per segment: 4 segments. */
    double piped = loom_allreduce_hier_cost(cls, 2, 2, 2, NULL, 1e6, 31250);

    /* node 2e-6 + 1e-4 + 5e-5, rack 1e-5 + 1e-3 + 2.5e-5, racks 4e-5 +
     * 4e-3 + 1.25e-5. */
    ck_assert_double_eq_tol(whole, 5.2395e-3, 1e-12);
    /* Per segment: 3.95e-5, 2.6625e-4, 1.043125e-3; the last three more
     * times behind the first. */
    ck_assert_double_eq_tol(piped, 1.348875e-3 + 3 * 1.043125e-3, 1e-12);
    ck_assert(piped < whole);
    ck_assert_double_eq(loom_allreduce_hier_cost(cls, 1, 1, 1, NULL, 1e6, 0), 0);
}
END_TEST

static loom_coll_config_t default_config(void)
{
    loom_coll_config_t cfg;

    ck_assert_int_eq(loom_coll_config_init(&cfg), LOOM_OK);
    return cfg;
}

/* The cost model's picks at the extremes, and what settings force. */
START_TEST(test_allreduce_select)
{
    loom_coll_config_t cfg = default_config();
    loom_choice_t ch;
    size_t bytes;
    int p;

    /* Tiny messages: the fewest rounds. */
    loom_allreduce_select(&cfg, 8, 8, 1, &ch);
    ck_assert_int_eq(ch.alg, LOOM_ALLREDUCE_RD);
    ck_assert_int_eq(ch.forced, 0);
    /* The explanation: the estimate and a dearer runner-up. */
    ck_assert(ch.cost_s > 0);
    ck_assert_int_ne(ch.next_alg, ch.alg);
    ck_assert_int_ne(ch.next_alg, LOOM_ALLREDUCE_AUTO);
    ck_assert(ch.next_cost_s >= ch.cost_s);
    /* Large messages: a bandwidth-optimal algorithm, never doubling. */
    loom_allreduce_select(&cfg, 4, 64u << 20, 1, &ch);
    ck_assert(ch.alg == LOOM_ALLREDUCE_RING || ch.alg == LOOM_ALLREDUCE_RABENSEIFNER);
    /* Non-commutative: only algorithms that reduce in rank order, at every size. */
    for (p = 2; p <= 64; p += 7) {
        for (bytes = 8; bytes <= (256u << 20); bytes *= 4) {
            loom_allreduce_select(&cfg, p, bytes, 0, &ch);
            ck_assert_msg(loom_allreduce_algorithms[ch.alg].noncommutative,
                          "p=%d bytes=%zu picked %s for a non-commutative op", p, bytes,
                          loom_allreduce_alg_names[ch.alg]);
        }
    }
    /* Forced: taken as given, except where it cannot keep rank order. */
    cfg.allreduce_algorithm = LOOM_ALLREDUCE_DBTREE;
    cfg.allreduce_segment = 12345;
    cfg.allreduce_depth = 3;
    loom_allreduce_select(&cfg, 16, 8, 1, &ch);
    ck_assert_int_eq(ch.alg, LOOM_ALLREDUCE_DBTREE);
    ck_assert_int_eq(ch.forced, 1);
    ck_assert_uint_eq(ch.seg_bytes, 12345);
    ck_assert_int_eq(ch.depth, 3);
    loom_allreduce_select(&cfg, 16, 8, 0, &ch);
    ck_assert_int_eq(ch.alg, LOOM_ALLREDUCE_RD);
}
END_TEST

/* A faster link makes bandwidth-optimal algorithms win later; a slower
 * per-message cost makes them win earlier.  The crossover moves the way
 * the alpha-beta model says. */
static size_t crossover(const loom_coll_config_t *cfg, int p)
{
    loom_choice_t ch;
    size_t bytes;

    for (bytes = 8; bytes <= (1u << 30); bytes *= 2) {
        loom_allreduce_select(cfg, p, bytes, 1, &ch);
        if (ch.alg != LOOM_ALLREDUCE_RD) {
            return bytes;
        }
    }
    return 0;
}

START_TEST(test_allreduce_select_crossover)
{
    loom_coll_config_t cfg = default_config();
    size_t base = crossover(&cfg, 8), cheap_msgs;

    ck_assert_uint_gt(base, 8);
    cfg.cost_alpha_ns /= 10;
    cheap_msgs = crossover(&cfg, 8);
    ck_assert_uint_lt(cheap_msgs, base);
}
END_TEST

/* Small messages inside one node go to the module below Loom; across nodes,
 * or with the setting at 0, Loom keeps every size.  One rule for every
 * collective, each with its own settings; on two ranks the pair setting
 * wins where it is larger. */
START_TEST(test_handoff_limit)
{
    loom_coll_config_t cfg = default_config();
    harness_t h;
    int pair;

    harness_init(&h, 3);  /* no node keys: one node per rank */
    ck_assert_uint_eq(loom_handoff_limit(&cfg, h.teams[0], LOOM_COLL_ALLREDUCE, &pair), 0);
    h.teams[0]->num_nodes = 1;
    cfg.allreduce_handoff = 4096;
    cfg.reduce_handoff = 1000;
    cfg.reduce_scatter_handoff = 3000;
    cfg.bcast_handoff = 512;
    cfg.bcast_pair_handoff = 2048;
    cfg.allgather_handoff = 8192;
    cfg.allgather_pair_handoff = 6144;
    ck_assert_uint_eq(loom_handoff_limit(&cfg, h.teams[0], LOOM_COLL_ALLREDUCE, &pair), 4096);
    ck_assert_int_eq(pair, 0);
    ck_assert_uint_eq(loom_handoff_limit(&cfg, h.teams[0], LOOM_COLL_REDUCE, &pair), 1000);
    ck_assert_uint_eq(loom_handoff_limit(&cfg, h.teams[0], LOOM_COLL_REDUCE_SCATTER, &pair),
                      3000);
    /* Three ranks: the pair settings do not apply. */
    ck_assert_uint_eq(loom_handoff_limit(&cfg, h.teams[0], LOOM_COLL_BCAST, &pair), 512);
    ck_assert_int_eq(pair, 0);
    h.teams[0]->size = 2;
    ck_assert_uint_eq(loom_handoff_limit(&cfg, h.teams[0], LOOM_COLL_BCAST, &pair), 2048);
    ck_assert_int_eq(pair, 1);
    /* A pair setting below the collective's own is not used. */
    ck_assert_uint_eq(loom_handoff_limit(&cfg, h.teams[0], LOOM_COLL_ALLGATHER, &pair), 8192);
    ck_assert_int_eq(pair, 0);
    h.teams[0]->size = 3;
    h.teams[0]->num_nodes = 2;
    ck_assert_uint_eq(loom_handoff_limit(&cfg, h.teams[0], LOOM_COLL_BCAST, &pair), 0);
    h.teams[0]->num_nodes = 1;
    cfg.allreduce_handoff = 0;
    ck_assert_uint_eq(loom_handoff_limit(&cfg, h.teams[0], LOOM_COLL_ALLREDUCE, &pair), 0);
    harness_fini(&h);
}
END_TEST

/* The verbose line is printed once per power-of-two size class. */
START_TEST(test_team_size_classes)
{
    harness_t h;

    harness_init(&h, 2);
    ck_assert(loom_team_first_in_class(h.teams[0], LOOM_COLL_ALLREDUCE, 0));
    ck_assert(!loom_team_first_in_class(h.teams[0], LOOM_COLL_ALLREDUCE, 1));  /* 0 and 1: class 0 */
    ck_assert(loom_team_first_in_class(h.teams[0], LOOM_COLL_ALLREDUCE, 4096));
    ck_assert(!loom_team_first_in_class(h.teams[0], LOOM_COLL_ALLREDUCE, 8191));
    ck_assert(loom_team_first_in_class(h.teams[0], LOOM_COLL_ALLREDUCE, 8192));
    ck_assert(loom_team_first_in_class(h.teams[0], LOOM_COLL_ALLREDUCE, SIZE_MAX));
    ck_assert(loom_team_first_in_class(h.teams[1], LOOM_COLL_ALLREDUCE, 4096));  /* per team */
    /* and per collective: bcast's classes are its own */
    ck_assert(loom_team_first_in_class(h.teams[0], LOOM_COLL_BCAST, 4096));
    ck_assert(!loom_team_first_in_class(h.teams[0], LOOM_COLL_BCAST, 4097));
    ck_assert(!loom_team_first_in_class(h.teams[0], LOOM_COLL_ALLREDUCE, 4097));
    for (int c = 0; c < LOOM_COLL_KIND_COUNT; ++c) {
        ck_assert(loom_team_first_in_class(h.teams[1], (loom_coll_kind_t)c, 1 << 20));
    }
    harness_fini(&h);
}
END_TEST

START_TEST(test_allreduce_plan_rejects_bad_algorithm)
{
    loom_coll_config_t cfg = default_config();
    loom_coll_args_t args = { .count = 10, .elem_size = 8 };
    loom_sched_t *sched = NULL;
    harness_t h;

    harness_init(&h, 2);
    cfg.allreduce_algorithm = LOOM_ALLREDUCE_ALG_COUNT;
    loom_log_set_level((loom_log_level_t)-1);
    ck_assert_int_eq(loom_coll_plan(&loom_allreduce_collective, &args, h.teams[0], &cfg, &sched,
                                    NULL),
                     LOOM_ERR_INVALID_PARAM);
    loom_log_set_level(LOOM_LOG_WARN);
    ck_assert_ptr_null(sched);
    harness_fini(&h);
}
END_TEST

int main(void)
{
    Suite *s = suite_create("allreduce_ring");
    TCase *tc = tcase_create("ring");
    /* The long loops; the sanitizer run leaves them out (test/sanitize.am),
     * the case above still runs every algorithm through check_verifier. */
    TCase *sweep = tcase_create("sweep");

    tcase_set_timeout(tc, 120);
    tcase_set_timeout(sweep, 240);
    tcase_add_loop_test(tc, test_ring_edge_counts, 1, 33);
    tcase_add_loop_test(sweep, test_ring_random_sizes, 0, 8);
    tcase_add_loop_test(sweep, test_every_algorithm, 0, 12);
    tcase_add_loop_test(sweep, test_every_algorithm_ops_types, 0, 6);
    tcase_add_loop_test(tc, test_every_algorithm, 0, 1);
    tcase_add_test(tc, test_ring_u32_wraps);
    tcase_add_test(tc, test_ring_refuses_noncommutative);
    tcase_add_test(tc, test_tag_budget);
    tcase_add_test(tc, test_hier_cost);
    tcase_add_test(tc, test_allreduce_select);
    tcase_add_test(tc, test_allreduce_select_crossover);
    tcase_add_test(tc, test_allreduce_plan_rejects_bad_algorithm);
    tcase_add_test(tc, test_handoff_limit);
    tcase_add_test(tc, test_team_size_classes);
    suite_add_tcase(s, tc);
    suite_add_tcase(s, sweep);
    return loom_check_run(s);
}
