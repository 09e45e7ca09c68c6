/*
 * Double binary tree allreduce, pipelined: the vector is cut in two halves;
 * each half is reduced up one binary tree and broadcast back down it, in
 * segments, so segment j+1 climbs while segment j descends.  The second
 * tree is the mirror image of the first (rank r plays p-1-r), so most
 * ranks that are interior nodes in one tree are leaves in the other and
 * every rank's links carry about the same load.
 *
 *        tree A (in order)          tree B (mirrored)
 *              3                          3
 *           1     5                    5     1
 *          0 2   4 6                  6 4   2 0
 *
 * Cost, s segments of n/(2s) bytes per tree, the trees running at once:
 * about (2 log2(p) + s) (4 alpha + n/(2s) (4 beta + 2 gamma)), since a rank
 * interior in one tree sends three segments per stage there and one as a
 * leaf of the other: 2n bytes out in all, about the ring's bytes at large
 * p, with logarithmic latency: the middle ground at larger rank counts.
 *
 * Under a rank order (team.h) both trees are drawn over positions.
 *
 * Children are combined into a node in a fixed order (left, then right),
 * so results do not depend on arrival order; but the mirrored tree visits
 * ranks in reverse, so only commutative ops.
 */
#include "coll/core/allreduce/allreduce.h"
#include "coll/core/parts/partition.h"
#include "coll/core/engine/tag.h"

#define LOOM_DBTREE_DEFAULT_DEPTH 4
#define LOOM_DBTREE_MAX_DEPTH     64
#define LOOM_DBTREE_DEFAULT_SEG   (64 * 1024)

typedef struct loom_dbtree {
    loom_sched_t    *sched;
    size_t          esize;
    size_t          seg;        /* elements per segment */
    int             nseg_max;
    int             depth;
    size_t          slot_bytes;
} loom_dbtree_t;

/* One tree over count elements at buf; scratch has 2 * depth slots. */
static void loom_dbtree_add(loom_dbtree_t *c, int tree, char *buf, size_t count,
                            char *scratch, int copy)
{
    const loom_order_t *o = loom_sched_reduce_order(c->sched);
    int p = c->sched->team->size, r = loom_order_pos(o, c->sched->team->rank);
    int parent, child[2], slot[2] = { 0, 0 }, reader[2][LOOM_DBTREE_MAX_DEPTH];
    int nseg = (int)((count + c->seg - 1) / c->seg), j, i, red, up, down, recv;
    uint32_t tag_up, tag_down;
    size_t bytes;
    char *seg, *slot_buf;

    if (tree == 0) {
        loom_bintree(p, r, &parent, &child[0], &child[1]);
    } else {
        /* Mirror: rank r plays p-1-r; the left child (lower in tree A's
         * order) becomes the higher rank. */
        loom_bintree(p, p - 1 - r, &parent, &child[1], &child[0]);
        parent = parent < 0 ? -1 : p - 1 - parent;
        child[0] = child[0] < 0 ? -1 : p - 1 - child[0];
        child[1] = child[1] < 0 ? -1 : p - 1 - child[1];
    }
    /* The trees are drawn over positions: back to team ranks. */
    parent = parent < 0 ? -1 : loom_order_at(o, parent);
    for (i = 0; i < 2; ++i) {
        child[i] = child[i] < 0 ? -1 : loom_order_at(o, child[i]);
    }
    for (i = 0; i < 2; ++i) {
        for (j = 0; j < c->depth; ++j) {
            reader[i][j] = -1;
        }
    }
    for (j = 0; j < nseg; ++j) {
        bytes = ((size_t)j * c->seg + c->seg <= count ? c->seg : count - (size_t)j * c->seg) *
                c->esize;
        seg = buf + (size_t)j * c->seg * c->esize;
        tag_up = (uint32_t)((2 * tree) * c->nseg_max + j);
        tag_down = (uint32_t)((2 * tree + 1) * c->nseg_max + j);

        /* Up: children's partial sums into this segment, left then right. */
        red = copy;
        for (i = 0; i < 2; ++i) {
            if (child[i] < 0) {
                continue;
            }
            slot_buf = scratch + (size_t)(i * c->depth + slot[i]) * c->slot_bytes;
            recv = loom_sched_recv(c->sched, child[i], tag_up, slot_buf, bytes,
                                   LOOM_DEPS(reader[i][slot[i]]));
            red = loom_sched_reduce(c->sched, slot_buf, seg, bytes, LOOM_DEPS(recv, red));
            reader[i][slot[i]] = red;
            slot[i] = (slot[i] + 1) % c->depth;
        }
        up = -1;
        if (parent >= 0) {
            up = loom_sched_send(c->sched, parent, tag_up, seg, bytes, LOOM_DEPS(red));
            /* Down: the final segment replaces the partial one once it left. */
            down = loom_sched_recv(c->sched, parent, tag_down, seg, bytes, LOOM_DEPS(up));
        } else {
            down = red;
        }
        for (i = 0; i < 2; ++i) {
            if (child[i] >= 0) {
                loom_sched_send(c->sched, child[i], tag_down, seg, bytes, LOOM_DEPS(down));
            }
        }
    }
}

loom_status_t loom_allreduce_dbtree_plan(const loom_coll_args_t *args, loom_team_t *team,
                                         loom_sched_t **sched_p)
{
    loom_dbtree_t c = { .esize = args->elem_size };
    size_t bytes = args->count * args->elem_size, half = args->count / 2;
    loom_status_t status;
    char *scratch;
    int copy;

    if (!args->op.commutative) {
        return LOOM_ERR_UNSUPPORTED;
    }
    status = loom_sched_create(team, args, LOOM_ALLREDUCE_DBTREE, &c.sched);
    if (status != LOOM_OK) {
        return status;
    }
    copy = loom_sched_copy_input(c.sched);
    if (team->size == 1 || bytes == 0) {
        goto out;
    }
    c.depth = args->depth > 0 ? args->depth : LOOM_DBTREE_DEFAULT_DEPTH;
    if (c.depth > LOOM_DBTREE_MAX_DEPTH) {
        c.depth = LOOM_DBTREE_MAX_DEPTH;
    }
    c.seg = (args->seg_bytes ? args->seg_bytes : LOOM_DBTREE_DEFAULT_SEG) / c.esize;
    if (c.seg == 0) {
        c.seg = 1;
    }
    c.nseg_max = (int)((args->count - half + c.seg - 1) / c.seg);
    /* Four tag steps per segment index (two trees, up and down). */
    if ((uint64_t)4 * (uint64_t)c.nseg_max > LOOM_TAG_MAX_STEPS) {
        c.seg = (args->count - half + LOOM_TAG_MAX_STEPS / 4 - 1) / (LOOM_TAG_MAX_STEPS / 4);
        c.nseg_max = (int)((args->count - half + c.seg - 1) / c.seg);
    }
    c.slot_bytes = c.seg * c.esize;
    status = loom_sched_alloc_scratch(c.sched, 4 * (size_t)c.depth * c.slot_bytes,
                                      (void **)&scratch);
    if (status != LOOM_OK) {
        goto out;
    }
    /* Tree A takes the first half (rounded down), tree B the rest. */
    loom_dbtree_add(&c, 0, args->recvbuf, half, scratch, copy);
    loom_dbtree_add(&c, 1, (char *)args->recvbuf + half * c.esize, args->count - half,
                    scratch + 2 * (size_t)c.depth * c.slot_bytes, copy);

out:
    return loom_sched_plan_done(c.sched, sched_p);
}
