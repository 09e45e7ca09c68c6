/*
 * Choosing a reduce algorithm.
 *
 * The cost model (cost.h) prices each candidate with the formula in its
 * file's header and takes the cheapest.  Inputs: the byte count, the rank
 * count, whether the op commutes and the settings, equal on every rank,
 * so every rank makes the same choice; the root is not an input, so a
 * non-commutative op is always priced with the extra hop it may need.
 * A forced algorithm (by a setting or, ahead of it, a user rule) is taken
 * as given, except that one which cannot keep rank order (the
 * hierarchical one) hands non-commutative ops to the binomial tree, as
 * reduce_scatter does.  The hierarchical algorithm is priced across
 * nodes only, with link classes (loom_reduce_select_team).
 */
#include "coll/core/reduce/reduce.h"
#include "coll/core/select/cost_links.h"
#include "coll/core/select/cost.h"
#include "coll/core/select/rules.h"

#include <math.h>

/* Segment sizes the chain is priced with; the first is also its default
 * when the chain is forced. */
static const size_t loom_reduce_segments[] = { 64 << 10, 16 << 10, 256 << 10, 1 << 20 };
#define LOOM_REDUCE_NSEGS (sizeof(loom_reduce_segments) / sizeof(loom_reduce_segments[0]))

static double loom_cost_reduce_binomial(const loom_cost_t *c, int p, double n,
                                        int commutative)
{
    double hop = commutative || p == 1 ? 0 : c->alpha + n * c->beta;

    return loom_log2_ceil(p) * (c->alpha + n * c->beta + n * c->gamma) + hop;
}

static double loom_cost_reduce_scatter_gather(const loom_cost_t *c, int p, double n,
                                              int commutative)
{
    int p2 = loom_pow2_floor(p);
    double f = (double)(p2 - 1) / p2;
    double hop = commutative || p == 1 ? 0 : c->alpha + n * c->beta;

    return 2 * loom_log2_ceil(p2) * c->alpha + f * n * (2 * c->beta + c->gamma) +
           loom_cost_fold(c, p, n, 0) + hop;
}

/* Receiving segment j + 1 overlaps reducing segment j: the slower of the
 * two sets each stage's pace (reduce_chain.c). */
static double loom_cost_reduce_chain(const loom_cost_t *c, int p, double n, double seg,
                                     int commutative)
{
    double s = loom_cost_nseg(n, seg), piece = n / s;
    double hop = commutative || p == 1 ? 0 : c->alpha + piece * c->beta;

    if (p <= 1) {
        return 0;
    }
    return (p - 2 + s) * (c->alpha + piece * fmax(c->beta, c->gamma)) +
           piece * fmin(c->beta, c->gamma) + hop;
}

void loom_reduce_select(const loom_coll_config_t *cfg, int p, size_t bytes,
                        int commutative, loom_choice_t *choice_p)
{
    loom_cost_t c = loom_cost_from_config(cfg);
    double n = (double)bytes;
    loom_cost_pick_t pick = loom_cost_pick_first(
        LOOM_REDUCE_BINOMIAL, 0, loom_cost_reduce_binomial(&c, p, n, commutative));
    loom_choice_t best = { .forced = 0 };
    const loom_rule_t *rule = loom_rules_match(cfg->rules, LOOM_COLL_REDUCE, bytes, p);
    size_t i, seg;

    if (cfg->reduce_algorithm != LOOM_REDUCE_AUTO) {
        pick.alg = cfg->reduce_algorithm;
        best.forced = 1;
        if (!commutative && !loom_reduce_algorithms[pick.alg].noncommutative) {
            pick.alg = LOOM_REDUCE_BINOMIAL;
        }
    } else {
        loom_cost_pick_consider(&pick, LOOM_REDUCE_SCATTER_GATHER, 0,
                                loom_cost_reduce_scatter_gather(&c, p, n, commutative));
        for (i = 0; i < LOOM_REDUCE_NSEGS; ++i) {
            seg = cfg->reduce_segment > 0 ? cfg->reduce_segment : loom_reduce_segments[i];
            loom_cost_pick_consider(&pick, LOOM_REDUCE_CHAIN, seg,
                                    loom_cost_reduce_chain(&c, p, n, (double)seg,
                                                           commutative));
        }
    }
    best.rule = loom_rules_find(cfg->rules, LOOM_COLL_REDUCE, bytes, p);
    if (rule != NULL && rule->alg != LOOM_REDUCE_AUTO &&
        (commutative || loom_reduce_algorithms[rule->alg].noncommutative)) {
        pick.alg = rule->alg;
        best.forced = 1;
    }
    best.alg = pick.alg;
    best.cost_s = pick.cost_s;
    best.next_alg = pick.next_alg;
    best.next_cost_s = pick.next_cost_s;
    best.seg_bytes = 0;
    if (loom_reduce_algorithms[best.alg].segmented) {
        best.seg_bytes = pick.seg_bytes ? pick.seg_bytes : loom_reduce_segments[0];
        if (cfg->reduce_segment > 0) {
            best.seg_bytes = cfg->reduce_segment;
        }
        if (rule != NULL && rule->seg_bytes > 0) {
            best.seg_bytes = rule->seg_bytes;
        }
    }
    best.depth = 0;
    *choice_p = best;
}

/* Across nodes: the flat candidates priced with the class they meet, and
 * the hierarchical chains offered for commutative ops (cost_links.h). */
void loom_reduce_select_team(const loom_coll_config_t *cfg, const loom_team_t *team,
                             size_t bytes, int commutative, loom_choice_t *choice_p)
{
    loom_cost_links_t links;

    if (loom_cost_select_flat(cfg, team, bytes, commutative, loom_reduce_select, &links,
                              choice_p) && commutative) {
        loom_cost_offer_chain_hier(&links, team, bytes, cfg->reduce_segment, 1,
                                   LOOM_REDUCE_HIER, choice_p);
    }
}
