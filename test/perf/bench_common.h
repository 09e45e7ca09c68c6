/*
 * What the MPI benchmarks in test/perf share: medians (bench_stats.h),
 * and a barrier whose waiting ranks sleep instead of spinning on shared
 * cores.
 */
#ifndef LOOM_BENCH_COMMON_H
#define LOOM_BENCH_COMMON_H

#include "bench_stats.h"

#include <mpi.h>

void bench_sleepy_barrier(MPI_Comm comm);

#endif
