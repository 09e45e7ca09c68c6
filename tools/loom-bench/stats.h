/* Order statistics of a handful of timings. */
#ifndef LOOM_BENCH_STATS_H
#define LOOM_BENCH_STATS_H

#include <stddef.h>

/* Sorts v in place (n >= 1). */
double loom_bench_median(double *v, size_t n);
/* The p-th percentile (0..100) by the nearest-rank method; sorts v. */
double loom_bench_percentile(double *v, size_t n, double p);
double loom_bench_min(const double *v, size_t n);
double loom_bench_max(const double *v, size_t n);

#endif
