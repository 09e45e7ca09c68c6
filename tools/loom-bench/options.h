/*
 * loom-bench's command line: nccl-tests' names where they exist (-b -e -f
 * -w -n -d -o -c), loom-bench's own for the rest.  Bad input is rejected
 * with a message that names the argument and the accepted values.
 */
#ifndef LOOM_BENCH_OPTIONS_H
#define LOOM_BENCH_OPTIONS_H

#include "coll.h"
#include "types.h"

#include <stddef.h>
#include <stdio.h>

/* How the default contender is obtained (see compare.h). */
typedef enum {
    LOOM_BENCH_SWITCH_AUTO,   /* the control variable when Loom has it, else comm */
    LOOM_BENCH_SWITCH_CVAR,   /* coll_loom_enable, written on all ranks */
    LOOM_BENCH_SWITCH_COMM    /* a communicator that refuses Loom */
} loom_bench_switch_t;

typedef enum {
    LOOM_BENCH_PROGRESS_AUTO, LOOM_BENCH_PROGRESS_ON, LOOM_BENCH_PROGRESS_OFF
} loom_bench_progress_t;

/* How a call is timed (--timing). */
typedef enum {
    LOOM_BENCH_TIMING_BATCH,  /* back-to-back calls; the slowest rank's time per call */
    LOOM_BENCH_TIMING_SINGLE  /* barrier, one call, barrier; each rank's time averaged */
} loom_bench_timing_t;

extern const char *const loom_bench_timing_names[];

typedef struct loom_bench_options {
    const loom_bench_coll_t  *coll;
    const loom_bench_dtype_t *dtype;
    const loom_bench_op_t    *op;
    size_t                    min_bytes;
    size_t                    max_bytes;
    size_t                    step_factor;
    int                       warmup;       /* untimed batches per contender and size */
    int                       iters;        /* timed batches per contender and size */
    int                       batch;        /* calls per batch; 0: about a millisecond */
    loom_bench_timing_t       timing;       /* single: every batch is one call */
    int                       fresh;        /* rotate through buffers beyond the cache */
    size_t                    fresh_span;   /* bytes per buffer arena; 0: the LLC's size */
    int                       check;
    int                       compare;      /* 0: Loom alone (--no-compare) */
    int                       root;         /* rooted collectives' root (--root) */
    int                       memcpy_ref;   /* time the memcpy reference (memref.h) */
    loom_bench_switch_t       switch_mode;
    loom_bench_progress_t     progress;
    const char               *csv_path;     /* NULL: no CSV */
    const char               *plot_path;    /* NULL: no plot */
} loom_bench_options_t;

typedef enum {
    LOOM_BENCH_PARSE_RUN,     /* options valid: run */
    LOOM_BENCH_PARSE_HELP,    /* --help printed: exit 0 */
    LOOM_BENCH_PARSE_ERROR    /* message printed: exit 2 */
} loom_bench_parse_t;

/* Parse argv into *opts_p.  Messages go to err (NULL: say nothing, as on
 * all ranks but 0, which parse the same arguments). */
loom_bench_parse_t loom_bench_options_parse(int argc, char **argv, FILE *err,
                                            loom_bench_options_t *opts_p);

/* The checks that need the rank count, after MPI_Init: 0, or -1 with a
 * message on err (NULL: silent). */
int loom_bench_options_check_ranks(const loom_bench_options_t *opts, int nranks, FILE *err);

#endif
