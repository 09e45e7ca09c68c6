/*
 * The memcpy reference: what a plain memcpy of the size costs on this
 * machine, timed in the same run as the collective, size by size and in
 * turn with the contenders (sweep.c), so that whatever load the machine
 * carries weighs on it as on them.
 *
 * Why memcpy: on one node a collective moves data by copies through
 * shared memory, and the fewest copies a bcast or an allgather can make
 * is one per byte each rank must end with.  A memcpy of that many bytes,
 * by the ranks that would make the copies, all at once, is then the
 * floor the collective's time can approach (docs/loom-bench.md, "The
 * memcpy reference", says which ranks and how many bytes).
 *
 * The copies follow the run's buffer policy: without --fresh one source
 * and one destination are reused, as the collective reuses its buffers;
 * with --fresh consecutive copies walk through source and destination
 * arenas of the fresh span, so neither side is in cache, as neither is
 * for the collective.  A batch is as many copies as the collective's
 * batch of calls at that size, and its time is the slowest copying
 * rank's, per copy.
 */
#ifndef LOOM_BENCH_MEMREF_H
#define LOOM_BENCH_MEMREF_H

#include "buffers.h"

#include <stddef.h>

/* The sizes from which the single-copy target (of_memcpy >= 0.90)
 * is judged: below, a memcpy costs nanoseconds, a collective microseconds,
 * and the fraction says nothing.  tools/loom-bench-report.sh's --large
 * defaults to the same. */
#define LOOM_BENCH_MEMREF_LARGE ((size_t)1 << 20)
#define LOOM_BENCH_MEMREF_TARGET 0.90

typedef struct loom_bench_memref {
    unsigned char *src;
    unsigned char *dst;
    size_t         bytes;    /* of each arena */
    size_t         cursor;   /* next slot, across batches */
} loom_bench_memref_t;

/* The slots for copies of bytes, batch per batch: input and output
 * layout of a collective that reads and writes bytes. */
loom_bench_layout_t loom_bench_memref_layout(size_t bytes, int batch, int fresh, size_t span);

/* Source and destination arenas of arena_bytes each, every page touched
 * now.  0 on success, -1 out of memory. */
int loom_bench_memref_create(size_t arena_bytes, loom_bench_memref_t *ref_p);
void loom_bench_memref_destroy(loom_bench_memref_t *ref);

/* batch copies of bytes through layout's slots; this rank's seconds per
 * copy.  The caller lines the ranks up before and takes the slowest. */
double loom_bench_memref_batch(loom_bench_memref_t *ref, const loom_bench_layout_t *layout,
                               size_t bytes, int batch);

#endif
