/*
 * Segments and pipelining: the one cut of blocks into segments, and the
 * ring of scratch slots that bounds the segments in flight, that every
 * segmenting phase uses (phase.h: the reduce-scatter and allgather rings
 * of the ring algorithms, and the ring of each hierarchical level).
 *
 * Every block travels in segments of seg elements, the last one of a
 * block shorter, and segment j of round k is its own message, tag step
 * k * nseg_max + j.  So the cut has to leave every (round, segment) pair
 * a step: where rounds * nseg_max would pass LOOM_TAG_MAX_STEPS, the
 * segments get larger instead.  It depends on the settings, the block
 * sizes and the round count only, so every rank makes the same.
 *
 * Slots: a segment that is received to be reduced lands in one of depth
 * scratch slots, taken in turn; a slot is free again once the step that
 * last read it is done.  So depth is how many such segments may be in
 * flight at once, and transfer of one overlaps the reduction of the one
 * before.
 */
#ifndef LOOM_SEGS_H
#define LOOM_SEGS_H

#include "coll/core/engine/tag.h"

#include <stddef.h>
#include <stdint.h>

typedef struct loom_segs {
    size_t  seg;        /* elements per segment; may exceed the largest block */
    int     nseg_max;   /* segments of the largest block */
} loom_segs_t;

/* Segments of a block of n elements. */
static inline int loom_segs_count(const loom_segs_t *s, size_t n)
{
    /* One segment a block is the common case: no division for it (a ring
     * asks once per round, and plans thousands of rounds). */
    return n <= s->seg ? n > 0 : (int)((n + s->seg - 1) / s->seg);
}

/* Elements of segment j of a block of n elements; it starts at j * seg. */
static inline size_t loom_segs_len(const loom_segs_t *s, size_t n, int j)
{
    size_t first = (size_t)j * s->seg;

    return n - first < s->seg ? n - first : s->seg;
}

/* The cut for blocks of at most max > 0 elements of esize bytes over
 * rounds rounds: seg_bytes in whole elements (under one element: a block
 * a segment), made larger where the tags run out.  The caller has
 * declined already when the rounds alone do not fit (rounds >
 * LOOM_TAG_MAX_STEPS). */
static inline loom_segs_t loom_segs_make(size_t seg_bytes, size_t esize, size_t max,
                                         uint64_t rounds)
{
    loom_segs_t s = { .seg = seg_bytes >= esize ? seg_bytes / esize : max };

    s.nseg_max = loom_segs_count(&s, max);
    if (rounds * (uint64_t)s.nseg_max > LOOM_TAG_MAX_STEPS) {
        s.nseg_max = (int)(LOOM_TAG_MAX_STEPS / rounds);
        s.seg = (max + (size_t)s.nseg_max - 1) / (size_t)s.nseg_max;
        s.nseg_max = loom_segs_count(&s, max);
    }
    return s;
}

/* depth slots of bytes each from base; reader: depth ints, the step that
 * last read each slot (the caller sets them, -1 or a step every slot
 * waits for). */
typedef struct loom_slots {
    char    *base;
    size_t  bytes;
    int     depth;
    int     next;       /* the slot the next segment takes */
    int     *reader;
} loom_slots_t;

/* The next slot; *free_p: the step after which it may be written. */
static inline char *loom_slots_take(const loom_slots_t *s, int *free_p)
{
    *free_p = s->reader[s->next];
    return s->base + (size_t)s->next * s->bytes;
}

/* The slot just taken is read by step reader; the next one is taken next. */
static inline void loom_slots_read(loom_slots_t *s, int reader)
{
    s->reader[s->next] = reader;
    s->next = (s->next + 1) % s->depth;
}

#endif
