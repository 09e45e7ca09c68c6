/* Reduce algorithms on the loopback transport (every algorithm at 1..24
 * ranks, every count class, many roots, in place or not, random sizes),
 * with a sum and a non-commutative op checked against a fold in rank
 * order computed here; and the selection. */
#include "test/unit/support/loopback_harness.h"
#include "coll/core/reduce/reduce.h"
#include "coll/core/select/coll_config.h"

#include <check.h>
#include "test/unit/support/check_main.h"
#include <stdint.h>
#include <stdlib.h>
#include <string.h>

/* An affine map x -> a x + b over the integers mod 2^64.  Composition is
 * associative and not commutative: dst = src op dst applies src's map
 * (the lower ranks) first, then dst's. */
typedef struct affine {
    uint64_t a, b;
} affine_t;

static void affine_compose(const void *src, void *dst, size_t count, void *ctx)
{
    const affine_t *s = src;
    affine_t *d = dst;
    size_t i;

    (void)ctx;
    for (i = 0; i < count; ++i) {
        /* d(s(x)) = d.a (s.a x + s.b) + d.b */
        d[i].b = d[i].a * s[i].b + d[i].b;
        d[i].a = d[i].a * s[i].a;
    }
}

static void affine_sum(const void *src, void *dst, size_t count, void *ctx)
{
    const affine_t *s = src;
    affine_t *d = dst;
    size_t i;

    (void)ctx;
    for (i = 0; i < count; ++i) {
        d[i].a += s[i].a;
        d[i].b += s[i].b;
    }
}

static affine_t input(int r, size_t i, unsigned salt)
{
    uint64_t x = ((uint64_t)r << 32) ^ (uint64_t)i * 0x9E3779B97F4A7C15u ^ salt;

    x ^= x >> 29;
    x *= 0xBF58476D1CE4E5B9u;
    return (affine_t){ .a = x | 1, .b = x >> 7 };
}

/* One reduce of count elements on p ranks to root with alg.  Non-roots
 * pass a NULL recvbuf; the root in place keeps its input in recvbuf. */
/* seg_bytes and depth as a selection would pass them (0: defaults). */
static void check_alg_seg(loom_reduce_alg_t alg, int p, size_t count, int root,
                          int in_place, int commutative, unsigned seed, size_t seg_bytes,
                          int depth)
{
    loom_reduce_fn_t fn = commutative ? affine_sum : affine_compose;
    loom_coll_args_t *args = calloc((size_t)p, sizeof(*args));
    affine_t **in = calloc((size_t)p, sizeof(*in));
    affine_t *out = malloc(sizeof(affine_t) * (count ? count : 1));
    affine_t *expect = malloc(sizeof(affine_t) * (count ? count : 1));
    harness_t h;
    loom_status_t st;
    size_t i;
    int r;

    for (r = 0; r < p; ++r) {
        in[r] = malloc(sizeof(affine_t) * (count ? count : 1));
        for (i = 0; i < count; ++i) {
            in[r][i] = input(r, i, seed);
            if (r == 0) {
                expect[i] = in[r][i];
            } else {
                affine_t next = in[r][i];

                fn(&expect[i], &next, 1, NULL);
                expect[i] = next;
            }
        }
        args[r] = (loom_coll_args_t){
            .sendbuf = in[r], .recvbuf = NULL, .count = count,
            .elem_size = sizeof(affine_t), .root = root,
            .op = { .fn = fn, .commutative = commutative },
            .seg_bytes = seg_bytes, .depth = depth,
        };
    }
    for (i = 0; i < count; ++i) {
        out[i] = in_place ? in[root][i] : (affine_t){ 12345, 678 };
    }
    args[root].recvbuf = out;
    if (in_place) {
        args[root].sendbuf = NULL;
        args[root].in_place = 1;
    }
    harness_init(&h, p);
    st = harness_run(&h, loom_reduce_algorithms[alg].plan, args, seed);
    /* Commutative-only algorithms must refuse the others (the selection
     * then hands them to the binomial tree). */
    if (!commutative && !loom_reduce_algorithms[alg].noncommutative) {
        ck_assert_int_eq(st, LOOM_ERR_UNSUPPORTED);
        goto done;
    }
    ck_assert_msg(st == LOOM_OK, "%s reduce p=%d count=%zu root=%d in_place=%d %s seg=%zu "
                  "depth=%d: %s", loom_reduce_alg_names[alg], p, count, root, in_place,
                  commutative ? "sum" : "compose", seg_bytes, depth, loom_status_string(st));
    /* Check notes every passing assertion (a write): test in C, fail
     * with Check. */
    for (i = 0; i < count; ++i) {
        if (out[i].a != expect[i].a || out[i].b != expect[i].b) {
            ck_abort_msg("%s p=%d count=%zu root=%d in_place=%d %s seg=%zu depth=%d: "
                         "element %zu wrong", loom_reduce_alg_names[alg], p, count, root,
                         in_place, commutative ? "sum" : "compose", seg_bytes, depth, i);
        }
    }
done:
    for (r = 0; r < p; ++r) {
        for (i = 0; i < count && (r != root || !in_place); ++i) {
            affine_t want = input(r, i, seed);

            if (in[r][i].a != want.a || in[r][i].b != want.b) {
                ck_abort_msg("rank %d's input element %zu changed", r, i);
            }
        }
        free(in[r]);
    }
    ck_assert_int_eq(loom_loopback_pending(h.lb), 0);
    harness_fini(&h);
    free(in);
    free(out);
    free(expect);
    free(args);
}

static void check_alg(loom_reduce_alg_t alg, int p, size_t count, int root, int in_place,
                      int commutative, unsigned seed)
{
    check_alg_seg(alg, p, count, root, in_place, commutative, seed, 0, 0);
}

/* The chain's segments: one element, a few, a size that is not a whole
 * number of elements, more than the message; one slot per rank (every
 * segment waits for the previous one's send) up to more slots than
 * segments; every count class, roots at the ends and inside. */
START_TEST(test_chain_segments)
{
    static const size_t segs[] = { 1, sizeof(affine_t), 3 * sizeof(affine_t),
                                   2 * sizeof(affine_t) + 5, 1 << 20 };
    int p = _i * 3 + 1, k, s, j, comm, roots[3] = { 0, p / 2, p - 1 };
    size_t counts[6];

    counts[0] = 0;
    counts[1] = 1;
    counts[2] = p > 1 ? (size_t)p - 1 : 2;
    counts[3] = (size_t)p;
    counts[4] = 2 * (size_t)p + 1;
    counts[5] = 257;
    for (s = 0; s < (int)(sizeof(segs) / sizeof(segs[0])); ++s) {
        for (k = 0; k < 6; ++k) {
            for (j = 0; j < 3; ++j) {
                if (j > 0 && roots[j] == roots[j - 1]) {
                    continue;
                }
                for (comm = 0; comm < 2; ++comm) {
                    check_alg_seg(LOOM_REDUCE_CHAIN, p, counts[k], roots[j], (k + s + j) % 2,
                                  comm, (unsigned)(p * 31 + k * 7 + s), segs[s],
                                  1 + (k + s) % 3);
                }
            }
        }
    }
}
END_TEST

/* A segment setting far above the message must not size the scratch:
 * the middle rank of a chain holds depth slots of at most the message. */
START_TEST(test_chain_scratch_bounded)
{
    affine_t in[10] = { { 0, 0 } };
    loom_coll_args_t args = {
        .sendbuf = in, .count = 10, .elem_size = sizeof(affine_t), .root = 0,
        .op = { .fn = affine_sum, .commutative = 1 }, .seg_bytes = 1u << 30, .depth = 4,
    };
    loom_sched_t *sched;
    harness_t h;

    harness_init(&h, 4);
    ck_assert_int_eq(loom_reduce_chain_plan(&args, h.teams[1], &sched), LOOM_OK);
    ck_assert_uint_le(sched->scratch_bytes, sizeof(in));
    ck_assert_uint_gt(sched->scratch_bytes, 0);
    loom_sched_destroy(sched);
    harness_fini(&h);
}
END_TEST

/* Every algorithm, p = _i, every count class, both ops, both buffer
 * modes, roots at both ends and in the middle (every root up to 8). */
START_TEST(test_edges)
{
    int p = _i, alg, k, root, comm;
    size_t counts[6];

    counts[0] = 0;
    counts[1] = 1;
    counts[2] = p > 1 ? (size_t)p - 1 : 2;
    counts[3] = (size_t)p;
    counts[4] = 2 * (size_t)p + 1;
    counts[5] = 300;
    for (alg = 1; alg < LOOM_REDUCE_ALG_COUNT; ++alg) {
        for (k = 0; k < 6; ++k) {
            for (root = 0; root < p; ++root) {
                if (p > 8 && root != 0 && root != p - 1 && root != p / 2 && root != 1) {
                    continue;
                }
                for (comm = 0; comm < 2; ++comm) {
                    check_alg((loom_reduce_alg_t)alg, p, counts[k], root, (k + root) % 2,
                              comm, (unsigned)(p * 100 + k));
                }
            }
        }
    }
}
END_TEST

START_TEST(test_random)
{
    unsigned seed = 5000u + (unsigned)_i;
    int alg, p, k;
    size_t count;

    srand(seed);
    for (alg = 1; alg < LOOM_REDUCE_ALG_COUNT; ++alg) {
        for (k = 0; k < 4; ++k) {
            p = 1 + rand() % 40;
            count = (size_t)(rand() % 3 == 0 ? rand() % (2 * p + 2) : rand() % 5000);
            check_alg((loom_reduce_alg_t)alg, p, count, rand() % p, rand() % 2, rand() % 2,
                      seed + (unsigned)k);
        }
    }
}
END_TEST

static loom_coll_config_t default_config(void)
{
    loom_coll_config_t cfg;

    ck_assert_int_eq(loom_coll_config_init(&cfg), LOOM_OK);
    return cfg;
}

START_TEST(test_select)
{
    loom_coll_config_t cfg = default_config();
    loom_choice_t ch, again;
    size_t bytes;
    int p, comm;

    ck_assert_int_eq(cfg.reduce_algorithm, LOOM_REDUCE_AUTO);
    /* Tiny: the fewest rounds, for either kind of op (on 3 ranks the
     * chain has as few, and reduces less at the root). */
    for (p = 1; p <= 1024; p = p * 2 + 1) {
        for (comm = 0; comm < 2; ++comm) {
            loom_reduce_select(&cfg, p, 8, comm, &ch);
            ck_assert_msg(ch.alg == LOOM_REDUCE_BINOMIAL ||
                          (p == 3 && ch.alg == LOOM_REDUCE_CHAIN), "p=%d: %s", p,
                          loom_reduce_alg_names[ch.alg]);
            ck_assert_int_eq(ch.forced, 0);
        }
    }
    loom_reduce_select(&cfg, 16, 8, 1, &ch);
    ck_assert(ch.cost_s > 0);
    ck_assert_int_eq(ch.next_alg, LOOM_REDUCE_SCATTER_GATHER);
    ck_assert(ch.next_cost_s >= ch.cost_s);
    /* Large: the pipelined chain, whose n max(beta, gamma) beats the
     * 2n beta + n gamma of reduce-scatter + gather once its p - 2 stages
     * of fill are paid; a medium size on many ranks cannot pay them. */
    for (p = 4; p <= 1024; p = p * 2 + 1) {
        for (comm = 0; comm < 2; ++comm) {
            loom_reduce_select(&cfg, p, 64u << 20, comm, &ch);
            ck_assert_msg(ch.alg == LOOM_REDUCE_CHAIN, "p=%d comm=%d: %s", p, comm,
                          loom_reduce_alg_names[ch.alg]);
            ck_assert(ch.seg_bytes >= (16u << 10) && ch.seg_bytes <= (1u << 20));
            if (p >= 255) {
                loom_reduce_select(&cfg, p, 1u << 20, comm, &ch);
                ck_assert_msg(ch.alg == LOOM_REDUCE_SCATTER_GATHER, "p=%d comm=%d: %s", p,
                              comm, loom_reduce_alg_names[ch.alg]);
                ck_assert_int_eq(ch.seg_bytes, 0);
            }
        }
    }
    /* The segment setting wins over the model's. */
    cfg.reduce_segment = 12345 * 8;
    loom_reduce_select(&cfg, 8, 64u << 20, 1, &ch);
    ck_assert_int_eq(ch.alg, LOOM_REDUCE_CHAIN);
    ck_assert_int_eq(ch.seg_bytes, 12345 * 8);
    cfg.reduce_segment = 0;
    /* Decisions depend on (p, bytes, commutative, settings) only. */
    for (p = 1; p <= 300; p += 13) {
        for (bytes = 0; bytes <= (64u << 20); bytes = bytes * 3 + 1) {
            loom_reduce_select(&cfg, p, bytes, (int)(bytes % 2), &ch);
            loom_reduce_select(&cfg, p, bytes, (int)(bytes % 2), &again);
            ck_assert(ch.alg == again.alg && ch.seg_bytes == again.seg_bytes &&
                      ch.cost_s == again.cost_s && ch.next_alg == again.next_alg);
            ck_assert(loom_reduce_algorithms[ch.alg].noncommutative || bytes % 2);
        }
    }
    /* Forced: taken as given (every reduce algorithm keeps rank order). */
    cfg.reduce_algorithm = LOOM_REDUCE_SCATTER_GATHER;
    loom_reduce_select(&cfg, 16, 8, 0, &ch);
    ck_assert_int_eq(ch.alg, LOOM_REDUCE_SCATTER_GATHER);
    ck_assert_int_eq(ch.forced, 1);
    cfg.reduce_algorithm = LOOM_REDUCE_BINOMIAL;
    loom_reduce_select(&cfg, 16, 1u << 30, 1, &ch);
    ck_assert_int_eq(ch.alg, LOOM_REDUCE_BINOMIAL);
    ck_assert_int_eq(ch.seg_bytes, 0);
    /* The hierarchical one: forced only, never the model's choice, and
     * a non-commutative op goes to the binomial tree instead. */
    cfg.reduce_algorithm = LOOM_REDUCE_HIER;
    loom_reduce_select(&cfg, 16, 8, 1, &ch);
    ck_assert_int_eq(ch.alg, LOOM_REDUCE_HIER);
    ck_assert_int_eq(ch.seg_bytes, 64u << 10);
    loom_reduce_select(&cfg, 16, 8, 0, &ch);
    ck_assert_int_eq(ch.alg, LOOM_REDUCE_BINOMIAL);
    cfg.reduce_algorithm = LOOM_REDUCE_AUTO;
    for (p = 1; p <= 300; p += 13) {
        for (bytes = 0; bytes <= (1u << 30); bytes = bytes * 5 + 1) {
            loom_reduce_select(&cfg, p, bytes, 1, &ch);
            ck_assert_int_ne(ch.alg, LOOM_REDUCE_HIER);
        }
    }
    /* A forced chain at a size the model would not pick it for still
     * gets a segment size. */
    cfg.reduce_algorithm = LOOM_REDUCE_CHAIN;
    loom_reduce_select(&cfg, 16, 8, 0, &ch);
    ck_assert_int_eq(ch.alg, LOOM_REDUCE_CHAIN);
    ck_assert_int_eq(ch.seg_bytes, 64u << 10);
}
END_TEST

START_TEST(test_names_and_config)
{
    loom_coll_config_t cfg = default_config();
    int a;

    ck_assert_str_eq(loom_reduce_alg_names[LOOM_REDUCE_AUTO], "auto");
    ck_assert_ptr_null(loom_reduce_alg_names[LOOM_REDUCE_ALG_COUNT]);
    for (a = 1; a < LOOM_REDUCE_ALG_COUNT; ++a) {
        ck_assert_str_eq(loom_reduce_alg_names[a], loom_reduce_algorithms[a].name);
        ck_assert(loom_reduce_algorithms[a].noncommutative || a == LOOM_REDUCE_HIER);
    }
    ck_assert_int_eq(loom_config_set(loom_coll_config_table, &cfg, "reduce_algorithm",
                                     "hierarchical"), LOOM_OK);
    ck_assert_int_eq(cfg.reduce_algorithm, LOOM_REDUCE_HIER);
    ck_assert_int_eq(loom_config_set(loom_coll_config_table, &cfg, "reduce_algorithm",
                                     "reduce_scatter_gather"), LOOM_OK);
    ck_assert_int_eq(cfg.reduce_algorithm, LOOM_REDUCE_SCATTER_GATHER);
    loom_log_set_level((loom_log_level_t)-1);
    ck_assert_int_eq(loom_config_set(loom_coll_config_table, &cfg, "reduce_algorithm",
                                     "ring"), LOOM_ERR_INVALID_PARAM);
    loom_log_set_level(LOOM_LOG_WARN);
}
END_TEST

/* loom_reduce_plan: the selection's choice, and a run through it. */
START_TEST(test_plan)
{
    loom_coll_config_t cfg = default_config();
    double in[5][10], out[10];
    loom_coll_args_t args[5];
    loom_choice_t ch;
    loom_sched_t *sched = NULL;
    harness_t h;
    int r, i;

    harness_init(&h, 5);
    for (r = 0; r < 5; ++r) {
        for (i = 0; i < 10; ++i) {
            in[r][i] = r * 10 + i;
        }
        args[r] = (loom_coll_args_t){ .sendbuf = in[r], .recvbuf = r == 3 ? out : NULL,
                                      .count = 10, .elem_size = 8, .root = 3,
                                      .op = { .fn = harness_sum_double, .commutative = 1 } };
    }
    ck_assert_int_eq(loom_coll_plan(&loom_reduce_collective, &args[3], h.teams[3], &cfg, &sched,
                                    &ch), LOOM_OK);
    ck_assert_int_eq(ch.alg, LOOM_REDUCE_BINOMIAL);
    ck_assert_uint_eq(sched->alg_id, (unsigned)ch.alg);
    loom_sched_destroy(sched);
    sched = NULL;
    /* The run itself (the sequence numbers moved on alike for all ranks). */
    for (r = 0; r < 5; ++r) {
        if (r != 3) {
            h.teams[r]->next_seq = h.teams[3]->next_seq;
        }
    }
    ck_assert_int_eq(harness_run(&h, loom_reduce_binomial_plan, args, 3), LOOM_OK);
    for (i = 0; i < 10; ++i) {
        ck_assert(out[i] == 100 + 5 * i);
    }
    loom_log_set_level((loom_log_level_t)-1);
    cfg.reduce_algorithm = -1;
    ck_assert_int_eq(loom_coll_plan(&loom_reduce_collective, &args[0], h.teams[0], &cfg, &sched,
                                    NULL),
                     LOOM_ERR_INVALID_PARAM);
    cfg.reduce_algorithm = LOOM_REDUCE_AUTO;
    args[0].root = -1;
    ck_assert_int_eq(loom_coll_plan(&loom_reduce_collective, &args[0], h.teams[0], &cfg, &sched,
                                    NULL),
                     LOOM_ERR_INVALID_PARAM);
    loom_log_set_level(LOOM_LOG_WARN);
    ck_assert_ptr_null(sched);
    harness_fini(&h);
}
END_TEST

int main(void)
{
    Suite *s = suite_create("reduce");
    TCase *tc = tcase_create("reduce");

    tcase_set_timeout(tc, 120);
    tcase_add_loop_test(tc, test_edges, 1, 25);
    tcase_add_loop_test(tc, test_random, 0, 8);
    tcase_add_loop_test(tc, test_chain_segments, 0, 7);
    tcase_add_test(tc, test_chain_scratch_bounded);
    tcase_add_test(tc, test_select);
    tcase_add_test(tc, test_names_and_config);
    tcase_add_test(tc, test_plan);
    suite_add_tcase(s, tc);
    return loom_check_run(s);
}
