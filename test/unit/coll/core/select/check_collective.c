/*
 * The collective descriptors (collective.h): every table agrees with its
 * names and settings, the bytes a call selects on, and the one planning
 * path (its checks, its explanation, what it builds).
 */
#include "test/unit/support/loopback_harness.h"
#include "test/unit/support/log_capture.h"
#include "coll/core/allgather/allgather.h"
#include "coll/core/allreduce/allreduce.h"
#include "coll/core/bcast/bcast.h"
#include "coll/core/select/coll_config.h"
#include "coll/core/select/collective.h"
#include "coll/core/select/handoff.h"
#include "coll/core/reduce/reduce.h"
#include "coll/core/reduce_scatter/reduce_scatter.h"
#include "coll/core/sparse/sparse.h"

#include <check.h>
#include "test/unit/support/check_main.h"
#include <stdlib.h>
#include <string.h>

static loom_coll_config_t default_config(void)
{
    loom_coll_config_t cfg;

    ck_assert_int_eq(loom_coll_config_init(&cfg), LOOM_OK);
    return cfg;
}

/* The field a collective's <name>_algorithm setting is, named by hand. */
static int *algorithm_field(loom_coll_config_t *cfg, loom_coll_kind_t id)
{
    switch (id) {
    case LOOM_COLL_ALLREDUCE:
        return &cfg->allreduce_algorithm;
    case LOOM_COLL_BCAST:
        return &cfg->bcast_algorithm;
    case LOOM_COLL_REDUCE:
        return &cfg->reduce_algorithm;
    case LOOM_COLL_ALLGATHER:
        return &cfg->allgather_algorithm;
    case LOOM_COLL_SPARSE_ALLREDUCE:
        return &cfg->sparse_allreduce_algorithm;
    default:
        return &cfg->reduce_scatter_algorithm;
    }
}

/* Every descriptor: its id is its index, auto is no algorithm, every
 * other value has a plan whose name is the name the settings accept, the
 * setting it reads is its own, and its hand-off settings are its own. */
START_TEST(test_tables)
{
    static const char *const names[LOOM_COLL_KIND_COUNT] = {
        "allreduce", "bcast", "reduce", "allgather", "reduce_scatter", "sparse_allreduce",
    };
    /* The sparse allreduce has no hand-off: its caller decides what to
     * filter (0: no setting). */
    static const size_t handoffs[LOOM_COLL_KIND_COUNT] = { 4096, 512, 4096, 2048, 8192, 0 };
    loom_coll_config_t cfg = default_config();
    int id, a;

    for (id = 0; id < LOOM_COLL_KIND_COUNT; ++id) {
        const loom_collective_t *c = loom_collectives[id];

        ck_assert_ptr_nonnull(c);
        ck_assert_int_eq(c->id, id);
        ck_assert_str_eq(c->name, names[id]);
        ck_assert_str_eq(c->alg_names[0], "auto");
        ck_assert_ptr_null(c->algorithms[0].plan);
        ck_assert_ptr_null(c->alg_names[c->alg_count]);
        ck_assert_int_le(c->alg_count, 16);
        for (a = 1; a < c->alg_count; ++a) {
            ck_assert_msg(c->algorithms[a].plan != NULL, "%s algorithm %d has no plan",
                          c->name, a);
            ck_assert_str_eq(c->algorithms[a].name, c->alg_names[a]);
        }
        if (c->reproducible != 0) {
            ck_assert_str_eq(c->alg_names[c->reproducible], "reproducible");
            ck_assert(c->reduces);
        }
        ck_assert_str_eq(c->call_names[0], c->vector ? (id == LOOM_COLL_ALLGATHER
                                                             ? "allgather"
                                                             : "reduce_scatter_block")
                                                     : c->name);
        ck_assert_int_eq(c->rooted, id == LOOM_COLL_BCAST || id == LOOM_COLL_REDUCE);
        ck_assert_int_eq(c->reduces, id != LOOM_COLL_BCAST && id != LOOM_COLL_ALLGATHER);
        /* The setting read and written is the collective's own field. */
        loom_coll_force(c, &cfg, c->alg_count - 1);
        ck_assert_int_eq(*algorithm_field(&cfg, (loom_coll_kind_t)id), c->alg_count - 1);
        *algorithm_field(&cfg, (loom_coll_kind_t)id) = 1;
        ck_assert_int_eq(loom_coll_setting(c, &cfg), 1);
        *algorithm_field(&cfg, (loom_coll_kind_t)id) = 0;
        ck_assert_uint_eq(loom_coll_size_setting(&cfg, c->handoff), handoffs[id]);
    }
    ck_assert_uint_eq(loom_coll_size_setting(&cfg, loom_bcast_collective.pair_handoff), 2048);
    ck_assert_uint_eq(loom_coll_size_setting(&cfg, loom_allgather_collective.pair_handoff),
                      6144);
    ck_assert_uint_eq(loom_coll_size_setting(&cfg, loom_allreduce_collective.pair_handoff), 0);
}
END_TEST

/* What a call selects on: its vector, or for the gathers and scatters the
 * total over every rank's block. */
START_TEST(test_bytes)
{
    size_t counts[3] = { 5, 0, 7 };
    loom_coll_args_t args = { .count = 10, .elem_size = 4 };

    ck_assert_uint_eq(loom_coll_bytes(&loom_allreduce_collective, &args, 3), 40);
    ck_assert_uint_eq(loom_coll_bytes(&loom_bcast_collective, &args, 3), 40);
    ck_assert_uint_eq(loom_coll_bytes(&loom_allgather_collective, &args, 3), 120);
    ck_assert_uint_eq(loom_coll_bytes(&loom_reduce_scatter_collective, &args, 3), 120);
    args.counts = counts;
    ck_assert_uint_eq(loom_coll_bytes(&loom_allgather_collective, &args, 3), 48);
    ck_assert_uint_eq(loom_coll_bytes(&loom_reduce_scatter_collective, &args, 3), 48);
    ck_assert_uint_eq(loom_coll_bytes(&loom_allreduce_collective, &args, 3), 40);
}
END_TEST

/* The sparse allreduce's selection: nothing selected. */
static loom_status_t select_none(void *ctx, void *block, size_t *k_p)
{
    (void)ctx;
    (void)block;
    *k_p = 0;
    return LOOM_OK;
}

/* One path plans every collective: what it builds is what it chose, it
 * says why once per size class, and bad settings are named. */
START_TEST(test_plan)
{
    static const loom_sparse_args_t sparse = { .select = select_none, .kmax = 16 };
    /* Room for the largest call: three blocks of 4096 elements. */
    static double buf[2][3 * 4096];
    loom_coll_config_t cfg = default_config();
    loom_coll_args_t args = {
        .count = 64, .elem_size = sizeof(double),
        .op = { .fn = harness_sum_double, .commutative = 1 }, .sparse = &sparse,
    };
    loom_sched_t *sched = NULL;
    loom_choice_t ch;
    harness_t h;
    int id;

    harness_init(&h, 3);
    memset(buf, 0, sizeof(buf));
    loom_log_set_level(LOOM_LOG_INFO);
    for (id = 0; id < LOOM_COLL_KIND_COUNT; ++id) {
        const loom_collective_t *c = loom_collectives[id];
        char expect[64];

        args.sendbuf = buf[0];
        args.recvbuf = buf[1];
        capture_start();
        ck_assert_int_eq(loom_coll_plan(c, &args, h.teams[0], &cfg, &sched, &ch), LOOM_OK);
        ck_assert_int_gt(ch.alg, 0);
        ck_assert_int_eq(sched->alg_id, (unsigned)ch.alg);
        loom_sched_destroy(sched);
        /* The same size class again: nothing more is said. */
        ck_assert_int_eq(loom_coll_plan(c, &args, h.teams[0], &cfg, &sched, NULL), LOOM_OK);
        loom_sched_destroy(sched);
        capture_stop();
        snprintf(expect, sizeof(expect), "info coll: %s on context", c->call_names[0]);
        ck_assert_msg(strstr(log_buf, expect) != NULL, "%s: no line in '%s'", c->name,
                      log_buf);
        ck_assert_ptr_null(strstr(strstr(log_buf, expect) + 1, expect));
        ck_assert_ptr_nonnull(strstr(log_buf, c->alg_names[ch.alg]));
        ck_assert_ptr_nonnull(strstr(log_buf, "cost model"));

        /* A forced algorithm is built and said to be forced. */
        loom_coll_force(c, &cfg, 1);
        capture_start();
        args.count = 4096;   /* another size class */
        ck_assert_int_eq(loom_coll_plan(c, &args, h.teams[0], &cfg, &sched, &ch), LOOM_OK);
        capture_stop();
        args.count = 64;
        ck_assert_int_eq(ch.alg, 1);
        ck_assert(ch.forced);
        ck_assert_int_eq(sched->alg_id, 1u);
        loom_sched_destroy(sched);
        snprintf(expect, sizeof(expect), "forced by %s_algorithm", c->name);
        ck_assert_msg(strstr(log_buf, expect) != NULL, "%s: '%s'", c->name, log_buf);

        /* A setting beyond the table is refused, naming the range. */
        loom_coll_force(c, &cfg, c->alg_count);
        capture_start();
        sched = NULL;
        ck_assert_int_eq(loom_coll_plan(c, &args, h.teams[0], &cfg, &sched, NULL),
                         LOOM_ERR_INVALID_PARAM);
        capture_stop();
        ck_assert_ptr_null(sched);
        snprintf(expect, sizeof(expect), "%s algorithm %d is not one of 0..%d", c->name,
                 c->alg_count, c->alg_count - 1);
        ck_assert_msg(strstr(log_buf, expect) != NULL, "%s: '%s'", c->name, log_buf);
        loom_coll_force(c, &cfg, 0);
    }
    /* Reproducible calls take the canonical algorithm where there is one. */
    args.reproducible = 1;
    for (id = 0; id < LOOM_COLL_KIND_COUNT; ++id) {
        const loom_collective_t *c = loom_collectives[id];

        args.sendbuf = buf[0];
        args.recvbuf = buf[1];
        ck_assert_int_eq(loom_coll_plan(c, &args, h.teams[0], &cfg, &sched, &ch), LOOM_OK);
        if (c->reproducible != 0) {
            ck_assert_int_eq(ch.alg, c->reproducible);
            ck_assert(ch.forced);
        } else {
            ck_assert_int_ne(ch.alg, 0);
        }
        loom_sched_destroy(sched);
    }
    loom_log_set_level(LOOM_LOG_WARN);
    harness_fini(&h);
}
END_TEST

/* The node segment is one more algorithm of every collective, chosen by
 * the same selection: for a blocking call on one node from shm_min_bytes,
 * never when forced, reproducible, across nodes, for an op that does not
 * commute, or for data beyond the segment's limits; and the schedule the
 * choice names is still what a plan builds (where the segment cannot be
 * mapped). */
START_TEST(test_segment_selected)
{
    static double buf[2][4 * 4096];
    loom_coll_config_t cfg = default_config();
    loom_coll_args_t args = {
        .sendbuf = buf[0], .recvbuf = buf[1], .count = 4096, .elem_size = sizeof(double),
        .op = { .fn = harness_sum_double, .commutative = 1 }, .blocking = 1,
    };
    loom_sched_t *sched;
    loom_choice_t ch;
    harness_t h;
    int id;

    harness_init(&h, 4);
    h.teams[0]->num_nodes = 1;
    for (id = 0; id < LOOM_COLL_KIND_COUNT; ++id) {
        const loom_collective_t *c = loom_collectives[id];
        loom_coll_args_t a = args;

        if (c->segment.run == NULL) {
            /* The sparse allreduce: never through the segment. */
            ck_assert_int_eq(c->id, LOOM_COLL_SPARSE_ALLREDUCE);
            ck_assert_int_eq(loom_coll_select(c, &a, h.teams[0], &cfg, &ch), LOOM_OK);
            ck_assert_int_eq(ch.segment, 0);
            continue;
        }
        ck_assert_int_eq(loom_coll_select(c, &a, h.teams[0], &cfg, &ch), LOOM_OK);
        ck_assert_msg(ch.segment == 1, "%s: not through the segment", c->name);
        ck_assert_int_gt(ch.alg, 0);
        ck_assert_int_eq(loom_coll_plan(c, &a, h.teams[0], &cfg, &sched, &ch), LOOM_OK);
        ck_assert_int_eq(sched->alg_id, (unsigned)ch.alg);
        loom_sched_destroy(sched);

        a.blocking = 0;
        ck_assert_int_eq(loom_coll_select(c, &a, h.teams[0], &cfg, &ch), LOOM_OK);
        ck_assert_int_eq(ch.segment, 0);
        a = args;
        a.count = 8;   /* below shm_min_bytes on every collective */
        ck_assert_int_eq(loom_coll_select(c, &a, h.teams[0], &cfg, &ch), LOOM_OK);
        ck_assert_int_eq(ch.segment, 0);
        a = args;
        a.reproducible = 1;
        ck_assert_int_eq(loom_coll_select(c, &a, h.teams[0], &cfg, &ch), LOOM_OK);
        ck_assert_int_eq(ch.segment, 0);
        a = args;
        a.op.commutative = 0;
        ck_assert_int_eq(loom_coll_select(c, &a, h.teams[0], &cfg, &ch), LOOM_OK);
        ck_assert_int_eq(ch.segment, !c->reduces);

        loom_coll_force(c, &cfg, 1);
        ck_assert_int_eq(loom_coll_select(c, &args, h.teams[0], &cfg, &ch), LOOM_OK);
        ck_assert_int_eq(ch.segment, 0);
        loom_coll_force(c, &cfg, 0);
        cfg.shm = 0;
        ck_assert_int_eq(loom_coll_select(c, &args, h.teams[0], &cfg, &ch), LOOM_OK);
        ck_assert_int_eq(ch.segment, 0);
        cfg.shm = 1;
        h.teams[0]->num_nodes = 2;
        ck_assert_int_eq(loom_coll_select(c, &args, h.teams[0], &cfg, &ch), LOOM_OK);
        ck_assert_int_eq(ch.segment, 0);
        h.teams[0]->num_nodes = 1;
    }
    /* Reduce_scatter's limits: a whole element per block in a slot, and
     * in place only the block form. */
    {
        const loom_collective_t *c = &loom_reduce_scatter_collective;
        size_t counts[4] = { 4096, 4096, 4096, 4096 };
        loom_coll_args_t a = args;

        a.in_place = 1;
        ck_assert_int_eq(loom_coll_select(c, &a, h.teams[0], &cfg, &ch), LOOM_OK);
        ck_assert_int_eq(ch.segment, 1);
        a.counts = counts;
        ck_assert_int_eq(loom_coll_select(c, &a, h.teams[0], &cfg, &ch), LOOM_OK);
        ck_assert_int_eq(ch.segment, 0);
        a.in_place = 0;
        ck_assert_int_eq(loom_coll_select(c, &a, h.teams[0], &cfg, &ch), LOOM_OK);
        ck_assert_int_eq(ch.segment, 1);
        cfg.shm_slot = 4 * sizeof(double) - 1;
        ck_assert_int_eq(loom_coll_select(c, &a, h.teams[0], &cfg, &ch), LOOM_OK);
        ck_assert_int_eq(ch.segment, 0);
        /* The other collectives have no such limit. */
        ck_assert_int_eq(loom_coll_select(&loom_allreduce_collective, &args, h.teams[0], &cfg,
                                          &ch), LOOM_OK);
        ck_assert_int_eq(ch.segment, 1);
    }
    harness_fini(&h);
}
END_TEST

/* A call handed down is said once per size class, naming the setting
 * that decided: the pair setting on two ranks where it is larger. */
START_TEST(test_handoff_explained)
{
    loom_coll_config_t cfg = default_config();
    harness_t h;

    harness_init(&h, 2);
    h.teams[0]->num_nodes = 1;
    cfg.bcast_handoff = 512;
    cfg.bcast_pair_handoff = 2048;
    loom_log_set_level(LOOM_LOG_INFO);
    capture_start();
    loom_handoff_explain(h.teams[0], &cfg, LOOM_COLL_BCAST, 1000);
    loom_handoff_explain(h.teams[0], &cfg, LOOM_COLL_BCAST, 1001);
    capture_stop();
    ck_assert_msg(strstr(log_buf, "bcast on context") != NULL, "'%s'", log_buf);
    ck_assert_ptr_nonnull(strstr(log_buf, "1000 bytes"));
    ck_assert_ptr_null(strstr(log_buf, "1001 bytes"));
    ck_assert_ptr_nonnull(strstr(log_buf, "below bcast_pair_handoff=2048 on one node"));
    cfg.allreduce_handoff = 4096;
    capture_start();
    loom_handoff_explain(h.teams[0], &cfg, LOOM_COLL_ALLREDUCE, 8);
    capture_stop();
    ck_assert_msg(strstr(log_buf, "allreduce on context") != NULL &&
                      strstr(log_buf, "below allreduce_handoff=4096 on one node") != NULL,
                  "'%s'", log_buf);
    loom_log_set_level(LOOM_LOG_WARN);
    harness_fini(&h);
}
END_TEST

int main(void)
{
    Suite *s = suite_create("collective");
    TCase *tc = tcase_create("collective");

    tcase_add_test(tc, test_tables);
    tcase_add_test(tc, test_bytes);
    tcase_add_test(tc, test_plan);
    tcase_add_test(tc, test_handoff_explained);
    tcase_add_test(tc, test_segment_selected);
    suite_add_tcase(s, tc);
    return loom_check_run(s);
}
