/*
 * Choosing a bcast algorithm and segment size.
 *
 * The cost model (cost.h) prices each candidate with the formula in its
 * file's header and takes the cheapest; the chain also tries several
 * segment sizes.  Inputs: the byte count, the rank count and the
 * settings, equal on every rank, so every rank makes the same choice.  A
 * forced algorithm or segment in the settings overrides the model, and a
 * user rule (rules.h) overrides both.
 */
#include "coll/core/bcast/bcast.h"
#include "coll/core/select/cost_links.h"
#include "coll/core/select/cost.h"
#include "coll/core/select/rules.h"

#include <math.h>

/* Segment sizes the chain is priced with; the first is also its default
 * when forced without a segment setting. */
static const size_t loom_bcast_segments[] = { 64 << 10, 16 << 10, 256 << 10, 1 << 20 };
#define LOOM_BCAST_NSEGS (sizeof(loom_bcast_segments) / sizeof(loom_bcast_segments[0]))

static double loom_cost_bcast_binomial(const loom_cost_t *c, int p, double n)
{
    return loom_log2_ceil(p) * (c->alpha + n * c->beta);
}

static double loom_cost_bcast_chain(const loom_cost_t *c, int p, double n, double seg)
{
    double s = loom_cost_nseg(n, seg), piece = n / s;

    return p <= 1 ? 0 : (p - 2 + s) * (c->alpha + piece * c->beta);
}

static double loom_cost_bcast_scatter_allgather(const loom_cost_t *c, int p, double n)
{
    return p <= 1 ? 0 : (loom_log2_ceil(p) + p - 1) * c->alpha +
                        2.0 * (p - 1) / p * n * c->beta;
}

void loom_bcast_select(const loom_coll_config_t *cfg, int p, size_t bytes,
                       int commutative, loom_choice_t *choice_p)
{
    loom_cost_t c = loom_cost_from_config(cfg);
    double n = (double)bytes;
    loom_cost_pick_t pick = loom_cost_pick_first(LOOM_BCAST_BINOMIAL, 0,
                                                 loom_cost_bcast_binomial(&c, p, n));
    loom_choice_t best = { .forced = 0 };
    const loom_rule_t *rule = loom_rules_match(cfg->rules, LOOM_COLL_BCAST, bytes, p);
    size_t i;

    (void)commutative;  /* nothing is reduced */

    if (cfg->bcast_algorithm != LOOM_BCAST_AUTO) {
        pick.alg = cfg->bcast_algorithm;
        best.forced = 1;
    } else {
        loom_cost_pick_consider(&pick, LOOM_BCAST_SCATTER_ALLGATHER, 0,
                                loom_cost_bcast_scatter_allgather(&c, p, n));
        for (i = 0; i < LOOM_BCAST_NSEGS; ++i) {
            loom_cost_pick_consider(&pick, LOOM_BCAST_CHAIN, loom_bcast_segments[i],
                                    loom_cost_bcast_chain(&c, p, n,
                                                          (double)loom_bcast_segments[i]));
        }
    }
    /* A rule is more specific than the settings; "auto" in a rule keeps
     * the choice so far and may set only the segment. */
    best.rule = loom_rules_find(cfg->rules, LOOM_COLL_BCAST, bytes, p);
    if (rule != NULL && rule->alg != LOOM_BCAST_AUTO) {
        pick.alg = rule->alg;
        pick.seg_bytes = 0;
        best.forced = 1;
    }
    best.alg = pick.alg;
    best.seg_bytes = pick.seg_bytes;
    best.cost_s = pick.cost_s;
    best.next_alg = pick.next_alg;
    best.next_cost_s = pick.next_cost_s;
    if (loom_bcast_algorithms[best.alg].segmented) {
        if (best.seg_bytes == 0) {
            best.seg_bytes = loom_bcast_segments[0];
        }
        if (cfg->bcast_segment > 0) {
            best.seg_bytes = cfg->bcast_segment;
        }
        if (rule != NULL && rule->seg_bytes > 0) {
            best.seg_bytes = rule->seg_bytes;
        }
    } else {
        best.seg_bytes = 0;
    }
    best.depth = 0;
    *choice_p = best;
}

/* Across nodes: the flat candidates priced with the class they meet, and
 * the hierarchical chains offered (cost_links.h). */
void loom_bcast_select_team(const loom_coll_config_t *cfg, const loom_team_t *team,
                            size_t bytes, int commutative, loom_choice_t *choice_p)
{
    loom_cost_links_t links;

    if (loom_cost_select_flat(cfg, team, bytes, commutative, loom_bcast_select, &links,
                              choice_p)) {
        loom_cost_offer_chain_hier(&links, team, bytes, cfg->bcast_segment, 0,
                                   LOOM_BCAST_HIER, choice_p);
    }
}
