#include "cost_links.h"

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

/* One level: a reduce-scatter and an allgather among m members, each
 * moving x bytes in all (m-1)/m of which leave it, flows sharing the link
 * (beta already scaled), and the reduction of the received part. */
static double loom_cost_level(const loom_cost_t *c, int m, double x)
{
    if (m <= 1) {
        return 0;
    }
    return 2 * (m - 1) * (c->alpha + x / m * c->beta) + (m - 1) * (x / m) * c->gamma;
}

double loom_cost_allreduce_hier(const loom_cost_links_t *links, const loom_team_t *team,
                                double n, double seg)
{
    const loom_team_shape_t *sh = &team->shape;
    int l = sh->max_node, k = team->num_racks > 1 ? sh->max_rack : team->num_nodes;
    int R = team->num_racks;
    loom_cost_t node = links->cls[LOOM_LINK_NODE], rack = links->cls[LOOM_LINK_RACK];
    loom_cost_t spine = links->cls[LOOM_LINK_SPINE];
    double t[3], whole[3], s = seg > 0 && seg < n ? seg : n;
    int i, slow = 0;

    /* Inside the node each rank reduces and hands out its 1/l share. */
    t[0] = loom_cost_level(&node, l, s);
    whole[0] = loom_cost_level(&node, l, n);
    /* Between the rack's nodes: each of the l owners moves its shard n/l
     * over the node's one link, l flows at once: n per node in all. */
    rack.beta *= l;
    t[1] = loom_cost_level(&rack, k, s / l);
    whole[1] = loom_cost_level(&rack, k, n / l);
    /* Between racks: l k owners per rack share the uplink, n/R per step,
     * and each node's link carries its l owners' share. */
    spine.beta = fmax(spine.beta * l * k, rack.beta);
    t[2] = R > 1 ? loom_cost_level(&spine, R, s / (l * k)) : 0;
    whole[2] = R > 1 ? loom_cost_level(&spine, R, n / (l * k)) : 0;
    for (i = 1; i < 3; ++i) {
        slow = whole[i] > whole[slow] ? i : slow;
    }
    /* Pipelined: the slowest level streams the whole message while the
     * others each add one segment's time (filling and draining). */
    return whole[slow] + t[0] + t[1] + t[2] - t[slow];
}
