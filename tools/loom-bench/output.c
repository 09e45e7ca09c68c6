/* Table, CSV, summary and progress line (output.h). */
#include "output.h"
#include "tools/common/size.h"

#include "stats.h"

#include <errno.h>
#include <stdlib.h>
#include <string.h>

/* Progress text stays shorter than a table row, which overwrites it. */
#define LOOM_BENCH_PROGRESS_WIDTH 60

static const char *loom_bench_contender_name(const loom_bench_run_info_t *info, int c)
{
    return info->cmp->contender[c].name;
}

static const char *loom_bench_root_text(int root, char *buf, size_t len)
{
    snprintf(buf, len, " (root %d)", root);
    return buf;
}

void loom_bench_output_header(FILE *out, const loom_bench_run_info_t *info)
{
    const loom_bench_options_t *o = info->opts;
    char a[32], b[32];

    fprintf(out, "# loom-bench: %s%s, %s %s, %d ranks on %d node%s (%ld cores on rank 0's), "
            "warm-up %d, %d timed %s per contender and size\n",
            o->coll->name, o->coll->rooted ? loom_bench_root_text(o->root, a, sizeof(a)) : "",
            o->dtype->name, o->op->name, info->nranks, info->nnodes,
            info->nnodes == 1 ? "" : "s", info->cores, o->warmup, o->iters,
            o->timing == LOOM_BENCH_TIMING_SINGLE ? "single calls" : "batches");
    if (o->compare) {
        fprintf(out, "# default: %s\n", info->cmp->why);
    } else {
        fprintf(out, "# Loom alone (--no-compare)\n");
    }
    if (o->fresh) {
        fprintf(out, "# buffers: fresh, rotating through %s of inputs and as much output "
                "(last-level cache %s, from %s)\n",
                loom_tool_size_format(info->span, a, sizeof(a)),
                loom_tool_size_format(info->llc, b, sizeof(b)), info->llc_source);
    } else {
        fprintf(out, "# buffers: the same for every call (--fresh rotates)\n");
    }
    fprintf(out, "# check: %s\n", o->check ? "every result of every call" : "off (--check)");
    if (!o->memcpy_ref) {
        fprintf(out, "# memcpy reference: off (--no-memcpy-ref)\n");
    } else {
        fprintf(out, "# memcpy reference: %s a memcpy of size bytes at once, the slowest "
                "rank's time, in turn with the contenders; memcpy: size / its median, in "
                "GB/s%s\n",
                o->coll->memcpy_ref == LOOM_BENCH_REF_BUT_ROOT ? "every rank but the root makes"
                                                               : "every rank makes",
                o->coll->memcpy_ref == LOOM_BENCH_REF_NONE
                    ? ""
                    : "; of_memcpy: algbw / memcpy (the single-copy bound, docs/loom-bench.md)");
    }
    fprintf(out, "# mpi_yield_when_idle: %s\n",
            info->mpit->yield_when_idle < 0 ? "unknown"
            : info->mpit->yield_when_idle ? "1 (waiting ranks yield the cores)"
                                          : "0 (waiting ranks spin)");
    if (o->timing == LOOM_BENCH_TIMING_SINGLE) {
        fprintf(out, "# timing: single (barrier, one call timed, barrier); times in us per call, "
                "each rank's own time averaged over the ranks; median, min, max over the %d "
                "calls; ratio: median / default's median\n", o->iters);
    } else {
        fprintf(out, "# timing: batch (back-to-back calls); times in us per call, the slowest "
                "rank's; median, min, max over batches; ratio: median / default's median\n");
    }
    fprintf(out, "#%11s %11s  %-13s %10s %10s %10s %9s %9s %6s %8s %9s  %-18s %s\n", "size",
            "count", "contender", "median", "min", "max", "algbw", "busbw", "ratio", "memcpy",
            "of_memcpy", "algorithm", "check");
    fprintf(out, "#%11s %11s  %-13s %10s %10s %10s %9s %9s %6s %8s %9s  %-18s %s\n", "(B)",
            "(elements)", "", "(us)", "(us)", "(us)", "(GB/s)", "(GB/s)", "", "(GB/s)", "", "",
            "");
    fflush(out);
}

static const char *loom_bench_check_text(const loom_bench_result_t *r, char *buf, size_t len)
{
    if (r->check_failures < 0) {
        return "-";
    }
    if (r->check_failures == 0) {
        return "ok";
    }
    snprintf(buf, len, "FAIL(%lld)", r->check_failures);
    return buf;
}

/* A value the row may lack (0): "-" then, as the CSV's 0 says "none". */
static void loom_bench_number_text(double v, const char *format, char *buf, size_t len)
{
    if (v > 0) {
        snprintf(buf, len, format, v);
    } else {
        snprintf(buf, len, "-");
    }
}

void loom_bench_output_rows(FILE *out, const loom_bench_run_info_t *info,
                            const loom_bench_result_t *results)
{
    char check[32], ratio[16], memcpy_gbs[16], frac[16];
    int c;

    for (c = 0; c < info->cmp->count; ++c) {
        const loom_bench_result_t *r = &results[c];

        loom_bench_number_text(r->ratio, "%.2f", ratio, sizeof(ratio));
        loom_bench_number_text(r->memcpy_gbs, "%.3f", memcpy_gbs, sizeof(memcpy_gbs));
        loom_bench_number_text(r->memcpy_frac, "%.2f", frac, sizeof(frac));
        fprintf(out,
                "%12zu %11zu  %-13s %10.2f %10.2f %10.2f %9.3f %9.3f %6s %8s %9s  %-18s %s\n",
                r->bytes, r->count, loom_bench_contender_name(info, c), r->median * 1e6,
                r->min * 1e6, r->max * 1e6, r->algbw, r->busbw, ratio, memcpy_gbs, frac,
                r->algorithm, loom_bench_check_text(r, check, sizeof(check)));
    }
    fflush(out);
}

/* Loom's of_memcpy where the single-copy target applies. */
static void loom_bench_output_memcpy_summary(FILE *out, const loom_bench_run_info_t *info,
                                             const loom_bench_result_t *results, int nsizes)
{
    const loom_bench_result_t *r;
    double lo = 0.0, hi = 0.0;
    int nc = info->cmp->count, i, n = 0, below = 0;
    char large[32];

    if (!info->opts->memcpy_ref || info->opts->coll->memcpy_ref == LOOM_BENCH_REF_NONE) {
        return;
    }
    for (i = 0; i < nsizes; ++i) {
        r = &results[i * nc + LOOM_BENCH_LOOM];
        if (r->bytes < LOOM_BENCH_MEMREF_LARGE || r->memcpy_frac <= 0) {
            continue;
        }
        lo = n == 0 || r->memcpy_frac < lo ? r->memcpy_frac : lo;
        hi = n == 0 || r->memcpy_frac > hi ? r->memcpy_frac : hi;
        below += r->memcpy_frac < LOOM_BENCH_MEMREF_TARGET;
        ++n;
    }
    loom_tool_size_format(LOOM_BENCH_MEMREF_LARGE, large, sizeof(large));
    if (n == 0) {
        fprintf(out, "# of_memcpy: no size from %s on, where the single-copy target "
                "applies\n", large);
        return;
    }
    fprintf(out, "# of_memcpy (loom) over the %d sizes from %s on: %.2f to %.2f; below the "
            "target %.2f at %d\n", n, large, lo, hi, LOOM_BENCH_MEMREF_TARGET, below);
}

void loom_bench_output_summary(FILE *out, const loom_bench_run_info_t *info,
                               const loom_bench_result_t *results, int nsizes)
{
    const loom_bench_result_t *row;
    int nc = info->cmp->count, i, not_loom = 0, on_loom = 0, failed = 0;
    double *aa, *dev, *lr, lr_median;

    for (i = 0; i < nsizes * nc; ++i) {
        row = &results[i];
        failed += row->check_failures > 0;
        if (row->contender == LOOM_BENCH_LOOM) {
            not_loom += row->loom_calls == 0;
        } else {
            on_loom += row->loom_calls > 0;
        }
    }
    if (failed > 0) {
        fprintf(out, "# CHECK FAILED: %d rows have wrong results (check column)\n", failed);
    } else if (info->opts->check) {
        fprintf(out, "# check: every result was right\n");
    }
    if (not_loom > 0) {
        fprintf(out, "# note: Loom handed down or never saw the loom column's calls at %d of "
                "%d sizes; the algorithm column says why (handoff: small messages on one "
                "node go to the module below by design)\n", not_loom, nsizes);
    }
    if (on_loom > 0) {
        fprintf(out, "# WARNING: Loom ran calls of a default column at %d rows: the "
                "comparison is not against Open MPI's module\n", on_loom);
    }
    loom_bench_output_memcpy_summary(out, info, results, nsizes);
    if (nc < LOOM_BENCH_MAX_CONTENDERS || nsizes == 0) {
        return;
    }
    aa = malloc(3 * (size_t)nsizes * sizeof(double));
    if (aa == NULL) {
        return;
    }
    dev = aa + nsizes;
    lr = dev + nsizes;
    for (i = 0; i < nsizes; ++i) {
        aa[i] = results[i * nc + LOOM_BENCH_DEFAULT_AA].ratio;
        dev[i] = aa[i] > 1 ? aa[i] - 1 : 1 - aa[i];
        lr[i] = results[i * nc + LOOM_BENCH_LOOM].ratio;
    }
    fprintf(out, "# A/A (the default against itself) over %d sizes: median %.2f, 95th "
            "percentile %.2f; 95%% of A/A ratios lie within %.0f%% of 1, so smaller "
            "differences in the ratio column are noise\n",
            nsizes, loom_bench_median(aa, (size_t)nsizes),
            loom_bench_percentile(aa, (size_t)nsizes, 95.0),
            100.0 * loom_bench_percentile(dev, (size_t)nsizes, 95.0));
    lr_median = loom_bench_median(lr, (size_t)nsizes);   /* sorts lr */
    fprintf(out, "# loom/default over %d sizes: median %.2f, min %.2f, max %.2f\n", nsizes,
            lr_median, lr[0], lr[nsizes - 1]);
    free(aa);
}

int loom_bench_output_csv(const char *path, const loom_bench_run_info_t *info,
                          const loom_bench_result_t *results, int nsizes)
{
    const loom_bench_options_t *o = info->opts;
    const loom_bench_result_t *r;
    FILE *f = fopen(path, "w");
    int i;

    if (f == NULL) {
        fprintf(stderr, "loom-bench: cannot write the CSV to %s: %s\n", path, strerror(errno));
        return -1;
    }
    fprintf(f, "collective,datatype,op,ranks,bytes,count,contender,median_us,min_us,max_us,"
            "algbw_gbs,busbw_gbs,ratio,algorithm,loom_calls,check,wrong_elements,"
            "memcpy_gbs,memcpy_frac,timing\n");
    for (i = 0; i < nsizes * info->cmp->count; ++i) {
        r = &results[i];
        /* %g for the bandwidths and the fraction: at 8 bytes they are far
         * below 0.0001 (more so on a loaded machine), and a positive value
         * must not print as 0, which means "none". */
        fprintf(f, "%s,%s,%s,%d,%zu,%zu,%s,%.3f,%.3f,%.3f,%.6g,%.6g,%.4f,%s,%llu,%s,%lld,"
                "%.4f,%.6g,%s\n",
                o->coll->name, o->dtype->name, o->op->name, info->nranks, r->bytes, r->count,
                loom_bench_contender_name(info, r->contender), r->median * 1e6, r->min * 1e6,
                r->max * 1e6, r->algbw, r->busbw, r->ratio, r->algorithm, r->loom_calls,
                r->check_failures < 0 ? "off" : r->check_failures == 0 ? "ok" : "fail",
                r->check_failures < 0 ? 0 : r->check_failures, r->memcpy_gbs, r->memcpy_frac,
                loom_bench_timing_names[o->timing]);
    }
    if (fclose(f) != 0) {
        fprintf(stderr, "loom-bench: writing the CSV to %s failed: %s\n", path,
                strerror(errno));
        return -1;
    }
    return 0;
}

void loom_bench_progress(size_t bytes, int index, int nsizes, double elapsed)
{
    char size[32], line[LOOM_BENCH_PROGRESS_WIDTH + 1];

    snprintf(line, sizeof(line), "loom-bench: %s (%d of %d sizes), %.0f s",
             loom_tool_size_format(bytes, size, sizeof(size)), index + 1, nsizes, elapsed);
    fprintf(stderr, "%-*s\r", LOOM_BENCH_PROGRESS_WIDTH, line);
    fflush(stderr);
}

void loom_bench_progress_done(void)
{
    fprintf(stderr, "%-*s\r", LOOM_BENCH_PROGRESS_WIDTH, "");
    fflush(stderr);
}
