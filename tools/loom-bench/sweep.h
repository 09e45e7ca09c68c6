/*
 * The measurement: for each size, every contender's batches, interleaved.
 *
 * A batch is a run of back-to-back calls, long enough (about a
 * millisecond, or --batch calls) that the few microseconds by which ranks
 * leave the starting barrier apart do not dominate small messages.  Its
 * time is the slowest rank's, divided by the calls.  The contenders take
 * turns batch by batch, and who goes first rotates, so that whatever else
 * the machine does hits them all alike; median, min and max are over a
 * contender's batches at one size.
 *
 * The memcpy reference (memref.h), unless turned off, takes its turn in
 * the rotation as one more contender, though it has no row of its own.
 *
 * Before a batch, every rank waits in a barrier whose waiters sleep (an
 * MPI_Ibarrier tested every 20 us) so that early ranks leave the cores to
 * late ones, then in an ordinary barrier that lines them up closely.
 */
#ifndef LOOM_BENCH_SWEEP_H
#define LOOM_BENCH_SWEEP_H

#include "buffers.h"
#include "compare.h"
#include "memref.h"
#include "mpit.h"
#include "options.h"

#include <stddef.h>

typedef struct loom_bench_result {
    size_t              bytes;           /* the size: the larger buffer (coll.h) */
    size_t              count;           /* the call's count argument */
    int                 contender;       /* LOOM_BENCH_LOOM, ... */
    double              median;          /* seconds per call */
    double              min;
    double              max;
    double              algbw;           /* GB/s (1e9), bytes / median */
    double              busbw;           /* algbw * the collective's factor */
    double              ratio;           /* median / default's median; 0: none */
    char                algorithm[64];   /* what Loom's counters say it did */
    unsigned long long  loom_calls;      /* Loom's calls counter growth, rank 0 */
    long long           check_failures;  /* wrong elements, all ranks; -1 unchecked */
    double              memcpy_gbs;      /* bytes / the memcpy reference's median; 0: off */
    double              memcpy_frac;     /* algbw / memcpy_gbs where the collective has a
                                          * single-copy bound (coll.h); 0: none */
} loom_bench_result_t;

typedef struct loom_bench_sweep {
    const loom_bench_options_t  *opts;
    const loom_bench_compare_t  *cmp;
    const loom_bench_mpit_t     *mpit;
    int                          rank;
    int                          nranks;
    loom_bench_buffers_t         bufs;
    size_t                       span;        /* fresh arena span in bytes */
    unsigned char               *in_tile;     /* check.h tiles: this rank's input */
    unsigned char               *out_tiles;   /* one per output block (nranks at most),
                                               * filled for the size being run */
    int                          out_checked; /* this rank's output defined at this size */
    int                         *vcounts;     /* the v-variants' arrays (coll.h) */
    int                         *vdispls;
    unsigned                     seed;        /* advances every checked batch */
    size_t                       cursor;      /* next slot, across batches */
    int                          have_memref; /* --no-memcpy-ref clears it */
    loom_bench_memref_t          memref;
    double                      *times;       /* iters per contender, then the memref's */
} loom_bench_sweep_t;

/* The sizes to measure: min_bytes, times step_factor, up to max_bytes,
 * rounded down to what the collective splits evenly over nranks in whole
 * elements (coll.h's shape), without repeats; sizes that round to nothing
 * are skipped.  *sizes_p is malloc'd. */
int loom_bench_sweep_sizes(const loom_bench_options_t *opts, int nranks, size_t **sizes_p,
                           int *n_p);

/* Buffers for every size in sizes; 0 on success, -1 out of memory. */
int loom_bench_sweep_create(const loom_bench_options_t *opts, const loom_bench_compare_t *cmp,
                            const loom_bench_mpit_t *mpit, size_t span, const size_t *sizes,
                            int nsizes, loom_bench_sweep_t *sweep_p);
void loom_bench_sweep_destroy(loom_bench_sweep_t *sweep);

/* Measure one size: results[c] for each of the cmp->count contenders. */
int loom_bench_sweep_run(loom_bench_sweep_t *sweep, size_t bytes, loom_bench_result_t *results_p);

#endif
