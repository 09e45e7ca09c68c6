/*
 * What loom-bench prints (rank 0 only): the table on stdout, one row per
 * size and contender, with a header that says how the run was made; the
 * same rows as CSV; the A/A summary; the progress line on stderr.
 */
#ifndef LOOM_BENCH_OUTPUT_H
#define LOOM_BENCH_OUTPUT_H

#include "compare.h"
#include "mpit.h"
#include "options.h"
#include "sweep.h"

#include <stdio.h>

typedef struct loom_bench_run_info {
    const loom_bench_options_t  *opts;
    const loom_bench_compare_t  *cmp;
    const loom_bench_mpit_t     *mpit;
    int                          nranks;
    int                          nnodes;
    int                          local_ranks;   /* most ranks on one node */
    long                         cores;         /* online on rank 0's node */
    size_t                       llc;
    const char                  *llc_source;
    size_t                       span;          /* fresh arena span */
} loom_bench_run_info_t;

void loom_bench_output_header(FILE *out, const loom_bench_run_info_t *info);
void loom_bench_output_rows(FILE *out, const loom_bench_run_info_t *info,
                            const loom_bench_result_t *results);

/* The A/A summary and warnings about contenders that did not run where
 * they should have; results holds nsizes * cmp->count rows. */
void loom_bench_output_summary(FILE *out, const loom_bench_run_info_t *info,
                               const loom_bench_result_t *results, int nsizes);

/* 0 on success; on failure says why on stderr and returns -1. */
int loom_bench_output_csv(const char *path, const loom_bench_run_info_t *info,
                          const loom_bench_result_t *results, int nsizes);

/* "loom-bench: 1M (13 of 24), 42 s" on stderr, ended by a carriage return
 * so that the next table row overwrites it; done clears it. */
void loom_bench_progress(size_t bytes, int index, int nsizes, double elapsed);
void loom_bench_progress_done(void);

#endif
