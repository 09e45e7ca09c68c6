#include "hier_layout.h"

/* Group members 0..n-1 by group_of[] into size/start/list (counting sort:
 * stable, so each group stays ascending); returns the largest group. */
static int loom_hier_group(int n, int ngroups, const int *group_of, int *size, int *start,
                           int *list)
{
    int i, g, largest = 0;

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
        g = group_of[i];
        list[start[g] + size[g]++] = i;
    }
    return largest;
}

loom_status_t loom_hier_layout_init(loom_hier_layout_t *l, const loom_team_t *team,
                                    loom_sched_t *sched, int extra_ints, int **extra_p)
{
    int *ints, *rack_of_node, i, x;
    loom_status_t status;

    l->p = team->size;
    l->N = team->num_nodes;
    l->R = team->num_racks;
    l->me = team->rank;
    status = loom_sched_alloc_ints(sched, 4 * l->N + l->p + 2 * l->R + extra_ints, &ints);
    if (status != LOOM_OK) {
        return status;
    }
    l->node_size = ints;
    l->node_start = l->node_size + l->N;
    l->node_ranks = l->node_start + l->N;
    l->rack_size = l->node_ranks + l->p;
    l->rack_start = l->rack_size + l->R;
    l->rack_nodes = l->rack_start + l->R;
    rack_of_node = l->rack_nodes + l->N;
    if (extra_p != NULL) {
        *extra_p = rack_of_node + l->N;
    }
    l->max_node = loom_hier_group(l->p, l->N, team->node_of, l->node_size, l->node_start,
                                  l->node_ranks);
    for (i = 0; i < l->p; ++i) {
        rack_of_node[team->node_of[i]] = team->rack_of[i];
    }
    l->max_rack = loom_hier_group(l->N, l->R, rack_of_node, l->rack_size, l->rack_start,
                                  l->rack_nodes);
    l->me_node = team->node_of[l->me];
    l->me_rack = team->rack_of[l->me];
    for (i = 0; loom_hier_rank(l, l->me_node, i) != l->me; ++i) {
    }
    l->me_local = i;
    for (x = 0; loom_hier_node(l, l->me_rack, x) != l->me_node; ++x) {
    }
    l->me_node_in_rack = x;
    return LOOM_OK;
}
