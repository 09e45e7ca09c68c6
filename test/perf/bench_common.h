/*
 * What the MPI benchmarks in test/perf share: medians, and a barrier
 * whose waiting ranks sleep instead of spinning on shared cores.
 */
#ifndef LOOM_BENCH_COMMON_H
#define LOOM_BENCH_COMMON_H

#include <mpi.h>

/* Ascending order of doubles, for qsort. */
int bench_cmp(const void *a, const void *b);

/* The median of v[0..n), which it sorts. */
double bench_median(double *v, int n);

void bench_sleepy_barrier(MPI_Comm comm);

#endif
