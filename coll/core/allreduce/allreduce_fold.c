/*
 * The non-power-of-two steps shared by recursive doubling and Rabenseifner
 * (see loom_fold_t in partition.h): before, each even rank of the first
 * 2*rem ranks sends its data to the odd rank above it, which reduces it in
 * (the even rank is the lower: src); after, the result goes back.
 * Under a rank order (fold->order) the pairs are positions, not ranks.
 * Cost: 2 (alpha + n beta) + n gamma on the ranks involved.
 */
#include "coll/core/allreduce/allreduce.h"
#include "coll/core/engine/tag.h"

#define LOOM_FOLD_TAG_PRE  0
#define LOOM_FOLD_TAG_POST ((uint32_t)LOOM_TAG_MASK(LOOM_TAG_STEP_BITS))

int loom_fold_pre(loom_sched_t *sched, const loom_fold_t *fold, char *buf,
                  char *scratch, size_t bytes, int dep)
{
    const loom_order_t *o = fold->order;
    int r = loom_order_pos(o, sched->team->rank), recv;

    if (r >= 2 * fold->rem) {
        return dep;
    }
    if (fold->vrank < 0) {
        return loom_sched_send(sched, loom_order_at(o, r + 1), LOOM_FOLD_TAG_PRE, buf, bytes,
                               LOOM_DEPS(dep));
    }
    recv = loom_sched_recv(sched, loom_order_at(o, r - 1), LOOM_FOLD_TAG_PRE, scratch, bytes,
                           LOOM_NO_DEPS);
    return loom_sched_reduce(sched, scratch, buf, bytes, LOOM_DEPS(recv, dep));
}

void loom_fold_post(loom_sched_t *sched, const loom_fold_t *fold, char *buf,
                    size_t bytes, int dep)
{
    const loom_order_t *o = fold->order;
    int r = loom_order_pos(o, sched->team->rank);

    if (r >= 2 * fold->rem) {
        return;
    }
    if (fold->vrank < 0) {
        /* dep is the pre-fold send of buf: the result may land after it. */
        loom_sched_recv(sched, loom_order_at(o, r + 1), LOOM_FOLD_TAG_POST, buf, bytes,
                        LOOM_DEPS(dep));
    } else {
        loom_sched_send(sched, loom_order_at(o, r - 1), LOOM_FOLD_TAG_POST, buf, bytes,
                        LOOM_DEPS(dep));
    }
}
