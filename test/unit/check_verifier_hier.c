/*
 * The verifier (verifier.h) on the hierarchical bcast, reduce,
 * allgather(v) and reduce_scatter(_block) over the layouts a cluster can
 * have: racks of nodes of ranks, placed in blocks or round-robin, uneven
 * nodes, nodes of one rank, racks of one node, one node, one rack, 128
 * ranks in 4 racks, and random placements up to 40 ranks.  Every root on small teams, counts
 * 0, 1, fewer than ranks, odd and larger, in place or not, segment sizes
 * and slot depths for the pipelined ones, both step orders; the non-commutative op must
 * be refused by the reducing ones (the selection hands it elsewhere).
 */
#include "verifier.h"
#include "common/log.h"

#include <check.h>
#include "check_main.h"
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
    const loom_bcast_algorithm_t *b = &loom_bcast_algorithms[LOOM_BCAST_HIER];
    const loom_reduce_algorithm_t *rd = &loom_reduce_algorithms[LOOM_REDUCE_HIER];
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
    const loom_allgather_algorithm_t *ag = &loom_allgather_algorithms[LOOM_ALLGATHER_HIER];
    const loom_reduce_scatter_algorithm_t *rs =
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
    suite_add_tcase(s, tc);
    return loom_check_run(s);
}
