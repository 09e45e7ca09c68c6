#include "cost_links.h"
#include "allreduce.h"

#include <math.h>

loom_cost_links_t loom_cost_links_from_config(const loom_coll_config_t *cfg,
                                              const loom_team_t *team)
{
    loom_cost_links_t l;
    double nic = cfg->cost_rack_bandwidth_mbs * 1e6, uplink = cfg->cost_spine_bandwidth_mbs * 1e6;

    l.cls[LOOM_LINK_NODE] = loom_cost_from_config(cfg);
    l.cls[LOOM_LINK_RACK] = (loom_cost_t){ .alpha = cfg->cost_rack_alpha_ns * 1e-9,
                                           .beta = 1.0 / nic,
                                           .gamma = l.cls[LOOM_LINK_NODE].gamma };
    if (uplink <= 0) {
        uplink = nic * (team->shape.max_rack > 0 ? team->shape.max_rack : 1);
    }
    l.cls[LOOM_LINK_SPINE] = (loom_cost_t){ .alpha = cfg->cost_spine_alpha_ns * 1e-9,
                                            .beta = 1.0 / uplink,
                                            .gamma = l.cls[LOOM_LINK_NODE].gamma };
    return l;
}

loom_cost_t loom_cost_flat_across(const loom_cost_links_t *links, const loom_team_t *team,
                                  int ring)
{
    const loom_team_shape_t *sh = &team->shape;
    loom_cost_t c = links->cls[LOOM_LINK_NODE];
    int nic_flows = ring ? sh->ring_nic : sh->max_node;
    int uplink_flows = ring ? sh->ring_uplink : sh->max_rack_ranks;

    if (team->num_nodes > 1) {
        c.alpha = fmax(c.alpha, links->cls[LOOM_LINK_RACK].alpha);
        c.beta = fmax(c.beta, links->cls[LOOM_LINK_RACK].beta * nic_flows);
    }
    if (team->num_racks > 1) {
        c.alpha = fmax(c.alpha, links->cls[LOOM_LINK_SPINE].alpha);
        c.beta = fmax(c.beta, links->cls[LOOM_LINK_SPINE].beta * uplink_flows);
    }
    return c;
}

/* The schedule's own formula (allreduce_hier.c), each level's beta that
 * of the one link its flows share.  Across racks a node's link carries its
 * l owners' part, 1/m of the rack's, so the slower of uplink and node
 * link over m bounds that level. */
double loom_cost_allreduce_hier(const loom_cost_links_t *links, const loom_team_t *team,
                                double n, double seg)
{
    int m = team->num_racks > 1 ? team->shape.max_rack : team->num_nodes;
    loom_cost_t cls[3];

    cls[0] = links->cls[LOOM_LINK_NODE];
    cls[1] = links->cls[LOOM_LINK_RACK];
    cls[2] = links->cls[LOOM_LINK_SPINE];
    cls[2].beta = fmax(cls[2].beta, cls[1].beta / m);
    return loom_allreduce_hier_cost(cls, team->shape.max_node, m, team->num_racks, n, seg);
}
