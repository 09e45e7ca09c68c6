#include "coll/core/select/cost_links.h"
#include "coll/core/allreduce/allreduce.h"

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

loom_cost_t loom_cost_flat_across(const loom_cost_links_t *links, const loom_team_t *team)
{
    const loom_team_shape_t *sh = &team->shape;
    loom_cost_t c = links->cls[LOOM_LINK_NODE];

    if (team->num_nodes > 1) {
        c.alpha = fmax(c.alpha, links->cls[LOOM_LINK_RACK].alpha);
        c.beta = fmax(c.beta, links->cls[LOOM_LINK_RACK].beta * sh->ring_nic);
    }
    if (team->num_racks > 1) {
        c.alpha = fmax(c.alpha, links->cls[LOOM_LINK_SPINE].alpha);
        c.beta = fmax(c.beta, links->cls[LOOM_LINK_SPINE].beta * sh->ring_uplink);
    }
    return c;
}

/* The schedule's own formula (allreduce_hier.c), each level's beta that
 * of the one link its flows share.  Across racks a node's link carries its
 * l owners' part, 1/m of the rack's, so the slower of uplink and node
 * link over m bounds that level. */
/* ceil(most / least): how many of the largest group's items the smallest
 * group's members each take when items are dealt round-robin. */
static int loom_cost_deal(int most, int least)
{
    return least > 0 ? (most + least - 1) / least : most;
}

void loom_cost_hier_owned(const loom_team_t *team, int owned[2])
{
    const loom_team_shape_t *sh = &team->shape;

    owned[0] = loom_cost_deal(sh->max_node, sh->min_node);
    owned[1] = team->num_racks > 1 ? owned[0] * loom_cost_deal(sh->max_rack, sh->min_rack)
                                   : owned[0];
}

double loom_cost_allreduce_hier(const loom_cost_links_t *links, const loom_team_t *team,
                                double n, double seg)
{
    int m = team->num_racks > 1 ? team->shape.max_rack : team->num_nodes, owned[2];
    loom_cost_t cls[3];

    loom_cost_hier_owned(team, owned);
    cls[0] = links->cls[LOOM_LINK_NODE];
    cls[1] = links->cls[LOOM_LINK_RACK];
    cls[2] = links->cls[LOOM_LINK_SPINE];
    cls[2].beta = fmax(cls[2].beta, cls[1].beta / m);
    return loom_allreduce_hier_cost(cls, team->shape.max_node, m, team->num_racks, owned, n,
                                    seg);
}

static loom_coll_config_t loom_cost_links_flat_config(const loom_coll_config_t *cfg,
                                                      const loom_cost_links_t *links,
                                                      const loom_team_t *team)
{
    loom_coll_config_t flat = *cfg;
    loom_cost_t across = loom_cost_flat_across(links, team);

    flat.cost_alpha_ns = (int)fmin(across.alpha * 1e9, 1e8);
    flat.cost_bandwidth_mbs = (int)fmax(1.0, 1.0 / (across.beta * 1e6));
    return flat;
}

const loom_coll_config_t *loom_cost_links_prepare(const loom_coll_config_t *cfg,
                                                  const loom_team_t *team,
                                                  loom_cost_links_t *links,
                                                  loom_coll_config_t *flat)
{
    if (team->num_nodes <= 1) {
        return cfg;
    }
    *links = loom_cost_links_from_config(cfg, team);
    *flat = loom_cost_links_flat_config(cfg, links, team);
    return flat;
}

int loom_cost_select_flat(const loom_coll_config_t *cfg, const loom_team_t *team, size_t bytes,
                          int commutative, loom_cost_select_fn_t select,
                          loom_cost_links_t *links, loom_choice_t *choice_p)
{
    loom_coll_config_t flat;
    const loom_coll_config_t *use = loom_cost_links_prepare(cfg, team, links, &flat);

    select(use, team->size, bytes, commutative, choice_p);
    return use != cfg && !choice_p->forced && choice_p->rule < 0 && bytes > 0;
}

/* Racks, nodes per rack (all nodes with one rack) and ranks per node of
 * the largest of each. */
static void loom_cost_levels(const loom_team_t *team, double *R, double *M, double *l)
{
    *R = team->num_racks;
    *M = team->num_racks > 1 ? team->shape.max_rack : team->num_nodes;
    *l = team->shape.max_node;
}

double loom_cost_chain_hier(const loom_cost_links_t *links, const loom_team_t *team,
                            double n, double seg, int reduce)
{
    const loom_cost_t *in = &links->cls[LOOM_LINK_NODE], *nic = &links->cls[LOOM_LINK_RACK];
    const loom_cost_t *up = &links->cls[LOOM_LINK_SPINE];
    double R, M, l, s = loom_cost_nseg(n, seg), b = n / s, alpha = in->alpha, beta = in->beta;

    loom_cost_levels(team, &R, &M, &l);
    /* A rack's holder forwards each segment on the rack chain and the
     * node chain, both through its node's link. */
    if (team->num_nodes > 1) {
        alpha = fmax(alpha, nic->alpha);
        beta = fmax(beta, (R > 1 ? 2 : 1) * nic->beta);
    }
    if (R > 1) {
        alpha = fmax(alpha, up->alpha);
        beta = fmax(beta, up->beta);
    }
    /* A rank on all three chains reduces three partial results. */
    if (reduce) {
        beta = fmax(beta, 3 * in->gamma);
    }
    return (R - 1 + M - 1 + l - 1 + s - 1) * (alpha + b * beta);
}

void loom_cost_offer_chain_hier(const loom_cost_links_t *links, const loom_team_t *team,
                                size_t n, size_t seg_setting, int reduce, int hier_alg,
                                loom_choice_t *choice_p)
{
    static const size_t segs[] = LOOM_COST_HIER_SEGMENTS;
    size_t i, seg;

    for (i = 0; i < sizeof(segs) / sizeof(segs[0]); ++i) {
        seg = seg_setting > 0 ? seg_setting : segs[i];
        LOOM_COST_OFFER(choice_p, hier_alg, seg,
                        loom_cost_chain_hier(links, team, (double)n, (double)seg, reduce));
    }
}

double loom_cost_spread_hier(const loom_cost_links_t *links, const loom_team_t *team,
                             double n, int reduce)
{
    const loom_cost_t *in = &links->cls[LOOM_LINK_NODE], *nic = &links->cls[LOOM_LINK_RACK];
    const loom_cost_t *up = &links->cls[LOOM_LINK_SPINE];
    double R, M, l, g = reduce ? in->gamma : 0, t;

    loom_cost_levels(team, &R, &M, &l);
    /* Inside a node: R M (l-1) messages, (l-1)/l n through each rank's path. */
    t = R * M * (l - 1) * in->alpha + (l - 1) / l * n * (in->beta + g);
    /* Between a rack's nodes: (M-1)/M n through each node's link. */
    t += R * (M - 1) * nic->alpha + (M - 1) / M * n * (nic->beta + g / l);
    /* Between racks: (R-1)/R n through each uplink, and 1/M of it through
     * each of the rack's node links. */
    if (R > 1) {
        t += (R - 1) * up->alpha + (R - 1) / R * n * (fmax(up->beta, nic->beta / M) + g / (l * M));
    }
    return t;
}
