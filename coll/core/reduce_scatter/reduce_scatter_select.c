/*
 * Choosing a reduce_scatter algorithm, segment size and depth.
 *
 * The cost model prices each candidate with alpha (per message), beta (per
 * byte moved) and gamma (per byte reduced; local copies are priced at the
 * same rate), the formulas in each algorithm's header, and takes the
 * cheapest.  Its inputs are the total input bytes, the rank count, whether
 * the op commutes and the settings: the same on every rank, so every rank
 * makes the same choice.  A forced algorithm or segment size overrides the
 * model, and a user rule (rules.h) overrides both, except that a
 * non-commutative op always goes to recursive halving, the algorithm that
 * reduces in rank order.
 */
#include "coll/core/reduce_scatter/reduce_scatter.h"
#include "coll/core/select/cost_links.h"
#include "coll/core/select/rules.h"

#include <math.h>

#define LOOM_RS_SELECT_DEPTH 4

/* As for allreduce: eager-sized segments that let the ring overlap
 * transfer and reduction. */
static const size_t loom_rs_segments[] = { 64 << 10, 256 << 10, 1 << 20, 4 << 20 };

static double loom_rs_cost_halving(const loom_cost_t *c, int p, double n)
{
    int p2 = loom_pow2_floor(p);
    double t;

    t = loom_log2_ceil(p2) * c->alpha + (double)(p2 - 1) / p2 * n * (c->beta + c->gamma) +
        n * c->gamma;
    if (p != p2) {
        t += 2 * c->alpha + n * (c->beta + c->gamma) + 2 * n / p * c->beta;
    }
    return t;
}

/* seg = 0: one message per block.  With s segments per block the
 * transfer of one overlaps the reduction of the previous: the slower of
 * the two sets the pace, the faster shows once (filling the pipeline). */
static double loom_rs_cost_ring(const loom_cost_t *c, int p, double n, double seg)
{
    double block = n / p, s;

    if (seg <= 0 || seg >= block) {
        return (p - 1) * (c->alpha + block * (c->beta + c->gamma));
    }
    s = ceil(block / seg);
    return (p - 1) * (s * c->alpha + block * fmax(c->beta, c->gamma)) +
           seg * fmin(c->beta, c->gamma);
}

void loom_reduce_scatter_select(const loom_coll_config_t *cfg, int p, size_t total_bytes,
                                int commutative, loom_choice_t *choice_p)
{
    loom_cost_t c = loom_cost_from_config(cfg);
    double n = (double)total_bytes, t, ring = HUGE_VAL;
    double halving = loom_rs_cost_halving(&c, p, n);
    size_t i, ring_seg = 0;
    loom_choice_t best = { .next_alg = LOOM_REDUCE_SCATTER_AUTO,
                           .next_cost_s = HUGE_VAL };
    const loom_rule_t *rule = loom_rules_match(cfg->rules, LOOM_COLL_REDUCE_SCATTER,
                                               total_bytes, p);

    /* The ring's best segment size (0: whole blocks). */
    if (commutative) {
        ring = loom_rs_cost_ring(&c, p, n, 0);
        for (i = 0; i < sizeof(loom_rs_segments) / sizeof(loom_rs_segments[0]); ++i) {
            t = loom_rs_cost_ring(&c, p, n, (double)loom_rs_segments[i]);
            if (t < ring) {
                ring = t;
                ring_seg = loom_rs_segments[i];
            }
        }
    }
    if (cfg->reduce_scatter_algorithm != LOOM_REDUCE_SCATTER_AUTO) {
        best.alg = cfg->reduce_scatter_algorithm;
        best.forced = 1;
        if (!commutative && !loom_reduce_scatter_algorithms[best.alg].noncommutative) {
            best.alg = LOOM_REDUCE_SCATTER_HALVING;
        }
    } else {
        best.alg = ring < halving ? LOOM_REDUCE_SCATTER_RING : LOOM_REDUCE_SCATTER_HALVING;
    }
    best.rule = loom_rules_find(cfg->rules, LOOM_COLL_REDUCE_SCATTER, total_bytes, p);
    if (rule != NULL && rule->alg != LOOM_REDUCE_SCATTER_AUTO &&
        (commutative || loom_reduce_scatter_algorithms[rule->alg].noncommutative)) {
        best.alg = rule->alg;
        best.forced = 1;
    }
    if (best.alg == LOOM_REDUCE_SCATTER_RING) {
        best.cost_s = ring < HUGE_VAL ? ring : loom_rs_cost_ring(&c, p, n, 0);
        best.seg_bytes = ring_seg;
        best.next_alg = LOOM_REDUCE_SCATTER_HALVING;
        best.next_cost_s = halving;
    } else {
        best.cost_s = halving;
        if (commutative) {
            best.next_alg = LOOM_REDUCE_SCATTER_RING;
            best.next_cost_s = ring;
        }
    }
    if (loom_reduce_scatter_algorithms[best.alg].segmented && cfg->reduce_scatter_segment > 0) {
        best.seg_bytes = cfg->reduce_scatter_segment;
    }
    if (loom_reduce_scatter_algorithms[best.alg].segmented && rule != NULL &&
        rule->seg_bytes > 0) {
        best.seg_bytes = rule->seg_bytes;
    }
    best.depth = loom_reduce_scatter_algorithms[best.alg].segmented ? LOOM_RS_SELECT_DEPTH : 0;
    *choice_p = best;
}

/* Across nodes: the flat candidates priced with the class they meet, and
 * the hierarchical spread offered for commutative ops (cost_links.h). */
void loom_reduce_scatter_select_team(const loom_coll_config_t *cfg, const loom_team_t *team,
                                     size_t total_bytes, int commutative,
                                     loom_choice_t *choice_p)
{
    loom_cost_links_t links;

    if (loom_cost_select_flat(cfg, team, total_bytes, commutative, loom_reduce_scatter_select,
                              &links, choice_p) && commutative) {
        LOOM_COST_OFFER(choice_p, LOOM_REDUCE_SCATTER_HIER, 0,
                        loom_cost_spread_hier(&links, team, (double)total_bytes, 1));
    }
}
