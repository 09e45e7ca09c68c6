/*
 * The verifier (verifier.h) on the hierarchical schedules.  The allreduce
 * (node layouts, rack layouts with segments and depths, the bytes that
 * cross racks, pipelining across levels) first; then the bcast, reduce,
 * allgather(v) and reduce_scatter(_block) over the layouts a cluster can
 * have: racks of nodes of ranks, placed in blocks or round-robin, uneven
 * nodes, nodes of one rank, racks of one node, one node, one rack, 128
 * ranks in 4 racks, and random placements up to 40 ranks.  Every root on small teams, counts
 * 0, 1, fewer than ranks, odd and larger, in place or not, segment sizes
 * and slot depths for the pipelined ones, both step orders; the non-commutative op must
 * be refused by the reducing ones (the selection hands it elsewhere).
 */
#include "test/unit/support/verifier.h"
#include "common/log.h"

#include <check.h>
#include "test/unit/support/check_main.h"
#include <malloc.h>
#include <stdio.h>

#define E LOOM_VERIFY_ELEM_SIZE
#define MAX_P 128
#define EVERY_ROOT_P 12
#define NFIXED 11

typedef struct hier_layout_case {
    int p;
    int node_of[MAX_P];
    int rack_of[MAX_P];
} hier_case_t;

static uint64_t mix(uint64_t x)
{
    x += UINT64_C(0x9E3779B97F4A7C15);
    x = (x ^ (x >> 30)) * UINT64_C(0xBF58476D1CE4E5B9);
    x = (x ^ (x >> 27)) * UINT64_C(0x94D049BB133111EB);
    return x ^ (x >> 31);
}

/* Ranks placed on nodes by node_of, nodes in racks by rack_of_node. */
static void place(hier_case_t *c, int p, const int *node_of, const int *rack_of_node)
{
    int r;

    c->p = p;
    for (r = 0; r < p; ++r) {
        c->node_of[r] = node_of[r];
        c->rack_of[r] = rack_of_node[node_of[r]];
    }
}

/* Layout i: the fixed ones first, then random ones. */
static void make_layout(int i, hier_case_t *c)
{
    int node_of[MAX_P], rack_of_node[MAX_P], r, x, nodes, racks;
    uint64_t seed = mix((uint64_t)i * 1234567);

    switch (i) {
    case 0: /* 2 racks x 2 nodes x 2 ranks, in blocks */
        for (r = 0; r < 8; ++r) {
            node_of[r] = r / 2;
        }
        for (x = 0; x < 4; ++x) {
            rack_of_node[x] = x / 2;
        }
        place(c, 8, node_of, rack_of_node);
        break;
    case 1: /* the same, ranks dealt round-robin over nodes */
        for (r = 0; r < 8; ++r) {
            node_of[r] = r % 4;
        }
        for (x = 0; x < 4; ++x) {
            rack_of_node[x] = x / 2;
        }
        place(c, 8, node_of, rack_of_node);
        break;
    case 2: /* uneven nodes of 3, 1, 2, 1 ranks, one rack */
    case 3: /* the same in two racks of two nodes */
        for (r = 0; r < 7; ++r) {
            node_of[r] = r < 3 ? 0 : r < 4 ? 1 : r < 6 ? 2 : 3;
        }
        for (x = 0; x < 4; ++x) {
            rack_of_node[x] = i == 2 ? 0 : x / 2;
        }
        place(c, 7, node_of, rack_of_node);
        break;
    case 4: /* nodes of one rank, racks of 3 and 2 nodes */
        for (r = 0; r < 5; ++r) {
            node_of[r] = r;
            rack_of_node[r] = r < 3 ? 0 : 1;
        }
        place(c, 5, node_of, rack_of_node);
        break;
    case 5: /* racks of one node each, nodes of 2, 3, 1 ranks, interleaved */
        for (r = 0; r < 6; ++r) {
            node_of[r] = r == 5 ? 2 : r % 2;
        }
        node_of[4] = 1;
        for (x = 0; x < 3; ++x) {
            rack_of_node[x] = 2 - x;
        }
        place(c, 6, node_of, rack_of_node);
        break;
    case 6: /* one node */
        for (r = 0; r < 5; ++r) {
            node_of[r] = 0;
        }
        rack_of_node[0] = 0;
        place(c, 5, node_of, rack_of_node);
        break;
    case 7: /* every rank a rack of its own */
        for (r = 0; r < 4; ++r) {
            node_of[r] = r;
            rack_of_node[r] = r;
        }
        place(c, 4, node_of, rack_of_node);
        break;
    case 8: /* 3 racks: nodes of 1 and 3; one node of 2; nodes of 1, 1, 2 */
        {
            static const int n8[] = { 0, 1, 1, 1, 2, 2, 3, 4, 5, 5 };
            static const int r8[] = { 0, 0, 1, 2, 2, 2 };

            place(c, 10, n8, r8);
        }
        break;
    case 9: /* 4 nodes x 3 ranks round-robin, racks {0, 3} and {1, 2} */
        for (r = 0; r < 12; ++r) {
            node_of[r] = r % 4;
        }
        rack_of_node[0] = rack_of_node[3] = 0;
        rack_of_node[1] = rack_of_node[2] = 1;
        place(c, 12, node_of, rack_of_node);
        break;
    case 10: /* 4 racks x 4 nodes x 8 ranks, ranks round-robin over nodes */
        for (r = 0; r < 128; ++r) {
            node_of[r] = r % 16;
        }
        for (x = 0; x < 16; ++x) {
            rack_of_node[x] = x % 4;
        }
        place(c, 128, node_of, rack_of_node);
        break;
    default: /* random: 2..40 ranks on up to 8 nodes in up to 3 racks */
        c->p = 2 + (int)(seed % 39);
        nodes = 1 + (int)((seed >> 8) % 8);
        racks = 1 + (int)((seed >> 16) % 3);
        for (x = 0; x < nodes; ++x) {
            rack_of_node[x] = (int)(mix(seed ^ (uint64_t)(x + 100)) % (uint64_t)racks);
        }
        for (r = 0; r < c->p; ++r) {
            node_of[r] = (int)(mix(seed + (uint64_t)r) % (uint64_t)nodes);
        }
        place(c, c->p, node_of, rack_of_node);
        break;
    }
}

static void run(const hier_case_t *c, const loom_verify_coll_t *coll, const char *name,
                loom_plan_fn_t plan, size_t count, int root, int in_place, size_t seg,
                loom_verify_op_t op, uint64_t seed)
{
    loom_verify_params_t pa = {
        .name = name, .coll = coll, .plan = plan, .root = root, .nranks = c->p,
        .count = count, .in_place = in_place, .op = op, .seg_bytes = seg,
        .depth = (int)((seed >> 8) % 3),    /* reduce's slots: 0 = its default */
        .node_of = c->node_of, .rack_of = c->rack_of, .seed = seed,
        .order = seed % 2 ? LOOM_VERIFY_ORDER_LATE_DELIVERY : LOOM_VERIFY_ORDER_UNIFORM,
        .rank_permute = (int)((seed >> 3) & 1),   /* a random rank order, every other */
    };
    loom_verify_report_t rep;

    ck_assert_int_eq(loom_verify_run(&pa, &rep), LOOM_OK);
    if (op == LOOM_VERIFY_OP_MATRIX && coll != &loom_verify_bcast &&
        coll != &loom_verify_allgather && coll != &loom_verify_allgatherv) {
        ck_assert_msg(rep.verdict == LOOM_VERIFY_REFUSED, "%s took a non-commutative op: %s",
                      coll->name, loom_verify_verdict_name(rep.verdict));
        return;
    }
    ck_assert_msg(rep.verdict == LOOM_VERIFY_PASS, "%s %s: %s", coll->name,
                  loom_verify_verdict_name(rep.verdict), rep.message);
}

static size_t hier_count(int p, int k)
{
    switch (k) {
    case 0: return 0;
    case 1: return 1;
    case 2: return p > 64 ? 9 : p > 2 ? (size_t)p - 1 : 2;   /* fewer than ranks */
    case 3: return p > 64 ? 5 : 2 * (size_t)p + 1;   /* odd (large teams: cheap) */
    default: return 37;
    }
}
#define NCOUNTS 5

static const size_t hier_segs[] = { 0, 1 * E, 3 * E, 40 };
#define NSEGS (sizeof(hier_segs) / sizeof(hier_segs[0]))

/* Bcast and reduce: every root on small teams, else four. */
START_TEST(test_rooted)
{
    const loom_algorithm_t *b = &loom_bcast_algorithms[LOOM_BCAST_HIER];
    const loom_algorithm_t *rd = &loom_reduce_algorithms[LOOM_REDUCE_HIER];
    hier_case_t c;
    int k, root, j, roots[4], nroots;
    unsigned which = 0;
    uint64_t seed;

    make_layout(_i, &c);
    roots[0] = 0;
    roots[1] = c.p - 1;
    roots[2] = c.p / 2;
    roots[3] = (int)(mix((uint64_t)_i) % (uint64_t)c.p);
    nroots = c.p <= EVERY_ROOT_P ? c.p : 4;
    for (k = 0; k < NCOUNTS; ++k) {
        for (j = 0; j < nroots; ++j, ++which) {
            root = c.p <= EVERY_ROOT_P ? j : roots[j];
            seed = mix(((uint64_t)_i << 32) ^ ((uint64_t)k << 16) ^ which);
            run(&c, &loom_verify_bcast, b->name, b->plan, hier_count(c.p, k), root, 0,
                hier_segs[which % NSEGS], LOOM_VERIFY_OP_SUM, seed);
            run(&c, &loom_verify_reduce, rd->name, rd->plan, hier_count(c.p, k), root,
                (int)(which % 2), hier_segs[(which / 2) % NSEGS], LOOM_VERIFY_OP_SUM,
                seed + 1);
        }
    }
    run(&c, &loom_verify_reduce, rd->name, rd->plan, 3, 0, 0, 0, LOOM_VERIFY_OP_MATRIX, 5);
}
END_TEST

/* Allgather, allgatherv, reduce_scatter_block and reduce_scatter. */
START_TEST(test_vector)
{
    const loom_algorithm_t *ag = &loom_allgather_algorithms[LOOM_ALLGATHER_HIER];
    const loom_algorithm_t *rs =
        &loom_reduce_scatter_algorithms[LOOM_REDUCE_SCATTER_HIER];
    hier_case_t c;
    int k, in_place;
    uint64_t seed;

    make_layout(_i, &c);
    for (k = 0; k < NCOUNTS; ++k) {
        for (in_place = 0; in_place < 2; ++in_place) {
            seed = mix(((uint64_t)_i << 32) ^ ((uint64_t)k << 8) ^ (uint64_t)in_place);
            run(&c, &loom_verify_allgather, ag->name, ag->plan, hier_count(c.p, k), 0,
                in_place, 0, LOOM_VERIFY_OP_SUM, seed);
            run(&c, &loom_verify_allgatherv, ag->name, ag->plan, hier_count(c.p, k), 0,
                in_place, 0, LOOM_VERIFY_OP_MATRIX, seed + 1);
            run(&c, &loom_verify_reduce_scatter_block, rs->name, rs->plan,
                hier_count(c.p, k), 0, in_place, 0, LOOM_VERIFY_OP_SUM, seed + 2);
            run(&c, &loom_verify_reduce_scatter, rs->name, rs->plan, hier_count(c.p, k), 0,
                in_place, 0, LOOM_VERIFY_OP_SUM, seed + 3);
        }
    }
    run(&c, &loom_verify_reduce_scatter_block, rs->name, rs->plan, 3, 0, 0, 0,
        LOOM_VERIFY_OP_MATRIX, 7);
}
END_TEST

/* The uneven shapes of the verifier itself hold what they claim: the
 * ring allgather and the halving reduce_scatter pass them. */
START_TEST(test_v_specs)
{
    hier_case_t c;

    make_layout(3, &c);
    run(&c, &loom_verify_allgatherv, "ring",
        loom_allgather_algorithms[LOOM_ALLGATHER_RING].plan, 5, 0, 1, 0,
        LOOM_VERIFY_OP_SUM, 11);
    run(&c, &loom_verify_allgather, "bruck",
        loom_allgather_algorithms[LOOM_ALLGATHER_BRUCK].plan, 5, 0, 0, 0,
        LOOM_VERIFY_OP_SUM, 12);
    run(&c, &loom_verify_reduce_scatter, "recursive_halving",
        loom_reduce_scatter_algorithms[LOOM_REDUCE_SCATTER_HALVING].plan, 5, 0, 1, 0,
        LOOM_VERIFY_OP_SUM, 13);
}
END_TEST

/* The hierarchical allreduce on node layouts a cluster can have: uneven
 * nodes, nodes of one rank, ranks dealt round-robin over nodes (mpirun
 * --map-by node), one node, random placements; every count class, in
 * place or not, both orders.  _i picks the layout. */
START_TEST(test_hier_topologies)
{
    static const size_t counts[] = { 0, 1, 2, 5, 7, 31, 100, 1000 };
    const loom_algorithm_t *alg = &loom_allreduce_algorithms[LOOM_ALLREDUCE_HIER];
    int node_of[64], p, r, c, in_place;
    uint64_t seed = mix((uint64_t)_i + 77);
    loom_verify_report_t rep;

    switch (_i) {
    case 0: /* nodes of 3, 1, 2 ranks */
        p = 6;
        for (r = 0; r < p; ++r) {
            node_of[r] = r < 3 ? 0 : r < 4 ? 1 : 2;
        }
        break;
    case 1: /* 4 nodes x 2 ranks, --map-by node */
        p = 8;
        for (r = 0; r < p; ++r) {
            node_of[r] = r % 4;
        }
        break;
    case 2: /* the uneven 7-rank layout: 2, 2, 2, 1 */
        p = 7;
        for (r = 0; r < p; ++r) {
            node_of[r] = r / 2;
        }
        break;
    case 3: /* one node */
        p = 5;
        for (r = 0; r < p; ++r) {
            node_of[r] = 0;
        }
        break;
    case 4: /* 3 nodes of 4, 4, 1 dealt round-robin */
        p = 9;
        for (r = 0; r < p; ++r) {
            node_of[r] = r < 8 ? r % 2 : 2;
        }
        break;
    default: /* random placements of 2..40 ranks on up to 6 nodes */
        p = 2 + (int)(seed % 39);
        for (r = 0; r < p; ++r) {
            node_of[r] = (int)(mix(seed + (uint64_t)r) % (1 + seed % 6));
        }
        break;
    }
    for (c = 0; c < (int)(sizeof(counts) / sizeof(counts[0])); ++c) {
        for (in_place = 0; in_place < 2; ++in_place) {
            loom_verify_params_t pa = {
                .name = alg->name, .plan = alg->plan, .nranks = p, .count = counts[c],
                .in_place = in_place, .op = LOOM_VERIFY_OP_SUM, .node_of = node_of,
                .seed = seed + (uint64_t)(c * 2 + in_place),
                .order = (c + in_place) % 2 ? LOOM_VERIFY_ORDER_LATE_DELIVERY
                                            : LOOM_VERIFY_ORDER_UNIFORM,
            };

            ck_assert_int_eq(loom_verify_run(&pa, &rep), LOOM_OK);
            ck_assert_msg(rep.verdict == LOOM_VERIFY_PASS, "layout %d: %s: %s", _i,
                          loom_verify_verdict_name(rep.verdict), rep.message);
            /* Non-commutative ops go elsewhere: the plan must refuse. */
            pa.op = LOOM_VERIFY_OP_MATRIX;
            ck_assert_int_eq(loom_verify_run(&pa, &rep), LOOM_OK);
            ck_assert_int_eq(rep.verdict, LOOM_VERIFY_REFUSED);
        }
    }
}
END_TEST

/* The three-level allreduce on rack layouts: 2 racks x 2 nodes x 2 ranks,
 * racks of uneven node counts over uneven nodes, one-rank nodes, one-node
 * racks, nodes dealt round-robin, random layouts with random racks; every
 * count class with segments (none, one element so many segments, an odd
 * size) and depths 1, 2, 4, every other segment size under a random rank
 * order (which reorders the racks too).  _i picks the layout. */
START_TEST(test_hier_racks)
{
    static const size_t segs[] = { 0, 1 * E, 40, 3 * E };
    static const int depths[] = { 1, 2, 4 };
    const loom_algorithm_t *alg = &loom_allreduce_algorithms[LOOM_ALLREDUCE_HIER];
    int node_of[64], rack_of[64], rack_of_node[64], p, r, c, g, x;
    uint64_t seed = mix((uint64_t)_i + 991);
    size_t counts[5];
    loom_verify_report_t rep;

    switch (_i) {
    case 0: /* 2 racks x 2 nodes x 2 ranks */
        p = 8;
        for (r = 0; r < p; ++r) {
            node_of[r] = r / 2;
        }
        for (x = 0; x < 4; ++x) {
            rack_of_node[x] = x / 2;
        }
        break;
    case 1: /* 3 racks of 3, 1, 2 nodes; nodes of 3, 1, 2, 2, 1, 3 ranks */
        p = 12;
        for (r = 0; r < p; ++r) {
            node_of[r] = r < 3 ? 0 : r < 4 ? 1 : r < 6 ? 2 : r < 8 ? 3 : r < 9 ? 4 : 5;
        }
        rack_of_node[0] = rack_of_node[1] = rack_of_node[2] = 0;
        rack_of_node[3] = 1;
        rack_of_node[4] = rack_of_node[5] = 2;
        break;
    case 2: /* one-rank nodes in racks of 2, 3, 1 */
        p = 6;
        for (r = 0; r < p; ++r) {
            node_of[r] = r;
        }
        rack_of_node[0] = rack_of_node[1] = 0;
        rack_of_node[2] = rack_of_node[3] = rack_of_node[4] = 1;
        rack_of_node[5] = 2;
        break;
    case 3: /* one-node racks of 2, 3, 1 ranks */
        p = 6;
        for (r = 0; r < p; ++r) {
            node_of[r] = r < 2 ? 0 : r < 5 ? 1 : 2;
        }
        for (x = 0; x < 3; ++x) {
            rack_of_node[x] = x;
        }
        break;
    case 4: /* 4 nodes x 2 ranks, --map-by node, 2 racks */
        p = 8;
        for (r = 0; r < p; ++r) {
            node_of[r] = r % 4;
        }
        for (x = 0; x < 4; ++x) {
            rack_of_node[x] = x / 2;
        }
        break;
    case 5: /* racks interleaved with the ranks: nodes 0, 2 in rack 0 */
        p = 10;
        for (r = 0; r < p; ++r) {
            node_of[r] = r % 5;
        }
        for (x = 0; x < 5; ++x) {
            rack_of_node[x] = x % 2;
        }
        break;
    default: /* random placements of 2..40 ranks on up to 8 nodes in up to 4 racks */
        p = 2 + (int)(seed % 39);
        for (r = 0; r < p; ++r) {
            node_of[r] = (int)(mix(seed + (uint64_t)r) % (1 + seed % 8));
        }
        for (x = 0; x < 8; ++x) {
            rack_of_node[x] = (int)(mix(seed ^ (uint64_t)(x + 1000)) % (1 + (seed >> 8) % 4));
        }
        break;
    }
    for (r = 0; r < p; ++r) {
        rack_of[r] = rack_of_node[node_of[r]];
    }
    counts[0] = 0;
    counts[1] = 1;
    counts[2] = (size_t)p - 1;
    counts[3] = 2 * (size_t)p + 7;
    counts[4] = 600;
    for (c = 0; c < 5; ++c) {
        for (g = 0; g < (int)(sizeof(segs) / sizeof(segs[0])); ++g) {
            loom_verify_params_t pa = {
                .name = alg->name, .plan = alg->plan, .nranks = p, .count = counts[c],
                .in_place = (c + g) % 2, .op = LOOM_VERIFY_OP_SUM, .node_of = node_of,
                .rack_of = rack_of, .seg_bytes = segs[g], .depth = depths[(c + g) % 3],
                .seed = seed + (uint64_t)(c * 8 + g),
                .order = (c + g / 2) % 2 ? LOOM_VERIFY_ORDER_LATE_DELIVERY
                                         : LOOM_VERIFY_ORDER_UNIFORM,
                .rank_permute = g % 2,
            };

            ck_assert_int_eq(loom_verify_run(&pa, &rep), LOOM_OK);
            ck_assert_msg(rep.verdict == LOOM_VERIFY_PASS,
                          "layout %d, count %zu, seg %zu, depth %d: %s: %s", _i,
                          counts[c], segs[g], pa.depth, loom_verify_verdict_name(rep.verdict),
                          rep.message);
        }
    }
}
END_TEST

/* Bytes the three-level allreduce moves across racks: plan every rank's
 * schedule and add up the sends and receives whose peer sits in another
 * rack.  Each rack's uplink must carry exactly n bytes each way, the
 * minimum for two racks, whatever the placement and segmenting. */
/* Rank r's schedule of the hierarchical allreduce of count doubles in
 * place in buf, on p <= 64 ranks placed by node_of and rack_of; the team
 * goes to *team_p (destroy it after the schedule). */
static loom_sched_t *plan_hier_rank(int p, const int *node_of, const int *rack_of, int r,
                                    double *buf, size_t count, size_t seg_bytes, int depth,
                                    loom_team_t **team_p)
{
    uint64_t node_keys[64], rack_keys[64];
    int peers[64], q;
    loom_team_params_t tp = { .size = p, .rank = r, .peers = peers, .node_keys = node_keys,
                              .rack_keys = rack_keys, .context_id = 1 };
    loom_coll_args_t args = {
        .recvbuf = buf, .count = count, .elem_size = sizeof(double), .in_place = 1,
        .op = { .fn = loom_verify_reduce_fn(LOOM_VERIFY_OP_SUM), .commutative = 1 },
        .seg_bytes = seg_bytes, .depth = depth,
    };
    loom_sched_t *sched;

    for (q = 0; q < p; ++q) {
        peers[q] = q;
        node_keys[q] = (uint64_t)node_of[q] + 100;
        rack_keys[q] = (uint64_t)rack_of[q] + 200;
    }
    ck_assert_int_eq(loom_team_create(&tp, team_p), LOOM_OK);
    ck_assert_int_eq(loom_allreduce_hier_plan(&args, *team_p, &sched), LOOM_OK);
    return sched;
}

static void count_rack_bytes(int p, const int *node_of, const int *rack_of, size_t count,
                             size_t seg_bytes, long long *out, long long *in)
{
    double *buf = malloc(sizeof(double) * (count ? count : 1));
    int r, i;

    ck_assert_ptr_nonnull(buf);
    for (r = 0; r < p; ++r) {
        out[rack_of[r]] = in[rack_of[r]] = 0;
    }
    for (r = 0; r < p; ++r) {
        loom_team_t *team;
        loom_sched_t *sched = plan_hier_rank(p, node_of, rack_of, r, buf, count, seg_bytes,
                                             2, &team);

        ck_assert_int_eq(team->num_racks, 2);
        for (i = 0; i < sched->nsteps; ++i) {
            const loom_step_desc_t *d = &sched->steps[i].desc;

            if ((d->type == LOOM_STEP_SEND || d->type == LOOM_STEP_RECV) &&
                rack_of[d->peer] != rack_of[r]) {
                *(d->type == LOOM_STEP_SEND ? &out[rack_of[r]] : &in[rack_of[r]]) +=
                    (long long)d->bytes;
            }
        }
        loom_sched_destroy(sched);
        loom_team_destroy(team);
    }
    free(buf);
}

START_TEST(test_hier_rack_bytes)
{
    static const size_t counts[] = { 1000, 1001, 7 };
    static const size_t segs[] = { 0, 8, 24 };
    int node_of[8], rack_of[8], r, k, g, y;
    long long out[2], in[2];

    for (k = 0; k < 2; ++k) {
        /* 4 nodes x 2 ranks, nodes 0, 1 in rack 0: ranks placed in blocks
         * (k = 0) or dealt round-robin over the nodes (k = 1). */
        for (r = 0; r < 8; ++r) {
            node_of[r] = k == 0 ? r / 2 : r % 4;
            rack_of[r] = node_of[r] / 2;
        }
        for (g = 0; g < 3; ++g) {
            count_rack_bytes(8, node_of, rack_of, counts[g], segs[g], out, in);
            for (y = 0; y < 2; ++y) {
                ck_assert_msg(out[y] == (long long)(counts[g] * sizeof(double)) &&
                              in[y] == (long long)(counts[g] * sizeof(double)),
                              "placement %d, count %zu: rack %d sends %lld, receives %lld "
                              "bytes across racks, not %zu", k, counts[g], y, out[y], in[y],
                              counts[g] * sizeof(double));
            }
        }
    }
}
END_TEST

/* Pipelining across levels: on 2 racks x 2 nodes x 2 ranks, 8 segments,
 * depth 4, no message inside a node of segments 1..3 waits (through any
 * chain of dependencies) on a message of segment 0 across racks: those
 * segments are reduced in the node while segment 0 crosses racks.
 * Segment 4 reuses segment 0's scratch, so its receives inside the node
 * do wait on segment 0: depth bounds the segments in flight.  A segment's
 * messages have tag steps [20k, 20k + 20): 2 S1 (1 + S2 R) with 2 shards,
 * 2 sub-shards and 2 racks. */
START_TEST(test_hier_pipelined)
{
    int node_of[8], rack_of[8], r, i, j, seg, free_recvs, waiting_recvs;
    double buf[64];
    char *after;

    for (r = 0; r < 8; ++r) {
        node_of[r] = r / 2;
        rack_of[r] = node_of[r] / 2;
    }
    for (r = 0; r < 8; ++r) {
        loom_team_t *team;
        /* 1 double per top-level message, 8 per segment: 8 segments. */
        loom_sched_t *sched = plan_hier_rank(8, node_of, rack_of, r, buf, 64, 8, 4, &team);

        after = calloc((size_t)sched->nsteps, 1);
        ck_assert_ptr_nonnull(after);
        free_recvs = waiting_recvs = 0;
        for (i = 0; i < sched->nsteps; ++i) {
            const loom_step_desc_t *d = &sched->steps[i].desc;
            int message = d->type == LOOM_STEP_SEND || d->type == LOOM_STEP_RECV;

            seg = message ? (int)(d->tag_step / 20) : -1;
            /* after[i]: step i waits on a segment-0 message across racks. */
            after[i] = message && seg == 0 && rack_of[d->peer] != rack_of[r];
            for (j = 0; j < d->ndeps; ++j) {
                /* A negative dependency is none (sched.h). */
                after[i] |= d->deps[j] >= 0 && after[d->deps[j]];
            }
            if (message && node_of[d->peer] == node_of[r] && seg >= 1 && seg <= 3) {
                ck_assert_msg(!after[i], "rank %d: step %d of segment %d inside the node "
                              "waits on segment 0 across racks", r, i, seg);
                free_recvs += d->type == LOOM_STEP_RECV;
            }
            if (d->type == LOOM_STEP_RECV && node_of[d->peer] == node_of[r] && seg == 4 &&
                d->tag_step < 4 * 20 + 2) {
                ck_assert_msg(after[i], "rank %d: segment 4 receives into scratch segment 0 "
                              "may still use", r);
                ++waiting_recvs;
            }
        }
        ck_assert_int_gt(free_recvs, 0);
        ck_assert_int_eq(waiting_recvs, 1);
        free(after);
        loom_sched_destroy(sched);
        loom_team_destroy(team);
    }
}
END_TEST

int main(void)
{
    Suite *s = suite_create("verifier_hier");
    TCase *tc = tcase_create("hier");

    mallopt(M_MMAP_THRESHOLD, 1 << 30);
    mallopt(M_TRIM_THRESHOLD, 1 << 30);
    loom_log_set_level(LOOM_LOG_ERROR);
    tcase_set_timeout(tc, 120);
    tcase_add_loop_test(tc, test_rooted, 0, NFIXED + 10);
    tcase_add_loop_test(tc, test_vector, 0, NFIXED + 10);
    tcase_add_test(tc, test_v_specs);
    tcase_add_loop_test(tc, test_hier_topologies, 0, 24);
    tcase_add_loop_test(tc, test_hier_racks, 0, 24);
    tcase_add_test(tc, test_hier_rack_bytes);
    tcase_add_test(tc, test_hier_pipelined);
    suite_add_tcase(s, tc);
    return loom_check_run(s);
}
