/*
 * Where every rank of a team sits in the hierarchy, as the hierarchical
 * schedules need it: ranks grouped by node, nodes grouped by rack, each
 * group in ascending order, and this rank's place in both.
 *
 *   racks:  rack 0 = nodes {0, 1}       rack 1 = nodes {2}
 *   nodes:  node 0 = ranks {0, 3}  node 1 = ranks {1, 4}  node 2 = {2}
 *
 * Every rank computes the same layout from the team (node_of, rack_of),
 * so every rank agrees on who owns what.  The arrays live in the
 * schedule's integer pool (one per schedule) and die with it.
 */
#ifndef LOOM_HIER_LAYOUT_H
#define LOOM_HIER_LAYOUT_H

#include "sched.h"
#include "team.h"

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
    int     max_node;       /* ranks on the largest node */
    int     max_rack;       /* nodes in the largest rack */
    int     me;             /* this rank */
    int     me_node;        /* its node */
    int     me_local;       /* its index among its node's ranks */
    int     me_rack;        /* its rack */
    int     me_node_in_rack;/* its node's index among its rack's nodes */
} loom_hier_layout_t;

/* Fill l from the team; the schedule's integer pool holds the layout and,
 * after it, extra_ints more for the caller at *extra_p (which may be NULL
 * when extra_ints is 0): a schedule has one pool. */
loom_status_t loom_hier_layout_init(loom_hier_layout_t *l, const loom_team_t *team,
                                    loom_sched_t *sched, int extra_ints, int **extra_p);

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

#endif
