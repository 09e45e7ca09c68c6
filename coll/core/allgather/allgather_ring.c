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
 */
#include "coll/core/allgather/allgather.h"
#include "coll/core/parts/blocks.h"
#include "coll/core/parts/partition.h"
#include "coll/core/parts/ring_segs.h"
#include "coll/core/engine/tag.h"

typedef struct loom_agring {
    loom_blocks_t       blocks;
    char                *buf;       /* the receive buffer */
    size_t              esize;
    loom_ring_segs_t    segs;
} loom_agring_t;

static int loom_agring_nseg(const loom_agring_t *c, int block)
{
    return loom_ring_segs_count(&c->segs, loom_blocks_count(&c->blocks, block));
}

/* Offset (elements from the block's start) and bytes of segment j. */
static size_t loom_agring_seg(const loom_agring_t *c, int block, int j, size_t *bytes_p)
{
    *bytes_p = loom_ring_segs_len(&c->segs, loom_blocks_count(&c->blocks, block), j) *
               c->esize;
    return (size_t)j * c->segs.seg;
}

loom_status_t loom_allgather_ring_plan(const loom_coll_args_t *args, loom_team_t *team,
                                       loom_sched_t **sched_p)
{
    loom_agring_t c = { .buf = args->recvbuf, .esize = args->elem_size };
    int p = team->size, r = team->rank, right, left, k, j, nseg, send_block, recv_block;
    const char *own;
    size_t first, bytes;
    int *last_recv;
    loom_sched_t *sched;
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
    status = loom_sched_create(team, args, LOOM_ALLGATHER_RING, &sched);
    if (status != LOOM_OK) {
        loom_blocks_fini(&c.blocks);
        return status;
    }
    own = args->in_place ? c.buf + loom_blocks_offset(&c.blocks, r) * c.esize
                         : (const char *)args->sendbuf;
    if (!args->in_place) {
        loom_sched_copy(sched, own, c.buf + loom_blocks_offset(&c.blocks, r) * c.esize,
                        loom_blocks_count(&c.blocks, r) * c.esize, LOOM_NO_DEPS);
    }
    if (p == 1 || c.blocks.max == 0) {
        goto out;
    }

    c.segs = loom_ring_segs_make(args->seg_bytes, c.esize, c.blocks.max, (uint64_t)(p - 1));
    /* Per segment index, the receive of the previous round: the block the
     * next round forwards. */
    status = loom_sched_alloc_ints(sched, c.segs.nseg_max, &last_recv);
    if (status != LOOM_OK) {
        goto out;
    }
    right = loom_mod(r + 1, p);
    left = loom_mod(r - 1, p);
    for (k = 0; k < p - 1; ++k) {
        send_block = loom_mod(r - k, p);
        nseg = loom_agring_nseg(&c, send_block);
        for (j = 0; j < nseg; ++j) {
            first = loom_agring_seg(&c, send_block, j, &bytes);
            loom_sched_send(sched, right, (uint32_t)(k * c.segs.nseg_max + j),
                            k == 0 ? own + first * c.esize
                                   : c.buf + (loom_blocks_offset(&c.blocks, send_block) +
                                              first) * c.esize,
                            bytes, k == 0 ? LOOM_NO_DEPS : LOOM_DEPS(last_recv[j]));
        }
        recv_block = loom_mod(r - k - 1, p);
        nseg = loom_agring_nseg(&c, recv_block);
        for (j = 0; j < nseg; ++j) {
            first = loom_agring_seg(&c, recv_block, j, &bytes);
            last_recv[j] = loom_sched_recv(
                sched, left, (uint32_t)(k * c.segs.nseg_max + j),
                c.buf + (loom_blocks_offset(&c.blocks, recv_block) + first) * c.esize, bytes,
                LOOM_NO_DEPS);
        }
    }

out:
    loom_blocks_fini(&c.blocks);
    return loom_sched_plan_done(sched, sched_p);
}
