/*
 * Per-rank blocks of a vector collective (allgather(v), reduce_scatter
 * (_block)): how many elements rank i contributes or receives, and where
 * its block lies.
 *
 * Three shapes, all answered by the same two questions:
 *   counts == NULL   every block has count elements, block i at i * count
 *   counts, packed   block i has counts[i] elements, right after block i-1
 *   counts, displs   block i has counts[i] elements at displs[i]
 * Blocks are also needed in packed (rank) order whatever displs say: the
 * gathering buffer of Bruck and the input of reduce_scatter are packed.
 * The packed prefix sums are computed once per plan (O(p)), so an
 * algorithm asks for any block in O(1); the uniform shape allocates
 * nothing.
 */
#ifndef LOOM_BLOCKS_H
#define LOOM_BLOCKS_H

#include "loom/status.h"

#include <stddef.h>

typedef struct loom_blocks {
    int             p;
    size_t          count;      /* elements per block when counts is NULL */
    const size_t    *counts;
    const size_t    *displs;    /* NULL: packed */
    size_t          *prefix;    /* p + 1 packed offsets, when counts != NULL */
    size_t          total;      /* elements over all blocks */
    size_t          max;        /* elements of the largest block */
} loom_blocks_t;

/* Describes the blocks of p ranks.  Fails only when out of memory. */
loom_status_t loom_blocks_init(loom_blocks_t *b, int p, size_t count,
                               const size_t *counts, const size_t *displs);
void loom_blocks_fini(loom_blocks_t *b);

static inline size_t loom_blocks_count(const loom_blocks_t *b, int i)
{
    return b->counts != NULL ? b->counts[i] : b->count;
}

/* Elements of blocks 0..i-1 (0 <= i <= p): block i's offset when packed. */
static inline size_t loom_blocks_packed(const loom_blocks_t *b, int i)
{
    return b->counts != NULL ? b->prefix[i] : (size_t)i * b->count;
}

/* Elements of the packed run of n blocks starting at block i, wrapping
 * around from block p-1 to block 0 (0 <= n <= p). */
static inline size_t loom_blocks_run(const loom_blocks_t *b, int i, int n)
{
    if (i + n <= b->p) {
        return loom_blocks_packed(b, i + n) - loom_blocks_packed(b, i);
    }
    return b->total - loom_blocks_packed(b, i) + loom_blocks_packed(b, i + n - b->p);
}

/* Element offset of block i in the caller's buffer. */
static inline size_t loom_blocks_offset(const loom_blocks_t *b, int i)
{
    return b->displs != NULL ? b->displs[i] : loom_blocks_packed(b, i);
}

#endif
