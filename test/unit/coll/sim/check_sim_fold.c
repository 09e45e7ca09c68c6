/*
 * Folding symmetric runs onto one rack (coll/sim/fold.h): which layouts
 * fold, that a folded run gives the times, steps, messages and bytes of
 * the full run to the last bit, and that a schedule that is not the same
 * on every rack is never folded.
 */
#include "coll/sim/exec.h"
#include "coll/sim/fold.h"
#include "coll/sim/model.h"
#include "coll/sim/prog.h"
#include "coll/core/allgather/allgather.h"
#include "coll/core/bcast/bcast.h"
#include "coll/core/reduce/reduce.h"
#include "coll/core/reduce_scatter/reduce_scatter.h"
#include "coll/core/engine/sched.h"

#include <check.h>
#include "test/unit/support/check_main.h"

/* 4 ranks per node, 2 nodes per rack: racks of 8 ranks. */
static loom_sim_model_t small_racks(void)
{
    loom_sim_model_t m;

    loom_sim_model_default(&m);
    m.ranks_per_node = 4;
    m.nics_per_node = 2;
    m.nodes_per_rack = 2;
    return m;
}

static int distance(const loom_sim_model_t *m, int p)
{
    loom_sim_layout_t *lay;
    int d;

    ck_assert_int_eq(loom_sim_layout_create(m, p, &lay), LOOM_OK);
    d = loom_sim_fold_distance(lay);
    loom_sim_layout_destroy(lay);
    return d;
}

START_TEST(test_fold_distance)
{
    loom_sim_model_t m;

    loom_sim_model_default(&m);
    ck_assert_int_eq(distance(&m, 4096), 128);   /* one rack of 8 x 16 */
    ck_assert_int_eq(distance(&m, 512), 128);
    ck_assert_int_eq(distance(&m, 128), 128);    /* one rack: nothing to fold */
    ck_assert_int_eq(distance(&m, 8), 8);
    ck_assert_int_eq(distance(&m, 640), 128);    /* 5 racks */
    ck_assert_int_eq(distance(&m, 600), 600);    /* the last rack is short */
    m.map = LOOM_SIM_MAP_NODE;                   /* a rotation keeps some node */
    ck_assert_int_eq(distance(&m, 512), 512);
    m = small_racks();
    ck_assert_int_eq(distance(&m, 24), 8);
    ck_assert_int_eq(distance(&m, 20), 20);      /* a rack of one node */
    m.nodes = 6;                                 /* 24 ranks on 6 nodes, as they fill */
    ck_assert_int_eq(distance(&m, 24), 8);
}
END_TEST

typedef struct run {
    loom_sim_result_t   res;
    int                 orbit;
} run_t;

static run_t run_total(const loom_sim_model_t *m, int p, loom_plan_fn_t plan, size_t bytes,
                       int total, int fold)
{
    loom_sim_layout_t *lay;
    loom_sim_prog_t *prog;
    run_t out;

    ck_assert_int_eq(loom_sim_layout_create(m, p, &lay), LOOM_OK);
    ck_assert_int_eq(loom_sim_prog_build(&(loom_sim_build_params_t){
                         .layout = lay, .plan = plan, .bytes = bytes, .total = total,
                         .seg_bytes = 64 << 10, .fold = fold }, &prog), LOOM_OK);
    ck_assert_int_eq(loom_sim_prog_run(prog, m, &out.res), LOOM_OK);
    out.orbit = loom_sim_prog_orbit(prog);
    loom_sim_prog_destroy(prog);
    loom_sim_layout_destroy(lay);
    return out;
}

static run_t run(const loom_sim_model_t *m, int p, loom_plan_fn_t plan, size_t bytes,
                 int fold)
{
    return run_total(m, p, plan, bytes, 0, fold);
}

static void assert_same(const run_t *a, const run_t *b)
{
    ck_assert_msg(a->res.time_s == b->res.time_s, "%.17g s folded, %.17g s in full",
                  a->res.time_s, b->res.time_s);
    ck_assert_int_eq(a->res.steps, b->res.steps);
    ck_assert_int_eq(a->res.messages, b->res.messages);
    ck_assert(a->res.bytes_sent == b->res.bytes_sent);
}

/* 4 racks of 8 ranks with a 4:1 spine: flows share NICs and uplinks.
 * The ring and the hierarchical allreduce are the same on every rack
 * when the vector splits evenly, and fold by 4; recursive doubling and
 * Rabenseifner pair ranks by XOR (rank r + 8 does not pair with rank
 * r's partner + 8) and the double binary tree has one root: those run
 * in full.  Either way the numbers are the full run's. */
START_TEST(test_fold_same_numbers)
{
    static const struct {
        loom_allreduce_alg_t alg;
        int folds;
    } cases[] = {
        { LOOM_ALLREDUCE_RING, 1 }, { LOOM_ALLREDUCE_HIER, 1 },
        { LOOM_ALLREDUCE_RD, 0 }, { LOOM_ALLREDUCE_RABENSEIFNER, 0 },
        { LOOM_ALLREDUCE_DBTREE, 0 },
    };
    static const size_t sizes[] = { 4 << 20, 1 << 20, 64 << 10 };
    loom_sim_model_t m = small_racks();
    run_t folded, full;
    size_t c, s;

    for (c = 0; c < sizeof(cases) / sizeof(cases[0]); ++c) {
        for (s = 0; s < sizeof(sizes) / sizeof(sizes[0]); ++s) {
            loom_plan_fn_t plan = loom_allreduce_algorithms[cases[c].alg].plan;

            folded = run(&m, 32, plan, sizes[s], 1);
            full = run(&m, 32, plan, sizes[s], 0);
            ck_assert_msg(folded.orbit == (cases[c].folds ? 4 : 1), "%s at %zu B: orbit %d",
                          loom_allreduce_algorithms[cases[c].alg].name, sizes[s], folded.orbit);
            ck_assert_int_eq(full.orbit, 1);
            assert_same(&folded, &full);
        }
    }
}
END_TEST

/* The other collectives: the ring and hierarchical allgather and
 * reduce_scatter are the same on every rack and fold by 4 (the
 * hierarchical ones walk blocks from the rank's own and tag them by
 * offset, hier_layout.h); Bruck's last rotation splits at a different
 * block on every rank, and a chain bcast or reduce has a root: they run
 * in full.  Either way the numbers are the full run's.  Sizes are the
 * whole vector for allgather and reduce_scatter. */
START_TEST(test_fold_other_collectives)
{
    static const struct {
        loom_plan_fn_t plan;
        const char *name;
        int total, folds;
    } cases[] = {
        { loom_allgather_ring_plan, "allgather ring", 1, 1 },
        { loom_reduce_scatter_ring_plan, "reduce_scatter ring", 1, 1 },
        { loom_allgather_hier_plan, "allgather hierarchical", 1, 1 },
        { loom_reduce_scatter_hier_plan, "reduce_scatter hierarchical", 1, 1 },
        { loom_allgather_bruck_plan, "allgather bruck", 1, 0 },
        { loom_bcast_chain_plan, "bcast chain", 0, 0 },
        { loom_reduce_chain_plan, "reduce chain", 0, 0 },
    };
    static const size_t bytes = 4 << 20;
    loom_sim_model_t m = small_racks();
    run_t folded, full;
    size_t c;

    for (c = 0; c < sizeof(cases) / sizeof(cases[0]); ++c) {
        folded = run_total(&m, 32, cases[c].plan, bytes, cases[c].total, 1);
        full = run_total(&m, 32, cases[c].plan, bytes, cases[c].total, 0);
        ck_assert_msg(folded.orbit == (cases[c].folds ? 4 : 1), "%s: orbit %d", cases[c].name,
                      folded.orbit);
        ck_assert_int_eq(full.orbit, 1);
        assert_same(&folded, &full);
    }
    /* Each folded rank pays its own messages' CPU time. */
    m.overhead_us = 0.3;
    folded = run_total(&m, 32, loom_allgather_hier_plan, bytes, 1, 1);
    full = run_total(&m, 32, loom_allgather_hier_plan, bytes, 1, 0);
    ck_assert_int_eq(folded.orbit, 4);
    assert_same(&folded, &full);
}
END_TEST

/* The ring spreads its larger blocks (partition.h): block sizes repeat
 * every 32 / gcd(32, count % 32) blocks, so the schedule is the same on
 * every rack when that period divides the rack's 8 ranks, vectors
 * smaller than the rank count included, and differs otherwise. */
START_TEST(test_fold_uneven_blocks)
{
    static const struct {
        size_t count;
        int folds;
    } cases[] = {
        { 1000, 1 },    /* 31 and 32 elements, period 4 */
        { 16, 1 },      /* one element every other block */
        { 1001, 0 },    /* period 32 */
        { 3, 0 },       /* three blocks of one element */
    };
    loom_sim_model_t m = small_racks();
    loom_plan_fn_t plan = loom_allreduce_algorithms[LOOM_ALLREDUCE_RING].plan;
    run_t folded, full;
    size_t c;

    for (c = 0; c < sizeof(cases) / sizeof(cases[0]); ++c) {
        folded = run(&m, 32, plan, 4 * cases[c].count, 1);
        full = run(&m, 32, plan, 4 * cases[c].count, 0);
        ck_assert_msg(folded.orbit == (cases[c].folds ? 4 : 1), "%zu elements: orbit %d",
                      cases[c].count, folded.orbit);
        assert_same(&folded, &full);
    }
}
END_TEST

/* A ring exchange, the same on every rack unless odd_rank >= 0: that
 * rank first copies 1 MB before it sends. */
static int odd_rank = -1;

static loom_status_t odd_rank_plan(const loom_coll_args_t *args, loom_team_t *team,
                                   loom_sched_t **sched_p)
{
    int p = team->size, r = team->rank, first = -1;
    size_t n = args->count * args->elem_size;
    loom_sched_t *sched;
    loom_status_t status = loom_sched_create(team, args, 0, &sched);

    if (status != LOOM_OK) {
        return status;
    }
    if (r == odd_rank) {
        first = loom_sched_copy(sched, args->sendbuf, args->recvbuf, 1 << 20, LOOM_NO_DEPS);
    }
    loom_sched_send(sched, (r + 1) % p, 1, args->recvbuf, n, LOOM_DEPS(first));
    loom_sched_recv(sched, (r + p - 1) % p, 1, args->recvbuf, n, LOOM_NO_DEPS);
    return loom_sched_plan_done(sched, sched_p);
}

/* The layout folds either way; the schedules only without the odd rank,
 * which sits in rack 2, past the ranks that run when folded. */
START_TEST(test_fold_checks_every_rank)
{
    loom_sim_model_t m = small_racks();
    run_t even, folded, full;

    odd_rank = -1;
    even = run(&m, 32, odd_rank_plan, 1 << 20, 1);
    ck_assert_int_eq(even.orbit, 4);
    odd_rank = 23;
    folded = run(&m, 32, odd_rank_plan, 1 << 20, 1);
    full = run(&m, 32, odd_rank_plan, 1 << 20, 0);
    ck_assert_int_eq(folded.orbit, 1);
    assert_same(&folded, &full);
    /* The copy (1 MB at 1000 GB/s) holds back rank 23's message. */
    ck_assert(full.res.time_s > even.res.time_s + 0.9e-6);
    ck_assert_int_eq(full.res.steps, even.res.steps + 1);
}
END_TEST

int main(void)
{
    Suite *s = suite_create("sim_fold");
    TCase *tc = tcase_create("sim_fold");

    tcase_set_timeout(tc, 60);
    tcase_add_test(tc, test_fold_distance);
    tcase_add_test(tc, test_fold_same_numbers);
    tcase_add_test(tc, test_fold_uneven_blocks);
    tcase_add_test(tc, test_fold_other_collectives);
    tcase_add_test(tc, test_fold_checks_every_rank);
    suite_add_tcase(s, tc);
    return loom_check_run(s);
}
