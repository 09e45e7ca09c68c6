/*
 * loom-bench: Loom's measuring stick.  Times a collective with Loom and
 * with the module Open MPI uses without it, side by side in one job, as
 * nccl-tests times NCCL (docs/loom-bench.md).  This file runs the parts:
 * options.c reads the command line, compare.c sets up the contenders,
 * sweep.c times them, output.c and plot.c show the results.
 */
#include "buffers.h"
#include "compare.h"
#include "mpit.h"
#include "options.h"
#include "output.h"
#include "plot.h"
#include "sweep.h"
#include "tools/common/gnuplot.h"

#include <fcntl.h>
#include <mpi.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

/* Nodes, and the most ranks on one node, from shared-memory groups. */
static void loom_bench_node_counts(int *nnodes_p, int *local_ranks_p)
{
    MPI_Comm node;
    int local_rank, local_size, first;

    MPI_Comm_split_type(MPI_COMM_WORLD, MPI_COMM_TYPE_SHARED, 0, MPI_INFO_NULL, &node);
    MPI_Comm_rank(node, &local_rank);
    MPI_Comm_size(node, &local_size);
    first = local_rank == 0;
    MPI_Allreduce(&first, nnodes_p, 1, MPI_INT, MPI_SUM, MPI_COMM_WORLD);
    MPI_Allreduce(&local_size, local_ranks_p, 1, MPI_INT, MPI_MAX, MPI_COMM_WORLD);
    MPI_Comm_free(&node);
}

/* mpirun passes ranks' stderr through a pipe, so a rank cannot see the
 * terminal itself; mpirun, its parent on rank 0's node, can. */
static int loom_bench_terminal(void)
{
    char path[64];
    int fd, tty;

    if (isatty(STDERR_FILENO)) {
        return 1;
    }
    snprintf(path, sizeof(path), "/proc/%ld/fd/2", (long)getppid());
    fd = open(path, O_WRONLY | O_NOCTTY);
    if (fd < 0) {
        return 0;
    }
    tty = isatty(fd);
    close(fd);
    return tty;
}

/* The fresh arenas: the cache's size unless given, at most an eighth of
 * the node's memory across its ranks (two arenas each, two more for the
 * memcpy reference, and room left). */
static size_t loom_bench_fresh_span(const loom_bench_options_t *opts, size_t llc,
                                    int local_ranks, int *capped_p)
{
    size_t span = opts->fresh_span > 0 ? opts->fresh_span : llc, cap;
    size_t arenas = opts->memcpy_ref ? 4 : 2;
    long pages = sysconf(_SC_PHYS_PAGES), page = sysconf(_SC_PAGESIZE);

    *capped_p = 0;
    if (pages > 0 && page > 0) {
        cap = (size_t)pages * (size_t)page / 8 / arenas / (size_t)local_ranks;
        if (span > cap) {
            span = cap;
            *capped_p = 1;
        }
    }
    return span;
}

/* Where the CSV goes when a plot was asked for but cannot be drawn. */
static char *loom_bench_csv_beside(const char *png)
{
    size_t len = strlen(png);
    char *csv = malloc(len + 5);

    if (csv == NULL) {
        return NULL;
    }
    strcpy(csv, png);
    if (len > 4 && strcmp(csv + len - 4, ".png") == 0) {
        csv[len - 4] = '\0';
    }
    strcat(csv, ".csv");
    return csv;
}

/* After MPI_Finalize, on rank 0: the files.  Returns 0, or 1 when a file
 * could not be written. */
static int loom_bench_write_files(const loom_bench_run_info_t *info,
                                  const loom_bench_result_t *results, int nsizes)
{
    const loom_bench_options_t *o = info->opts;
    char *csv_beside;
    int ret = 0;

    if (o->csv_path != NULL && loom_bench_output_csv(o->csv_path, info, results, nsizes) != 0) {
        ret = 1;
    }
    if (o->plot_path != NULL && loom_bench_plot_write(o->plot_path, info, results, nsizes) != 0 &&
        o->csv_path == NULL) {
        csv_beside = loom_bench_csv_beside(o->plot_path);
        if (csv_beside != NULL && loom_bench_output_csv(csv_beside, info, results, nsizes) == 0) {
            fprintf(stderr, "loom-bench: the results are in %s\n", csv_beside);
        }
        free(csv_beside);
    }
    return ret;
}

/* Says, once and on rank 0, what would make the run misleading. */
static void loom_bench_warn(const loom_bench_run_info_t *info)
{
    const loom_bench_options_t *o = info->opts;

    if (!info->mpit->have_pvar[LOOM_BENCH_PVAR_CALLS]) {
        fprintf(stderr, "loom-bench: warning: Loom's MPI_T counters (%scalls) are missing: "
                "Loom is not loaded (is its directory in OMPI_MCA_mca_base_component_path, "
                "and coll_loom_priority not negative?); the loom column measures Open MPI's "
                "default\n", o->coll->pvar_prefix);
    }
    if (o->compare && info->cmp->mode == LOOM_BENCH_SWITCH_COMM &&
        o->switch_mode == LOOM_BENCH_SWITCH_AUTO) {
        fprintf(stderr, "loom-bench: note: %s\n", info->cmp->why);
    }
    if (info->local_ranks > info->cores && info->mpit->yield_when_idle != 1) {
        fprintf(stderr, "loom-bench: warning: %d ranks share %ld cores and mpi_yield_when_idle "
                "is not 1: waiting ranks spin on the cores the others need, and the times "
                "measure that; run with --mca mpi_yield_when_idle 1\n", info->local_ranks,
                info->cores);
    }
    if (o->plot_path != NULL &&
        !loom_gnuplot_available(loom_gnuplot_program("LOOM_BENCH_GNUPLOT"))) {
        fprintf(stderr, "loom-bench: warning: %s not found: there will be no plot, only the "
                "CSV (on Debian: apt-get install gnuplot-nox)\n",
                loom_gnuplot_program("LOOM_BENCH_GNUPLOT"));
    }
}

static int loom_bench_run(const loom_bench_options_t *opts, loom_bench_run_info_t *info,
                          loom_bench_result_t **results_p, int *nsizes_p)
{
    loom_bench_sweep_t sweep;
    loom_bench_result_t *results;
    size_t *sizes;
    int rank, nsizes, i, progress = 0, failed = 0;
    double t0;

    MPI_Comm_rank(MPI_COMM_WORLD, &rank);
    if (loom_bench_sweep_sizes(opts, info->nranks, &sizes, &nsizes) != 0 || nsizes == 0) {
        if (rank == 0) {
            fprintf(stderr, "loom-bench: no sizes to measure from -b %zu to -e %zu (%s on %d "
                    "ranks needs at least one %s per rank)\n", opts->min_bytes,
                    opts->max_bytes, opts->coll->name, info->nranks, opts->dtype->name);
        }
        return 1;
    }
    results = calloc((size_t)nsizes * LOOM_BENCH_MAX_CONTENDERS, sizeof(*results));
    if (results == NULL ||
        loom_bench_sweep_create(opts, info->cmp, info->mpit, info->span, sizes, nsizes,
                                &sweep) != 0) {
        fprintf(stderr, "loom-bench: rank %d: out of memory for the buffers (try a smaller "
                "-e or --fresh=SIZE)\n", rank);
        MPI_Abort(MPI_COMM_WORLD, 1);
    }
    if (rank == 0) {
        progress = opts->progress == LOOM_BENCH_PROGRESS_ON ||
                   (opts->progress == LOOM_BENCH_PROGRESS_AUTO && loom_bench_terminal());
        loom_bench_output_header(stdout, info);
    }
    t0 = MPI_Wtime();
    for (i = 0; i < nsizes; ++i) {
        if (progress) {
            loom_bench_progress(sizes[i], i, nsizes, MPI_Wtime() - t0);
        }
        loom_bench_sweep_run(&sweep, sizes[i], &results[i * info->cmp->count]);
        if (rank == 0) {
            loom_bench_output_rows(stdout, info, &results[i * info->cmp->count]);
        }
    }
    if (progress) {
        loom_bench_progress_done();
    }
    for (i = 0; i < nsizes * info->cmp->count; ++i) {
        failed |= results[i].check_failures > 0;
    }
    if (rank == 0) {
        loom_bench_output_summary(stdout, info, results, nsizes);
    }
    loom_bench_sweep_destroy(&sweep);
    free(sizes);
    *results_p = results;
    *nsizes_p = nsizes;
    return failed;
}

int main(int argc, char **argv)
{
    loom_bench_options_t opts;
    loom_bench_mpit_t mpit;
    loom_bench_compare_t cmp;
    loom_bench_run_info_t info;
    loom_bench_result_t *results = NULL;
    int rank, nranks, nsizes = 0, capped, status;

    MPI_Init(&argc, &argv);
    MPI_Comm_rank(MPI_COMM_WORLD, &rank);
    MPI_Comm_size(MPI_COMM_WORLD, &nranks);
    switch (loom_bench_options_parse(argc, argv, rank == 0 ? stderr : NULL, &opts)) {
    case LOOM_BENCH_PARSE_RUN:
        if (loom_bench_options_check_ranks(&opts, nranks, rank == 0 ? stderr : NULL) != 0) {
            MPI_Finalize();
            return 2;
        }
        break;
    case LOOM_BENCH_PARSE_HELP:
        MPI_Finalize();
        return 0;
    case LOOM_BENCH_PARSE_ERROR:
        MPI_Finalize();
        return 2;
    }

    loom_bench_mpit_open(opts.coll->pvar_prefix, &mpit);
    if (loom_bench_compare_create(&opts, &mpit, &cmp) != MPI_SUCCESS) {
        loom_bench_mpit_close(&mpit);
        MPI_Finalize();
        return 2;
    }
    info = (loom_bench_run_info_t){
        .opts = &opts, .cmp = &cmp, .mpit = &mpit, .nranks = nranks,
        .cores = sysconf(_SC_NPROCESSORS_ONLN),
    };
    loom_bench_node_counts(&info.nnodes, &info.local_ranks);
    info.llc = loom_bench_llc_bytes(&info.llc_source);
    info.span = loom_bench_fresh_span(&opts, info.llc, info.local_ranks, &capped);
    if (rank == 0) {
        loom_bench_warn(&info);
        if (opts.fresh && capped) {
            fprintf(stderr, "loom-bench: note: --fresh arenas capped at %zu bytes per rank "
                    "by the node's memory\n", info.span);
        }
    }

    status = loom_bench_run(&opts, &info, &results, &nsizes);

    loom_bench_compare_destroy(&cmp, &mpit);
    loom_bench_mpit_close(&mpit);
    MPI_Finalize();
    /* The files are written by rank 0 alone, after MPI, so that gnuplot
     * is never forked from inside an MPI process. */
    if (rank == 0 && results != NULL && loom_bench_write_files(&info, results, nsizes) != 0) {
        status = 1;
    }
    free(results);
    return status;
}
