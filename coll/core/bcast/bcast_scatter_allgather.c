/*
 * Scatter + ring allgather bcast (van de Geijn): the message is cut into
 * p blocks, block u meant for virtual rank u (root = 0).  A binomial
 * scatter gives each rank the blocks of its subtree, then a ring
 * allgather passes every block around.
 *
 *   scatter (p = 8): 0 sends blocks [4,8) to 4, [2,4) to 2, [1,2) to 1;
 *                    4 sends [6,8) to 6, [5,6) to 5; 2 sends [3,4) to 3;
 *                    6 sends [7,8) to 7.
 *   ring, round k = 0..p-2: v sends block v-k to v+1 and receives block
 *                    v-k-1 from v-1 (mod p).
 *
 * A rank never receives a block it already holds from the scatter (the
 * last rounds of a subtree's head): both ends of that message know it
 * and skip it, and the holder forwards the block from what the scatter
 * gave it.  So no block is ever written twice, and the root's blocks are
 * never written at all.
 *
 * Cost: (ceil(log2 p) + p - 1) alpha + 2 (p-1)/p n beta.  About twice
 * n beta, independent of p: it wins for large n at larger p, where the
 * binomial tree's log2(p) n beta and the chain's p alphas both grow.
 *
 * The ring is the allgather ring phase (phase.h) over the virtual ranks,
 * its block u the message's block u, told which blocks the scatter gave
 * each rank.  Virtual ranks count positions of the team's rank order
 * from the root's (loom_order_vrank): the tree and the ring place ranks
 * by position, and the message's blocks follow the virtual ranks.
 */
#include "coll/core/bcast/bcast.h"
#include "coll/core/parts/partition.h"
#include "coll/core/parts/phase.h"
#include "coll/core/engine/tag.h"

/* Whether virtual rank v holds block b after the scatter. */
static int loom_bsag_holds(const loom_ring_phase_t *ph, int v, int b)
{
    return b >= v && b < loom_binomial_end(v, ph->n);
}

/* Block b of the cut (partition.h), in place in the receive buffer. */
static loom_phase_block_t loom_bsag_block(const loom_phase_cut_t *cut, int b)
{
    const loom_cut_t *c = cut->ctx;
    size_t bytes;
    char *at = loom_cut_range(c, b, b + 1, &bytes);

    return (loom_phase_block_t){ .at = at, .in = at, .n = bytes / c->esize };
}

loom_status_t loom_bcast_scatter_allgather_plan(const loom_coll_args_t *args,
                                                loom_team_t *team, loom_sched_t **sched_p)
{
    loom_cut_t c = { .buf = args->recvbuf, .count = args->count,
                     .esize = args->elem_size, .p = team->size };
    int p = team->size, v, m, b, u, scatter = -1;
    const loom_order_t *o;
    loom_ring_phase_t ph = {
        .n = p, .tag_base = 1, .held = loom_bsag_holds,
        .cut = { .block = loom_bsag_block, .esize = args->elem_size, .ctx = &c },
    };
    int *ranks;
    loom_status_t status;
    size_t bytes;
    char *at;

    if (args->root < 0 || args->root >= p) {
        return LOOM_ERR_INVALID_PARAM;
    }
    /* One tag step for the scatter and one per ring round. */
    if ((uint64_t)p > LOOM_TAG_MAX_STEPS) {
        return LOOM_ERR_UNSUPPORTED;
    }
    status = loom_sched_create(team, args, LOOM_BCAST_SCATTER_ALLGATHER, &ph.sched);
    if (status != LOOM_OK) {
        return status;
    }
    if (p == 1 || args->count == 0) {
        goto out;
    }
    o = loom_sched_order(ph.sched);
    v = loom_order_vrank(o, team->rank, args->root, p);
    ph.me = v;
    /* The ranks in ring order (virtual ranks), and per block the step
     * after which it is here (-1: from the start, or not yet: only blocks
     * held are ever sent). */
    status = loom_sched_alloc_ints(ph.sched, 2 * p, &ranks);
    if (status != LOOM_OK) {
        goto out;
    }
    ph.last = ranks + p;
    for (u = 0; u < p; ++u) {
        ranks[u] = loom_order_vrank_real(o, u, args->root, p);
    }
    ph.ranks = ranks;

    /* Scatter: the subtree's blocks from the parent, in one message. */
    if (v > 0) {
        at = loom_cut_range(&c, v, loom_binomial_end(v, p), &bytes);
        scatter = loom_sched_recv(ph.sched, ranks[loom_binomial_parent(v)], 0, at, bytes,
                                  LOOM_NO_DEPS);
    }
    for (b = 0; b < p; ++b) {
        ph.last[b] = loom_bsag_holds(&ph, v, b) ? scatter : -1;
    }
    for (m = loom_binomial_top(v, p); m > 0; m /= 2) {
        if (v + m < p) {
            at = loom_cut_range(&c, v + m, loom_binomial_end(v + m, p), &bytes);
            loom_sched_send(ph.sched, ranks[v + m], 0, at, bytes, LOOM_DEPS(scatter));
        }
    }

    /* Ring allgather over virtual ranks, one segment a block. */
    ph.segs = loom_segs_make(0, args->elem_size, loom_block_count(args->count, p, 0),
                             (uint64_t)(p - 1));
    loom_phase_ag_ring(&ph);
out:
    return loom_sched_plan_done(ph.sched, sched_p);
}
