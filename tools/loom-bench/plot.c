/* busbw against size through gnuplot (plot.h). */
#include "plot.h"
#include "tools/common/gnuplot.h"
#include "tools/common/size.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/wait.h>
#include <unistd.h>

/* Sizes as 8, 1K, 64M on the x axis; every other one past a dozen. */
static void loom_bench_plot_xtics(FILE *gp, const loom_bench_result_t *results, int nc,
                                  int nsizes)
{
    int i, every = nsizes > 12 ? 2 : 1;
    char label[32];

    fprintf(gp, "set xtics (");
    for (i = 0; i < nsizes; i += every) {
        fprintf(gp, "%s\"%s\" %zu", i > 0 ? ", " : "",
                loom_tool_size_format(results[i * nc].bytes, label, sizeof(label)),
                results[i * nc].bytes);
    }
    fprintf(gp, ") rotate by -45\n");
}

int loom_bench_plot_write(const char *png_path, const loom_bench_run_info_t *info,
                          const loom_bench_result_t *results, int nsizes)
{
    const char *program = loom_gnuplot_program("LOOM_BENCH_GNUPLOT");
    const loom_bench_options_t *o = info->opts;
    int nc = info->cmp->count, c, i, status, bound;
    FILE *gp;

    if (!loom_gnuplot_available(program)) {
        fprintf(stderr, "loom-bench: %s not found: no plot in %s (on Debian: apt-get install "
                "gnuplot-nox)\n", program, png_path);
        return -1;
    }
    gp = popen(program, "w");
    if (gp == NULL) {
        fprintf(stderr, "loom-bench: cannot start %s: no plot in %s\n", program, png_path);
        return -1;
    }
    loom_gnuplot_png(gp, png_path);
    fprintf(gp, "set title \"loom-bench: %s, %s %s, %d ranks on %d node%s\"\n",
            o->coll->name, o->dtype->name, o->op->name, info->nranks, info->nnodes,
            info->nnodes == 1 ? "" : "s");
    fprintf(gp, "set logscale x 2\nset xlabel \"message size (bytes)\"\n"
            "set ylabel \"busbw (GB/s)\"\nset key top left\nset grid\n");
    loom_bench_plot_xtics(gp, results, nc, nsizes);
    /* One inline data block per contender: no temporary files. */
    for (c = 0; c < nc; ++c) {
        fprintf(gp, "$c%d << EOD\n", c);
        for (i = 0; i < nsizes; ++i) {
            fprintf(gp, "%zu %.6f\n", results[i * nc + c].bytes, results[i * nc + c].busbw);
        }
        fprintf(gp, "EOD\n");
    }
    /* Where a single copy bounds the collective, the busbw it would show
     * at exactly the memcpy reference's speed (of_memcpy = 1): the line
     * the 90% target is measured against.  Only from
     * LOOM_BENCH_MEMREF_LARGE on, where the target applies: below, a
     * cached memcpy runs at tens of GB/s and would flatten every other
     * line. */
    bound = 0;
    if (o->memcpy_ref && o->coll->memcpy_ref != LOOM_BENCH_REF_NONE) {
        for (i = 0; i < nsizes; ++i) {
            if (results[i * nc].bytes < LOOM_BENCH_MEMREF_LARGE) {
                continue;
            }
            fprintf(gp, "%s%zu %.6f\n", bound++ == 0 ? "$memcpy << EOD\n" : "",
                    results[i * nc].bytes,
                    results[i * nc].memcpy_gbs * o->coll->bus_factor(info->nranks));
        }
        if (bound > 0) {
            fprintf(gp, "EOD\n");
        }
    }
    fprintf(gp, "plot ");
    for (c = 0; c < nc; ++c) {
        fprintf(gp, "%s$c%d with linespoints title \"%s\"", c > 0 ? ", " : "", c,
                info->cmp->contender[c].name);
    }
    if (bound) {
        fprintf(gp, ", $memcpy with lines dashtype 2 title \"memcpy bound (from 1M)\"");
    }
    fprintf(gp, "\n");
    status = pclose(gp);
    if (status == -1 || !WIFEXITED(status) || WEXITSTATUS(status) != 0) {
        fprintf(stderr, "loom-bench: %s failed (status %d): %s may be missing or partial\n",
                program, status, png_path);
        return -1;
    }
    return 0;
}
