/*
 * Pipelined chain bcast: ranks renumbered so that the root is virtual
 * rank 0; the message is cut into segments, and virtual rank v receives
 * each from v-1 and passes it on to v+1 at once, so that every link of
 * the chain carries a different segment at the same time.
 *
 *   root -> v1 -> v2 -> ... -> v(p-1)      segment j+1 follows segment j
 *
 * Under a rank order (team.h) v counts positions from the root's, so the
 * chain visits ranks in position order.
 *
 * Cost, s segments of n/s bytes: (p - 2 + s) (alpha + n/s beta).  For
 * large n the fill time (p - 2 stages) is small against s and the cost
 * tends to n beta, the lower bound: it wins for large messages on few
 * ranks and for medium ones where the segment is large enough to hide
 * alpha; its p - 1 stages of latency lose to the binomial tree for small
 * messages and to scatter + allgather when p is large.
 *
 * Segments go straight into the receive buffer, so there is no scratch
 * and no depth limit: every receive is posted at once (relay.h).
 */
#include "coll/core/bcast/bcast.h"
#include "coll/core/parts/partition.h"
#include "coll/core/parts/relay.h"

#define LOOM_CHAIN_DEFAULT_SEG (64 * 1024)

loom_status_t loom_bcast_chain_plan(const loom_coll_args_t *args, loom_team_t *team,
                                    loom_sched_t **sched_p)
{
    int p = team->size, root = args->root, v, prev, next;
    const loom_order_t *o;
    loom_status_t status;
    loom_sched_t *sched;

    if (root < 0 || root >= p) {
        return LOOM_ERR_INVALID_PARAM;
    }
    status = loom_sched_create(team, args, LOOM_BCAST_CHAIN, &sched);
    if (status != LOOM_OK) {
        return status;
    }
    if (p == 1 || args->count == 0) {
        goto out;
    }
    /* The chain runs in position order from the root's (team.h). */
    o = loom_sched_order(sched);
    v = loom_order_vrank(o, team->rank, root, p);
    prev = v > 0 ? loom_order_vrank_real(o, v - 1, root, p) : -1;
    next = v + 1 < p ? loom_order_vrank_real(o, v + 1, root, p) : -1;
    loom_relay_add(sched, args, LOOM_CHAIN_DEFAULT_SEG, prev, &next, 1);
out:
    return loom_sched_plan_done(sched, sched_p);
}
