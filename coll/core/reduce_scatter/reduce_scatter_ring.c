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
 */
#include "coll/core/reduce_scatter/reduce_scatter.h"
#include "coll/core/parts/blocks.h"
#include "coll/core/parts/partition.h"
#include "coll/core/parts/ring_segs.h"
#include "coll/core/engine/sched_join.h"
#include "coll/core/engine/tag.h"

#define LOOM_RSRING_DEFAULT_DEPTH 4
#define LOOM_RSRING_ALIGN         64

typedef struct loom_rsring {
    loom_blocks_t   blocks;
    const char      *in;        /* the input: send buffer or, in place, recvbuf */
    char            *work;      /* partial sums, same layout as the input */
    size_t          esize;
    loom_ring_segs_t segs;
} loom_rsring_t;

static size_t loom_rsring_align(size_t bytes)
{
    return (bytes + LOOM_RSRING_ALIGN - 1) / LOOM_RSRING_ALIGN * LOOM_RSRING_ALIGN;
}

static int loom_rsring_nseg(const loom_rsring_t *c, int block)
{
    return loom_ring_segs_count(&c->segs, loom_blocks_count(&c->blocks, block));
}

/* Element offset (from the start of the input) and bytes of segment j. */
static size_t loom_rsring_seg(const loom_rsring_t *c, int block, int j, size_t *bytes_p)
{
    *bytes_p = loom_ring_segs_len(&c->segs, loom_blocks_count(&c->blocks, block), j) *
               c->esize;
    return loom_blocks_packed(&c->blocks, block) + (size_t)j * c->segs.seg;
}

/* In place: copy the result from the working copy to the start of the
 * receive buffer, after every step so far (they read the input there). */
static void loom_rsring_finish_in_place(loom_sched_t *sched, const loom_rsring_t *c,
                                        char *buf, int r)
{
    size_t bytes = loom_blocks_count(&c->blocks, r) * c->esize;
    int all;

    if (bytes == 0) {
        return;
    }
    all = loom_sched_join(sched, 0, sched->nsteps);
    loom_sched_copy(sched, c->work + loom_blocks_packed(&c->blocks, r) * c->esize, buf, bytes,
                    LOOM_DEPS(all));
}

loom_status_t loom_reduce_scatter_ring_plan(const loom_coll_args_t *args,
                                            loom_team_t *team, loom_sched_t **sched_p)
{
    loom_rsring_t c = { .esize = args->elem_size };
    int p = team->size, r = team->rank, right, left, k, j, nseg, sb, b, slot = 0;
    int depth = args->depth > 0 ? args->depth : LOOM_RSRING_DEFAULT_DEPTH;
    int recv, local, red, *last_red, *slot_reader;
    size_t off, bytes, slot_bytes, work_bytes;
    char *buf = args->recvbuf, *scratch, *slots, *dst;
    loom_sched_t *sched;
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
    status = loom_sched_create(team, args, LOOM_REDUCE_SCATTER_RING, &sched);
    if (status != LOOM_OK) {
        loom_blocks_fini(&c.blocks);
        return status;
    }
    c.in = args->in_place ? buf : (const char *)args->sendbuf;
    if (p == 1 || c.blocks.max == 0) {
        if (!args->in_place) {
            loom_sched_copy(sched, c.in, buf, loom_blocks_count(&c.blocks, r) * c.esize,
                            LOOM_NO_DEPS);
        }
        goto out;
    }

    c.segs = loom_ring_segs_make(args->seg_bytes, c.esize, c.blocks.max, (uint64_t)(p - 1));

    /* Scratch: the working copy, then the slots, each a segment but no
     * larger than the largest block. */
    slot_bytes = loom_rsring_align((c.segs.seg < c.blocks.max ? c.segs.seg : c.blocks.max) *
                                   c.esize);
    work_bytes = loom_rsring_align(c.blocks.total * c.esize);
    status = loom_sched_alloc_scratch(sched, work_bytes + (size_t)depth * slot_bytes,
                                      (void **)&scratch);
    if (status != LOOM_OK) {
        goto out;
    }
    c.work = scratch;
    slots = scratch + work_bytes;
    /* Per segment index, the reduce of the previous round (what the next
     * send forwards); per slot, the reduce that last read it. */
    status = loom_sched_alloc_ints(sched, c.segs.nseg_max + depth, &last_red);
    if (status != LOOM_OK) {
        goto out;
    }
    slot_reader = last_red + c.segs.nseg_max;
    for (j = 0; j < depth; ++j) {
        slot_reader[j] = -1;
    }

    right = loom_mod(r + 1, p);
    left = loom_mod(r - 1, p);
    for (k = 0; k < p - 1; ++k) {
        sb = loom_mod(r - k - 1, p);
        nseg = loom_rsring_nseg(&c, sb);
        for (j = 0; j < nseg; ++j) {
            off = loom_rsring_seg(&c, sb, j, &bytes);
            loom_sched_send(sched, right, (uint32_t)(k * c.segs.nseg_max + j),
                            (k == 0 ? c.in : c.work) + off * c.esize, bytes,
                            k == 0 ? LOOM_NO_DEPS : LOOM_DEPS(last_red[j]));
        }
        b = loom_mod(r - k - 2, p);
        nseg = loom_rsring_nseg(&c, b);
        for (j = 0; j < nseg; ++j) {
            off = loom_rsring_seg(&c, b, j, &bytes);
            recv = loom_sched_recv(sched, left, (uint32_t)(k * c.segs.nseg_max + j),
                                   slots + (size_t)slot * slot_bytes, bytes,
                                   LOOM_DEPS(slot_reader[slot]));
            /* The partial sum goes to the working copy; rank r's own block
             * (the last round) straight to its result, out of place. */
            dst = b == r && !args->in_place
                      ? buf + (off - loom_blocks_packed(&c.blocks, r)) * c.esize
                      : c.work + off * c.esize;
            local = loom_sched_copy(sched, c.in + off * c.esize, dst, bytes, LOOM_NO_DEPS);
            red = loom_sched_reduce(sched, slots + (size_t)slot * slot_bytes, dst, bytes,
                                    LOOM_DEPS(recv, local));
            slot_reader[slot] = red;
            last_red[j] = red;
            slot = (slot + 1) % depth;
        }
    }
    if (args->in_place) {
        loom_rsring_finish_in_place(sched, &c, buf, r);
    }

out:
    loom_blocks_fini(&c.blocks);
    return loom_sched_plan_done(sched, sched_p);
}
