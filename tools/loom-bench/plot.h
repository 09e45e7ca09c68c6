/*
 * The picture: busbw against message size, one line per contender, and
 * for bcast and the allgathers the memcpy bound from 1 MiB on, drawn by
 * gnuplot (Debian's gnuplot-nox) into a PNG.  loom-bench feeds
 * gnuplot a script on a pipe; without gnuplot it says so and the caller
 * keeps the CSV.
 */
#ifndef LOOM_BENCH_PLOT_H
#define LOOM_BENCH_PLOT_H

#include "output.h"
#include "sweep.h"

/* Draw results into png_path; 0 on success, else -1 with a message. */
int loom_bench_plot_write(const char *png_path, const loom_bench_run_info_t *info,
                          const loom_bench_result_t *results, int nsizes);

#endif
