/* Bcast algorithms on the loopback transport (every algorithm at 1..24
 * ranks, every count class, many roots, random sizes and segments),
 * checked value by value against the root's buffer; and the selection. */
#include "test/unit/support/loopback_harness.h"
#include "coll/core/bcast/bcast.h"
#include "coll/core/select/coll_config.h"
#include "coll/core/engine/tag.h"

#include <check.h>
#include "test/unit/support/check_main.h"
#include <stdint.h>
#include <stdlib.h>
#include <string.h>

static uint64_t value(int root, size_t i, unsigned salt)
{
    return (uint64_t)i * 0x9E3779B97F4A7C15u + (uint64_t)root * 7919u + salt;
}

/* One bcast of count uint64s from root on p ranks with alg; every rank
 * must end with the root's values and the root's own must be unchanged. */
static void check_alg(loom_bcast_alg_t alg, int p, size_t count, int root, unsigned seed,
                      size_t seg_bytes)
{
    loom_coll_args_t *args = calloc((size_t)p, sizeof(*args));
    uint64_t **buf = calloc((size_t)p, sizeof(*buf));
    harness_t h;
    loom_status_t st;
    size_t i;
    int r;

    for (r = 0; r < p; ++r) {
        buf[r] = malloc(sizeof(uint64_t) * (count ? count : 1));
        for (i = 0; i < count; ++i) {
            buf[r][i] = r == root ? value(root, i, seed) : UINT64_C(0xDEADBEEF) + (uint64_t)r;
        }
        args[r] = (loom_coll_args_t){
            .recvbuf = buf[r], .count = count, .elem_size = sizeof(uint64_t),
            .root = root, .seg_bytes = seg_bytes,
        };
    }
    harness_init(&h, p);
    st = harness_run(&h, loom_bcast_algorithms[alg].plan, args, seed);
    ck_assert_msg(st == LOOM_OK, "%s bcast p=%d count=%zu root=%d seg=%zu: %s",
                  loom_bcast_alg_names[alg], p, count, root, seg_bytes,
                  loom_status_string(st));
    for (r = 0; r < p; ++r) {
        /* Check notes every passing assertion (a write): test in C, fail
         * with Check. */
        for (i = 0; i < count; ++i) {
            if (buf[r][i] != value(root, i, seed)) {
                ck_abort_msg("%s p=%d count=%zu root=%d seg=%zu: rank %d element %zu wrong",
                             loom_bcast_alg_names[alg], p, count, root, seg_bytes, r, i);
            }
        }
    }
    /* The root sends the message at least once, nobody sends it to the root. */
    if (p > 1 && count > 0) {
        ck_assert_uint_ge(loom_loopback_bytes_sent(h.lb, root), 1);
    }
    ck_assert_int_eq(loom_loopback_pending(h.lb), 0);
    harness_fini(&h);
    for (r = 0; r < p; ++r) {
        free(buf[r]);
    }
    free(buf);
    free(args);
}

/* Every algorithm, p = _i, every count class, roots at both ends, in the
 * middle and one random; every root up to 8 ranks. */
START_TEST(test_edges)
{
    int p = _i, alg, k, root;
    size_t counts[6];

    counts[0] = 0;
    counts[1] = 1;
    counts[2] = p > 1 ? (size_t)p - 1 : 2;
    counts[3] = (size_t)p;
    counts[4] = 2 * (size_t)p + 1;
    counts[5] = 517;
    srand((unsigned)p);
    for (alg = 1; alg < LOOM_BCAST_ALG_COUNT; ++alg) {
        for (k = 0; k < 6; ++k) {
            for (root = 0; root < p; ++root) {
                if (p > 8 && root != 0 && root != p - 1 && root != p / 2) {
                    continue;
                }
                check_alg((loom_bcast_alg_t)alg, p, counts[k], root,
                          (unsigned)(p * 100 + k), (size_t)(k % 3) * 3 * 8);
            }
            check_alg((loom_bcast_alg_t)alg, p, counts[k], rand() % p, (unsigned)k, 0);
        }
    }
}
END_TEST

/* Random sizes, roots and segments on up to 40 ranks. */
START_TEST(test_random)
{
    unsigned seed = 4000u + (unsigned)_i;
    int alg, p, k;
    size_t count, seg;

    srand(seed);
    for (alg = 1; alg < LOOM_BCAST_ALG_COUNT; ++alg) {
        for (k = 0; k < 4; ++k) {
            p = 1 + rand() % 40;
            seg = (size_t)(rand() % 3) * 8 * (size_t)(1 + rand() % 300);
            count = (size_t)(rand() % 3 == 0 ? rand() % (2 * p + 2) : rand() % 30000);
            /* At most about 256 segments: the harness's progress loop
             * costs O(steps) per rank and round. */
            if (seg > 0 && seg < count * 8 / 256) {
                seg = count * 8 / 256;
            }
            check_alg((loom_bcast_alg_t)alg, p, count, rand() % p, seed + (unsigned)k, seg);
        }
    }
}
END_TEST

/* The chain cuts a message into at most LOOM_TAG_MAX_STEPS segments. */
START_TEST(test_chain_tag_budget)
{
    static uint64_t buf[300000];
    loom_coll_args_t args = { .recvbuf = buf, .count = 300000, .elem_size = 8,
                              .root = 1, .seg_bytes = 8 };
    loom_sched_t *sched;
    harness_t h;
    int i;

    harness_init(&h, 3);
    ck_assert_int_eq(loom_bcast_chain_plan(&args, h.teams[2], &sched), LOOM_OK);
    for (i = 0; i < sched->nsteps; ++i) {
        ck_assert_uint_le(sched->steps[i].desc.tag_step, LOOM_TAG_MAX_STEPS);
    }
    /* A receive and a send per segment. */
    ck_assert_int_le(sched->nsteps, 2 * (int)LOOM_TAG_MAX_STEPS);
    loom_sched_destroy(sched);
    harness_fini(&h);
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
    int p;

    ck_assert_int_eq(cfg.bcast_algorithm, LOOM_BCAST_AUTO);
    ck_assert_uint_eq(cfg.bcast_segment, 0);
    /* Tiny: the fewest rounds, explained against a dearer runner-up. */
    for (p = 1; p <= 1024; p = p * 2 + 1) {
        loom_bcast_select(&cfg, p, 8, 1, &ch);
        ck_assert_int_eq(ch.alg, LOOM_BCAST_BINOMIAL);
        ck_assert_int_eq(ch.forced, 0);
        ck_assert_uint_eq(ch.seg_bytes, 0);
    }
    loom_bcast_select(&cfg, 16, 8, 1, &ch);
    ck_assert(ch.cost_s > 0);
    ck_assert_int_ne(ch.next_alg, LOOM_BCAST_AUTO);
    ck_assert_int_ne(ch.next_alg, ch.alg);
    ck_assert(ch.next_cost_s >= ch.cost_s);
    /* Large: a bandwidth algorithm; the chain with a segment size. */
    for (p = 3; p <= 1024; p *= 2) {
        loom_bcast_select(&cfg, p, 256u << 20, 1, &ch);
        ck_assert_msg(ch.alg == LOOM_BCAST_CHAIN || ch.alg == LOOM_BCAST_SCATTER_ALLGATHER,
                      "p=%d 256 MiB: %s", p, loom_bcast_alg_names[ch.alg]);
        ck_assert(ch.alg != LOOM_BCAST_CHAIN || ch.seg_bytes > 0);
    }
    /* Many ranks, large: the chain's p alphas lose to scatter + allgather
     * only when they outweigh n beta; at 4096 ranks and 16 MiB they do. */
    loom_bcast_select(&cfg, 4096, 16u << 20, 1, &ch);
    ck_assert_int_eq(ch.alg, LOOM_BCAST_SCATTER_ALLGATHER);
    /* Two ranks: nothing beats one message. */
    loom_bcast_select(&cfg, 2, 64u << 20, 1, &ch);
    ck_assert_int_eq(ch.alg, LOOM_BCAST_BINOMIAL);
    /* Decisions depend on (p, bytes, settings) only. */
    for (p = 1; p <= 300; p += 13) {
        for (bytes = 0; bytes <= (64u << 20); bytes = bytes * 3 + 1) {
            loom_bcast_select(&cfg, p, bytes, 1, &ch);
            loom_bcast_select(&cfg, p, bytes, 1, &again);
            ck_assert(ch.alg == again.alg && ch.seg_bytes == again.seg_bytes &&
                      ch.cost_s == again.cost_s && ch.next_alg == again.next_alg);
            ck_assert(ch.alg > LOOM_BCAST_AUTO && ch.alg < LOOM_BCAST_ALG_COUNT);
            ck_assert_int_ne(ch.alg, LOOM_BCAST_HIER);   /* forced only */
        }
    }
    /* Forced: taken as given, with the segment setting for the chain. */
    cfg.bcast_algorithm = LOOM_BCAST_CHAIN;
    cfg.bcast_segment = 4096;
    loom_bcast_select(&cfg, 16, 8, 1, &ch);
    ck_assert_int_eq(ch.alg, LOOM_BCAST_CHAIN);
    ck_assert_int_eq(ch.forced, 1);
    ck_assert_uint_eq(ch.seg_bytes, 4096);
    cfg.bcast_algorithm = LOOM_BCAST_SCATTER_ALLGATHER;
    loom_bcast_select(&cfg, 16, 8, 1, &ch);
    ck_assert_int_eq(ch.alg, LOOM_BCAST_SCATTER_ALLGATHER);
    ck_assert_uint_eq(ch.seg_bytes, 0);
    cfg.bcast_algorithm = LOOM_BCAST_BINOMIAL;
    loom_bcast_select(&cfg, 16, 1u << 30, 1, &ch);
    ck_assert_int_eq(ch.alg, LOOM_BCAST_BINOMIAL);
}
END_TEST

/* The names work as an MCA enum: "auto" first, indexed by the enum,
 * NULL-terminated, and the config table parses them. */
START_TEST(test_names_and_config)
{
    loom_coll_config_t cfg = default_config();
    int a;

    ck_assert_str_eq(loom_bcast_alg_names[LOOM_BCAST_AUTO], "auto");
    ck_assert_ptr_null(loom_bcast_alg_names[LOOM_BCAST_ALG_COUNT]);
    for (a = 1; a < LOOM_BCAST_ALG_COUNT; ++a) {
        ck_assert_str_eq(loom_bcast_alg_names[a], loom_bcast_algorithms[a].name);
        ck_assert_ptr_nonnull(loom_bcast_algorithms[a].plan);
    }
    ck_assert_int_eq(loom_config_set(loom_coll_config_table, &cfg, "bcast_algorithm",
                                     "scatter_allgather"), LOOM_OK);
    ck_assert_int_eq(cfg.bcast_algorithm, LOOM_BCAST_SCATTER_ALLGATHER);
    ck_assert_int_eq(loom_config_set(loom_coll_config_table, &cfg, "bcast_algorithm",
                                     "hierarchical"), LOOM_OK);
    ck_assert_int_eq(cfg.bcast_algorithm, LOOM_BCAST_HIER);
    ck_assert_int_eq(loom_config_set(loom_coll_config_table, &cfg, "bcast_segment", "8k"),
                     LOOM_OK);
    ck_assert_uint_eq(cfg.bcast_segment, 8192);
}
END_TEST

/* loom_bcast_plan: the selection's choice, bad settings and roots refused. */
START_TEST(test_plan)
{
    loom_coll_config_t cfg = default_config();
    uint64_t buf[4][100];
    loom_coll_args_t args[4];
    loom_choice_t ch;
    loom_sched_t *sched = NULL;
    harness_t h;
    int r, i;

    harness_init(&h, 4);
    for (r = 0; r < 4; ++r) {
        for (i = 0; i < 100; ++i) {
            buf[r][i] = r == 2 ? (uint64_t)i * 3 : 0;
        }
        args[r] = (loom_coll_args_t){ .recvbuf = buf[r], .count = 100, .elem_size = 8,
                                      .root = 2 };
    }
    ck_assert_int_eq(loom_coll_plan(&loom_bcast_collective, &args[0], h.teams[0], &cfg, &sched,
                                    &ch), LOOM_OK);
    ck_assert_int_eq(sched->alg_id, (unsigned)ch.alg);
    ck_assert_int_eq(ch.alg, LOOM_BCAST_BINOMIAL);
    loom_sched_destroy(sched);
    sched = NULL;
    loom_log_set_level((loom_log_level_t)-1);
    cfg.bcast_algorithm = LOOM_BCAST_ALG_COUNT;
    ck_assert_int_eq(loom_coll_plan(&loom_bcast_collective, &args[0], h.teams[0], &cfg, &sched,
                                    NULL),
                     LOOM_ERR_INVALID_PARAM);
    cfg.bcast_algorithm = LOOM_BCAST_AUTO;
    args[0].root = 4;
    ck_assert_int_eq(loom_coll_plan(&loom_bcast_collective, &args[0], h.teams[0], &cfg, &sched,
                                    NULL),
                     LOOM_ERR_INVALID_PARAM);
    loom_log_set_level(LOOM_LOG_WARN);
    ck_assert_ptr_null(sched);
    harness_fini(&h);
}
END_TEST

int main(void)
{
    Suite *s = suite_create("bcast");
    TCase *tc = tcase_create("bcast");

    tcase_set_timeout(tc, 120);
    tcase_add_loop_test(tc, test_edges, 1, 25);
    tcase_add_loop_test(tc, test_random, 0, 8);
    tcase_add_test(tc, test_chain_tag_budget);
    tcase_add_test(tc, test_select);
    tcase_add_test(tc, test_names_and_config);
    tcase_add_test(tc, test_plan);
    suite_add_tcase(s, tc);
    return loom_check_run(s);
}
