/* loom-sim calibrate (calibrate.h). */
#include "calibrate.h"
#include "coll/core/allreduce/allreduce.h"
#include "sweep.h"
#include "coll/sim/fit.h"

#include <errno.h>
#include <math.h>
#include <stdlib.h>
#include <string.h>

#define LOOM_SIM_BENCH_MAX 64
#define LOOM_SIM_BENCH_FROM (64 << 10)

typedef struct loom_sim_bench {
    int     n;
    size_t  bytes[LOOM_SIM_BENCH_MAX];
    double  time_s[LOOM_SIM_BENCH_MAX];
} loom_sim_bench_t;

/* The "loom" rows of an allreduce loom-bench CSV (tools/loom-bench:
 * collective,datatype,op,ranks,bytes,count,contender,median_us,...). */
static int loom_sim_bench_read(const char *path, int ranks, loom_sim_bench_t *b)
{
    char line[2048], *field[20], *s, *save = NULL;
    int nf, lineno = 0;
    FILE *f = fopen(path, "r");

    if (f == NULL) {
        fprintf(stderr, "loom-sim: --bench %s: %s\n", path, strerror(errno));
        return -1;
    }
    b->n = 0;
    while (fgets(line, sizeof(line), f) != NULL) {
        ++lineno;
        nf = 0;
        for (s = strtok_r(line, ",\n", &save); s != NULL && nf < 20;
             s = strtok_r(NULL, ",\n", &save)) {
            field[nf++] = s;
        }
        if (lineno == 1 || nf < 8 || strcmp(field[6], "loom") != 0) {
            continue;
        }
        if (strcmp(field[0], "allreduce") != 0 || atoi(field[3]) != ranks) {
            fprintf(stderr, "loom-sim: --bench %s:%d: an allreduce on %d ranks was expected "
                    "(--bench-ranks), not %s on %s\n", path, lineno, ranks, field[0], field[3]);
            fclose(f);
            return -1;
        }
        if (b->n < LOOM_SIM_BENCH_MAX && strtoull(field[4], NULL, 10) >= LOOM_SIM_BENCH_FROM) {
            b->bytes[b->n] = (size_t)strtoull(field[4], NULL, 10);
            b->time_s[b->n++] = atof(field[7]) * 1e-6;
        }
    }
    fclose(f);
    if (b->n == 0) {
        fprintf(stderr, "loom-sim: --bench %s: no 'loom' row of 64K or more (loom-bench "
                "--csv output expected)\n", path);
        return -1;
    }
    return 0;
}

/* The links between nodes at 10^lg of their ping-pong speed: a lone
 * ping-pong has the cores to itself, a job's flows share them with every
 * rank and the kernel's network stack. */
static void loom_sim_scale_links(loom_sim_model_t *m, const loom_sim_model_t *pp, double lg)
{
    double f = pow(10, lg);

    m->gbs[LOOM_SIM_INTRA_RACK] = pp->gbs[LOOM_SIM_INTRA_RACK] * f;
    m->gbs[LOOM_SIM_INTER_RACK] = pp->gbs[LOOM_SIM_INTER_RACK] * f;
    m->nic_gbs = pp->nic_gbs * f;
    m->uplink_gbs = pp->uplink_gbs * f;
}

/* Sum of absolute log ratios of prediction to measurement with the links
 * at 10^lg of their ping-pong speed; HUGE_VAL when a prediction fails.
 * Absolute, not squared: each measurement is a median of a few timed
 * calls on a loaded rig, and one size that ran slow (the emulated
 * cluster's ring at 1 MiB once took a median of 108 ms where its fastest
 * call took 74 and the sizes around it ran at 0.71 of ping-pong speed)
 * must not pull the share of every link with it.  The least absolute
 * error follows the middle of the sizes, as a median does. */
static double loom_sim_links_error(const loom_sim_options_t *o, loom_sim_model_t *m,
                                   const loom_sim_model_t *pp, const loom_sim_bench_t *b,
                                   double lg)
{
    loom_sim_row_t row;
    double e = 0, d;
    int i;

    loom_sim_scale_links(m, pp, lg);
    for (i = 0; i < b->n; ++i) {
        if (loom_sim_predict(&loom_sim_coll_allreduce, m, o->bench_ranks, b->bytes[i],
                             o->bench_alg, o->in_place, NULL, &row) != LOOM_OK ||
            !row.ok || !(b->time_s[i] > 0)) {
            return HUGE_VAL;
        }
        d = log(row.time_s / b->time_s[i]);
        e += fabs(d);
    }
    return e;
}

/* Golden-section search of the links' share of their ping-pong speed over
 * 0.05 .. 2. */
static double loom_sim_fit_links(const loom_sim_options_t *o, loom_sim_model_t *m,
                                 const loom_sim_bench_t *b, double *err_p)
{
    const double phi = (sqrt(5.0) - 1) / 2;
    const loom_sim_model_t pp = *m;
    double lo = log10(0.05), hi = log10(2.0), x1 = hi - phi * (hi - lo), x2 = lo + phi * (hi - lo);
    double f1 = loom_sim_links_error(o, m, &pp, b, x1), f2 = loom_sim_links_error(o, m, &pp, b, x2);
    int it;

    for (it = 0; it < 40; ++it) {
        if (f1 <= f2) {
            hi = x2; x2 = x1; f2 = f1;
            x1 = hi - phi * (hi - lo);
            f1 = loom_sim_links_error(o, m, &pp, b, x1);
        } else {
            lo = x1; x1 = x2; f1 = f2;
            x2 = lo + phi * (hi - lo);
            f2 = loom_sim_links_error(o, m, &pp, b, x2);
        }
    }
    *err_p = f1 <= f2 ? f1 : f2;
    loom_sim_scale_links(m, &pp, f1 <= f2 ? x1 : x2);
    return pow(10, f1 <= f2 ? x1 : x2);
}

int loom_sim_calibrate_main(const loom_sim_options_t *o)
{
    loom_sim_model_t m = o->model;
    loom_sim_pingpong_fit_t fit;
    loom_sim_bench_t bench;
    char err[512];
    double share, e;
    FILE *in, *out;
    int c, i;

    in = fopen(o->pingpong_path, "r");
    if (in == NULL) {
        fprintf(stderr, "loom-sim: --pingpong %s: %s\n", o->pingpong_path, strerror(errno));
        return -1;
    }
    if (loom_sim_fit_pingpong(in, o->pingpong_path, &m, &fit, err, sizeof(err)) != LOOM_OK) {
        fclose(in);
        fprintf(stderr, "loom-sim: --pingpong %s\n", err);
        return -1;
    }
    fclose(in);
    for (c = 0; c < LOOM_SIM_CLASS_COUNT; ++c) {
        fprintf(stderr, "loom-sim: %-10s %d points, %d sizes: alpha %.4g us, %.4g GB/s%s\n",
                loom_sim_class_names[c], fit.points[c], fit.sizes[c], m.alpha_us[c], m.gbs[c],
                fit.points[c] == 0 ? " (not measured: kept)"
                : fit.sizes[c] < 2 ? " (one size: alpha kept)" : "");
    }
    /* A lone stream between nodes runs at the NIC's speed; across racks
     * at the uplink's when that is slower (the emulated cluster's 300
     * Mbit/s uplinks under 1 Gbit/s node links). */
    if (fit.points[LOOM_SIM_INTRA_RACK] > 0) {
        m.nic_gbs = m.gbs[LOOM_SIM_INTRA_RACK];
    }
    if (fit.points[LOOM_SIM_INTER_RACK] > 0 && m.gbs[LOOM_SIM_INTER_RACK] < m.nic_gbs) {
        m.uplink_gbs = m.gbs[LOOM_SIM_INTER_RACK];
    }
    if (o->bench_path != NULL) {
        if (loom_sim_bench_read(o->bench_path, o->bench_ranks, &bench) != 0) {
            return -1;
        }
        share = loom_sim_fit_links(o, &m, &bench, &e);
        fprintf(stderr, "loom-sim: links between nodes at %.3g of their ping-pong speed "
                "fit %d sizes of %s on %d ranks (mean absolute log error %.3f)\n", share,
                bench.n, loom_allreduce_alg_names[o->bench_alg], o->bench_ranks, e / bench.n);
        for (i = 0; i < bench.n; ++i) {
            loom_sim_row_t row;

            if (loom_sim_predict(&loom_sim_coll_allreduce, &m, o->bench_ranks, bench.bytes[i], o->bench_alg,
                                 o->in_place, NULL, &row) == LOOM_OK && row.ok) {
                fprintf(stderr, "loom-sim:   %zu bytes: measured %.1f us, fitted %.1f us "
                        "(%+.1f%%)\n", bench.bytes[i], bench.time_s[i] * 1e6, row.time_s * 1e6,
                        (row.time_s / bench.time_s[i] - 1) * 100);
            }
        }
    }
    out = o->out_path != NULL ? fopen(o->out_path, "w") : stdout;
    if (out == NULL) {
        fprintf(stderr, "loom-sim: -o %s: %s\n", o->out_path, strerror(errno));
        return -1;
    }
    loom_sim_model_write(out, &m);
    if (out != stdout && fclose(out) != 0) {
        fprintf(stderr, "loom-sim: -o %s: %s\n", o->out_path, strerror(errno));
        return -1;
    }
    return 0;
}
