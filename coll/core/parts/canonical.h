/*
 * The canonical combination order, shared by every reproducible
 * collective (allreduce, reduce, reduce_scatter).
 *
 * Each element is combined over the p ranks' contributions in one order
 * that depends on nothing but p: adjacent partials paired level by level
 * over rank ids, the lower ranks' partial always the left (src) operand.
 *
 *   contributions:  c0  c1  c2  c3  c4
 *   level 1:        (c0 c1) (c2 c3) c4
 *   level 2:        ((c0 c1)(c2 c3)) c4
 *   level 3:        (((c0 c1)(c2 c3)) c4)
 *
 * Because the order is fixed per element, not per block, two collectives
 * that cut the vector into different blocks still produce bitwise equal
 * results: reproducible reduce and reduce_scatter equal reproducible
 * allreduce element for element.
 *
 * loom_canonical_reduce_scatter_add builds the bandwidth-optimal part they
 * share: block q of every rank's input goes to rank q (direct messages),
 * and rank q combines the p contributions in the canonical order.  What
 * happens to the finished block (allgather, gather to a root, copy to the
 * receive buffer) is up to the caller.
 */
#ifndef LOOM_CANONICAL_H
#define LOOM_CANONICAL_H

#include "coll/core/engine/sched.h"

#include <stdint.h>

/* The blocks of the input, in rank order: block q has counts[q] elements;
 * counts NULL: count split over the p ranks as partition.h does (split)
 * or count elements each (!split). */
typedef struct loom_canonical_rs {
    const char      *input;     /* p blocks */
    size_t          count;
    const size_t    *counts;
    int             split;
    uint32_t        tag_step;   /* of the messages carrying the blocks */
    /* Set by loom_canonical_reduce_scatter_add: */
    char            *result;    /* this rank's finished block (scratch) */
    int             done;       /* step after which result holds it; -1: empty block */
    int             *sent;      /* per rank q: the step sending block q (-1: none) */
} loom_canonical_rs_t;

/* Byte offset and length of block q. */
void loom_canonical_block(const loom_canonical_rs_t *rs, int p, int q, size_t elem_size,
                          size_t *off_p, size_t *len_p);

/* Appends the canonical reduce-scatter for the team's rank to sched.  Takes
 * the schedule's scratch area and bookkeeping ints (loom_sched_alloc_*), so
 * the caller must not allocate either.  On failure the schedule's build
 * status holds the error, which is also returned. */
loom_status_t loom_canonical_reduce_scatter_add(loom_sched_t *sched, loom_canonical_rs_t *rs);

/* Appends the canonical combination of the p partials held in
 * slots + q * bytes, each ready after step slot_step[q] (overwritten: the
 * steps that follow); the result lands in one of the slots, whose index is
 * returned (the step that finished it is then slot_step[index]).  part
 * has room for p ints.  The reference implementation for tests is the
 * same pairing on plain arrays. */
int loom_canonical_combine_add(loom_sched_t *sched, char *slots, size_t bytes, int p,
                               int *slot_step, int *part);

#endif
