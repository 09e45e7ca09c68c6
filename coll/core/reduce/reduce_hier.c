/*
 * Hierarchical reduce: the hierarchical bcast's chains run backwards.
 * Per level a pipelined chain, ranks of a node, nodes of a rack, racks,
 * each ending at the root; a rank reduces what comes up each chain it is
 * on into its own input and passes the partial result up one link.
 *
 *   ranks:   s' -> s -> G        r' -> r -> root
 *   nodes:   G'' -> G' -> H1     G' -> G -> root
 *   racks:   H2 ==> H1 ==> root
 *
 * (H: a rack's holder of the root, G: a node's, from hier_layout.h.)
 * Messages are cut in segments: segment j leaves a rank once its own
 * input and every partial result from below are reduced, so every link
 * carries a different segment at the same time and the slow link between
 * racks streams while the fast levels reduce.
 *
 * Cost, n bytes in s segments, R racks, M nodes in the largest rack, l
 * ranks on the largest node, a/b/g per link class:
 *   (R + M + l - 3 + s - 1) (a + n/s max(b, 3g))   b the slowest class
 * a rank on all three chains reduces three partial results per segment.
 * The slow link carries every byte once, where a flat chain or tree that
 * ignores the hierarchy crosses it once per rank in another node or rack:
 * wins for medium and large messages when the links between nodes or
 * racks are the bottleneck.  Working memory: depth segment slots (4 by
 * default) per chain that ends at this rank (at most three chains); the
 * slot of segment j is reused by segment j + depth once what used it (a
 * reduce, or the send of the partial result built in it) is done.  The
 * waits point up the chains, to earlier segments, so they cannot form a
 * cycle even when every send waits for its receive.
 *
 * Under a rank order (team.h) the chains of each node and rack, and the
 * chain across racks, run in position order (hier_layout.h).
 *
 * Partial results meet in chain order, not rank order: commutative ops
 * only (the plan refuses the others, and the selection hands them to the
 * binomial tree).  Each element is reduced by one expression on one
 * path, so the result is the same bits run to run.
 */
#include "coll/core/reduce/reduce.h"
#include "coll/core/parts/hier_layout.h"
#include "coll/core/parts/partition.h"
#include "coll/core/engine/tag.h"

#define LOOM_REDUCE_HIER_DEFAULT_SEG   (64 * 1024)
#define LOOM_REDUCE_HIER_DEFAULT_DEPTH 4
#define LOOM_REDUCE_HIER_ALIGN         64

loom_status_t loom_reduce_hier_plan(const loom_coll_args_t *args, loom_team_t *team,
                                    loom_sched_t **sched_p)
{
    size_t esize = args->elem_size, count = args->count, seg, nseg, j, n, off, slot_bytes;
    const char *in = args->in_place ? args->recvbuf : args->sendbuf;
    char *buf = args->recvbuf, *scratch = NULL, *acc, *slot;
    int is_root = team->rank == args->root, nbelow = 0, lvl, c, d, prev, rv, *ints;
    int depth = args->depth > 0 ? args->depth : LOOM_REDUCE_HIER_DEFAULT_DEPTH;
    int below[3], *reader;
    loom_hier_layout_t lay;
    loom_hier_index_t ix;
    loom_hier_links_t links;
    loom_status_t status;
    loom_sched_t *sched;

    if (args->root < 0 || args->root >= team->size) {
        return LOOM_ERR_INVALID_PARAM;
    }
    if (!args->op.commutative) {
        return LOOM_ERR_UNSUPPORTED;
    }
    status = loom_sched_create(team, args, LOOM_REDUCE_HIER, &sched);
    if (status != LOOM_OK) {
        return status;
    }
    if (team->size == 1 || count == 0) {
        if (is_root) {
            loom_sched_copy_input(sched);
        }
        goto out;
    }
    /* The layout, its index, and per (chain below, slot) the last step
     * that used the slot. */
    status = loom_hier_layout_init_ordered(&lay, team, sched, loom_sched_reduce_order(sched),
                                           loom_hier_index_ints(team) + 3 * depth,
                                           &ints);
    if (status != LOOM_OK) {
        goto out;
    }
    loom_hier_index_init(&ix, &lay, team, ints);
    reader = ints + loom_hier_index_ints(team);
    loom_hier_chain_links(&ix, args->root, &links);
    for (lvl = 0; lvl < 3; ++lvl) {
        if (links.down[lvl] >= 0) {
            below[nbelow++] = links.down[lvl];
        }
    }
    /* One tag step per segment: too many segments get larger instead. */
    seg = loom_seg_elems(args->seg_bytes, LOOM_REDUCE_HIER_DEFAULT_SEG, esize, count,
                         LOOM_TAG_MAX_STEPS);
    nseg = (count + seg - 1) / seg;
    if ((size_t)depth > nseg) {
        depth = (int)nseg;
    }
    /* depth segment slots per chain below: segment j uses slot j mod
     * depth, free again once what used it last (a reduce reading it, or
     * the send of the partial result built in it) is done. */
    slot_bytes = (seg * esize + LOOM_REDUCE_HIER_ALIGN - 1) / LOOM_REDUCE_HIER_ALIGN *
                 LOOM_REDUCE_HIER_ALIGN;
    if (nbelow > 0) {
        status = loom_sched_alloc_scratch(sched, (size_t)nbelow * (size_t)depth * slot_bytes,
                                          (void **)&scratch);
        if (status != LOOM_OK) {
            goto out;
        }
    }
    for (c = 0; c < 3 * depth; ++c) {
        reader[c] = -1;
    }
    for (j = 0; j < nseg; ++j) {
        n = (j + 1 < nseg ? seg : count - j * seg) * esize;
        off = j * seg * esize;
        d = (int)(j % (size_t)depth);
        if (!is_root && nbelow == 0) {
            loom_sched_send(sched, links.up, (uint32_t)j, in + off, n, LOOM_NO_DEPS);
            continue;
        }
        if (is_root) {
            /* The result builds up in the root's receive buffer, from its
             * own input (already there in place). */
            acc = buf + off;
            prev = args->in_place ? -1 : loom_sched_copy(sched, in + off, acc, n, LOOM_NO_DEPS);
        } else {
            /* Elsewhere in the first chain's slot: the partial result
             * from below takes the own input (no copy of it) and is sent
             * on from there. */
            acc = scratch + (size_t)d * slot_bytes;
            prev = -1;
        }
        for (c = 0; c < nbelow; ++c) {
            slot = scratch + ((size_t)c * (size_t)depth + (size_t)d) * slot_bytes;
            rv = loom_sched_recv(sched, below[c], (uint32_t)j, slot, n,
                                 LOOM_DEPS(reader[c * depth + d]));
            if (slot == acc) {
                prev = loom_sched_reduce(sched, in + off, acc, n, LOOM_DEPS(rv));
                continue;
            }
            prev = loom_sched_reduce(sched, slot, acc, n, LOOM_DEPS(rv, prev));
            reader[c * depth + d] = prev;
        }
        if (!is_root) {
            reader[d] = loom_sched_send(sched, links.up, (uint32_t)j, acc, n, LOOM_DEPS(prev));
        }
    }
out:
    return loom_sched_plan_done(sched, sched_p);
}
