/*
 * Ring allreduce: a reduce-scatter ring, then an allgather ring, in place
 * in the receive buffer, pipelined in segments.
 *
 *   reduce-scatter, round k = 0..p-2 (rank r, blocks mod p):
 *     send block r-k to r+1; receive block r-k-1 from r-1 into a scratch
 *     slot and reduce it into the local block.  After p-1 rounds rank r
 *     holds the full sum of block r+1.
 *   allgather, round k = 0..p-2:
 *     send block r+1-k to r+1; receive block r-k from r-1 in place.
 *
 *     r0 --> r1 --> r2 --> ... --> r(p-1) --+
 *      ^-----------------------------------+
 *
 * Pipelining: each block travels in segments of seg_bytes; segment j of
 * round k leaves as soon as segment j of round k-1 is reduced, so the
 * transfer of one segment overlaps the reduction of the previous one.
 * depth scratch slots bound the receives in flight.  (seg_bytes 0: one
 * segment per block; depth 0: 4.)
 *
 * Cost: 2(p-1) alpha + 2(p-1)/p n beta + (p-1)/p n gamma, plus one alpha
 * per extra segment.  Bandwidth optimal (each rank sends and receives
 * 2(p-1)/p n bytes, the lower bound), so it wins for large n; its 2(p-1)
 * latency terms lose to logarithmic algorithms for small n.
 *
 * Blocks are reduced in ring order, not rank order: commutative ops only.
 * Each block's final value is computed on one rank and copied to the
 * others, so all ranks end bitwise identical.
 *
 * Built of two phases (phase.h) over the ranks in the team's rank order
 * (loom_sched_reduce_order; r above is a position in it): the
 * reduce-scatter ring leaves rank r with its block, the allgather ring
 * starts from it; block j of the phases is the buffer's block j+1, so
 * that rank r ends the first phase with block r+1 of the buffer, as
 * above.  Both phases cut their blocks alike (segs.h), over the rounds of
 * both, and the allgather overwrites a block only after the
 * reduce-scatter's send of it has left (the per-segment steps it hands
 * on).
 */
#include "coll/core/allreduce/allreduce.h"
#include "coll/core/parts/partition.h"
#include "coll/core/parts/phase.h"
#include "coll/core/engine/tag.h"

#include <stddef.h>
#include <stdint.h>

#define LOOM_RING_DEFAULT_DEPTH 4

/* Block j of the phases: the buffer's block j+1 (mod p) of the spread
 * cut (partition.h), in the receive buffer and in the input. */
static loom_phase_block_t loom_allreduce_ring_block(const loom_phase_cut_t *cut, int j)
{
    const loom_spread_t *spread = cut->ctx;
    int b = j + 1 == spread->p ? 0 : j + 1;
    size_t first = loom_spread_offset(*spread, b);

    return (loom_phase_block_t){ .at = cut->at + first * cut->esize,
                                 .in = cut->in + first * cut->esize,
                                 .n = loom_spread_offset(*spread, b + 1) - first };
}

loom_status_t loom_allreduce_ring_plan(const loom_coll_args_t *args, loom_team_t *team,
                                       loom_sched_t **sched_p)
{
    int p = team->size, depth = args->depth > 0 ? args->depth : LOOM_RING_DEFAULT_DEPTH;
    loom_spread_t spread = loom_spread(args->count, p);
    char *buf = args->recvbuf, *scratch;
    loom_ring_phase_t ph = {
        .n = p, .me = team->rank,
        .cut = { .block = loom_allreduce_ring_block, .at = buf, .esize = args->elem_size,
                 .in = args->in_place ? buf : (const char *)args->sendbuf, .ctx = &spread },
    };
    loom_slots_t slots = { .depth = depth };
    const loom_order_t *o;
    int *ints, *ranks, i, nlast;
    loom_status_t status;

    if (!args->op.commutative) {
        return LOOM_ERR_UNSUPPORTED;
    }
    status = loom_sched_create(team, args, LOOM_ALLREDUCE_RING, &ph.sched);
    if (status != LOOM_OK) {
        return status;
    }
    o = loom_sched_reduce_order(ph.sched);
    if (p == 1 || args->count == 0) {
        loom_sched_copy_input(ph.sched);
        goto out;
    }

    /* Every (round, segment) needs a tag step of its own: with too many
     * segments, make them larger (segs.h); with too many rounds, decline
     * (the decision depends on p only, so every rank declines). */
    if ((uint64_t)2 * (uint64_t)(p - 1) > LOOM_TAG_MAX_STEPS) {
        loom_sched_destroy(ph.sched);
        return LOOM_ERR_UNSUPPORTED;
    }
    ph.segs = loom_segs_make(args->seg_bytes, args->elem_size, loom_spread_max(spread),
                             2 * (uint64_t)(p - 1));
    slots.bytes = ph.segs.seg * args->elem_size;
    /* Bookkeeping: the ranks in ring order, per block and segment the
     * last step on it, per scratch slot its last reader. */
    nlast = p * ph.segs.nseg_max;
    status = loom_sched_alloc_ints(ph.sched, p + nlast + depth, &ints);
    if (status != LOOM_OK) {
        goto out;
    }
    ranks = ints;
    ph.last = ranks + p;
    slots.reader = ph.last + nlast;
    for (i = 0; i < p; ++i) {
        ranks[i] = loom_order_at(o, i);
    }
    ph.me = loom_order_pos(o, team->rank);
    for (i = 0; i < nlast; ++i) {
        ph.last[i] = -1;
    }
    for (i = 0; i < depth; ++i) {
        slots.reader[i] = -1;
    }
    status = loom_sched_alloc_scratch(ph.sched, (size_t)depth * slots.bytes,
                                      (void **)&scratch);
    if (status != LOOM_OK) {
        goto out;
    }
    slots.base = scratch;
    ph.ranks = ranks;
    ph.slots = &slots;

    /* Out of place, the input is never copied whole: the reduce-scatter
     * sends the first block straight from the send buffer (the allgather
     * overwrites it later), and adds each other block in one segment at a
     * time.  The allgather starts from the reduced block in place. */
    loom_phase_rs_ring(&ph);
    ph.cut.in = buf;
    ph.tag_base = (uint32_t)loom_ring_phase_tags(p, &ph.segs);
    loom_phase_ag_ring(&ph);

out:
    return loom_sched_plan_done(ph.sched, sched_p);
}
