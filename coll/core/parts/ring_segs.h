/*
 * The segments of a pipelined ring's blocks (allreduce_ring.c,
 * allgather_ring.c, reduce_scatter_ring.c).
 *
 * Every block travels in segments of seg elements, the last one of a
 * block shorter, and segment j of round k is its own message, tag step
 * k * nseg_max + j.  So the cut has to leave every (round, segment) pair
 * a step: where rounds * nseg_max would pass LOOM_TAG_MAX_STEPS, the
 * segments get larger instead.  The rings cut alike; this is that cut,
 * once.  It depends on the settings, the block sizes and the round count
 * only, so every rank makes the same.
 */
#ifndef LOOM_RING_SEGS_H
#define LOOM_RING_SEGS_H

#include "coll/core/engine/tag.h"

#include <stddef.h>
#include <stdint.h>

typedef struct loom_ring_segs {
    size_t  seg;        /* elements per segment; may exceed the largest block */
    int     nseg_max;   /* segments of the largest block */
} loom_ring_segs_t;

/* Segments of a block of n elements. */
static inline int loom_ring_segs_count(const loom_ring_segs_t *s, size_t n)
{
    /* One segment a block is the common case: no division for it (a ring
     * asks once per round, and plans thousands of rounds). */
    return n <= s->seg ? n > 0 : (int)((n + s->seg - 1) / s->seg);
}

/* Elements of segment j of a block of n elements; it starts at j * seg. */
static inline size_t loom_ring_segs_len(const loom_ring_segs_t *s, size_t n, int j)
{
    size_t first = (size_t)j * s->seg;

    return n - first < s->seg ? n - first : s->seg;
}

/* The cut for blocks of at most max > 0 elements of esize bytes over
 * rounds rounds: seg_bytes in whole elements (under one element: a block
 * a segment), made larger where the tags run out.  The caller has
 * declined already when the rounds alone do not fit (rounds >
 * LOOM_TAG_MAX_STEPS). */
static inline loom_ring_segs_t loom_ring_segs_make(size_t seg_bytes, size_t esize, size_t max,
                                                   uint64_t rounds)
{
    loom_ring_segs_t s = { .seg = seg_bytes >= esize ? seg_bytes / esize : max };

    s.nseg_max = loom_ring_segs_count(&s, max);
    if (rounds * (uint64_t)s.nseg_max > LOOM_TAG_MAX_STEPS) {
        s.nseg_max = (int)(LOOM_TAG_MAX_STEPS / rounds);
        s.seg = (max + (size_t)s.nseg_max - 1) / (size_t)s.nseg_max;
        s.nseg_max = loom_ring_segs_count(&s, max);
    }
    return s;
}

#endif
