/*
 * Hierarchical allgather(v): each block crosses the slow levels once,
 * from its own rank, and spreads out over the fast ones.
 *
 *   block of rank q (local index j on its node, node index k in its rack):
 *   1. q sends it to every other rack's holder of q          (racks)
 *   2. every rack holder sends it to every other node's      (nodes of
 *      holder of q in its rack                                its rack)
 *   3. every node holder sends it to the other ranks of      (ranks of
 *      its node                                               a node)
 *
 * Holders (hier_layout.h): a node's holder of q is its local rank j mod
 * its size, a rack's the holder on its node k mod its size.  The ranks of
 * a node are dealt to different ranks of every other node, so every local
 * rank drives the network with a share of its node's blocks and receives
 * a share of every other node's; nodes of uneven size still line up, and
 * a node of one rank holds everything.  With one rack step 1 is empty:
 * two levels.
 *
 * No step waits for a level to finish: a block moves on as soon as it is
 * in, so the slowest link (step 1, from the block's own rank) starts at
 * once and the fast levels forward behind it.  Blocks go straight into
 * their place in the receive buffer: no scratch, no copies but the own
 * block's (out of place).
 *
 * Cost, n bytes gathered, p = R M l ranks (R racks of M nodes of l ranks,
 * evenly), a/b per link class; what one rank sends, all of it in flight
 * at once:
 *   (a_rack + n/p b_rack)     step 1: its own block
 * + R (M-1)     (a_node + n/p b_node)     step 2: the R blocks it holds
 *                                          for its rack
 * + R M (l-1)   (a_in + n/p b_in)         step 3: the R M blocks it holds
 *                                          for its node
 * Each rack receives every other rack's data exactly once, (R-1)/R n
 * bytes spread over its M l ranks, and each node every other node's of
 * its rack once; a flat ring moves them across the slow link once per
 * rank.  Wins for large messages when the links between nodes or racks
 * are the bottleneck; its p - 1 messages per rank lose to Bruck's
 * ceil(log2 p) rounds for small ones.
 * Allgatherv: each block travels alone, so uneven counts cost no waiting
 * for the largest block.
 *
 * Under a rank order (loom_sched_order) each node lists its ranks, each
 * rack its nodes, and the layout its racks in position order
 * (loom_hier_layout_init_ordered), and blocks are taken, and tagged, by their ranks' positions; the block
 * of rank q is still rank q's.
 */
#include "coll/core/allgather/allgather.h"
#include "coll/core/parts/blocks.h"
#include "coll/core/parts/hier_layout.h"

/* The tag of the block at position qpos on its way to rank dst
 * (loom_hier_block_tag, of positions). */
static uint32_t loom_aghier_tag(const loom_order_t *o, int p, int qpos, int dst)
{
    return loom_hier_block_tag(p, qpos, loom_order_pos(o, dst));
}

loom_status_t loom_allgather_hier_plan(const loom_coll_args_t *args, loom_team_t *team,
                                       loom_sched_t **sched_p)
{
    int p = team->size, me = team->rank, q, k, recv, up, h, g, i, x, mpos, qpos, *ints;
    const loom_order_t *o;
    size_t esize = args->elem_size, bytes;
    const char *own, *src;
    char *buf = args->recvbuf, *dst;
    loom_hier_layout_t lay;
    loom_hier_index_t ix;
    loom_blocks_t blocks;
    loom_status_t status;
    loom_sched_t *sched;

    status = loom_blocks_init(&blocks, p, args->count, args->counts, args->displs);
    if (status != LOOM_OK) {
        return status;
    }
    status = loom_sched_create(team, args, LOOM_ALLGATHER_HIER, &sched);
    if (status != LOOM_OK) {
        loom_blocks_fini(&blocks);
        return status;
    }
    own = args->in_place ? buf + loom_blocks_offset(&blocks, me) * esize
                         : (const char *)args->sendbuf;
    if (!args->in_place) {
        loom_sched_copy(sched, own, buf + loom_blocks_offset(&blocks, me) * esize,
                        loom_blocks_count(&blocks, me) * esize, LOOM_NO_DEPS);
    }
    if (p == 1 || blocks.max == 0) {
        goto out;
    }
    o = loom_sched_order(sched);
    status = loom_hier_layout_init_ordered(&lay, team, sched, o, loom_hier_index_ints(team),
                                           &ints);
    if (status != LOOM_OK) {
        goto out;
    }
    loom_hier_index_init(&ix, &lay, team, ints);
    /* Blocks in position order from this rank's own, racks in position
     * order from this rank's: every rank starts on its own block's slow sends, and a
     * rotated layout gives a rotated schedule (loom_hier_block_tag, of
     * positions). */
    mpos = loom_order_pos(o, me);
    for (k = 0; k < p; ++k) {
        qpos = (mpos + k) % p;
        q = loom_order_at(o, qpos);
        bytes = loom_blocks_count(&blocks, q) * esize;
        dst = buf + loom_blocks_offset(&blocks, q) * esize;
        h = loom_hier_rack_holder(&ix, lay.me_rack, q);
        g = loom_hier_node_holder(&ix, lay.me_node, q);
        recv = -1;
        src = own;
        if (q != me) {
            /* From one level up: the rank itself to its rack holders,
             * a rack holder to its node holders, a node holder to its
             * node. */
            up = me == h ? q : me == g ? h : g;
            recv = loom_sched_recv(sched, up, loom_aghier_tag(o, p, qpos, me), dst, bytes,
                                   LOOM_NO_DEPS);
            src = dst;
        }
        if (me == q) {
            for (i = 1; i < lay.R; ++i) {
                x = loom_hier_rack_holder(&ix, lay.rack_at[(lay.me_rack_pos + i) % lay.R], q);
                loom_sched_send(sched, x, loom_aghier_tag(o, p, qpos, x), src, bytes,
                                LOOM_NO_DEPS);
            }
        }
        if (me == h) {
            for (i = 0; i < lay.rack_size[lay.me_rack]; ++i) {
                x = loom_hier_node(&lay, lay.me_rack, i);
                if (x != lay.me_node) {
                    x = loom_hier_node_holder(&ix, x, q);
                    loom_sched_send(sched, x, loom_aghier_tag(o, p, qpos, x), src, bytes,
                                    LOOM_DEPS(recv));
                }
            }
        }
        if (me == g) {
            for (i = 0; i < lay.node_size[lay.me_node]; ++i) {
                x = loom_hier_rank(&lay, lay.me_node, i);
                if (x != me) {
                    loom_sched_send(sched, x, loom_aghier_tag(o, p, qpos, x), src, bytes,
                                    LOOM_DEPS(recv));
                }
            }
        }
    }
out:
    loom_blocks_fini(&blocks);
    return loom_sched_plan_done(sched, sched_p);
}
