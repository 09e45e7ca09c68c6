/* Table, CSV and plot of a sweep (output.h). */
#include "output.h"
#include "tools/common/gnuplot.h"
#include "tools/common/size.h"

#include <errno.h>
#include <string.h>
#include <sys/wait.h>

/* The algorithm that ran, with the path its plans took when they have
 * arms (allgather(sparse)). */
static const char *loom_sim_ran_label(const loom_sim_coll_t *coll, const loom_sim_row_t *r,
                                      char *buf, size_t len)
{
    const char *arm = r->ok ? loom_sim_coll_arm_name(coll, r->arm) : NULL;

    if (arm == NULL) {
        return coll->engine->alg_names[r->ran_alg];
    }
    snprintf(buf, len, "%s(%s)", coll->engine->alg_names[r->ran_alg], arm);
    return buf;
}

static const char *loom_sim_alg_label(const loom_sim_coll_t *coll, const loom_sim_row_t *r,
                                     char *buf, size_t len)
{
    char ran[64];

    if (r->alg == 0) {
        snprintf(buf, len, "auto=%s", loom_sim_ran_label(coll, r, ran, sizeof(ran)));
        return buf;
    }
    return loom_sim_ran_label(coll, r, buf, len);
}

void loom_sim_output_table(FILE *out, const loom_sim_options_t *o, const loom_sim_sweep_t *sw)
{
    const loom_sim_model_t *m = &o->model;
    char size[32], seg[32], sent[32], label[64], choice[96];
    int i, c;

    fprintf(out, "# loom-sim: %s, %d ranks per node (%s), %d nodes per rack, "
            "%d NICs per node of %.4g GB/s, rack uplink %.4g GB/s\n", o->coll->engine->name,
            m->ranks_per_node,
            m->map == LOOM_SIM_MAP_CORE ? "--map-by core" : "--map-by node",
            m->nodes_per_rack, m->nics_per_node, loom_sim_model_nic_bps(m) * 1e-9,
            loom_sim_model_uplink_bps(m) * 1e-9);
    for (c = 0; c < LOOM_SIM_CLASS_COUNT; ++c) {
        fprintf(out, "# %-10s alpha %.4g us, %.4g GB/s\n", loom_sim_class_names[c],
                m->alpha_us[c], m->gbs[c]);
    }
    fprintf(out, "# reduce %.4g GB/s, copy %.4g GB/s; '*' marks Loom's choice\n",
            m->reduce_gbs, m->copy_gbs);
    if (o->coll->sparse) {
        fprintf(out, "# every rank selects %.4g of the vector (k = ceil(D * count) floats), "
                "path %s; algbw: the dense vector's bytes / time\n", o->sparse.density,
                o->sparse.path == 0 ? "by the cost model" : o->sparse.path == 1 ? "sparse (forced)"
                                                                              : "dense (forced)");
    }
    fprintf(out, "%7s %6s %6s %9s  %-26s %7s %14s %10s %10s  %-*s%s\n", "ranks", "nodes",
            "racks", "size", "algorithm", "segment", "time(us)", "algbw", "busbw",
            o->coll->sparse ? 16 : 0, "loom chooses", o->coll->sparse ? "  sent/rank" : "");
    for (i = 0; i < sw->nrows; ++i) {
        const loom_sim_row_t *r = &sw->rows[i];

        loom_tool_size_format(r->seg_bytes, seg, sizeof(seg));
        snprintf(choice, sizeof(choice), "%s/%s", o->coll->engine->alg_names[r->choice_alg],
                 loom_tool_size_format(r->choice_seg, size, sizeof(size)));
        loom_tool_size_format(r->bytes, size, sizeof(size));
        if (!r->ok) {
            fprintf(out, "%7d %6d %6d %9s  %-26s %7s %14s %10s %10s  %s\n", r->ranks, r->nodes,
                    r->racks, size, loom_sim_alg_label(o->coll, r, label, sizeof(label)), seg,
                    "refused", "-", "-", choice);
            continue;
        }
        fprintf(out, "%7d %6d %6d %9s %c%-26s %7s %14.2f %10.3f %10.3f  %-*s", r->ranks,
                r->nodes, r->racks, size, r->chosen ? '*' : ' ',
                loom_sim_alg_label(o->coll, r, label, sizeof(label)), seg, r->time_s * 1e6,
                r->algbw_gbs, r->busbw_gbs, o->coll->sparse ? 16 : 0, choice);
        if (o->coll->sparse) {
            /* The sparse exchanges' point is fewer bytes: say how many. */
            fprintf(out, "  %s", loom_tool_size_format((size_t)r->sent_bytes, sent,
                                                       sizeof(sent)));
        }
        fputc('\n', out);
    }
    fprintf(out, "# %d predictions in %.1f s\n", sw->nrows, sw->wall_s);
}

int loom_sim_output_csv(const char *path, const loom_sim_options_t *o, const loom_sim_sweep_t *sw)
{
    FILE *f = fopen(path, "w");
    char ran[64];
    int i;

    if (f == NULL) {
        fprintf(stderr, "loom-sim: --csv %s: %s\n", path, strerror(errno));
        return -1;
    }
    fprintf(f, "coll,ranks,nodes,racks,bytes,algorithm,ran,seg_bytes,time_us,algbw_gbs,"
            "busbw_gbs,chosen,loom_choice,loom_choice_seg,sent_bytes\n");
    for (i = 0; i < sw->nrows; ++i) {
        const loom_sim_row_t *r = &sw->rows[i];

        fprintf(f, "%s,%d,%d,%d,%zu,%s,%s,%zu,", o->coll->engine->name, r->ranks, r->nodes,
                r->racks, r->bytes, o->coll->engine->alg_names[r->alg],
                loom_sim_ran_label(o->coll, r, ran, sizeof(ran)), r->seg_bytes);
        if (r->ok) {
            fprintf(f, "%.4f,%.6f,%.6f,", r->time_s * 1e6, r->algbw_gbs, r->busbw_gbs);
        } else {
            fprintf(f, ",,,");
        }
        fprintf(f, "%d,%s,%zu,%llu\n", r->chosen, o->coll->engine->alg_names[r->choice_alg],
                r->choice_seg, (unsigned long long)r->sent_bytes);
    }
    if (fclose(f) != 0) {
        fprintf(stderr, "loom-sim: --csv %s: %s\n", path, strerror(errno));
        return -1;
    }
    return 0;
}

int loom_sim_output_plot(const char *path, const loom_sim_options_t *o,
                         const loom_sim_sweep_t *sw)
{
    const char *program = loom_gnuplot_program("LOOM_SIM_GNUPLOT");
    int by_size = o->nranks == 1, a, i, status;
    size_t bytes = o->plot_bytes;
    char label[32];
    FILE *gp;

    if (bytes == 0) {
        for (i = 0; i < sw->nrows; ++i) {
            bytes = sw->rows[i].bytes > bytes ? sw->rows[i].bytes : bytes;
        }
    }
    if (!loom_gnuplot_available(program)) {
        fprintf(stderr, "loom-sim: %s not found: no plot in %s (on Debian: apt-get install "
                "gnuplot-nox)\n", program, path);
        return -1;
    }
    gp = popen(program, "w");
    if (gp == NULL) {
        fprintf(stderr, "loom-sim: cannot start %s: no plot in %s\n", program, path);
        return -1;
    }
    loom_gnuplot_png(gp, path);
    if (by_size) {
        fprintf(gp, "set title \"loom-sim: %s on %d ranks, %d per node\"\n"
                "set xlabel \"message size (bytes)\"\n", o->coll->engine->name, o->ranks[0],
                o->model.ranks_per_node);
    } else {
        fprintf(gp, "set title \"loom-sim: %s of %s, %d ranks per node, %.3g:1 "
                "spine\"\nset xlabel \"ranks\"\n", o->coll->engine->name,
                loom_tool_size_format(bytes, label, sizeof(label)), o->model.ranks_per_node,
                o->model.oversubscription);
    }
    fprintf(gp, "set logscale x 2\nset ylabel \"busbw (GB/s)\"\nset key top left\n"
            "set grid\n");
    for (a = 0; a < o->nalgs; ++a) {
        fprintf(gp, "$a%d << EOD\n", a);
        for (i = 0; i < sw->nrows; ++i) {
            const loom_sim_row_t *r = &sw->rows[i];

            if (r->alg == o->algs[a] && r->ok && (by_size || r->bytes == bytes)) {
                fprintf(gp, "%zu %.6f\n", by_size ? r->bytes : (size_t)r->ranks, r->busbw_gbs);
            }
        }
        fprintf(gp, "EOD\n");
    }
    fprintf(gp, "plot ");
    for (a = 0; a < o->nalgs; ++a) {
        fprintf(gp, "%s$a%d with linespoints title \"%s\"", a > 0 ? ", " : "", a,
                o->coll->engine->alg_names[o->algs[a]]);
    }
    fprintf(gp, "\n");
    status = pclose(gp);
    if (status == -1 || !WIFEXITED(status) || WEXITSTATUS(status) != 0) {
        fprintf(stderr, "loom-sim: %s failed (status %d): %s may be missing or partial\n",
                program, status, path);
        return -1;
    }
    return 0;
}
