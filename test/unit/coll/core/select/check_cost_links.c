/*
 * The cost model across link classes (coll/core/select/cost_links.c) and the
 * choice between flat and hierarchical allreduce it drives
 * (loom_allreduce_select_team): values worked out by hand, and the
 * choices the emulated cluster's links call for.
 */
#include "coll/core/allgather/allgather.h"
#include "coll/core/allreduce/allreduce.h"
#include "coll/core/bcast/bcast.h"
#include "coll/core/reduce/reduce.h"
#include "coll/core/reduce_scatter/reduce_scatter.h"
#include "coll/core/select/coll_config.h"
#include "coll/core/select/cost_links.h"
#include "coll/core/engine/team.h"

#include <check.h>
#include "test/unit/support/check_main.h"
#include <math.h>
#include <stdint.h>
#include <stdlib.h>

/* A team of p ranks, rank 0's view: node_of and rack_of given. */
static loom_team_t *make_team(int p, const int *node_of, const int *rack_of)
{
    uint64_t nodes[64], racks[64];
    int peers[64], r;
    loom_team_t *team;
    loom_team_params_t tp = { .size = p, .rank = 0, .peers = peers, .node_keys = nodes,
                              .rack_keys = rack_of != NULL ? racks : NULL };

    for (r = 0; r < p; ++r) {
        peers[r] = r;
        nodes[r] = (uint64_t)node_of[r] + 100;
        racks[r] = rack_of != NULL ? (uint64_t)rack_of[r] + 7 : 0;
    }
    ck_assert_int_eq(loom_team_create(&tp, &team), LOOM_OK);
    return team;
}

/* The emulated cluster's links: 1 Gbit/s node links, 300 Mbit/s uplinks. */
static loom_coll_config_t rig_config(void)
{
    loom_coll_config_t cfg;

    ck_assert_int_eq(loom_coll_config_init(&cfg), LOOM_OK);
    cfg.cost_rack_bandwidth_mbs = 125;
    cfg.cost_spine_bandwidth_mbs = 37;
    return cfg;
}

static const int block_nodes[8] = { 0, 0, 1, 1, 2, 2, 3, 3 };
static const int block_racks[8] = { 0, 0, 0, 0, 1, 1, 1, 1 };
static const int rr_nodes[8] = { 0, 1, 2, 3, 0, 1, 2, 3 };
static const int rr_racks[8] = { 0, 0, 1, 1, 0, 0, 1, 1 };
static const int uneven_nodes[7] = { 0, 0, 0, 1, 2, 2, 3 };
static const int uneven_racks[7] = { 0, 0, 0, 0, 1, 1, 1 };

/* Two nodes of one rank: only the node-link level, 2(a + n/2 b) + n/2 g. */
START_TEST(test_hier_cost_by_hand)
{
    const int nodes[2] = { 0, 1 };
    loom_coll_config_t cfg = rig_config();
    loom_team_t *team = make_team(2, nodes, NULL);
    loom_cost_links_t links = loom_cost_links_from_config(&cfg, team);
    double n = 1e6, a = 5e-6, b = 1 / 125e6, g = 1 / 6000e6;

    ck_assert_double_eq_tol(loom_cost_allreduce_hier(&links, team, n, n),
                            2 * (a + n / 2 * b) + n / 2 * g, 1e-12);
    /* 64 KiB per message: 8 segments of 128 KiB (a message to each of the
     * 2 members), nothing else to overlap with here, so only the
     * per-message cost grows: 8 x 2 alphas. */
    ck_assert_double_eq_tol(loom_cost_allreduce_hier(&links, team, n, 65536),
                            16 * a + n * b + n / 2 * g, 1e-12);
    loom_team_destroy(team);
}
END_TEST

/* 4 nodes x 2 ranks in 2 racks: the uplink level carries n per rack
 * (2(R-1) n/R b_up), the node links n/2 per node each way, and
 * pipelining hides all but one segment of the faster levels. */
START_TEST(test_hier_cost_three_levels)
{
    loom_coll_config_t cfg = rig_config();
    loom_team_t *team = make_team(8, block_nodes, block_racks);
    loom_cost_links_t links = loom_cost_links_from_config(&cfg, team);
    double n = 64.0 * 1024 * 1024, up = 1 / 37e6, whole, piped;

    ck_assert_int_eq(team->shape.max_node, 2);
    ck_assert_int_eq(team->shape.max_rack, 2);
    ck_assert_int_eq(team->shape.ring_nic, 1);
    ck_assert_int_eq(team->shape.ring_uplink, 1);
    whole = loom_cost_allreduce_hier(&links, team, n, n);
    piped = loom_cost_allreduce_hier(&links, team, n, 1 << 20);
    /* Unpipelined: the three levels add up, the uplink's part being
     * 2 (a_up + n/2 b_up). */
    ck_assert(whole > 2 * (7e-6 + n / 2 * up));
    ck_assert(piped < whole);
    /* Pipelined: within 5% of the uplink bound n b_up. */
    ck_assert(piped < 1.05 * n * up + 1e-3);
    ck_assert(piped > n * up);
    loom_team_destroy(team);
}
END_TEST

/* The flat ring in rank order: block placement crosses each node link
 * and uplink once; round-robin placement (rank r on node r mod 4) crosses
 * every node link by both of its ranks (0>1 and 4>5 leave node 0) and
 * each uplink twice (1>2 and 5>6 leave rack 0). */
START_TEST(test_flat_across)
{
    loom_coll_config_t cfg = rig_config();
    loom_team_t *block = make_team(8, block_nodes, block_racks);
    loom_team_t *rr = make_team(8, rr_nodes, rr_racks);
    loom_cost_links_t links = loom_cost_links_from_config(&cfg, block);
    loom_cost_t c;

    c = loom_cost_flat_across(&links, block);
    ck_assert_double_eq_tol(c.beta, 1 / 37e6, 1e-15);
    ck_assert_double_eq_tol(c.alpha, 7e-6, 1e-12);
    ck_assert_int_eq(rr->shape.ring_nic, 2);
    ck_assert_int_eq(rr->shape.ring_uplink, 2);
    c = loom_cost_flat_across(&links, rr);
    ck_assert_double_eq_tol(c.beta, 2 / 37e6, 1e-15);
    /* An uplink of 0 is the rack's node links together: 2 x 125 MB/s. */
    cfg.cost_spine_bandwidth_mbs = 0;
    links = loom_cost_links_from_config(&cfg, block);
    ck_assert_double_eq_tol(links.cls[LOOM_LINK_SPINE].beta, 1 / 250e6, 1e-15);
    loom_team_destroy(block);
    loom_team_destroy(rr);
}
END_TEST

/* The other hierarchical collectives on 4 nodes x 2 ranks in 2 racks,
 * worked out by hand from their headers' formulas. */
START_TEST(test_other_hier_costs)
{
    loom_coll_config_t cfg = rig_config();
    loom_team_t *team = make_team(8, block_nodes, block_racks);
    loom_cost_links_t links = loom_cost_links_from_config(&cfg, team);
    double n = 64.0 * 1024 * 1024, seg = 1 << 20, up = 1 / 37e6, nic = 1 / 125e6;
    double in = 1 / 4000e6, g = 1 / 6000e6, m = 8.0 * 1024 * 1024;

    /* bcast: 3 hops to fill the chains (rack, node, rank), 64 segments,
     * each stage at the uplink's pace (the rack holder's node link
     * carries two segments a stage: 2/125 MB/s is still faster). */
    ck_assert_double_eq_tol(loom_cost_chain_hier(&links, team, n, seg, 0),
                            (3 + 63) * (7e-6 + seg * up), 1e-9);
    /* reduce: the same, reductions being faster than the uplink. */
    ck_assert_double_eq_tol(loom_cost_chain_hier(&links, team, n, seg, 1),
                            (3 + 63) * (7e-6 + seg * up), 1e-9);
    /* allgather of 8 MiB: 4 messages inside the node, 2 between the
     * rack's nodes, 1 across racks; half of n through each level. */
    ck_assert_double_eq_tol(loom_cost_spread_hier(&links, team, m, 0),
                            4 * 3e-6 + m / 2 * in + 2 * 5e-6 + m / 2 * nic + 7e-6 + m / 2 * up,
                            1e-9);
    /* reduce_scatter: the same messages, plus each level's reductions. */
    ck_assert_double_eq_tol(loom_cost_spread_hier(&links, team, m, 1),
                            4 * 3e-6 + m / 2 * (in + g) + 2 * 5e-6 + m / 2 * (nic + g / 2) +
                                7e-6 + m / 2 * (up + g / 4), 1e-9);
    loom_team_destroy(team);
}
END_TEST

/* The choice: hierarchical for large commutative sums across racks (both
 * placements, the uneven 7-rank layout too), flat for small ones, for
 * non-commutative ops, on one node, and when a setting forces one. */
START_TEST(test_select_team)
{
    const int one_node[4] = { 0, 0, 0, 0 };
    loom_coll_config_t cfg = rig_config();
    loom_team_t *block = make_team(8, block_nodes, block_racks);
    loom_team_t *rr = make_team(8, rr_nodes, rr_racks);
    loom_team_t *uneven = make_team(7, uneven_nodes, uneven_racks);
    loom_team_t *single = make_team(4, one_node, NULL);
    loom_choice_t ch, flat;
    size_t big = 64u << 20;

    loom_allreduce_select_team(&cfg, block, big, 1, &ch);
    ck_assert_int_eq(ch.alg, LOOM_ALLREDUCE_HIER);
    ck_assert_int_eq(ch.forced, 0);
    ck_assert_int_ne(ch.next_alg, LOOM_ALLREDUCE_AUTO);
    ck_assert(ch.next_cost_s > ch.cost_s);
    ck_assert_uint_gt(ch.seg_bytes, 0);
    loom_allreduce_select_team(&cfg, rr, big, 1, &ch);
    ck_assert_int_eq(ch.alg, LOOM_ALLREDUCE_HIER);
    ck_assert(ch.next_cost_s > 2 * ch.cost_s);  /* flat crosses each uplink twice at once */
    loom_allreduce_select_team(&cfg, uneven, big, 1, &ch);
    ck_assert_int_eq(ch.alg, LOOM_ALLREDUCE_HIER);

    loom_allreduce_select_team(&cfg, block, 8, 1, &ch);
    ck_assert_int_ne(ch.alg, LOOM_ALLREDUCE_HIER);
    loom_allreduce_select_team(&cfg, block, big, 0, &ch);
    ck_assert_int_ne(ch.alg, LOOM_ALLREDUCE_HIER);

    /* One node: exactly the flat model's choice. */
    loom_allreduce_select_team(&cfg, single, big, 1, &ch);
    loom_allreduce_select(&cfg, 4, big, 1, &flat);
    ck_assert_int_eq(ch.alg, flat.alg);
    ck_assert_double_eq(ch.cost_s, flat.cost_s);

    cfg.allreduce_algorithm = LOOM_ALLREDUCE_RING;
    loom_allreduce_select_team(&cfg, block, big, 1, &ch);
    ck_assert_int_eq(ch.alg, LOOM_ALLREDUCE_RING);
    ck_assert_int_eq(ch.forced, 1);
    loom_team_destroy(block);
    loom_team_destroy(rr);
    loom_team_destroy(uneven);
    loom_team_destroy(single);
}
END_TEST

/* The hierarchical allreduce's segment trades each message's alpha
 * against the pipeline's fill and drain: on the rig, 16 KiB at 4 MiB and
 * 32 KiB at 64 MiB (below the flat algorithms' smallest, 64 KiB); with
 * 40 times the latency per message between nodes, larger ones. */
START_TEST(test_select_hier_segment)
{
    loom_coll_config_t cfg = rig_config();
    loom_team_t *block = make_team(8, block_nodes, block_racks);
    loom_team_t *uneven = make_team(7, uneven_nodes, uneven_racks);
    loom_choice_t ch;

    loom_allreduce_select_team(&cfg, block, 4u << 20, 1, &ch);
    ck_assert_int_eq(ch.alg, LOOM_ALLREDUCE_HIER);
    ck_assert_uint_eq(ch.seg_bytes, 16384);
    loom_allreduce_select_team(&cfg, block, 64u << 20, 1, &ch);
    ck_assert_int_eq(ch.alg, LOOM_ALLREDUCE_HIER);
    ck_assert_uint_eq(ch.seg_bytes, 32768);
    /* The uneven 3,1,2,1 layout: the one-rank nodes own three shards and
     * send three times the messages, so segments twice as large. */
    loom_allreduce_select_team(&cfg, uneven, 64u << 20, 1, &ch);
    ck_assert_int_eq(ch.alg, LOOM_ALLREDUCE_HIER);
    ck_assert_uint_eq(ch.seg_bytes, 65536);
    /* ... and twice the segments in flight there, not on even layouts,
     * nor when a setting names the depth. */
    ck_assert_int_eq(ch.depth, 8);
    loom_allreduce_select_team(&cfg, block, 64u << 20, 1, &ch);
    ck_assert_int_eq(ch.depth, 4);
    cfg.allreduce_depth = 3;
    loom_allreduce_select_team(&cfg, uneven, 64u << 20, 1, &ch);
    ck_assert_int_eq(ch.depth, 3);
    cfg.allreduce_depth = 0;
    cfg.cost_rack_alpha_ns = 200000;
    cfg.cost_spine_alpha_ns = 200000;
    loom_allreduce_select_team(&cfg, block, 4u << 20, 1, &ch);
    ck_assert_int_eq(ch.alg, LOOM_ALLREDUCE_HIER);
    ck_assert_uint_eq(ch.seg_bytes, 65536);
    loom_allreduce_select_team(&cfg, block, 64u << 20, 1, &ch);
    ck_assert_uint_eq(ch.seg_bytes, 262144);
    loom_team_destroy(block);
    loom_team_destroy(uneven);
}
END_TEST

/* Uneven 3,1,2,1 in two racks of two nodes: the smallest node has one
 * rank, the smallest rack two nodes, so a rank owns up to three shards
 * and three sub-shards.  Unsegmented, the busiest rank sends two more
 * rack-level messages (2(m-1) per shard) and two more across racks
 * (2(R-1) per sub-shard) per shard it owns beyond one: 4 alpha1 +
 * 4 alpha2 more than an even layout of the same size. */
START_TEST(test_hier_cost_uneven)
{
    loom_coll_config_t cfg = rig_config();
    loom_team_t *uneven = make_team(7, uneven_nodes, uneven_racks);
    loom_cost_links_t links = loom_cost_links_from_config(&cfg, uneven);
    loom_cost_t cls[3] = { links.cls[LOOM_LINK_NODE], links.cls[LOOM_LINK_RACK],
                           links.cls[LOOM_LINK_SPINE] };
    double n = 8.0 * 1024 * 1024;

    ck_assert_int_eq(uneven->shape.max_node, 3);
    ck_assert_int_eq(uneven->shape.min_node, 1);
    ck_assert_int_eq(uneven->shape.max_rack, 2);
    ck_assert_int_eq(uneven->shape.min_rack, 2);
    cls[2].beta = fmax(cls[2].beta, cls[1].beta / 2);
    ck_assert_double_eq_tol(loom_cost_allreduce_hier(&links, uneven, n, 0) -
                                loom_allreduce_hier_cost(cls, 3, 2, 2, NULL, n, 0),
                            4 * 5e-6 + 4 * 7e-6, 1e-12);
    loom_team_destroy(uneven);
}
END_TEST

/* The other collectives choose the same way: hierarchical for large
 * messages across racks (commutative ones for the reductions), flat for
 * small ones, on one node, and when forced. */
START_TEST(test_select_team_others)
{
    const int one_node[4] = { 0, 0, 0, 0 };
    int wide_nodes[32], wide_racks[32], r;
    loom_coll_config_t cfg = rig_config();
    loom_team_t *rr = make_team(8, rr_nodes, rr_racks);
    loom_team_t *single = make_team(4, one_node, NULL), *wide;
    loom_choice_t bc;
    loom_choice_t rc;
    loom_choice_t ac;
    loom_choice_t sc;
    size_t big = 64u << 20;

    loom_bcast_select_team(&cfg, rr, big, 1, &bc);
    ck_assert_int_eq(bc.alg, LOOM_BCAST_HIER);
    ck_assert(bc.next_cost_s > bc.cost_s);
    loom_reduce_select_team(&cfg, rr, big, 1, &rc);
    ck_assert_int_eq(rc.alg, LOOM_REDUCE_HIER);
    loom_reduce_select_team(&cfg, rr, big, 0, &rc);
    ck_assert_int_ne(rc.alg, LOOM_REDUCE_HIER);
    loom_allgather_select_team(&cfg, rr, big, 1, &ac);
    ck_assert_int_eq(ac.alg, LOOM_ALLGATHER_HIER);
    loom_reduce_scatter_select_team(&cfg, rr, big, 1, &sc);
    ck_assert_int_eq(sc.alg, LOOM_REDUCE_SCATTER_HIER);
    loom_reduce_scatter_select_team(&cfg, rr, big, 0, &sc);
    ck_assert_int_ne(sc.alg, LOOM_REDUCE_SCATTER_HIER);

    /* 8 bytes: on 4 x 2 the chains' 3 hops tie the binomial tree's 3
     * rounds; on 4 nodes of 8 ranks they take 1 + 1 + 7 hops, the tree 5. */
    for (r = 0; r < 32; ++r) {
        wide_nodes[r] = r / 8;
        wide_racks[r] = r / 16;
    }
    wide = make_team(32, wide_nodes, wide_racks);
    loom_bcast_select_team(&cfg, wide, 8, 1, &bc);
    ck_assert_int_eq(bc.alg, LOOM_BCAST_BINOMIAL);
    loom_team_destroy(wide);
    loom_allgather_select_team(&cfg, rr, 64, 1, &ac);
    ck_assert_int_ne(ac.alg, LOOM_ALLGATHER_HIER);
    loom_bcast_select_team(&cfg, single, big, 1, &bc);
    ck_assert_int_ne(bc.alg, LOOM_BCAST_HIER);
    loom_allgather_select_team(&cfg, single, big, 1, &ac);
    ck_assert_int_ne(ac.alg, LOOM_ALLGATHER_HIER);

    cfg.bcast_algorithm = LOOM_BCAST_BINOMIAL;
    loom_bcast_select_team(&cfg, rr, big, 1, &bc);
    ck_assert_int_eq(bc.alg, LOOM_BCAST_BINOMIAL);
    loom_team_destroy(rr);
    loom_team_destroy(single);
}
END_TEST

int main(void)
{
    Suite *s = suite_create("cost_links");
    TCase *tc = tcase_create("cost_links");

    tcase_add_test(tc, test_hier_cost_by_hand);
    tcase_add_test(tc, test_hier_cost_three_levels);
    tcase_add_test(tc, test_flat_across);
    tcase_add_test(tc, test_other_hier_costs);
    tcase_add_test(tc, test_select_team);
    tcase_add_test(tc, test_select_hier_segment);
    tcase_add_test(tc, test_hier_cost_uneven);
    tcase_add_test(tc, test_select_team_others);
    suite_add_tcase(s, tc);
    return loom_check_run(s);
}
