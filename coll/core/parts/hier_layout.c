#include "coll/core/parts/hier_layout.h"

/* Group members by group_of[] into size/start/list, taking them in the
 * sequence seq[0..n-1] (NULL: 0..n-1), so each group lists its members in
 * that sequence (a counting sort: stable); returns the largest group. */
static int loom_hier_group(int n, int ngroups, const int *group_of, const int *seq, int *size,
                           int *start, int *list)
{
    int i, g, m, largest = 0;

    for (g = 0; g < ngroups; ++g) {
        size[g] = 0;
    }
    for (i = 0; i < n; ++i) {
        ++size[group_of[i]];
    }
    for (g = 0; g < ngroups; ++g) {
        start[g] = g == 0 ? 0 : start[g - 1] + size[g - 1];
        largest = size[g] > largest ? size[g] : largest;
    }
    for (g = 0; g < ngroups; ++g) {
        size[g] = 0; /* refilled below, as a cursor */
    }
    for (i = 0; i < n; ++i) {
        m = seq != NULL ? seq[i] : i;
        g = group_of[m];
        list[start[g] + size[g]++] = m;
    }
    return largest;
}

loom_status_t loom_hier_layout_init(loom_hier_layout_t *l, const loom_team_t *team,
                                    loom_sched_t *sched, int extra_ints, int **extra_p)
{
    return loom_hier_layout_init_ordered(l, team, sched, NULL, extra_ints, extra_p);
}

loom_status_t loom_hier_layout_init_ordered(loom_hier_layout_t *l, const loom_team_t *team,
                                            loom_sched_t *sched, const loom_order_t *order,
                                            int extra_ints, int **extra_p)
{
    int *ints, *rack_of_node, *node_seq = NULL, i, x, y, n;
    loom_status_t status;

    l->p = team->size;
    l->N = team->num_nodes;
    l->R = team->num_racks;
    l->me = team->rank;
    status = loom_sched_alloc_ints(sched, 5 * l->N + l->p + 4 * l->R + extra_ints, &ints);
    if (status != LOOM_OK) {
        return status;
    }
    l->node_size = ints;
    l->node_start = l->node_size + l->N;
    l->node_ranks = l->node_start + l->N;
    l->rack_size = l->node_ranks + l->p;
    l->rack_start = l->rack_size + l->R;
    l->rack_nodes = l->rack_start + l->R;
    l->rack_at = l->rack_nodes + l->N;
    l->rack_pos = l->rack_at + l->R;
    rack_of_node = l->rack_pos + l->R;
    if (extra_p != NULL) {
        *extra_p = rack_of_node + 2 * l->N;
    }
    /* Ranks in position order within each node. */
    l->max_node = loom_hier_group(l->p, l->N, team->node_of, order != NULL ? order->at : NULL,
                                  l->node_size, l->node_start, l->node_ranks);
    for (i = 0; i < l->p; ++i) {
        rack_of_node[team->node_of[i]] = team->rack_of[i];
    }
    if (order != NULL) {
        /* Nodes in the order of their first position (at the identity
         * that is ascending: nodes are numbered by the first appearance
         * of their ranks); rack_nodes, filled by the grouping below,
         * marks the nodes seen meanwhile. */
        node_seq = rack_of_node + l->N;
        for (x = 0; x < l->N; ++x) {
            l->rack_nodes[x] = 0;
        }
        for (i = 0, n = 0; i < l->p; ++i) {
            x = team->node_of[order->at[i]];
            if (!l->rack_nodes[x]) {
                l->rack_nodes[x] = 1;
                node_seq[n++] = x;
            }
        }
    }
    l->max_rack = loom_hier_group(l->N, l->R, rack_of_node, node_seq, l->rack_size,
                                  l->rack_start, l->rack_nodes);
    /* Racks in the order of their first position, as nodes; without an
     * order in the team's numbering (which is that order at the
     * identity: racks too are numbered by the first appearance of their
     * ranks).  rack_pos is -1 for a rack not seen yet. */
    for (y = 0; y < l->R; ++y) {
        l->rack_at[y] = y;
        l->rack_pos[y] = order != NULL ? -1 : y;
    }
    for (i = 0, n = 0; order != NULL && i < l->p; ++i) {
        y = team->rack_of[order->at[i]];
        if (l->rack_pos[y] < 0) {
            l->rack_pos[y] = n;
            l->rack_at[n++] = y;
        }
    }
    l->me_node = team->node_of[l->me];
    l->me_rack = team->rack_of[l->me];
    l->me_rack_pos = l->rack_pos[l->me_rack];
    for (i = 0; loom_hier_rank(l, l->me_node, i) != l->me; ++i) {
    }
    l->me_local = i;
    for (x = 0; loom_hier_node(l, l->me_rack, x) != l->me_node; ++x) {
    }
    l->me_node_in_rack = x;
    return LOOM_OK;
}

void loom_hier_index_init(loom_hier_index_t *ix, const loom_hier_layout_t *l,
                          const loom_team_t *team, int *ints)
{
    int x, y, i;

    ix->lay = l;
    ix->node_of = team->node_of;
    ix->rack_of = team->rack_of;
    ix->local_of = ints;
    ix->node_pos = ints + l->p;
    for (x = 0; x < l->N; ++x) {
        for (i = 0; i < l->node_size[x]; ++i) {
            ix->local_of[loom_hier_rank(l, x, i)] = i;
        }
    }
    for (y = 0; y < l->R; ++y) {
        for (i = 0; i < l->rack_size[y]; ++i) {
            ix->node_pos[loom_hier_node(l, y, i)] = i;
        }
    }
}

void loom_hier_chain_links(const loom_hier_index_t *ix, int root, loom_hier_links_t *links_p)
{
    const loom_hier_layout_t *l = ix->lay;
    loom_hier_links_t k = { .up = -1, .down = { -1, -1, -1 } };
    int w = l->me_rack, y = l->me_node, R = l->R, M = l->rack_size[w];
    int n = l->node_size[y], chain_pos, node_pos, local_pos, h, g, x, v;

    h = loom_hier_rack_holder(ix, w, root);
    g = loom_hier_node_holder(ix, y, root);
    /* Local chain: from the node holder on, in local order. */
    local_pos = (l->me_local - ix->local_of[g] + n) % n;
    if (local_pos > 0) {
        k.up = loom_hier_rank(l, y, (l->me_local + n - 1) % n);
    }
    if (local_pos < n - 1) {
        k.down[2] = loom_hier_rank(l, y, (l->me_local + 1) % n);
    }
    if (l->me == g) {
        /* Node chain: from the rack holder's node on, in rack order. */
        node_pos = (l->me_node_in_rack - ix->node_pos[ix->node_of[h]] + M) % M;
        if (node_pos > 0) {
            x = loom_hier_node(l, w, (l->me_node_in_rack + M - 1) % M);
            k.up = loom_hier_node_holder(ix, x, root);
        }
        if (node_pos < M - 1) {
            x = loom_hier_node(l, w, (l->me_node_in_rack + 1) % M);
            k.down[1] = loom_hier_node_holder(ix, x, root);
        }
    }
    if (l->me == h) {
        /* Rack chain: from the root's rack on, in the order of rack
         * positions (cyclic). */
        v = l->me_rack_pos;
        chain_pos = (v - l->rack_pos[ix->rack_of[root]] + R) % R;
        if (chain_pos > 0) {
            k.up = loom_hier_rack_holder(ix, l->rack_at[(v + R - 1) % R], root);
        }
        if (chain_pos < R - 1) {
            k.down[0] = loom_hier_rack_holder(ix, l->rack_at[(v + 1) % R], root);
        }
    }
    *links_p = k;
}
