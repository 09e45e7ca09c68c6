/*
 * Hierarchical reduce_scatter(_block): the hierarchical allgather run
 * backwards.  Block q (rank q's result) is reduced inside every node at
 * that node's holder of q, then inside every rack at its rack holder,
 * then across racks at q itself.
 *
 *   block q (local index j on its node, node index k in its rack):
 *   1. every rank sends its input block q to its node's holder of q,
 *      which reduces them                                 (ranks of a node)
 *   2. every node holder sends its partial result to its rack's holder,
 *      which reduces them                                 (nodes of a rack)
 *   3. every rack holder sends its partial result to q    (racks)
 *
 * Holders (hier_layout.h): a node's holder of q is its local rank j mod
 * its size, a rack's the holder on its node k mod its size.  So each
 * local rank reduces a share of the blocks inside its node and sends
 * them on: every local rank drives the network, nodes of uneven size
 * line up, a node of one rank holds everything.  With one rack step 3
 * is done by q's own rack holder, q: two levels.
 *
 * No level waits for another to finish: a partial result leaves as soon
 * as its own reductions are done, so the slow links start while other
 * blocks are still reduced inside the nodes.  Receives are posted at
 * once into one scratch area per incoming message (together about the
 * input's size on every rank).
 *
 * Cost, n bytes of input, p = R M l ranks (R racks of M nodes of l ranks,
 * evenly), a/b/g per link class; what one rank receives and reduces, all
 * of it posted at once:
 *   R M (l-1)   (a_in + n/p (b_in + g))       step 1: the R M blocks it
 *                                              holds for its node
 * + R (M-1)     (a_node + n/p (b_node + g))   step 2: the R blocks it
 *                                              holds for its rack
 * + (R-1)       (a_rack + n/p (b_rack + g))   step 3: its own block
 * Each rack sends every other rack's blocks exactly once, reduced, (R-1)/R
 * n bytes spread over its M l ranks; a flat ring moves partial sums
 * across the slow link once per rank.  Wins for large messages when the
 * links between nodes or racks are the bottleneck; its p - 1 messages
 * per rank lose to recursive halving's log2 p rounds for small ones.
 *
 * Contributions meet in hierarchy order, not rank order: commutative ops
 * only (the plan refuses the others, the selection hands them to
 * recursive halving).  Each block is reduced by one expression on one
 * path, so the result is the same bits run to run.
 *
 * In place, rank r's result builds up in scratch and moves to the start
 * of the receive buffer at the end, once every step that read the input
 * there is done.
 *
 * Under a rank order (loom_sched_reduce_order: the identity for the
 * reproducible mode) each node lists its ranks, each rack its nodes, and
 * the layout its racks in position order (loom_hier_layout_init_ordered),
 * and blocks are taken, and tagged, by their ranks' positions; block q
 * is still rank q's result.
 */
#include "coll/core/reduce_scatter/reduce_scatter.h"
#include "coll/core/parts/blocks.h"
#include "coll/core/parts/hier_layout.h"
#include "coll/core/engine/sched_join.h"

#define LOOM_RSHIER_ALIGN 64

typedef struct loom_rshier {
    loom_hier_layout_t  lay;
    loom_hier_index_t   ix;
    int                 me;
} loom_rshier_t;

static size_t loom_rshier_align(size_t bytes)
{
    return (bytes + LOOM_RSHIER_ALIGN - 1) / LOOM_RSHIER_ALIGN * LOOM_RSHIER_ALIGN;
}

/* The ranks whose partial results of block q this rank reduces, into
 * below (at most p - 1); returns how many.  *up_p: where this rank's
 * partial result goes, -1 at q. */
static int loom_rshier_links(const loom_rshier_t *c, int q, int *below, int *up_p)
{
    const loom_hier_layout_t *l = &c->lay;
    int me = c->me, h, g, i, x, n = 0;

    h = loom_hier_rack_holder(&c->ix, l->me_rack, q);
    g = loom_hier_node_holder(&c->ix, l->me_node, q);
    *up_p = me == q ? -1 : me == h ? q : me == g ? h : g;
    if (me == g) {
        for (i = 0; i < l->node_size[l->me_node]; ++i) {
            x = loom_hier_rank(l, l->me_node, i);
            if (x != me) {
                below[n++] = x;
            }
        }
    }
    if (me == h) {
        for (i = 0; i < l->rack_size[l->me_rack]; ++i) {
            x = loom_hier_node(l, l->me_rack, i);
            if (x != l->me_node) {
                below[n++] = loom_hier_node_holder(&c->ix, x, q);
            }
        }
    }
    if (me == q) {
        for (i = 1; i < l->R; ++i) {
            below[n++] = loom_hier_rack_holder(&c->ix, l->rack_at[(l->me_rack_pos + i) % l->R],
                                               q);
        }
    }
    return n;
}

/* The tag of the block at position qpos on its way to rank dst
 * (loom_hier_block_tag, of positions). */
static uint32_t loom_rshier_tag(const loom_order_t *o, int p, int qpos, int dst)
{
    return loom_hier_block_tag(p, qpos, loom_order_pos(o, dst));
}

loom_status_t loom_reduce_scatter_hier_plan(const loom_coll_args_t *args,
                                            loom_team_t *team, loom_sched_t **sched_p)
{
    loom_rshier_t c = { .me = team->rank };
    int p = team->size, me = team->rank, q, i, k, nb, up, prev, rv, all, *ints, *below;
    int mpos, qpos;
    const loom_order_t *o;
    size_t esize = args->elem_size, bytes, need = 0;
    const char *in, *inq;
    char *buf = args->recvbuf, *scratch, *at, *acc, *mine = NULL;
    loom_blocks_t blocks;
    loom_status_t status;
    loom_sched_t *sched;

    if (!args->op.commutative) {
        return LOOM_ERR_UNSUPPORTED;
    }
    status = loom_blocks_init(&blocks, p, args->count, args->counts, NULL);
    if (status != LOOM_OK) {
        return status;
    }
    status = loom_sched_create(team, args, LOOM_REDUCE_SCATTER_HIER, &sched);
    if (status != LOOM_OK) {
        loom_blocks_fini(&blocks);
        return status;
    }
    in = args->in_place ? buf : (const char *)args->sendbuf;
    if (p == 1 || blocks.max == 0) {
        if (!args->in_place) {
            loom_sched_copy(sched, in, buf, loom_blocks_count(&blocks, me) * esize,
                            LOOM_NO_DEPS);
        }
        goto out;
    }
    o = loom_sched_reduce_order(sched);
    status = loom_hier_layout_init_ordered(&c.lay, team, sched, o,
                                           loom_hier_index_ints(team) + p, &ints);
    if (status != LOOM_OK) {
        goto out;
    }
    loom_hier_index_init(&c.ix, &c.lay, team, ints);
    below = ints + loom_hier_index_ints(team);
    /* Scratch: per block reduced here, a partial result (but rank r's own
     * out of place, which builds up in the receive buffer) and one area
     * per message from below. */
    for (q = 0; q < p; ++q) {
        nb = loom_rshier_links(&c, q, below, &up);
        bytes = loom_rshier_align(loom_blocks_count(&blocks, q) * esize);
        if (nb > 0) {
            need += (size_t)nb * bytes + (q == me && !args->in_place ? 0 : bytes);
        }
    }
    status = loom_sched_alloc_scratch(sched, need + 1, (void **)&scratch);
    if (status != LOOM_OK) {
        goto out;
    }
    /* Blocks in position order from the one after this rank's, its own
     * last (it waits for every other rank; the others' go up while it
     * does), and racks in position order from this rank's: a rotated
     * layout gives a rotated schedule (loom_hier_block_tag, of
     * positions). */
    at = scratch;
    mpos = loom_order_pos(o, me);
    for (i = 1; i <= p; ++i) {
        qpos = (mpos + i) % p;
        q = loom_order_at(o, qpos);
        nb = loom_rshier_links(&c, q, below, &up);
        bytes = loom_blocks_count(&blocks, q) * esize;
        inq = in + loom_blocks_packed(&blocks, q) * esize;
        if (nb == 0) {
            loom_sched_send(sched, up, loom_rshier_tag(o, p, qpos, up), inq, bytes,
                            LOOM_NO_DEPS);
            continue;
        }
        if (q == me && !args->in_place) {
            acc = buf;
        } else {
            acc = at;
            at += loom_rshier_align(bytes);
        }
        prev = loom_sched_copy(sched, inq, acc, bytes, LOOM_NO_DEPS);
        for (k = 0; k < nb; ++k) {
            rv = loom_sched_recv(sched, below[k], loom_rshier_tag(o, p, qpos, me), at, bytes,
                                 LOOM_NO_DEPS);
            prev = loom_sched_reduce(sched, at, acc, bytes, LOOM_DEPS(rv, prev));
            at += loom_rshier_align(bytes);
        }
        if (q != me) {
            loom_sched_send(sched, up, loom_rshier_tag(o, p, qpos, up), acc, bytes,
                            LOOM_DEPS(prev));
        } else {
            mine = acc;
        }
    }
    /* In place: the result may overwrite the input only when nothing
     * reads it any more. */
    if (args->in_place && mine != NULL) {
        all = loom_sched_join(sched, 0, sched->nsteps);
        loom_sched_copy(sched, mine, buf, loom_blocks_count(&blocks, me) * esize,
                        LOOM_DEPS(all));
    }
out:
    loom_blocks_fini(&blocks);
    return loom_sched_plan_done(sched, sched_p);
}
