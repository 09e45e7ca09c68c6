/*
 * Recursive halving over the blocks of a cut buffer (partition.h), and
 * the way back: what Rabenseifner's allreduce (allreduce_rabenseifner.c)
 * and the reduce-scatter + gather reduce (reduce_scatter_gather.c) share.
 *
 *   round k = 0, 1, ...: a rank holds blocks [lo, hi); it keeps the lower
 *     half when bit k of its virtual rank is 0, the upper half otherwise,
 *     and sends the other half to its partner (bit k flipped).
 *   back, round k = last .. 0: the half sent away in round k comes back
 *     (recursive doubling, or a gather), and the range is round k's again.
 *
 *   ranges of virtual rank 0 (p2 = 4):  [0,4) -> [0,2) -> [0,1) -> [0,2) -> [0,4)
 *
 * The halving keeps each round's range for the way back; the algorithms
 * keep what they do with the halves (which way to reduce, when to stop).
 */
#ifndef LOOM_HALVING_H
#define LOOM_HALVING_H

#include "coll/core/parts/partition.h"

/* Rounds of p2 <= 2^31 blocks. */
#define LOOM_HALVING_MAX_ROUNDS 31

typedef struct loom_halving {
    int     lo, hi;                             /* the blocks held now */
    int     lo_at[LOOM_HALVING_MAX_ROUNDS];     /* and before round k */
    int     hi_at[LOOM_HALVING_MAX_ROUNDS];
    char    *kept;                              /* the round's halves, in the cut */
    size_t  kept_bytes;
    char    *sent;
    size_t  sent_bytes;
} loom_halving_t;

/* Before round 0: all p2 blocks of the cut. */
static inline void loom_halving_start(loom_halving_t *h, int p2)
{
    h->lo = 0;
    h->hi = p2;
}

/* Round k, on the upper side of the split when upper (bit k of the
 * virtual rank): kept is the half this rank keeps and reduces into, sent
 * the half it sends away; the range becomes kept's. */
static inline void loom_halving_split(loom_halving_t *h, const loom_cut_t *cut, int k,
                                      int upper)
{
    int mid = h->lo + (h->hi - h->lo) / 2;

    h->lo_at[k] = h->lo;
    h->hi_at[k] = h->hi;
    if (!upper) {
        h->kept = loom_cut_range(cut, h->lo, mid, &h->kept_bytes);
        h->sent = loom_cut_range(cut, mid, h->hi, &h->sent_bytes);
        h->hi = mid;
    } else {
        h->kept = loom_cut_range(cut, mid, h->hi, &h->kept_bytes);
        h->sent = loom_cut_range(cut, h->lo, mid, &h->sent_bytes);
        h->lo = mid;
    }
}

/* Round k of the way back: kept is the range held now (what this rank
 * sends), sent the half it sent away in round k (what arrives); the range
 * becomes round k's again. */
static inline void loom_halving_join(loom_halving_t *h, const loom_cut_t *cut, int k)
{
    h->kept = loom_cut_range(cut, h->lo, h->hi, &h->kept_bytes);
    if (h->lo == h->lo_at[k]) {
        h->sent = loom_cut_range(cut, h->hi, h->hi_at[k], &h->sent_bytes);
    } else {
        h->sent = loom_cut_range(cut, h->lo_at[k], h->lo, &h->sent_bytes);
    }
    h->lo = h->lo_at[k];
    h->hi = h->hi_at[k];
}

#endif
