/*
 * Ring reduce_scatter(_block), pipelined in segments.
 *
 *   round k = 0..p-2 (rank r, blocks mod p):
 *     send block r-k-1 to r+1 (round 0: the own input; later: the partial
 *     sum reduced the round before); receive block r-k-2 from r-1 into a
 *     scratch slot and reduce the own input of that block into it.
 *   After p-1 rounds the last block received, r-p = r, holds the sum of
 *   all p inputs: rank r's result.
 *
 *     r0 --> r1 --> r2 --> ... --> r(p-1) --+
 *      ^-----------------------------------+
 *
 *   block b starts at rank b+1 and gathers b+2, ..., p-1, 0, ..., b.
 *
 * Pipelining: each block travels in segments of seg_bytes; segment j of
 * round k leaves as soon as segment j of round k-1 is reduced, so the
 * transfer of one segment overlaps the reduction of the previous one.
 * depth scratch slots bound the receives in flight (seg_bytes 0: one
 * segment per block; depth 0: 4).  A slot is free again once its reduce
 * is done: the partial sums go to a working copy of the input in scratch,
 * so no slot waits on a send and the ring cannot deadlock on rendezvous
 * sends.
 *
 * Cost: (p-1) alpha + (p-1)/p n beta + (p-1)/p n gamma for n bytes of
 * input, plus one alpha per extra segment; with segments, transfer and
 * reduction overlap: about (p-1)/p n max(beta, gamma).  Bandwidth optimal,
 * so it wins for large n; its p-1 latency terms lose to recursive
 * halving's log2(p) for small n.
 *
 * Block b is reduced in ring order (b+1, ..., p-1, 0, ..., b), not rank
 * order: commutative ops only (recursive halving takes the others).  Each
 * block is reduced by one expression on one path, so the result is the
 * same bits run to run.
 *
 * In place, the partial sums stay in scratch too, and so does the result
 * until every step that reads the input is done; then it is copied to the
 * start of the receive buffer.  The rest of that buffer keeps the input,
 * as MPI's other implementations leave it: programs read it after the
 * call, and a partial sum written there would be a wrong answer.
 *
 * The ring is the reduce-scatter ring phase (phase.h) over the ranks in
 * the team's rank order (loom_sched_reduce_order: the identity for the
 * reproducible mode), its block j the input's block of the rank at
 * position j; what is left here is where the blocks are worked on.
 */
#include "coll/core/reduce_scatter/reduce_scatter.h"
#include "coll/core/parts/blocks.h"
#include "coll/core/parts/partition.h"
#include "coll/core/parts/phase.h"
#include "coll/core/engine/sched_join.h"
#include "coll/core/engine/tag.h"

#define LOOM_RSRING_DEFAULT_DEPTH 4
#define LOOM_RSRING_ALIGN         64

typedef struct loom_rsring {
    loom_blocks_t   blocks;
    char            *buf;       /* the receive buffer: rank r's result, out of place */
    int             r;
    int             in_place;
    const int       *ranks;     /* the rank at each position */
} loom_rsring_t;

static size_t loom_rsring_align(size_t bytes)
{
    return (bytes + LOOM_RSRING_ALIGN - 1) / LOOM_RSRING_ALIGN * LOOM_RSRING_ALIGN;
}

/* Block j, the block of the rank q at position j: the partial sums in the
 * working copy (at), the input's block (in), both packed by rank; rank
 * r's own block out of place straight into its result. */
static loom_phase_block_t loom_rsring_block(const loom_phase_cut_t *cut, int j)
{
    const loom_rsring_t *c = cut->ctx;
    int q = c->ranks[j];
    size_t off = loom_blocks_packed(&c->blocks, q) * cut->esize;
    int own = q == c->r && !c->in_place;

    return (loom_phase_block_t){ .at = own ? c->buf : cut->at + off, .in = cut->in + off,
                                 .n = loom_blocks_count(&c->blocks, q) };
}

/* In place: copy the result from the working copy to the start of the
 * receive buffer, after every step so far (they read the input there). */
static void loom_rsring_finish_in_place(loom_sched_t *sched, const loom_rsring_t *c,
                                        const char *work)
{
    size_t bytes = loom_blocks_count(&c->blocks, c->r) * sched->args.elem_size;
    int all;

    if (bytes == 0) {
        return;
    }
    all = loom_sched_join(sched, 0, sched->nsteps);
    loom_sched_copy(sched, work + loom_blocks_packed(&c->blocks, c->r) * sched->args.elem_size,
                    c->buf, bytes, LOOM_DEPS(all));
}

loom_status_t loom_reduce_scatter_ring_plan(const loom_coll_args_t *args,
                                            loom_team_t *team, loom_sched_t **sched_p)
{
    loom_rsring_t c = { .buf = args->recvbuf, .r = team->rank,
                        .in_place = args->in_place };
    int p = team->size, depth = args->depth > 0 ? args->depth : LOOM_RSRING_DEFAULT_DEPTH;
    size_t esize = args->elem_size, work_bytes;
    const loom_order_t *o;
    loom_ring_phase_t ph = {
        .n = p,
        .cut = { .block = loom_rsring_block, .esize = esize, .ctx = &c,
                 .in = args->in_place ? args->recvbuf : (const char *)args->sendbuf },
    };
    loom_slots_t slots = { .depth = depth };
    int *ints, *ranks, i, nlast;
    char *scratch;
    loom_status_t status;

    if (!args->op.commutative) {
        return LOOM_ERR_UNSUPPORTED;
    }
    if ((uint64_t)(p - 1) > LOOM_TAG_MAX_STEPS) {
        return LOOM_ERR_UNSUPPORTED;
    }
    status = loom_blocks_init(&c.blocks, p, args->count, args->counts, NULL);
    if (status != LOOM_OK) {
        return status;
    }
    status = loom_sched_create(team, args, LOOM_REDUCE_SCATTER_RING, &ph.sched);
    if (status != LOOM_OK) {
        loom_blocks_fini(&c.blocks);
        return status;
    }
    if (p == 1 || c.blocks.max == 0) {
        if (!args->in_place) {
            loom_sched_copy(ph.sched, ph.cut.in, c.buf,
                            loom_blocks_count(&c.blocks, c.r) * esize, LOOM_NO_DEPS);
        }
        goto out;
    }

    ph.segs = loom_segs_make(args->seg_bytes, esize, c.blocks.max, (uint64_t)(p - 1));

    /* Scratch: the working copy, then the slots, each a segment but no
     * larger than the largest block. */
    slots.bytes = loom_rsring_align((ph.segs.seg < c.blocks.max ? ph.segs.seg : c.blocks.max) *
                                    esize);
    work_bytes = loom_rsring_align(c.blocks.total * esize);
    status = loom_sched_alloc_scratch(ph.sched, work_bytes + (size_t)depth * slots.bytes,
                                      (void **)&scratch);
    if (status != LOOM_OK) {
        goto out;
    }
    ph.cut.at = scratch;
    slots.base = scratch + work_bytes;
    /* The ranks in ring order; per block and segment the last step on
     * it; per slot, the reduce that last read it. */
    nlast = p * ph.segs.nseg_max;
    status = loom_sched_alloc_ints(ph.sched, p + nlast + depth, &ints);
    if (status != LOOM_OK) {
        goto out;
    }
    ranks = ints;
    ph.last = ranks + p;
    slots.reader = ph.last + nlast;
    o = loom_sched_reduce_order(ph.sched);
    for (i = 0; i < p; ++i) {
        ranks[i] = loom_order_at(o, i);
    }
    for (i = 0; i < nlast; ++i) {
        ph.last[i] = -1;
    }
    for (i = 0; i < depth; ++i) {
        slots.reader[i] = -1;
    }
    ph.ranks = ranks;
    ph.me = loom_order_pos(o, c.r);
    c.ranks = ranks;
    ph.slots = &slots;
    loom_phase_rs_ring(&ph);
    if (args->in_place) {
        loom_rsring_finish_in_place(ph.sched, &c, scratch);
    }

out:
    loom_blocks_fini(&c.blocks);
    return loom_sched_plan_done(ph.sched, sched_p);
}
