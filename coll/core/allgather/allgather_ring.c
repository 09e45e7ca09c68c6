/*
 * Ring allgather(v): every block travels once around the ring, straight
 * into its place in each rank's receive buffer.
 *
 *   round k = 0..p-2 (rank r, blocks mod p):
 *     send block r-k to r+1; receive block r-k-1 from r-1.
 *
 *     r0 --> r1 --> r2 --> ... --> r(p-1) --+
 *      ^-----------------------------------+
 *
 *   p = 4, what rank 0 holds after each round:  {0} {0,3} {0,3,2} {0,3,2,1}
 *
 * Round 0 sends the rank's own block from where it is (the send buffer, or
 * the receive buffer in place); later rounds forward the block received
 * the round before, from the receive buffer.  Nothing is staged: no
 * scratch memory, no copy but the own block's (out of place).
 *
 * Segmenting (seg_bytes > 0) cuts each block into segments that are
 * forwarded as soon as they arrive: segment j of round k leaves once
 * segment j of round k-1 is in.  It adds (p-1)(s-1) alphas for s segments
 * per block and costs no bandwidth; it pays when a transport copies large
 * messages in stages (rendezvous) and forwarding early hides that.  All
 * receives go to distinct places, so they are posted at once; depth is not
 * used.
 *
 * Cost: (p-1) alpha + (p-1)/p n beta for n bytes gathered.  Bandwidth
 * optimal (each rank receives what it lacks, once), no copies: it wins for
 * large n; its p-1 latency terms lose to Bruck's ceil(log2 p) for small n.
 * For allgatherv each round lasts as long as its largest block, so very
 * uneven counts favour Bruck, which moves whole runs of blocks.
 *
 * The ring is the allgather ring phase (phase.h) over the ranks in the
 * team's rank order (loom_sched_order): position i's neighbours are the
 * ranks at positions i-1 and i+1, and the phase's block j is the block of
 * the rank at position j, where that rank's block lies in the buffer.
 */
#include "coll/core/allgather/allgather.h"
#include "coll/core/parts/blocks.h"
#include "coll/core/parts/partition.h"
#include "coll/core/parts/phase.h"
#include "coll/core/engine/tag.h"

typedef struct loom_agring {
    loom_blocks_t       blocks;
    int                 r;
    const int           *ranks;     /* the rank at each position */
} loom_agring_t;

/* Block j, the block of the rank at position j: in place in the receive
 * buffer; rank r's own from where the caller has it (the send buffer, out
 * of place). */
static loom_phase_block_t loom_agring_block(const loom_phase_cut_t *cut, int j)
{
    const loom_agring_t *c = cut->ctx;
    int q = c->ranks[j];
    char *at = cut->at + loom_blocks_offset(&c->blocks, q) * cut->esize;

    return (loom_phase_block_t){ .at = at, .in = q == c->r ? cut->in : at,
                                 .n = loom_blocks_count(&c->blocks, q) };
}

loom_status_t loom_allgather_ring_plan(const loom_coll_args_t *args, loom_team_t *team,
                                       loom_sched_t **sched_p)
{
    loom_agring_t c = { .r = team->rank };
    int p = team->size, r = team->rank, *ints, *ranks, i, nlast;
    size_t esize = args->elem_size;
    const loom_order_t *o;
    loom_ring_phase_t ph = {
        .n = p,
        .cut = { .block = loom_agring_block, .at = args->recvbuf, .esize = esize,
                 .ctx = &c },
    };
    loom_status_t status;

    status = loom_blocks_init(&c.blocks, p, args->count, args->counts, args->displs);
    if (status != LOOM_OK) {
        return status;
    }
    /* Tags: one step per (round, segment); decline when the rounds alone
     * do not fit (depends on p only: every rank declines). */
    if ((uint64_t)(p - 1) > LOOM_TAG_MAX_STEPS) {
        loom_blocks_fini(&c.blocks);
        return LOOM_ERR_UNSUPPORTED;
    }
    status = loom_sched_create(team, args, LOOM_ALLGATHER_RING, &ph.sched);
    if (status != LOOM_OK) {
        loom_blocks_fini(&c.blocks);
        return status;
    }
    ph.cut.in = args->in_place ? ph.cut.at + loom_blocks_offset(&c.blocks, r) * esize
                               : (const char *)args->sendbuf;
    if (!args->in_place) {
        loom_sched_copy(ph.sched, ph.cut.in,
                        ph.cut.at + loom_blocks_offset(&c.blocks, r) * esize,
                        loom_blocks_count(&c.blocks, r) * esize, LOOM_NO_DEPS);
    }
    if (p == 1 || c.blocks.max == 0) {
        goto out;
    }

    ph.segs = loom_segs_make(args->seg_bytes, esize, c.blocks.max, (uint64_t)(p - 1));
    /* The ranks in ring order; per block and segment the last step on it
     * (the receive a later round forwards). */
    nlast = p * ph.segs.nseg_max;
    status = loom_sched_alloc_ints(ph.sched, p + nlast, &ints);
    if (status != LOOM_OK) {
        goto out;
    }
    ranks = ints;
    ph.last = ranks + p;
    o = loom_sched_order(ph.sched);
    for (i = 0; i < p; ++i) {
        ranks[i] = loom_order_at(o, i);
    }
    for (i = 0; i < nlast; ++i) {
        ph.last[i] = -1;
    }
    ph.ranks = ranks;
    ph.me = loom_order_pos(o, r);
    c.ranks = ranks;
    /* Round 0 sends the own block from where it is, not waiting for its
     * copy into place. */
    loom_phase_ag_ring(&ph);

out:
    loom_blocks_fini(&c.blocks);
    return loom_sched_plan_done(ph.sched, sched_p);
}
