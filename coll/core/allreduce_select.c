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
#include "allreduce.h"
#include "common/log.h"

#include <math.h>

#define LOOM_SELECT_DEPTH 4

/* With UCX's eager path up to 4 MiB (transport_ucx.c) a segment costs no
 * rendezvous handshake, and 64 KiB segments let the ring overlap transfer
 * and reduction from 1 MiB on 4 ranks (0.92 of tuned, where an unsegmented
 * Rabenseifner measured 1.2 to 2.3). */
static const size_t loom_select_segments[] = { 64 << 10, 256 << 10, 1 << 20, 4 << 20 };

typedef struct loom_cost {
    double alpha;   /* s per message */
    double beta;    /* s per byte moved */
    double gamma;   /* s per byte reduced */
} loom_cost_t;

static int loom_log2_ceil(int p)
{
    int k = 0;

    while ((1 << k) < p) {
        ++k;
    }
    return k;
}

/* The extra cost of folding a non-power-of-two rank count. */
static double loom_cost_fold(const loom_cost_t *c, int p, double n)
{
    int p2 = 1 << (loom_log2_ceil(p + 1) - 1);

    return p == p2 ? 0 : 2 * (c->alpha + n * c->beta) + n * c->gamma;
}

static double loom_cost_rd(const loom_cost_t *c, int p, double n)
{
    int p2 = 1 << (loom_log2_ceil(p + 1) - 1);

    return loom_log2_ceil(p2) * (c->alpha + n * c->beta + n * c->gamma) +
           loom_cost_fold(c, p, n);
}

static double loom_cost_rabenseifner(const loom_cost_t *c, int p, double n)
{
    int p2 = 1 << (loom_log2_ceil(p + 1) - 1);
    double f = (double)(p2 - 1) / p2;

    return 2 * loom_log2_ceil(p2) * c->alpha + 2 * f * n * c->beta + f * n * c->gamma +
           loom_cost_fold(c, p, n);
}

/* Segmented ring: 2(p-1) + s - 1 pipeline stages of one segment each; a
 * segment's reduction overlaps the next one's transfer, so a stage costs
 * the slower of the two.  seg = 0: one segment per block. */
static double loom_cost_ring(const loom_cost_t *c, int p, double n, double seg)
{
    double block = n / p, s, stage;

    if (seg <= 0 || seg >= block) {
        return 2 * (p - 1) * (c->alpha + block * c->beta) + (p - 1) * block * c->gamma;
    }
    s = ceil(block / seg);
    stage = c->alpha + seg * fmax(c->beta, c->gamma);
    return (2 * (p - 1) + s - 1) * stage + seg * c->gamma;
}

/* Double binary tree: each half climbs and descends log2(p) levels in s
 * segments; both trees share every rank's link. */
static double loom_cost_dbtree(const loom_cost_t *c, int p, double n, double seg)
{
    double half = n / 2, s = ceil(half / seg), depth = loom_log2_ceil(p);

    return (2 * depth + s - 1) * (c->alpha + seg * (2 * c->beta + c->gamma));
}

/* Keep the cheapest candidate in best and the cheapest other algorithm in
 * next, for the verbose explanation. */
static void loom_select_consider(loom_allreduce_choice_t *best, loom_allreduce_alg_t alg,
                                 size_t seg, double t)
{
    if (t < best->cost_s) {
        if (alg != best->alg) {
            best->next_alg = best->alg;
            best->next_cost_s = best->cost_s;
        }
        best->alg = alg;
        best->seg_bytes = seg;
        best->cost_s = t;
    } else if (alg != best->alg && t < best->next_cost_s) {
        best->next_alg = alg;
        best->next_cost_s = t;
    }
}

void loom_allreduce_select(const loom_coll_config_t *cfg, int p, size_t bytes,
                           int commutative, loom_allreduce_choice_t *choice_p)
{
    loom_cost_t c = {
        .alpha = cfg->cost_alpha_ns * 1e-9,
        .beta  = 1.0 / (cfg->cost_bandwidth_mbs * 1e6),
        .gamma = 1.0 / (cfg->cost_reduce_mbs * 1e6),
    };
    double n = (double)bytes;
    loom_allreduce_choice_t best = {
        .alg = LOOM_ALLREDUCE_RD, .cost_s = loom_cost_rd(&c, p, n),
        .next_alg = LOOM_ALLREDUCE_AUTO, .next_cost_s = HUGE_VAL,
    };
    size_t i, seg;

    if (cfg->allreduce_algorithm != LOOM_ALLREDUCE_AUTO) {
        best.alg = (loom_allreduce_alg_t)cfg->allreduce_algorithm;
        best.forced = 1;
        if (!commutative && !loom_allreduce_algorithms[best.alg].noncommutative) {
            best.alg = LOOM_ALLREDUCE_RD;
        }
    } else {
        loom_select_consider(&best, LOOM_ALLREDUCE_RABENSEIFNER, 0,
                             loom_cost_rabenseifner(&c, p, n));
        for (i = 0; commutative && i < sizeof(loom_select_segments) /
                                             sizeof(loom_select_segments[0]); ++i) {
            seg = loom_select_segments[i];
            loom_select_consider(&best, LOOM_ALLREDUCE_RING, seg,
                                 loom_cost_ring(&c, p, n, (double)seg));
            if (p > 2) {
                loom_select_consider(&best, LOOM_ALLREDUCE_DBTREE, seg,
                                     loom_cost_dbtree(&c, p, n, (double)seg));
            }
        }
    }
    if (best.seg_bytes == 0 && loom_allreduce_algorithms[best.alg].segmented) {
        best.seg_bytes = loom_select_segments[1];
    }
    if (cfg->allreduce_segment > 0) {
        best.seg_bytes = cfg->allreduce_segment;
    }
    best.depth = cfg->allreduce_depth > 0 ? cfg->allreduce_depth : LOOM_SELECT_DEPTH;
    *choice_p = best;
}
