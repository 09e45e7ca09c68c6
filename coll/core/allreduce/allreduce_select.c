/*
 * Choosing an allreduce algorithm, segment size and depth.
 *
 * The cost model prices each candidate with alpha (per message), beta (per
 * byte moved) and gamma (per byte reduced), the formulas in each
 * algorithm's header, and takes the cheapest.  Its inputs are the byte
 * count, the rank count, whether the op commutes, and the settings: all the
 * same on every rank, so every rank makes the same choice.  A forced
 * algorithm, segment or depth in the settings overrides the model.
 */
#include "coll/core/allreduce/allreduce.h"
#include "coll/core/select/rules.h"
#include "coll/core/select/cost.h"
#include "coll/core/select/cost_links.h"
#include "common/log.h"

#include <math.h>

#define LOOM_SELECT_DEPTH 4

/* With UCX's eager path up to 4 MiB (transport_ucx.c) a segment costs no
 * rendezvous handshake, and 64 KiB segments let the ring overlap transfer
 * and reduction from 1 MiB on 4 ranks (0.92 of tuned, where an unsegmented
 * Rabenseifner measured 1.2 to 2.3). */
static const size_t loom_select_segments[] = { 64 << 10, 256 << 10, 1 << 20, 4 << 20 };

/* The hierarchical allreduce cuts the message into segments of seg x
 * (its levels' fan-outs) bytes, so its top-level messages are about seg:
 * a pipeline whose slow link must wait for every level below to fill
 * and drain gains from messages smaller than the flat algorithms'.  On
 * the emulated cluster (docs/topology.md) 16 and 32 KiB took the 4 MiB
 * allreduce from 1.18 to 1.08 and 1.10 of the uplink bound, medians of
 * five jobs, and the cost model, whose alphas price each message, picks
 * among them. */
static const size_t loom_select_hier_segments[] = { 16 << 10, 32 << 10, 64 << 10, 256 << 10,
                                                    1 << 20, 4 << 20 };

static double loom_cost_rd(const loom_cost_t *c, int p, double n)
{
    int p2 = loom_pow2_floor(p);

    return loom_log2_ceil(p2) * (c->alpha + n * c->beta + n * c->gamma) +
           loom_cost_fold(c, p, n, 1);
}

static double loom_cost_rabenseifner(const loom_cost_t *c, int p, double n)
{
    int p2 = loom_pow2_floor(p);
    double f = (double)(p2 - 1) / p2;

    return 2 * loom_log2_ceil(p2) * c->alpha + 2 * f * n * c->beta + f * n * c->gamma +
           loom_cost_fold(c, p, n, 1);
}

/* Segmented ring: each of the 2(p-1) steps moves a block of n/p in s
 * segments, so the link carries 2(p-1) s segments whatever the pipeline
 * does; what segmenting buys is the overlap of one segment's reduction
 * with the next one's transfer in the reduce-scatter half, so a stage
 * there costs the slower of the two, and one reduction is left over.
 * seg = 0: one segment per block. */
static double loom_cost_ring(const loom_cost_t *c, int p, double n, double seg)
{
    double block = n / p, s;

    if (seg <= 0 || seg >= block) {
        return 2 * (p - 1) * (c->alpha + block * c->beta) + (p - 1) * block * c->gamma;
    }
    s = ceil(block / seg);
    return (p - 1) * s * (c->alpha + seg * fmax(c->beta, c->gamma)) +
           (p - 1) * s * (c->alpha + seg * c->beta) + seg * c->gamma;
}

/* Double binary tree: each half climbs and descends log2(p) levels in s
 * segments, both trees at once.  A rank is interior in one tree (up:
 * two segments in, one out; down: one in, two out) and a leaf in the
 * other (one out, one in): per stage its link carries four segments out
 * and it reduces two, 2n bytes out in all, against the ring's 2(p-1)/p n. */
static double loom_cost_dbtree(const loom_cost_t *c, int p, double n, double seg)
{
    double half = n / 2, s = ceil(half / seg), depth = loom_log2_ceil(p);

    return (2 * depth + s - 1) * (4 * c->alpha + seg * (4 * c->beta + 2 * c->gamma));
}

/* A user rule beats the MCA settings: it is the more specific of the two.
 * A rule naming an algorithm that cannot keep rank order leaves a
 * non-commutative op with the algorithm chosen so far. */
static void loom_select_apply_rule(const loom_coll_config_t *cfg, int p, size_t bytes,
                                   int commutative, loom_choice_t *best)
{
    const loom_rule_t *rule = loom_rules_match(cfg->rules, LOOM_COLL_ALLREDUCE, bytes, p);

    if (rule == NULL) {
        return;
    }
    best->rule = (int)(rule - cfg->rules->rule);
    if (rule->alg != LOOM_ALLREDUCE_AUTO &&
        (commutative || loom_allreduce_algorithms[rule->alg].noncommutative)) {
        best->alg = rule->alg;
        best->forced = 1;
        best->seg_bytes = 0;
    }
    if (rule->seg_bytes > 0) {
        best->seg_bytes = rule->seg_bytes;
    }
}

void loom_allreduce_select(const loom_coll_config_t *cfg, int p, size_t bytes,
                           int commutative, loom_choice_t *choice_p)
{
    loom_cost_t c = loom_cost_from_config(cfg);
    double n = (double)bytes;
    loom_cost_pick_t pick = loom_cost_pick_first(LOOM_ALLREDUCE_RD, 0, loom_cost_rd(&c, p, n));
    loom_choice_t best = { .forced = 0, .rule = -1 };
    size_t i, seg;

    if (cfg->allreduce_algorithm != LOOM_ALLREDUCE_AUTO) {
        pick.alg = cfg->allreduce_algorithm;
        best.forced = 1;
        if (!commutative && !loom_allreduce_algorithms[pick.alg].noncommutative) {
            pick.alg = LOOM_ALLREDUCE_RD;
        }
    } else {
        loom_cost_pick_consider(&pick, LOOM_ALLREDUCE_RABENSEIFNER, 0,
                                loom_cost_rabenseifner(&c, p, n));
        for (i = 0; commutative && i < sizeof(loom_select_segments) /
                                             sizeof(loom_select_segments[0]); ++i) {
            seg = loom_select_segments[i];
            loom_cost_pick_consider(&pick, LOOM_ALLREDUCE_RING, seg,
                                    loom_cost_ring(&c, p, n, (double)seg));
            if (p > 2) {
                loom_cost_pick_consider(&pick, LOOM_ALLREDUCE_DBTREE, seg,
                                        loom_cost_dbtree(&c, p, n, (double)seg));
            }
        }
    }
    best.alg = pick.alg;
    best.seg_bytes = pick.seg_bytes;
    best.cost_s = pick.cost_s;
    best.next_alg = pick.next_alg;
    best.next_cost_s = pick.next_cost_s;
    loom_select_apply_rule(cfg, p, bytes, commutative, &best);
    if (best.seg_bytes == 0 && loom_allreduce_algorithms[best.alg].segmented) {
        best.seg_bytes = loom_select_segments[1];
    }
    if (cfg->allreduce_segment > 0 && best.rule < 0) {
        best.seg_bytes = cfg->allreduce_segment;
    }
    best.depth = cfg->allreduce_depth > 0 ? cfg->allreduce_depth : LOOM_SELECT_DEPTH;
    *choice_p = best;
}

/* Across nodes the flat candidates are priced with the class their
 * traffic meets (cost_links.h) and the hierarchical allreduce joins them
 * for commutative ops; a forced algorithm or a rule stays as it is. */
void loom_allreduce_select_team(const loom_coll_config_t *cfg, const loom_team_t *team,
                                size_t bytes, int commutative, loom_choice_t *choice_p)
{
    loom_cost_links_t links;
    double t;
    size_t i, seg;
    int owned[2];

    if (!loom_cost_select_flat(cfg, team, bytes, commutative, loom_allreduce_select, &links,
                               choice_p) || !commutative) {
        return;
    }
    for (i = 0; i < sizeof(loom_select_hier_segments) / sizeof(loom_select_hier_segments[0]);
         ++i) {
        seg = loom_select_hier_segments[i];
        t = loom_cost_allreduce_hier(&links, team, (double)bytes, (double)seg);
        LOOM_COST_OFFER(choice_p, LOOM_ALLREDUCE_HIER,
                        cfg->allreduce_segment > 0 ? cfg->allreduce_segment : seg, t);
    }
    /* On uneven layouts a rank that owns several shards works through
     * their messages while the others wait for the next segment: twice
     * the segments in flight took the 3,1,2,1 layout's 16 and 64 MiB from
     * 1.13 and 1.17 of the uplink bound to 1.08 and 1.13 on the emulated
     * cluster (medians of three), where even layouts gained nothing. */
    loom_cost_hier_owned(team, owned);
    if (choice_p->alg == LOOM_ALLREDUCE_HIER && cfg->allreduce_depth <= 0 && owned[1] > 1) {
        choice_p->depth = 2 * LOOM_SELECT_DEPTH;
    }
}
