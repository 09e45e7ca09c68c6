/*
 * Medians for the benchmarks in test/perf, with or without MPI.
 */
#ifndef LOOM_BENCH_STATS_H
#define LOOM_BENCH_STATS_H

/* Ascending order of doubles, for qsort. */
int bench_cmp(const void *a, const void *b);

/* The median of v[0..n), which it sorts. */
double bench_median(double *v, int n);

#endif
