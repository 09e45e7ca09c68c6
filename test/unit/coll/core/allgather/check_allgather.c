/* Allgather and allgatherv on the loopback transport: every algorithm at
 * 1..33, 64 and 100 ranks; counts 0, 1, < p, odd and large; uneven counts
 * with zeros, packed or at scattered displacements; in place or not; every
 * rank's receive buffer compared bytewise with the expected one (bytes
 * outside the blocks must stay untouched); and the selection. */
#include "test/unit/support/loopback_harness.h"
#include "coll/core/allgather/allgather.h"
#include "coll/core/select/coll_config.h"
#include "coll/core/engine/tag.h"

#include <check.h>
#include "test/unit/support/check_main.h"
#include <stdint.h>
#include <stdlib.h>
#include <string.h>

#define SENTINEL 0xA5

typedef enum { SHAPE_UNIFORM, SHAPE_PACKED_V, SHAPE_SCATTERED_V } shape_t;

typedef struct ag_case {
    int         alg;        /* LOOM_ALLGATHER_AUTO: through loom_allgather_plan */
    int         p;
    shape_t     shape;
    size_t      count;      /* uniform: per rank; v: the mean */
    size_t      esize;
    int         in_place;
    size_t      seg_bytes;
    unsigned    seed;
} ag_case_t;

static loom_coll_config_t g_cfg;

static loom_status_t plan_auto(const loom_coll_args_t *args, loom_team_t *team,
                               loom_sched_t **sched_p)
{
    return loom_coll_plan(&loom_allgather_collective, args, team, &g_cfg, sched_p, NULL);
}

static unsigned char value(int r, size_t byte, unsigned seed)
{
    return (unsigned char)((byte * 2654435761u + (unsigned)r * 40503u + seed) >> 7);
}

/* Counts and displacements (elements) for the case; returns the receive
 * buffer's size in elements. */
static size_t make_layout(const ag_case_t *t, size_t *counts, size_t *displs)
{
    int *order = malloc(sizeof(int) * (size_t)t->p), i, j, tmp;
    size_t at = 0;

    for (i = 0; i < t->p; ++i) {
        if (t->shape == SHAPE_UNIFORM) {
            counts[i] = t->count;
        } else {
            /* About a third empty, the others 0..2*count. */
            counts[i] = rand() % 3 == 0 ? 0 : (size_t)rand() % (2 * t->count + 1);
        }
        order[i] = i;
    }
    if (t->shape == SHAPE_SCATTERED_V) {
        /* Blocks in a random order with random gaps between them. */
        for (i = t->p - 1; i > 0; --i) {
            j = rand() % (i + 1);
            tmp = order[i]; order[i] = order[j]; order[j] = tmp;
        }
        for (i = 0; i < t->p; ++i) {
            at += (size_t)(rand() % 3);
            displs[order[i]] = at;
            at += counts[order[i]];
        }
    } else {
        for (i = 0; i < t->p; ++i) {
            displs[i] = at;
            at += counts[i];
        }
    }
    free(order);
    return at + 1;
}

static void run_case(const ag_case_t *t)
{
    int p = t->p, r, b;
    size_t *counts = malloc(sizeof(size_t) * (size_t)p);
    size_t *displs = malloc(sizeof(size_t) * (size_t)p);
    loom_coll_args_t *args = calloc((size_t)p, sizeof(*args));
    unsigned char **in = calloc((size_t)p, sizeof(*in));
    unsigned char **out = calloc((size_t)p, sizeof(*out));
    unsigned char *expect;
    size_t relems, rbytes, i, es = t->esize;
    loom_plan_fn_t plan = t->alg == LOOM_ALLGATHER_AUTO
                              ? plan_auto : loom_allgather_algorithms[t->alg].plan;
    loom_status_t st;
    harness_t h;

    srand(t->seed);
    relems = make_layout(t, counts, displs);
    rbytes = relems * es;
    expect = malloc(rbytes);
    memset(expect, SENTINEL, rbytes);
    for (r = 0; r < p; ++r) {
        for (i = 0; i < counts[r] * es; ++i) {
            expect[displs[r] * es + i] = value(r, i, t->seed);
        }
    }
    for (r = 0; r < p; ++r) {
        in[r] = malloc(counts[r] * es + 1);
        out[r] = malloc(rbytes);
        memset(out[r], SENTINEL, rbytes);
        for (i = 0; i < counts[r] * es; ++i) {
            in[r][i] = value(r, i, t->seed);
        }
        if (t->in_place) {
            memcpy(out[r] + displs[r] * es, in[r], counts[r] * es);
        }
        args[r] = (loom_coll_args_t){
            .sendbuf = t->in_place ? NULL : in[r], .recvbuf = out[r],
            .count = t->shape == SHAPE_UNIFORM ? t->count : 0, .elem_size = es,
            .in_place = t->in_place,
            .counts = t->shape == SHAPE_UNIFORM ? NULL : counts,
            .displs = t->shape == SHAPE_SCATTERED_V ? displs : NULL,
            .seg_bytes = t->seg_bytes,
        };
    }

    harness_init(&h, p);
    st = harness_run(&h, plan, args, t->seed);
    ck_assert_msg(st == LOOM_OK, "%s p=%d shape=%d count=%zu es=%zu in_place=%d seg=%zu: %s",
                  loom_allgather_alg_names[t->alg], p, t->shape, t->count, es, t->in_place,
                  t->seg_bytes, loom_status_string(st));
    for (r = 0; r < p; ++r) {
        if (memcmp(out[r], expect, rbytes) != 0) {
            for (i = 0; i < rbytes && out[r][i] == expect[i]; ++i) {
            }
            for (b = 0; b < p && !(i >= displs[b] * es && i < (displs[b] + counts[b]) * es);
                 ++b) {
            }
            ck_abort_msg("%s p=%d shape=%d count=%zu es=%zu in_place=%d seg=%zu: rank %d "
                         "byte %zu (block %d) is %u, expected %u",
                         loom_allgather_alg_names[t->alg], p, t->shape, t->count, es,
                         t->in_place, t->seg_bytes, r, i, b, out[r][i], expect[i]);
        }
        /* Input untouched.  (Plain comparisons in loops: every ck_assert
         * that passes still costs Check a write to its log.) */
        for (i = 0; i < counts[r] * es; ++i) {
            if (in[r][i] != value(r, i, t->seed)) {
                ck_abort_msg("rank %d: input byte %zu changed", r, i);
            }
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
    free(counts);
    free(displs);
}

static void run_all_shapes(int alg, int p, size_t count, size_t esize, size_t seg,
                           unsigned seed)
{
    shape_t shape;
    int in_place;

    for (shape = SHAPE_UNIFORM; shape <= SHAPE_SCATTERED_V; ++shape) {
        for (in_place = 0; in_place <= 1; ++in_place) {
            run_case(&(ag_case_t){ .alg = alg, .p = p, .shape = shape, .count = count,
                                   .esize = esize, .in_place = in_place, .seg_bytes = seg,
                                   .seed = seed + (unsigned)(3 * shape + in_place) });
        }
    }
}

/* Every algorithm at 1..33 ranks: counts 0, 1, p-1, odd, with segments. */
START_TEST(test_every_rank_count)
{
    int p = _i, alg;

    for (alg = 1; alg < LOOM_ALLGATHER_ALG_COUNT; ++alg) {
        run_all_shapes(alg, p, 0, 8, 0, 10);
        run_all_shapes(alg, p, 1, 4, 0, 20);
        if (p > 2) {
            run_all_shapes(alg, p, (size_t)p - 1, 1, 0, 30);    /* fewer than ranks */
        }
        run_all_shapes(alg, p, 2 * (size_t)p + 1, 12, 0, 40);   /* odd element size */
        run_all_shapes(alg, p, 37, 8, 64, 50);                  /* segmented */
    }
}
END_TEST

START_TEST(test_large_rank_counts)
{
    static const int ps[] = { 64, 100 };
    int alg, p = ps[_i];

    for (alg = 1; alg < LOOM_ALLGATHER_ALG_COUNT; ++alg) {
        run_all_shapes(alg, p, 3, 4, 0, 60);
        run_all_shapes(alg, p, 101, 8, 200, 70);
    }
}
END_TEST

/* Large vectors, segments of random sizes. */
START_TEST(test_large_counts)
{
    unsigned seed = 100u + (unsigned)_i;
    int alg, p;
    size_t seg;

    srand(seed);
    for (alg = 1; alg < LOOM_ALLGATHER_ALG_COUNT; ++alg) {
        p = 2 + rand() % 9;
        seg = (size_t)(rand() % 2) * 1024 * (size_t)(1 + rand() % 16);
        run_case(&(ag_case_t){ .alg = alg, .p = p, .shape = (shape_t)(rand() % 3),
                               .count = 20000 + (size_t)(rand() % 5000), .esize = 8,
                               .in_place = rand() % 2, .seg_bytes = seg, .seed = seed });
    }
}
END_TEST

/* Through loom_allgather_plan, with the cost model's choice. */
START_TEST(test_plan_auto)
{
    static const size_t counts[] = { 0, 1, 5, 300, 70000 };
    size_t k;
    int p;

    ck_assert_int_eq(loom_coll_config_init(&g_cfg), LOOM_OK);
    for (k = 0; k < sizeof(counts) / sizeof(counts[0]); ++k) {
        for (p = 1; p <= 9; p += 4) {
            run_all_shapes(LOOM_ALLGATHER_AUTO, p, counts[k], 8, 0, 80 + (unsigned)k);
        }
    }
}
END_TEST

/* The ring's volume: each rank sends every block but the one its right
 * neighbour owns, exactly once. */
START_TEST(test_ring_volume)
{
    enum { P = 7, N = 13 };
    double in[P][N], out[P][P * N];
    loom_coll_args_t args[P];
    harness_t h;
    int r;

    for (r = 0; r < P; ++r) {
        memset(in[r], r, sizeof(in[r]));
        args[r] = (loom_coll_args_t){ .sendbuf = in[r], .recvbuf = out[r], .count = N,
                                      .elem_size = 8 };
    }
    harness_init(&h, P);
    ck_assert_int_eq(harness_run(&h, loom_allgather_ring_plan, args, 3), LOOM_OK);
    for (r = 0; r < P; ++r) {
        ck_assert_uint_eq(loom_loopback_bytes_sent(h.lb, r), (P - 1) * N * 8);
        ck_assert_uint_eq(loom_loopback_bytes_received(h.lb, r), (P - 1) * N * 8);
    }
    harness_fini(&h);
}
END_TEST

/* Tiny segments on a long vector: segments grow to keep every message's
 * tag step distinct (and within the tag's bits). */
START_TEST(test_tag_budget)
{
    static double buf[3 * 200000];
    loom_coll_args_t args = { .recvbuf = buf, .count = 200000, .elem_size = 8,
                              .in_place = 1, .seg_bytes = 8 };
    loom_sched_t *sched;
    harness_t h;
    int i;

    harness_init(&h, 3);
    ck_assert_int_eq(loom_allgather_ring_plan(&args, h.teams[0], &sched), LOOM_OK);
    for (i = 0; i < sched->nsteps; ++i) {
        ck_assert_uint_le(sched->steps[i].desc.tag_step, LOOM_TAG_MAX_STEPS);
    }
    ck_assert_int_le(sched->nsteps, 2 * (int)LOOM_TAG_MAX_STEPS + 1);
    loom_sched_destroy(sched);
    harness_fini(&h);
}
END_TEST

START_TEST(test_select)
{
    loom_coll_config_t cfg;
    loom_choice_t ch, again;
    size_t bytes;
    int p;

    ck_assert_int_eq(loom_coll_config_init(&cfg), LOOM_OK);
    ck_assert_int_eq(cfg.allgather_algorithm, LOOM_ALLGATHER_AUTO);
    ck_assert_uint_eq(cfg.allgather_segment, 0);
    /* Small: the log-step algorithm; large: the ring. */
    /* (At 3 ranks both take 2 rounds and the ring, copying less, wins.) */
    for (p = 4; p <= 1024; p = p * 2 + 1) {
        loom_allgather_select(&cfg, p, 8 * (size_t)p, 1, &ch);
        ck_assert_int_eq(ch.alg, LOOM_ALLGATHER_BRUCK);
        ck_assert_int_eq(ch.forced, 0);
        ck_assert(ch.cost_s > 0 && ch.next_alg == LOOM_ALLGATHER_RING &&
                  ch.next_cost_s >= ch.cost_s);
        loom_allgather_select(&cfg, p, (size_t)p << 20, 1, &ch);
        ck_assert_int_eq(ch.alg, LOOM_ALLGATHER_RING);
        ck_assert_int_eq(ch.next_alg, LOOM_ALLGATHER_BRUCK);
    }
    /* A pure function of (cfg, p, bytes): asked twice, the same answer. */
    for (p = 1; p <= 200; p += 13) {
        for (bytes = 0; bytes < (1u << 30); bytes = bytes * 3 + 1) {
            loom_allgather_select(&cfg, p, bytes, 1, &ch);
            loom_allgather_select(&cfg, p, bytes, 1, &again);
            ck_assert(ch.alg == again.alg && ch.seg_bytes == again.seg_bytes &&
                      ch.depth == again.depth && ch.forced == again.forced &&
                      ch.cost_s == again.cost_s && ch.next_alg == again.next_alg);
            ck_assert(ch.alg == LOOM_ALLGATHER_BRUCK || ch.alg == LOOM_ALLGATHER_RING);
        }
    }
    /* Forced: taken as given, with the segment for the ring only. */
    cfg.allgather_algorithm = LOOM_ALLGATHER_RING;
    cfg.allgather_segment = 4096;
    loom_allgather_select(&cfg, 16, 8, 1, &ch);
    ck_assert_int_eq(ch.alg, LOOM_ALLGATHER_RING);
    ck_assert_int_eq(ch.forced, 1);
    ck_assert_uint_eq(ch.seg_bytes, 4096);
    cfg.allgather_algorithm = LOOM_ALLGATHER_BRUCK;
    loom_allgather_select(&cfg, 16, 1u << 30, 1, &ch);
    ck_assert_int_eq(ch.alg, LOOM_ALLGATHER_BRUCK);
    ck_assert_int_eq(ch.forced, 1);
    ck_assert_uint_eq(ch.seg_bytes, 0);
}
END_TEST

/* The names make an MCA enum: "auto" first, indexed by the enum,
 * NULL-terminated; the settings table parses them. */
START_TEST(test_names_and_config)
{
    loom_coll_config_t cfg;
    int i;

    ck_assert_str_eq(loom_allgather_alg_names[LOOM_ALLGATHER_AUTO], "auto");
    for (i = 1; i < LOOM_ALLGATHER_ALG_COUNT; ++i) {
        ck_assert_str_eq(loom_allgather_alg_names[i], loom_allgather_algorithms[i].name);
    }
    ck_assert_ptr_null(loom_allgather_alg_names[LOOM_ALLGATHER_ALG_COUNT]);
    ck_assert_int_eq(loom_coll_config_init(&cfg), LOOM_OK);
    ck_assert_int_eq(loom_config_set(loom_coll_config_table, &cfg, "allgather_algorithm",
                                     "ring"), LOOM_OK);
    ck_assert_int_eq(cfg.allgather_algorithm, LOOM_ALLGATHER_RING);
    ck_assert_int_eq(loom_config_set(loom_coll_config_table, &cfg, "allgather_algorithm",
                                     "hierarchical"), LOOM_OK);
    ck_assert_int_eq(cfg.allgather_algorithm, LOOM_ALLGATHER_HIER);
    ck_assert_int_eq(loom_config_set(loom_coll_config_table, &cfg, "allgather_segment",
                                     "64k"), LOOM_OK);
    ck_assert_uint_eq(cfg.allgather_segment, 65536);
    loom_log_set_level((loom_log_level_t)-1);
    ck_assert_int_eq(loom_config_set(loom_coll_config_table, &cfg, "allgather_algorithm",
                                     "bogus"), LOOM_ERR_INVALID_PARAM);
    loom_log_set_level(LOOM_LOG_WARN);
}
END_TEST

START_TEST(test_plan_rejects_bad_algorithm)
{
    loom_coll_config_t cfg;
    loom_coll_args_t args = { .count = 10, .elem_size = 8 };
    loom_sched_t *sched = NULL;
    harness_t h;

    ck_assert_int_eq(loom_coll_config_init(&cfg), LOOM_OK);
    harness_init(&h, 2);
    cfg.allgather_algorithm = LOOM_ALLGATHER_ALG_COUNT;
    loom_log_set_level((loom_log_level_t)-1);
    ck_assert_int_eq(loom_coll_plan(&loom_allgather_collective, &args, h.teams[0], &cfg, &sched,
                                    NULL),
                     LOOM_ERR_INVALID_PARAM);
    loom_log_set_level(LOOM_LOG_WARN);
    ck_assert_ptr_null(sched);
    harness_fini(&h);
}
END_TEST

int main(void)
{
    Suite *s = suite_create("allgather");
    TCase *tc = tcase_create("allgather");

    tcase_set_timeout(tc, 300);
    tcase_add_loop_test(tc, test_every_rank_count, 1, 34);
    tcase_add_loop_test(tc, test_large_rank_counts, 0, 2);
    tcase_add_loop_test(tc, test_large_counts, 0, 4);
    tcase_add_test(tc, test_plan_auto);
    tcase_add_test(tc, test_ring_volume);
    tcase_add_test(tc, test_tag_budget);
    tcase_add_test(tc, test_select);
    tcase_add_test(tc, test_names_and_config);
    tcase_add_test(tc, test_plan_rejects_bad_algorithm);
    suite_add_tcase(s, tc);
    return loom_check_run(s);
}
