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
 */
#include "coll/core/allreduce/allreduce.h"
#include "coll/core/parts/partition.h"
#include "coll/core/parts/ring_segs.h"
#include "coll/core/engine/tag.h"

#include <stddef.h>
#include <stdint.h>

#define LOOM_RING_DEFAULT_DEPTH 4

typedef struct loom_ring {
    loom_sched_t    *sched;
    char            *buf;       /* the receive buffer */
    size_t          count;
    size_t          esize;
    loom_ring_segs_t segs;
    int             p;
    int             r;
    loom_spread_t   cut;        /* the blocks (partition.h), worked out once */
} loom_ring_t;

/* A block's first element, elements and segments: worked out once per
 * round, not per segment (a ring plans thousands of rounds). */
typedef struct loom_ring_block {
    size_t  first, n;
    int     nseg;
} loom_ring_block_t;

/* Block (block mod p), for block in -p .. 2p - 1: the plan's r - k and
 * r + 1 - k, without a division. */
static loom_ring_block_t loom_ring_block(const loom_ring_t *c, int block)
{
    int b = block < 0 ? block + c->p : block >= c->p ? block - c->p : block;
    size_t first = loom_spread_offset(c->cut, b), n = loom_spread_offset(c->cut, b + 1) - first;

    return (loom_ring_block_t){ first, n, loom_ring_segs_count(&c->segs, n) };
}

/* Address and length of segment j of a block. */
static char *loom_ring_seg(const loom_ring_t *c, const loom_ring_block_t *blk, int j,
                           size_t *bytes_p)
{
    *bytes_p = loom_ring_segs_len(&c->segs, blk->n, j) * c->esize;
    return c->buf + (blk->first + (size_t)j * c->segs.seg) * c->esize;
}

static uint32_t loom_ring_tag(const loom_ring_t *c, int round, int j)
{
    return (uint32_t)(round * c->segs.nseg_max + j);
}

loom_status_t loom_allreduce_ring_plan(const loom_coll_args_t *args, loom_team_t *team,
                                       loom_sched_t **sched_p)
{
    loom_ring_t c = {
        .buf = args->recvbuf, .count = args->count, .esize = args->elem_size,
        .p = team->size, .r = team->rank,
        .cut = loom_spread(args->count, team->size),
    };
    int right = loom_mod(c.r + 1, c.p), left = loom_mod(c.r - 1, c.p);
    int depth = args->depth > 0 ? args->depth : LOOM_RING_DEFAULT_DEPTH;
    int k, j, slot = 0, recv, red, local;
    loom_ring_block_t blk;
    ptrdiff_t to_input = args->in_place ? 0 : (const char *)args->sendbuf - c.buf;
    int *last_reduce, *last_recv, *slot_reader, *rs_sends;
    size_t bytes, slot_bytes;
    char *scratch, *seg;
    loom_status_t status;

    if (!args->op.commutative) {
        return LOOM_ERR_UNSUPPORTED;
    }
    status = loom_sched_create(team, args, LOOM_ALLREDUCE_RING, &c.sched);
    if (status != LOOM_OK) {
        return status;
    }
    if (c.p == 1 || args->count == 0) {
        loom_sched_copy_input(c.sched);
        goto out;
    }

    /* Every (round, segment) needs a tag step of its own: with too many
     * segments, make them larger (ring_segs.h); with too many rounds,
     * decline (the decision depends on p only, so every rank declines). */
    if ((uint64_t)2 * (uint64_t)(c.p - 1) > LOOM_TAG_MAX_STEPS) {
        loom_sched_destroy(c.sched);
        return LOOM_ERR_UNSUPPORTED;
    }
    c.segs = loom_ring_segs_make(args->seg_bytes, c.esize, loom_spread_max(c.cut),
                                 2 * (uint64_t)(c.p - 1));
    slot_bytes = c.segs.seg * c.esize;
    /* Bookkeeping: per segment index, the last reduce (reduce-scatter) and
     * the last receive (allgather); per scratch slot, its last reader; per
     * round and segment, the reduce-scatter send (the allgather must not
     * overwrite a block before it has left). */
    status = loom_sched_alloc_ints(c.sched, 2 * c.segs.nseg_max + depth +
                                   (c.p - 1) * c.segs.nseg_max, &last_reduce);
    if (status != LOOM_OK) {
        goto out;
    }
    last_recv = last_reduce + c.segs.nseg_max;
    slot_reader = last_recv + c.segs.nseg_max;
    rs_sends = slot_reader + depth;
    for (j = 0; j < c.segs.nseg_max; ++j) {
        last_reduce[j] = -1;
    }
    for (j = 0; j < depth; ++j) {
        slot_reader[j] = -1;
    }
    status = loom_sched_alloc_scratch(c.sched, (size_t)depth * slot_bytes,
                                      (void **)&scratch);
    if (status != LOOM_OK) {
        goto out;
    }

    /* Reduce-scatter.  Out of place, the input is never copied whole: the
     * first round sends block r straight from the send buffer (the
     * allgather overwrites it later), and each other block is copied one
     * segment at a time just before its reduction, while still in cache. */
    for (k = 0; k < c.p - 1; ++k) {
        blk = loom_ring_block(&c, c.r - k);
        for (j = 0; j < blk.nseg; ++j) {
            seg = loom_ring_seg(&c, &blk, j, &bytes);
            rs_sends[k * c.segs.nseg_max + j] =
                loom_sched_send(c.sched, right, loom_ring_tag(&c, k, j),
                                k == 0 ? seg + to_input : seg, bytes,
                                LOOM_DEPS(last_reduce[j]));
        }
        for (j = blk.nseg; j < c.segs.nseg_max; ++j) {
            rs_sends[k * c.segs.nseg_max + j] = -1;
        }
        blk = loom_ring_block(&c, c.r - k - 1);
        for (j = 0; j < blk.nseg; ++j) {
            seg = loom_ring_seg(&c, &blk, j, &bytes);
            /* A slot is free once the last reduce that read it is done. */
            recv = loom_sched_recv(c.sched, left, loom_ring_tag(&c, k, j),
                                   scratch + (size_t)slot * slot_bytes, bytes,
                                   LOOM_DEPS(slot_reader[slot]));
            local = args->in_place ? -1
                                   : loom_sched_copy(c.sched, seg + to_input, seg, bytes,
                                                     LOOM_NO_DEPS);
            red = loom_sched_reduce(c.sched, scratch + (size_t)slot * slot_bytes, seg,
                                    bytes, LOOM_DEPS(recv, local));
            slot_reader[slot] = red;
            last_reduce[j] = red;
            slot = (slot + 1) % depth;
        }
    }

    /* Allgather: rank r owns the final block r+1. */
    for (j = 0; j < c.segs.nseg_max; ++j) {
        last_recv[j] = last_reduce[j];
    }
    for (k = 0; k < c.p - 1; ++k) {
        blk = loom_ring_block(&c, c.r + 1 - k);
        for (j = 0; j < blk.nseg; ++j) {
            seg = loom_ring_seg(&c, &blk, j, &bytes);
            loom_sched_send(c.sched, right, loom_ring_tag(&c, c.p - 1 + k, j), seg, bytes,
                            LOOM_DEPS(last_recv[j]));
        }
        blk = loom_ring_block(&c, c.r - k);
        for (j = 0; j < blk.nseg; ++j) {
            seg = loom_ring_seg(&c, &blk, j, &bytes);
            /* Block r-k was read by reduce-scatter send k: overwrite it only
             * once that send is done. */
            last_recv[j] = loom_sched_recv(c.sched, left, loom_ring_tag(&c, c.p - 1 + k, j),
                                           seg, bytes,
                                           LOOM_DEPS(rs_sends[k * c.segs.nseg_max + j]));
        }
    }

out:
    return loom_sched_plan_done(c.sched, sched_p);
}
