/*
 * Where every rank of a team sits in the hierarchy, as the hierarchical
 * schedules need it: ranks grouped by node, nodes grouped by rack, each
 * group in ascending order, racks in ascending order (all in position
 * order under a rank order, loom_hier_layout_init_ordered), and this
 * rank's place in both.
 *
 *   racks:  rack 0 = nodes {0, 1}       rack 1 = nodes {2}
 *   nodes:  node 0 = ranks {0, 3}  node 1 = ranks {1, 4}  node 2 = {2}
 *   rack positions: rack 0 first, then rack 1
 *
 * Every rank computes the same layout from the team (node_of, rack_of),
 * so every rank agrees on who owns what.  The arrays live in the
 * schedule's integer pool (one per schedule) and die with it.
 */
#ifndef LOOM_HIER_LAYOUT_H
#define LOOM_HIER_LAYOUT_H

#include "coll/core/engine/sched.h"
#include "coll/core/engine/team.h"

typedef struct loom_hier_layout {
    int     p;              /* team size */
    int     N;              /* nodes */
    int     R;              /* racks */
    int     *node_size;     /* per node: its ranks */
    int     *node_start;    /* per node: offset into node_ranks */
    int     *node_ranks;    /* ranks grouped by node, ascending within a node */
    int     *rack_size;     /* per rack: its nodes */
    int     *rack_start;    /* per rack: offset into rack_nodes */
    int     *rack_nodes;    /* nodes grouped by rack, ascending within a rack */
    int     *rack_at;       /* per rack position: the rack there (ascending) */
    int     *rack_pos;      /* per rack: its rack position */
    int     max_node;       /* ranks on the largest node */
    int     max_rack;       /* nodes in the largest rack */
    int     me;             /* this rank */
    int     me_node;        /* its node */
    int     me_local;       /* its index among its node's ranks */
    int     me_rack;        /* its rack */
    int     me_rack_pos;    /* its rack's position */
    int     me_node_in_rack;/* its node's index among its rack's nodes */
} loom_hier_layout_t;

/* Fill l from the team; the schedule's integer pool holds the layout and,
 * after it, extra_ints more for the caller at *extra_p (which may be NULL
 * when extra_ints is 0): a schedule has one pool.  Ranks, nodes and racks
 * in ascending order, whatever the team's rank order. */
loom_status_t loom_hier_layout_init(loom_hier_layout_t *l, const loom_team_t *team,
                                    loom_sched_t *sched, int extra_ints, int **extra_p);

/* The same under a rank order (team.h; NULL: the identity, the layout
 * above): each node lists its ranks in position order, each rack its
 * nodes in the order of their first position, and rack_at the racks in
 * the order of their first position.  Every node and rack index stays
 * the team's: an algorithm walks racks by rack position (rack_at,
 * rack_pos), never by index.  A plan passes loom_sched_order (or
 * loom_sched_reduce_order) of its schedule. */
loom_status_t loom_hier_layout_init_ordered(loom_hier_layout_t *l, const loom_team_t *team,
                                            loom_sched_t *sched, const loom_order_t *order,
                                            int extra_ints, int **extra_p);

/* Local rank i of node x (0 <= i < node_size[x]). */
static inline int loom_hier_rank(const loom_hier_layout_t *l, int x, int i)
{
    return l->node_ranks[l->node_start[x] + i];
}

/* Node i of rack y (0 <= i < rack_size[y]). */
static inline int loom_hier_node(const loom_hier_layout_t *l, int y, int i)
{
    return l->rack_nodes[l->rack_start[y] + i];
}

/* The rank of node x that owns item s of some level when items are dealt
 * round-robin to the node's ranks: nodes of uneven size still line up. */
static inline int loom_hier_owner(const loom_hier_layout_t *l, int x, int s)
{
    return loom_hier_rank(l, x, s % l->node_size[x]);
}

/* The node of rack y that owns item t of the rack level when items are
 * dealt round-robin to the rack's nodes: racks of uneven node counts
 * still line up. */
static inline int loom_hier_rack_node(const loom_hier_layout_t *l, int y, int t)
{
    return loom_hier_node(l, y, t % l->rack_size[y]);
}

/*
 * Holders: who stands for a rank q's data on every rack and node, so that
 * a message crosses each slow level once and the receiving ends are
 * spread over all ranks.  q has local index j on its node, and its node
 * index k in its rack.  Rack w's holder of q is q itself on q's rack,
 * elsewhere local rank j (mod size) of rack w's node k (mod size); node
 * y's holder is its rack's holder when that one lives on y, elsewhere
 * local rank j (mod size) of y.  The ranks of one node are dealt to
 * different local ranks of every other node, and the nodes of one rack to
 * different nodes of every other rack: every rank drives a share.
 *
 *   rack 0: node 0 = {q0, q1}        rack 1: node 2 = {t0, t1, t2}
 *           node 1 = {q2}                    node 3 = {t3}
 *   rack 1's holder of q1 (j = 1, k = 0) is t1, of q2 (j = 0, k = 1) t3;
 *   node 3's holder of q1 is t3, node 2's holder of q2 is t0.
 */
typedef struct loom_hier_index {
    const loom_hier_layout_t *lay;
    const int   *node_of;       /* the team's: node of each rank */
    const int   *rack_of;       /* the team's: rack of each rank */
    int         *local_of;      /* per rank: its index among its node's ranks */
    int         *node_pos;      /* per node: its index among its rack's nodes */
} loom_hier_index_t;

/* Ints the index needs, to ask loom_hier_layout_init for as extra ints. */
static inline int loom_hier_index_ints(const loom_team_t *team)
{
    return team->size + team->num_nodes;
}

/* Fill ix for layout l of team; ints: loom_hier_index_ints(team) of them. */
void loom_hier_index_init(loom_hier_index_t *ix, const loom_hier_layout_t *l,
                          const loom_team_t *team, int *ints);

/* Rack w's holder of rank q's data. */
static inline int loom_hier_rack_holder(const loom_hier_index_t *ix, int w, int q)
{
    const loom_hier_layout_t *l = ix->lay;
    int x;

    if (w == ix->rack_of[q]) {
        return q;
    }
    x = loom_hier_node(l, w, ix->node_pos[ix->node_of[q]] % l->rack_size[w]);
    return loom_hier_owner(l, x, ix->local_of[q]);
}

/* Node y's holder of rank q's data. */
static inline int loom_hier_node_holder(const loom_hier_index_t *ix, int y, int q)
{
    int h = loom_hier_rack_holder(ix, ix->rack_of[loom_hier_rank(ix->lay, y, 0)], q);

    return ix->node_of[h] == y ? h : loom_hier_owner(ix->lay, y, ix->local_of[q]);
}

/* The tag of rank q's block on its way to rank dst: q's offset from dst.
 * A pair of ranks carries each block at most once, so the tag is unique
 * per pair; and it does not change when the whole layout is rotated, so
 * rank r + d's schedule is rank r's with its peers rotated (loom-sim
 * folds such runs onto one rack). */
static inline uint32_t loom_hier_block_tag(int p, int q, int dst)
{
    return (uint32_t)((q - dst + p) % p);
}

/*
 * Per-level chains from a root, for pipelined rooted collectives: racks
 * in rack position order (cyclic) from the root's, each standing by its
 * holder of the root; in each rack its nodes in order (cyclic) from the
 * rack holder's node, each standing by its node holder; in each node its
 * ranks in order (cyclic) from the node holder.  A rank has one link up
 * (at the highest level where it is not first) and up to one link down
 * per level it is on.
 *
 *   root -> rack 1's holder -> rack 2's holder        (racks)
 *     |            '-> next node's holder -> ...      (nodes of rack 1)
 *     '-> next local rank -> ...                      (ranks of a node)
 */
typedef struct loom_hier_links {
    int     up;             /* -1: this is the root */
    int     down[3];        /* next on the rack, node and local chain; -1: none */
} loom_hier_links_t;

void loom_hier_chain_links(const loom_hier_index_t *ix, int root, loom_hier_links_t *links_p);

#endif
