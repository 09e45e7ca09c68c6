/*
 * Hierarchical bcast: one pipelined chain per level, racks, then the
 * nodes of each rack, then the ranks of each node, all streaming the same
 * segments at once.
 *
 *   racks:   root ==> H1 ==> H2                 (one holder per rack)
 *   nodes:   root --> G --> G'  H1 --> G'' ...  (one holder per node)
 *   ranks:   root -> r -> r'    G -> s -> s' ...
 *
 * The holders are hier_layout.h's: rack w's holder of the root sits on a
 * different node and local index for every rank position of the root,
 * so successive bcasts from different roots load different links.  A
 * rank receives each segment once, from its link up (the highest level
 * where it is not first in the chain), and forwards it down every chain
 * it is on as soon as it is in; every link carries a different segment
 * at the same time, and the slow link between racks (or nodes) never
 * waits for the fast levels.  With one rack the rack chain is empty: two
 * levels.
 *
 * Cost, n bytes in s segments, R racks, M nodes in the largest rack, l
 * ranks on the largest node, a/b per link class:
 *   (R - 1 + M - 1 + l - 1 + s - 1) (a + n/s b)  with b the slowest class
 * one hop per chain link to fill the pipe, then a segment per stage.  The
 * slow link carries every byte once (n b_out, the lower bound for the
 * rack holder) where a flat chain or ring that ignores the hierarchy
 * crosses it once per rank it visits in another rack or node.  A rack
 * holder sends each segment up to three times (one per level, on links of
 * different classes).
 *
 * Under a rank order (team.h) the chains of each node and rack, and the
 * chain across racks, run in position order (hier_layout.h).
 *
 * Why chains and not scatter + allgather per level: a chain already moves
 * n bytes once over each link at the bandwidth bound, needs no scratch,
 * and its fill time, one segment per stage, is small for the few stages
 * of a hierarchy (R + M + l - 3, not p - 1).  Scatter + allgather would
 * halve the root's sending time only when the root's own link is the
 * bottleneck, at the cost of 2(l - 1) more latency terms per level.  Wins
 * for medium and large messages on clusters whose links between nodes or
 * racks are slower than inside them; for small messages the binomial
 * tree's log2(p) rounds win.
 */
#include "coll/core/bcast/bcast.h"
#include "coll/core/parts/hier_layout.h"
#include "coll/core/parts/relay.h"

#define LOOM_BCAST_HIER_DEFAULT_SEG (64 * 1024)

loom_status_t loom_bcast_hier_plan(const loom_coll_args_t *args, loom_team_t *team,
                                   loom_sched_t **sched_p)
{
    loom_hier_layout_t lay;
    loom_hier_index_t ix;
    loom_hier_links_t links;
    loom_status_t status;
    loom_sched_t *sched;
    int *ints;

    if (args->root < 0 || args->root >= team->size) {
        return LOOM_ERR_INVALID_PARAM;
    }
    status = loom_sched_create(team, args, LOOM_BCAST_HIER, &sched);
    if (status != LOOM_OK) {
        return status;
    }
    if (team->size == 1 || args->count == 0) {
        goto out;
    }
    status = loom_hier_layout_init_ordered(&lay, team, sched, loom_sched_order(sched),
                                           loom_hier_index_ints(team), &ints);
    if (status != LOOM_OK) {
        goto out;
    }
    loom_hier_index_init(&ix, &lay, team, ints);
    loom_hier_chain_links(&ix, args->root, &links);
    /* The slowest level first: its send is posted first. */
    loom_relay_add(sched, args, LOOM_BCAST_HIER_DEFAULT_SEG, links.up, links.down,
                   (int)(sizeof(links.down) / sizeof(links.down[0])));
out:
    return loom_sched_plan_done(sched, sched_p);
}
