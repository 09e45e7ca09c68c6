/*
 * Pipelined chain reduce: the message is cut into segments, and each rank
 * receives the partial result of the ranks after it, combines its own
 * input into it and passes it on, segment by segment, so every link of
 * the chain carries a different segment at the same time.
 *
 *   v(p-1) -> v(p-2) -> ... -> v1 -> v0          segment j+1 follows j
 *
 *   v holds  x_v op (x_(v+1) op (... op x_(p-1)))   (its own input on the
 *                                                    left: lower ranks first)
 *
 * Commutative ops number ranks from the root (v = rank - root mod p), so
 * the chain ends at the root.  Non-commutative ones keep real ranks
 * (v = rank): every combination puts rank v's input to the left of the
 * ranks above it, and rank 0 forwards each finished segment to the root
 * when that is another rank.
 *
 * Under a rank order (team.h), commutative ops chain positions counted
 * from the root's; non-commutative ones and the reproducible mode keep
 * rank order.
 *
 * Cost, s segments of n/s bytes, with depth >= 2 so that a rank receives
 * segment j+1 while it reduces segment j:
 *     (p - 2 + s) (alpha + n/s max(beta, gamma)) + n/s min(beta, gamma)
 * (+ alpha + n/s beta for the hop to the root, non-commutative ops).  For
 * large n this tends to n max(beta, gamma): less than the 2n beta +
 * n gamma of reduce-scatter + gather, which moves every byte twice; the
 * p - 2 stages of fill make it lose on many ranks or small n, where the
 * binomial tree's log2 p rounds win.
 *
 * Memory: depth segment slots of scratch per rank that receives; the slot
 * of segment j is reused by segment j + depth once what read it (the send
 * on, or the copy out at an in-place root) is done.
 */
#include "coll/core/reduce/reduce.h"
#include "coll/core/parts/partition.h"
#include "coll/core/engine/tag.h"

#define LOOM_REDUCE_CHAIN_DEFAULT_SEG   (64 << 10)
#define LOOM_REDUCE_CHAIN_DEFAULT_DEPTH 4
/* Tag steps: segment j travels the chain as step j and hops to the root
 * as step LOOM_REDUCE_CHAIN_HOP + j. */
#define LOOM_REDUCE_CHAIN_HOP ((size_t)(LOOM_TAG_MAX_STEPS / 2))

loom_status_t loom_reduce_chain_plan(const loom_coll_args_t *args, loom_team_t *team,
                                     loom_sched_t **sched_p)
{
    const int p = team->size, r = team->rank, root = args->root;
    const int top = args->op.commutative ? root : 0;  /* where the chain ends */
    const int in_place = args->in_place && r == root;
    const size_t esize = args->elem_size, count = args->count;
    const char *in = in_place ? args->recvbuf : args->sendbuf;
    char *out = args->recvbuf, *slots = NULL, *slot, *at_out;
    const char *at_in;
    const loom_order_t *o;
    int v, next, prev;
    int depth = args->depth > 0 ? args->depth : LOOM_REDUCE_CHAIN_DEFAULT_DEPTH;
    int *slot_free, recv, red, last, k;
    size_t seg, nseg, j, n, len;
    loom_status_t status;
    loom_sched_t *sched;

    if (root < 0 || root >= p) {
        return LOOM_ERR_INVALID_PARAM;
    }
    status = loom_sched_create(team, args, LOOM_REDUCE_CHAIN, &sched);
    if (status != LOOM_OK) {
        return status;
    }
    /* The chain runs in position order to the top (team.h); the order is
     * the identity where rank order must be kept. */
    o = loom_sched_reduce_order(sched);
    v = loom_order_vrank(o, r, top, p);
    next = loom_order_vrank_real(o, v + 1, top, p);
    prev = loom_order_vrank_real(o, v - 1, top, p);
    if (count == 0) {
        goto out;
    }
    if (p == 1) {
        loom_sched_copy_input(sched);
        goto out;
    }
    seg = (args->seg_bytes ? args->seg_bytes : LOOM_REDUCE_CHAIN_DEFAULT_SEG) / esize;
    if (seg == 0) {
        seg = 1;
    }
    if (seg > count) {
        seg = count;    /* the slots are segment-sized: no larger than the data */
    }
    /* One tag step per segment and per hop: too many segments get larger
     * instead. */
    if ((count + seg - 1) / seg > LOOM_REDUCE_CHAIN_HOP) {
        seg = (count + LOOM_REDUCE_CHAIN_HOP - 1) / LOOM_REDUCE_CHAIN_HOP;
    }
    nseg = (count + seg - 1) / seg;
    if ((size_t)depth > nseg) {
        depth = (int)nseg;
    }
    /* Only the last rank of the chain receives nothing; the root at the
     * end of the chain receives into its receive buffer unless that holds
     * its input. */
    if (v < p - 1 && !(r == root && v == 0 && !in_place)) {
        status = loom_sched_alloc_scratch(sched, (size_t)depth * seg * esize,
                                          (void **)&slots);
        if (status != LOOM_OK) {
            goto out;
        }
    }
    if (loom_sched_alloc_ints(sched, depth, &slot_free) != LOOM_OK) {
        goto out;   /* the build status holds the error */
    }
    for (k = 0; k < depth; ++k) {
        slot_free[k] = -1;
    }

    for (j = 0; j < nseg; ++j) {
        n = j + 1 < nseg ? seg : count - j * seg;
        len = n * esize;
        at_in = in + j * seg * esize;
        at_out = r == root ? out + j * seg * esize : NULL;   /* non-roots may pass NULL */
        k = (int)(j % (size_t)depth);

        if (v == p - 1) {
            /* The chain's start: my input as it is. */
            last = loom_sched_send(sched, prev, (uint32_t)j, at_in, len, LOOM_NO_DEPS);
        } else if (r == root && v == 0 && !in_place) {
            /* The end at the root: partial into place, my input on the left. */
            recv = loom_sched_recv(sched, next, (uint32_t)j, at_out, len, LOOM_NO_DEPS);
            last = loom_sched_reduce(sched, at_in, at_out, len, LOOM_DEPS(recv));
        } else {
            slot = slots + (size_t)k * seg * esize;
            recv = loom_sched_recv(sched, next, (uint32_t)j, slot, len,
                                   LOOM_DEPS(slot_free[k]));
            red = loom_sched_reduce(sched, at_in, slot, len, LOOM_DEPS(recv));
            if (v > 0) {
                last = loom_sched_send(sched, prev, (uint32_t)j, slot, len, LOOM_DEPS(red));
            } else if (r == root) {
                /* In place at the root: my input was just read. */
                last = loom_sched_copy(sched, slot, at_out, len, LOOM_DEPS(red));
            } else {
                /* Rank 0 ends a rank-ordered chain for another root. */
                last = loom_sched_send(sched, root, (uint32_t)(LOOM_REDUCE_CHAIN_HOP + j), slot,
                                       len, LOOM_DEPS(red));
            }
            slot_free[k] = last;
        }
        if (r == root && v > 0) {
            /* The result comes back from rank 0; in place it overwrites
             * the input this rank's own step above has read. */
            loom_sched_recv(sched, top, (uint32_t)(LOOM_REDUCE_CHAIN_HOP + j), at_out, len,
                            LOOM_DEPS(last));
        }
    }

out:
    return loom_sched_plan_done(sched, sched_p);
}
