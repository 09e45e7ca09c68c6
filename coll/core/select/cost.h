/*
 * The alpha-beta-gamma cost model shared by every collective's selection.
 *
 *   time = alpha per message + beta per byte moved + gamma per byte reduced
 *
 * alpha, 1/beta and 1/gamma come from the settings (cost_alpha_ns,
 * cost_bandwidth_mbs, cost_reduce_mbs), which a rules text's cost: line
 * or the start-up calibration from rank 0 may replace (docs/rules.md);
 * they are equal on every rank, so every rank prices every candidate the
 * same and makes the same choice.  Each
 * algorithm's own formula sits next to its selection, with the picture in
 * the algorithm's file.
 */
#ifndef LOOM_COST_H
#define LOOM_COST_H

#include "coll/core/select/coll_config.h"

#include <math.h>

typedef struct loom_cost {
    double alpha;   /* s per message */
    double beta;    /* s per byte moved */
    double gamma;   /* s per byte reduced */
} loom_cost_t;

static inline loom_cost_t loom_cost_from_config(const loom_coll_config_t *cfg)
{
    return (loom_cost_t){
        .alpha = cfg->cost_alpha_ns * 1e-9,
        .beta  = 1.0 / (cfg->cost_bandwidth_mbs * 1e6),
        .gamma = 1.0 / (cfg->cost_reduce_mbs * 1e6),
    };
}

/* ceil(log2 p): rounds of a binomial tree or recursive doubling. */
static inline int loom_log2_ceil(int p)
{
    int k = 0;

    while ((1 << k) < p) {
        ++k;
    }
    return k;
}

/* The largest power of two <= p (p >= 1). */
static inline int loom_pow2_floor(int p)
{
    return 1 << (loom_log2_ceil(p + 1) - 1);
}

/* The extra cost of folding a non-power-of-two rank count onto a power
 * of two before a recursive algorithm (loom_fold_t): the pair's message
 * and reduction, plus the result's way back when hand_back. */
static inline double loom_cost_fold(const loom_cost_t *c, int p, double n, int hand_back)
{
    if (p == loom_pow2_floor(p)) {
        return 0;
    }
    return (hand_back ? 2 : 1) * (c->alpha + n * c->beta) + n * c->gamma;
}

/* Segments of seg bytes in n bytes (seg 0 or >= n: one). */
static inline double loom_cost_nseg(double n, double seg)
{
    return seg <= 0 || seg >= n ? 1 : ceil(n / seg);
}

/*
 * The cheapest candidate so far, and the cheapest other algorithm (for the
 * verbose explanation).  Algorithms are a collective's enum values; 0 is
 * "auto" everywhere and means "none" in next_alg.  Ties keep the earlier
 * candidate, so a selection lists its candidates in order of preference.
 */
typedef struct loom_cost_pick {
    int     alg;
    size_t  seg_bytes;
    double  cost_s;
    int     next_alg;
    double  next_cost_s;
} loom_cost_pick_t;

static inline loom_cost_pick_t loom_cost_pick_first(int alg, size_t seg_bytes, double t)
{
    return (loom_cost_pick_t){ .alg = alg, .seg_bytes = seg_bytes, .cost_s = t,
                               .next_alg = 0, .next_cost_s = HUGE_VAL };
}

static inline void loom_cost_pick_consider(loom_cost_pick_t *best, int alg,
                                           size_t seg_bytes, double t)
{
    if (t < best->cost_s) {
        if (alg != best->alg) {
            best->next_alg = best->alg;
            best->next_cost_s = best->cost_s;
        }
        best->alg = alg;
        best->seg_bytes = seg_bytes;
        best->cost_s = t;
    } else if (alg != best->alg && t < best->next_cost_s) {
        best->next_alg = alg;
        best->next_cost_s = t;
    }
}

#endif
