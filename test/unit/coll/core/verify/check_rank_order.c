/*
 * The rank order is honoured (engine/team.h): under an order pi (the rank
 * at each position), the rank at position j plans the schedule that rank
 * j plans without an order, with every peer q replaced by pi[q] (and a
 * root R by pi[R]): step for step the same types, sizes, tags,
 * dependencies and memory.  An algorithm that ignored the order would
 * plan rank pi[j]'s own schedule instead, whose peers differ.  Where the
 * order must not change a bit (a non-commutative op, the reproducible
 * mode) every rank plans exactly the schedule it plans without an order.
 * Where blocks belong to ranks (allgather, reduce_scatter), a step on
 * rank q's block without the order is, under it, the same step on rank
 * pi[q]'s block: the offsets of the buffers that hold one block per rank
 * are mapped too.  Where the order regroups local copies (Bruck's final
 * pass, the halving's staging copy: blocks that lie back to back by
 * position need not by rank) the messages are compared, in order.
 * The verifier's sweeps (check_verifier*.c) check the results under
 * random orders; this checks that the order is followed at all.
 */
#include "coll/core/allgather/allgather.h"
#include "coll/core/allreduce/allreduce.h"
#include "coll/core/bcast/bcast.h"
#include "coll/core/reduce/reduce.h"
#include "coll/core/reduce_scatter/reduce_scatter.h"

#include <check.h>
#include "test/unit/support/check_main.h"
#include <stdint.h>
#include <stdlib.h>
#include <string.h>

#define COUNT 1000
#define BLOCK 150       /* elements of a rank's block: 3 segments of 256 bytes */
#define ESIZE 4
#define MAX_P 16

static char sendbuf[MAX_P * COUNT * ESIZE], recvbuf[MAX_P * COUNT * ESIZE];

/* Which buffers hold one block per rank, BLOCK elements each, packed (the
 * call's count is then BLOCK, a rank's); and whether only the messages
 * are compared. */
enum {
    BLK_SEND = 1,       /* the send buffer */
    BLK_RECV = 2,       /* the receive buffer */
    BLK_SCRATCH = 4,    /* the schedule's scratch, from its start */
    MSGS_ONLY = 8,
};

static void no_reduce(const void *src, void *dst, size_t count, void *ctx)
{
    (void)src, (void)dst, (void)count, (void)ctx;
}

typedef struct order_alg {
    const char      *name;
    loom_plan_fn_t  plan;
    int             rooted;
    int             commutative;    /* the op the call passes */
    int             reproducible;
    int             follows;        /* 1: places ranks by the order; 0: ignores it */
    int             blocks;         /* BLK_* and MSGS_ONLY; 0: no per-rank blocks */
} order_alg_t;

static const order_alg_t algs[] = {
    { "bcast binomial", loom_bcast_binomial_plan, 1, 1, 0, 1, 0 },
    { "bcast chain", loom_bcast_chain_plan, 1, 1, 0, 1, 0 },
    { "bcast hierarchical", loom_bcast_hier_plan, 1, 1, 0, 1, 0 },
    /* Nothing is reduced: the op does not matter. */
    { "bcast chain, non-commutative op", loom_bcast_chain_plan, 1, 0, 0, 1, 0 },
    { "reduce binomial", loom_reduce_binomial_plan, 1, 1, 0, 1, 0 },
    { "reduce chain", loom_reduce_chain_plan, 1, 1, 0, 1, 0 },
    { "reduce hierarchical", loom_reduce_hier_plan, 1, 1, 0, 1, 0 },
    { "reduce binomial, non-commutative", loom_reduce_binomial_plan, 1, 0, 0, 0, 0 },
    { "reduce chain, non-commutative", loom_reduce_chain_plan, 1, 0, 0, 0, 0 },
    { "reduce chain, reproducible", loom_reduce_chain_plan, 1, 1, 1, 0, 0 },
    { "reduce reproducible", loom_reduce_canonical_plan, 1, 1, 1, 0, 0 },
    { "allreduce recursive doubling", loom_allreduce_rd_plan, 0, 1, 0, 1, 0 },
    { "allreduce double binary tree", loom_allreduce_dbtree_plan, 0, 1, 0, 1, 0 },
    { "allreduce recursive doubling, non-commutative", loom_allreduce_rd_plan, 0, 0, 0, 0, 0 },
    { "allreduce recursive doubling, reproducible", loom_allreduce_rd_plan, 0, 1, 1, 0, 0 },
    { "allreduce reproducible", loom_allreduce_canonical_plan, 0, 1, 1, 0, 0 },
    { "bcast scatter + allgather", loom_bcast_scatter_allgather_plan, 1, 1, 0, 1, 0 },
    { "allgather ring", loom_allgather_ring_plan, 0, 1, 0, 1, BLK_RECV },
    { "allgather Bruck", loom_allgather_bruck_plan, 0, 1, 0, 1, BLK_RECV | MSGS_ONLY },
    { "allgather hierarchical", loom_allgather_hier_plan, 0, 1, 0, 1, BLK_RECV },
    /* Nothing is reduced: the op does not matter. */
    { "allgather ring, non-commutative op", loom_allgather_ring_plan, 0, 0, 0, 1, BLK_RECV },
    { "reduce_scatter ring", loom_reduce_scatter_ring_plan, 0, 1, 0, 1,
      BLK_SEND | BLK_SCRATCH },
    { "reduce_scatter recursive halving", loom_reduce_scatter_halving_plan, 0, 1, 0, 1,
      BLK_SEND | MSGS_ONLY },
    { "reduce_scatter hierarchical", loom_reduce_scatter_hier_plan, 0, 1, 0, 1, BLK_SEND },
    { "reduce_scatter ring, reproducible", loom_reduce_scatter_ring_plan, 0, 1, 1, 0,
      BLK_SEND | BLK_SCRATCH },
    { "reduce_scatter recursive halving, non-commutative", loom_reduce_scatter_halving_plan,
      0, 0, 0, 0, BLK_SEND | MSGS_ONLY },
    { "reduce_scatter recursive halving, reproducible", loom_reduce_scatter_halving_plan,
      0, 1, 1, 0, BLK_SEND | MSGS_ONLY },
    { "reduce_scatter hierarchical, reproducible", loom_reduce_scatter_hier_plan, 0, 1, 1, 0,
      BLK_SEND },
    { "reduce scatter-gather", loom_reduce_scatter_gather_plan, 1, 1, 0, 1, 0 },
    { "reduce scatter-gather, non-commutative", loom_reduce_scatter_gather_plan, 1, 0, 0, 0,
      0 },
    { "allreduce ring", loom_allreduce_ring_plan, 0, 1, 0, 1, 0 },
    { "allreduce Rabenseifner", loom_allreduce_rabenseifner_plan, 0, 1, 0, 1, 0 },
    { "allreduce hierarchical", loom_allreduce_hier_plan, 0, 1, 0, 1, 0 },
    { "allreduce Rabenseifner, non-commutative", loom_allreduce_rabenseifner_plan, 0, 0, 0, 0,
      0 },
};
#define NALGS ((int)(sizeof(algs) / sizeof(algs[0])))

/* Where a step's memory is: the call's buffers by address, the
 * schedule's scratch by offset (two schedules have their own). */
static uintptr_t where(const loom_sched_t *s, const void *ptr)
{
    const char *p = ptr, *scratch = s->scratch;

    if (scratch != NULL && p >= scratch && p < scratch + s->scratch_bytes) {
        return (uintptr_t)(p - scratch) | ((uintptr_t)1 << 62);
    }
    return (uintptr_t)p;
}

/* Where a step of a, planned without the order, is under it: inside one
 * block of a buffer that holds one block per rank (blocks), in rank
 * map[q]'s block where it was in rank q's. */
static uintptr_t where_mapped(const loom_sched_t *a, const void *ptr, size_t bytes,
                              const int *map, int blocks)
{
    const char *bases[3] = { blocks & BLK_SEND ? sendbuf : NULL,
                             blocks & BLK_RECV ? recvbuf : NULL,
                             blocks & BLK_SCRATCH ? (const char *)a->scratch : NULL };
    const size_t block = BLOCK * ESIZE;
    const char *p = ptr;
    size_t off;
    int k, q;

    for (k = 0; k < 3 && p != NULL; ++k) {
        if (bases[k] == NULL || p < bases[k] ||
            p >= bases[k] + (size_t)a->team->size * block) {
            continue;
        }
        off = (size_t)(p - bases[k]);
        q = (int)(off / block);
        if (off % block + bytes <= block) {
            p = bases[k] + (size_t)map[q] * block + off % block;
        }
        break;
    }
    return where(a, p);
}

static int is_msg(const loom_step_desc_t *x)
{
    return x->type == LOOM_STEP_SEND || x->type == LOOM_STEP_RECV;
}

/* The next step from *i on, a message only when msgs_only; NULL: none. */
static const loom_step_desc_t *next_step(const loom_sched_t *s, int *i, int msgs_only)
{
    while (*i < s->nsteps && msgs_only && !is_msg(&s->steps[*i].desc)) {
        ++*i;
    }
    return *i < s->nsteps ? &s->steps[(*i)++].desc : NULL;
}

/* b is a with every peer q replaced by map[q], and every step on rank q's
 * block on rank map[q]'s (blocks); with MSGS_ONLY the messages only, in
 * order, their dependencies aside. */
static void check_mapped(const loom_sched_t *a, const loom_sched_t *b, const int *map,
                         int blocks, const char *what)
{
    const loom_step_desc_t *x, *y;
    int i = 0, j = 0, k, n = 0, only = (blocks & MSGS_ONLY) != 0;

    ck_assert_msg(only || a->nsteps == b->nsteps, "%s: %d steps under the order, %d without",
                  what, b->nsteps, a->nsteps);
    for (;;) {
        x = next_step(a, &i, only);
        y = next_step(b, &j, only);
        if (x == NULL || y == NULL) {
            ck_assert_msg(x == NULL && y == NULL, "%s: %s messages under the order", what,
                          x == NULL ? "more" : "fewer");
            break;
        }
        ck_assert_msg(x->type == y->type && x->tag_step == y->tag_step &&
                      x->bytes == y->bytes && (only || x->ndeps == y->ndeps) &&
                      where_mapped(a, x->src, x->bytes, map, blocks) == where(b, y->src) &&
                      where_mapped(a, x->dst, x->bytes, map, blocks) == where(b, y->dst),
                      "%s: step %d differs beyond its peer", what, n);
        ck_assert_msg(!is_msg(x) || y->peer == map[x->peer],
                      "%s: step %d's peer is %d, where the order places %d (rank %d "
                      "without an order)", what, n, y->peer, map[x->peer], x->peer);
        for (k = 0; !only && k < x->ndeps; ++k) {
            ck_assert_int_eq(x->deps[k], y->deps[k]);
        }
        ++n;
    }
}

static loom_team_t *make_team(int p, const uint64_t *keys, const uint64_t *rack_keys,
                              const int *order)
{
    int peers[MAX_P], r;
    loom_team_t *team;

    for (r = 0; r < p; ++r) {
        peers[r] = r;
    }
    ck_assert_int_eq(loom_team_create(&(loom_team_params_t){ .size = p, .rank = 0,
                                                             .peers = peers,
                                                             .node_keys = keys,
                                                             .rack_keys = rack_keys,
                                                             .context_id = 5 }, &team),
                     LOOM_OK);
    if (order != NULL) {
        ck_assert_int_eq(loom_team_set_order(team, order, p, team->next_seq), LOOM_OK);
    }
    return team;
}

/* Every rank of alg on p ranks (node keys keys, NULL: a node each; rack
 * keys rack_keys, NULL: one rack) under order pi, against the same without
 * an order, from root R. */
static void check_alg_racks(const order_alg_t *alg, int p, const uint64_t *keys,
                            const uint64_t *rack_keys, const int *pi, int R)
{
    loom_team_t *plain = make_team(p, keys, rack_keys, NULL);
    loom_team_t *ordered = make_team(p, keys, rack_keys, pi);
    loom_coll_args_t args = {
        .sendbuf = sendbuf, .recvbuf = recvbuf, .elem_size = ESIZE,
        .count = alg->blocks != 0 ? BLOCK : COUNT,
        .op = { .fn = no_reduce, .commutative = alg->commutative },
        .reproducible = alg->reproducible, .seg_bytes = 256, .depth = 2,
    };
    int ident[MAX_P], j, r;
    const int *map = alg->follows ? pi : ident;
    loom_sched_t *a, *b;
    loom_status_t sa, sb;
    char what[160];

    for (j = 0; j < p; ++j) {
        ident[j] = j;
    }
    for (j = 0; j < p; ++j) {
        /* Rank j without an order; rank map[j], at position j, under it. */
        r = map[j];
        plain->rank = j;
        ordered->rank = r;
        args.root = R;
        sa = alg->plan(&args, plain, &a);
        args.root = alg->rooted ? map[R] : 0;
        sb = alg->plan(&args, ordered, &b);
        snprintf(what, sizeof(what), "%s p=%d root %d, rank %d at position %d", alg->name,
                 p, args.root, r, j);
        ck_assert_msg(sa == sb, "%s: planned %d without the order, %d with it", what, sa, sb);
        if (sa != LOOM_OK) {
            continue;
        }
        check_mapped(a, b, map, alg->blocks, what);
        loom_sched_destroy(a);
        loom_sched_destroy(b);
    }
    plain->rank = ordered->rank = 0;
    loom_team_destroy(plain);
    loom_team_destroy(ordered);
}

static void check_alg(const order_alg_t *alg, int p, const uint64_t *keys, const int *pi,
                      int R)
{
    check_alg_racks(alg, p, keys, NULL, pi, R);
}

static uint64_t next_rand(uint64_t *s)
{
    *s = *s * UINT64_C(6364136223846793005) + UINT64_C(1442695040888963407);
    return *s >> 33;
}

/* A random permutation of [lo, hi) into pi[lo..hi). */
static void shuffle(int *pi, int lo, int hi, uint64_t *s)
{
    int i, j, t;

    for (i = lo; i < hi; ++i) {
        pi[i] = i;
    }
    for (i = hi - 1; i > lo; --i) {
        j = lo + (int)(next_rand(s) % (uint64_t)(i - lo + 1));
        t = pi[i];
        pi[i] = pi[j];
        pi[j] = t;
    }
}

static const int sizes[] = { 2, 3, 4, 5, 7, 8, 12, 13 };
#define NSIZES ((int)(sizeof(sizes) / sizeof(sizes[0])))

/* A node per rank, random and reversed orders, three roots. */
START_TEST(test_order_followed)
{
    const order_alg_t *alg = &algs[_i];
    uint64_t seed = 77 + (uint64_t)_i;
    int pi[MAX_P], n, p, k, R;

    for (n = 0; n < NSIZES; ++n) {
        p = sizes[n];
        for (k = 0; k < 3; ++k) {
            if (k == 0) {
                for (R = 0; R < p; ++R) {
                    pi[R] = p - 1 - R;
                }
            } else {
                shuffle(pi, 0, p, &seed);
            }
            for (R = 0; R < p; R += (p > 3 ? p / 2 : 1)) {
                check_alg(alg, p, NULL, pi, alg->rooted ? R : 0);
            }
        }
    }
}
END_TEST

/* Nodes: all ranks on one node, any order; nodes of three consecutive
 * ranks, orders that move ranks inside their nodes.  The hierarchical
 * chains then follow the order inside every node. */
START_TEST(test_order_followed_nodes)
{
    const order_alg_t *alg = &algs[_i];
    uint64_t seed = 991 + (uint64_t)_i, keys[MAX_P];
    int pi[MAX_P], n, p, r, b;

    for (n = 0; n < NSIZES; ++n) {
        p = sizes[n];
        for (r = 0; r < p; ++r) {
            keys[r] = 42;
        }
        shuffle(pi, 0, p, &seed);
        check_alg(alg, p, keys, pi, alg->rooted ? p - 1 : 0);
        for (r = 0; r < p; ++r) {
            keys[r] = (uint64_t)(r / 3) + 100;
        }
        for (b = 0; b < p; b += 3) {
            shuffle(pi, b, b + 3 < p ? b + 3 : p, &seed);
        }
        check_alg(alg, p, keys, pi, alg->rooted ? 1 % p : 0);
    }
}
END_TEST

/* Racks of the same shape, nodes of consecutive ranks: rack y holds ranks
 * y B .. y B + B - 1, its nodes hold node[0], node[1], ... of them.
 * Orders that move whole racks (rack y's ranks to the positions of rack
 * sigma^-1(y)) and ranks inside their nodes keep that shape at the
 * positions, so the rank at position j must plan rank j's schedule: the
 * chains across racks, the racks a block crosses and the ring across
 * racks then follow the order. */
typedef struct rack_case {
    int     racks;
    int     nodes;          /* per rack */
    int     node[3];        /* ranks of each node of a rack */
    int     sigma[3];       /* the rack at each rack position; sigma[0] < 0: reverse */
} rack_case_t;

static const rack_case_t rack_cases[] = {
    { 2, 2, { 2, 2 }, { -1 } },                 /* 8 ranks, reversed */
    { 2, 2, { 1, 3 }, { 1, 0 } },               /* 8 ranks, racks swapped */
    { 3, 2, { 2, 2 }, { -1 } },                 /* 12 ranks, reversed */
    { 3, 2, { 2, 1 }, { 2, 0, 1 } },            /* 9 ranks, racks rotated */
    { 3, 3, { 1, 2, 1 }, { 1, 2, 0 } },         /* 12 ranks, racks rotated */
    { 3, 1, { 3 }, { 2, 1, 0 } },               /* 9 ranks, a node per rack */
};
#define NRACK_CASES ((int)(sizeof(rack_cases) / sizeof(rack_cases[0])))

START_TEST(test_order_followed_racks)
{
    const order_alg_t *alg = &algs[_i];
    uint64_t seed = 4242 + (uint64_t)_i, keys[MAX_P], rack_keys[MAX_P];
    int pi[MAX_P], n, p, B, y, x, r, i, first, R;

    if (strstr(alg->name, "hierarchical") == NULL) {
        return; /* racks matter to the hierarchical algorithms only */
    }
    for (n = 0; n < NRACK_CASES; ++n) {
        const rack_case_t *c = &rack_cases[n];

        for (B = 0, x = 0; x < c->nodes; ++x) {
            B += c->node[x];
        }
        p = c->racks * B;
        for (y = 0; y < c->racks; ++y) {
            for (x = 0, first = y * B; x < c->nodes; first += c->node[x++]) {
                for (r = first; r < first + c->node[x]; ++r) {
                    keys[r] = (uint64_t)(y * c->nodes + x) + 100;
                    rack_keys[r] = (uint64_t)y + 7;
                }
            }
        }
        if (c->sigma[0] < 0) {
            for (i = 0; i < p; ++i) {
                pi[i] = p - 1 - i;
            }
        } else {
            /* The positions of rack position i / B take the ranks of rack
             * sigma[i / B], node by node, shuffled inside each node. */
            for (i = 0; i < p; i += B) {
                for (x = 0, first = i; x < c->nodes; first += c->node[x++]) {
                    shuffle(pi, first, first + c->node[x], &seed);
                    for (r = first; r < first + c->node[x]; ++r) {
                        pi[r] += (c->sigma[i / B] - i / B) * B;
                    }
                }
            }
        }
        for (R = 0; R < p; R += (alg->rooted ? p / 3 + 1 : p)) {
            check_alg_racks(alg, p, keys, rack_keys, pi, R);
        }
    }
}
END_TEST

/* The check itself sees an order ignored: the binomial bcast planned
 * without the order stands in for the ordered one. */
START_TEST(test_ignoring_is_caught)
{
    const int pi[4] = { 2, 0, 3, 1 };
    loom_team_t *plain = make_team(4, NULL, NULL, NULL);
    loom_coll_args_t args = { .sendbuf = sendbuf, .recvbuf = recvbuf, .count = COUNT,
                              .elem_size = ESIZE, .root = 2 };
    loom_sched_t *a, *b;
    int j, differ = 0;

    for (j = 0; j < 4; ++j) {
        plain->rank = j;
        args.root = 0;
        ck_assert_int_eq(loom_bcast_binomial_plan(&args, plain, &a), LOOM_OK);
        plain->rank = pi[j];
        args.root = pi[0];
        ck_assert_int_eq(loom_bcast_binomial_plan(&args, plain, &b), LOOM_OK);
        differ += a->nsteps != b->nsteps ||
                  (a->nsteps > 0 && pi[a->steps[0].desc.peer] != b->steps[0].desc.peer);
        loom_sched_destroy(a);
        loom_sched_destroy(b);
    }
    ck_assert_int_gt(differ, 0);
    plain->rank = 0;
    loom_team_destroy(plain);
}
END_TEST

static Suite *rank_order_suite(void)
{
    Suite *s = suite_create("rank_order");
    TCase *tc = tcase_create("followed");

    tcase_set_timeout(tc, 120);
    tcase_add_loop_test(tc, test_order_followed, 0, NALGS);
    tcase_add_loop_test(tc, test_order_followed_nodes, 0, NALGS);
    tcase_add_loop_test(tc, test_order_followed_racks, 0, NALGS);
    tcase_add_test(tc, test_ignoring_is_caught);
    suite_add_tcase(s, tc);
    return s;
}

int main(void)
{
    return loom_check_run(rank_order_suite());
}
