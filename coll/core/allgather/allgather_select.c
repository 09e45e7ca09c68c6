/*
 * Choosing an allgather algorithm and segment size.
 *
 * The cost model prices each candidate with alpha (per message), beta (per
 * byte moved) and gamma (per byte reduced, here per byte copied locally:
 * a copy runs at least as fast as a reduction), the formulas in each
 * algorithm's header, and takes the cheapest.  Its inputs are the total
 * byte count, the rank count and the settings: the same on every rank, so
 * every rank makes the same choice.  A forced algorithm or segment size in
 * the settings overrides the model, and a user rule (rules.h) overrides
 * both.
 */
#include "coll/core/allgather/allgather.h"
#include "coll/core/select/cost_links.h"
#include "coll/core/select/rules.h"

#include <math.h>

static double loom_ag_cost_bruck(const loom_cost_t *c, int p, double n)
{
    return loom_log2_ceil(p) * c->alpha + (double)(p - 1) / p * n * c->beta + n * c->gamma;
}

/* Unsegmented: segments only add alphas in this model (see allgather_ring.c). */
static double loom_ag_cost_ring(const loom_cost_t *c, int p, double n)
{
    return (p - 1) * c->alpha + (double)(p - 1) / p * n * c->beta;
}

void loom_allgather_select(const loom_coll_config_t *cfg, int p, size_t total_bytes,
                           int commutative, loom_choice_t *choice_p)
{
    loom_cost_t c = loom_cost_from_config(cfg);
    double n = (double)total_bytes;
    double cost[LOOM_ALLGATHER_ALG_COUNT] = {
        [LOOM_ALLGATHER_BRUCK] = loom_ag_cost_bruck(&c, p, n),
        [LOOM_ALLGATHER_RING] = loom_ag_cost_ring(&c, p, n),
    };
    loom_choice_t best = { .next_alg = LOOM_ALLGATHER_AUTO,
                           .next_cost_s = HUGE_VAL };
    const loom_rule_t *rule = loom_rules_match(cfg->rules, LOOM_COLL_ALLGATHER,
                                               total_bytes, p);
    int alg;

    (void)commutative;  /* nothing is reduced */

    if (cfg->allgather_algorithm != LOOM_ALLGATHER_AUTO) {
        best.alg = cfg->allgather_algorithm;
        best.forced = 1;
    } else {
        /* On a tie the earlier (log-step) algorithm stays.  The
         * hierarchical one is priced across nodes only, with link classes
         * (loom_allgather_select_team). */
        best.alg = LOOM_ALLGATHER_BRUCK;
        for (alg = LOOM_ALLGATHER_BRUCK + 1; alg <= LOOM_ALLGATHER_RING; ++alg) {
            if (cost[alg] < cost[best.alg]) {
                best.alg = alg;
            }
        }
    }
    /* A rule is more specific than the settings; "auto" in a rule keeps
     * the choice so far and may set only the segment. */
    best.rule = loom_rules_find(cfg->rules, LOOM_COLL_ALLGATHER, total_bytes, p);
    if (rule != NULL && rule->alg != LOOM_ALLGATHER_AUTO) {
        best.alg = rule->alg;
        best.forced = 1;
    }
    best.cost_s = cost[best.alg];
    for (alg = LOOM_ALLGATHER_AUTO + 1; alg <= LOOM_ALLGATHER_RING; ++alg) {
        if (alg != (int)best.alg && cost[alg] < best.next_cost_s) {
            best.next_alg = alg;
            best.next_cost_s = cost[alg];
        }
    }
    if (loom_allgather_algorithms[best.alg].segmented && cfg->allgather_segment > 0) {
        best.seg_bytes = cfg->allgather_segment;
    }
    if (loom_allgather_algorithms[best.alg].segmented && rule != NULL && rule->seg_bytes > 0) {
        best.seg_bytes = rule->seg_bytes;
    }
    best.depth = 0;
    *choice_p = best;
}

/* Across nodes: the flat candidates priced with the class they meet, and
 * the hierarchical spread offered (cost_links.h). */
void loom_allgather_select_team(const loom_coll_config_t *cfg, const loom_team_t *team,
                                size_t total_bytes, int commutative, loom_choice_t *choice_p)
{
    loom_cost_links_t links;

    if (loom_cost_select_flat(cfg, team, total_bytes, commutative, loom_allgather_select,
                              &links, choice_p)) {
        LOOM_COST_OFFER(choice_p, LOOM_ALLGATHER_HIER, 0,
                        loom_cost_spread_hier(&links, team, (double)total_bytes, 0));
    }
}
