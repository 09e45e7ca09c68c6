/*
 * Binomial tree bcast: ranks renumbered so that the root is virtual rank
 * 0; each rank receives the whole message from its parent (its virtual
 * rank without the lowest set bit), then sends it on to its children,
 * the largest subtree first so that the longest path starts earliest.
 *
 *   p = 8, root 0:      0 -> 4, 2, 1;   4 -> 6, 5;   2 -> 3;   6 -> 7
 *
 *        0
 *      / | \
 *     4  2  1
 *    / \  \
 *   6   5  3
 *   |
 *   7
 *
 * Under a rank order (team.h) the tree is drawn over positions counted
 * from the root's: the picture above with every number a position.
 *
 * Cost: ceil(log2 p) (alpha + n beta).  The fewest rounds possible, so it
 * wins for small n, where alpha dominates; for large n each level moves
 * the whole message, log2(p) n beta against about 2n beta for scatter +
 * allgather or n beta for a pipelined chain.
 */
#include "coll/core/bcast/bcast.h"
#include "coll/core/parts/partition.h"

loom_status_t loom_bcast_binomial_plan(const loom_coll_args_t *args, loom_team_t *team,
                                       loom_sched_t **sched_p)
{
    int p = team->size, root = args->root, v, m, recv = -1;
    size_t bytes = args->count * args->elem_size;
    const loom_order_t *o;
    loom_status_t status;
    loom_sched_t *sched;

    if (root < 0 || root >= p) {
        return LOOM_ERR_INVALID_PARAM;
    }
    status = loom_sched_create(team, args, LOOM_BCAST_BINOMIAL, &sched);
    if (status != LOOM_OK) {
        return status;
    }
    /* Virtual ranks count positions from the root's (team.h). */
    o = loom_sched_order(sched);
    v = loom_order_vrank(o, team->rank, root, p);
    if (v > 0) {
        recv = loom_sched_recv(sched, loom_order_vrank_real(o, loom_binomial_parent(v), root, p),
                               0, args->recvbuf, bytes, LOOM_NO_DEPS);
    }
    for (m = loom_binomial_top(v, p); m > 0; m /= 2) {
        if (v + m < p) {
            loom_sched_send(sched, loom_order_vrank_real(o, v + m, root, p), 0, args->recvbuf,
                            bytes, LOOM_DEPS(recv));
        }
    }
    return loom_sched_plan_done(sched, sched_p);
}
