/*
 * The cost model across link classes, for teams that span nodes.
 *
 * Three classes, fastest first: inside a node (each rank's share of the
 * node's memory), a node's network link (shared by the node's ranks), a
 * rack's uplink to the spine (shared by the rack's nodes).  A flat
 * algorithm knows nothing of them: its messages cross the slow links as
 * they come, several at once where several ranks of a node or rack talk
 * to other nodes in the same step.  A hierarchical one crosses each slow
 * link with the least data, every local rank driving its share.
 *
 * loom_cost_flat_across prices every flat algorithm with one effective
 * class: the slowest link the team spans, divided among the flows of the
 * rank-order ring that cross it at once (the team's shape).  That is exact
 * for the ring, the large-message flat choice, and optimistic for
 * algorithms whose steps put more of a node's ranks on its link at once:
 * the hierarchical form has to beat the flat one at its best.
 */
#ifndef LOOM_COST_LINKS_H
#define LOOM_COST_LINKS_H

#include "coll/core/select/collective.h"
#include "coll/core/select/cost.h"
#include "coll/core/engine/team.h"

typedef enum loom_link_class {
    LOOM_LINK_NODE = 0,     /* inside a node */
    LOOM_LINK_RACK,         /* a node's network link */
    LOOM_LINK_SPINE,        /* a rack's uplink */
    LOOM_LINK_COUNT
} loom_link_class_t;

typedef struct loom_cost_links {
    loom_cost_t cls[LOOM_LINK_COUNT];   /* beta: per byte through that one link */
} loom_cost_links_t;

/* From the settings; an uplink of 0 MB/s is as fast as the largest rack's
 * node links together (not oversubscribed). */
loom_cost_links_t loom_cost_links_from_config(const loom_coll_config_t *cfg,
                                              const loom_team_t *team);

/* The one class a flat algorithm sees on team. */
loom_cost_t loom_cost_flat_across(const loom_cost_links_t *links, const loom_team_t *team);

/* What a selection prices with on team: cfg itself on one node; across
 * nodes, links filled and *flat set to cfg with its one class replaced by
 * loom_cost_flat_across, which is returned.  A caller prices its flat
 * candidates with the result and offers its hierarchical form only when
 * that is not cfg. */
const loom_coll_config_t *loom_cost_links_prepare(const loom_coll_config_t *cfg,
                                                  const loom_team_t *team,
                                                  loom_cost_links_t *links,
                                                  loom_coll_config_t *flat);

/* A collective's selection on p ranks under cfg (loom_<name>_select). */
typedef void (*loom_cost_select_fn_t)(const loom_coll_config_t *cfg, int p, size_t bytes,
                                      int commutative, loom_choice_t *choice_p);

/* The first half of every collective's selection on a team: select's
 * choice with the class the team's flat traffic meets
 * (loom_cost_links_prepare).  Returns 1 where a hierarchical candidate
 * may join it, links then filled to price that: the team spans nodes,
 * neither a setting nor a rule forced the choice, and bytes > 0. */
int loom_cost_select_flat(const loom_coll_config_t *cfg, const loom_team_t *team, size_t bytes,
                          int commutative, loom_cost_select_fn_t select,
                          loom_cost_links_t *links, loom_choice_t *choice_p);

/* The hierarchical bcast (reduce = 0) or reduce (1) of n bytes in
 * segments of seg: chains per level (bcast_hier.c, reduce_hier.c). */
double loom_cost_chain_hier(const loom_cost_links_t *links, const loom_team_t *team,
                            double n, double seg, int reduce);

/* After a flat selection on team, the hierarchical chain of n bytes
 * (bcast: reduce = 0, reduce: 1) offered to *choice_p as hier_alg at each
 * of LOOM_COST_HIER_SEGMENTS, or at seg_setting (the collective's
 * <name>_segment) alone where that is set: bcast and reduce offer their
 * chains the same way.  The caller decides whether the hierarchy is open
 * at all (across nodes, not forced, no rule, n > 0). */
void loom_cost_offer_chain_hier(const loom_cost_links_t *links, const loom_team_t *team,
                                size_t n, size_t seg_setting, int reduce, int hier_alg,
                                loom_choice_t *choice_p);

/* The hierarchical allgather (reduce = 0) of n bytes gathered, or
 * reduce_scatter (1) of n bytes of input per rank (allgather_hier.c,
 * reduce_scatter_hier.c): each level's messages and the bytes that cross
 * its shared link, the levels added. */
double loom_cost_spread_hier(const loom_cost_links_t *links, const loom_team_t *team,
                             double n, int reduce);

/* The most shards (owned[0]) and sub-shards (owned[1]) one rank of the
 * team owns in the hierarchical allreduce (allreduce_hier.c): 1 and 1 on
 * even layouts, more where a small node or rack sits beside a larger one,
 * whose owners then send the messages of several. */
void loom_cost_hier_owned(const loom_team_t *team, int owned[2]);

/* The pipelined hierarchical allreduce of n bytes, seg bytes per message
 * across the slowest level (allreduce_hier.c), on this team's links. */
double loom_cost_allreduce_hier(const loom_cost_links_t *links, const loom_team_t *team,
                                double n, double seg);

/* A hierarchical candidate of cost t with segment seg offered to any
 * collective's choice (the fields alg, seg_bytes, cost_s, next_alg,
 * next_cost_s of loom_choice_t): taken when cheaper, the flat
 * pick becoming the runner-up the verbose line names. */
#define LOOM_COST_OFFER(choice, hier_alg, seg, t)                        \
    do {                                                                \
        if ((t) < (choice)->cost_s) {                                   \
            if ((choice)->alg != (hier_alg)) {                          \
                (choice)->next_alg = (choice)->alg;                     \
                (choice)->next_cost_s = (choice)->cost_s;               \
            }                                                           \
            (choice)->alg = (hier_alg);                                 \
            (choice)->seg_bytes = (seg);                                \
            (choice)->cost_s = (t);                                     \
        }                                                               \
    } while (0)

/* Segment sizes the hierarchical pipelines are priced at. */
#define LOOM_COST_HIER_SEGMENTS { 64u << 10, 256u << 10, 1u << 20 }

#endif
