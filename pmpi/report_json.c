/*
 * <prefix>.json: everything rank 0 gathered, in the shape
 * pmpi/profile.schema.json describes (times in seconds, bytes as counted by
 * bytes.c, ranks as world ranks).
 */
#include <jansson.h>
#include <stdlib.h>
#include <string.h>

#include "report.h"

static json_t *loom_pmpi_json_hist(const uint32_t *hist)
{
    json_t *bins = json_array();
    double lo, hi;
    int b;

    for (b = 0; b < LOOM_PMPI_HIST_BINS; ++b) {
        if (hist[b] != 0) {
            loom_pmpi_hist_edges(b, &lo, &hi);
            json_array_append_new(bins, json_pack("{s:f, s:f, s:I}", "lo_s", lo * 1e-9, "hi_s",
                                                  hi * 1e-9, "count", (json_int_t)hist[b]));
        }
    }
    return json_pack("{s:i, s:o}", "bins_per_octave", 4, "bins", bins);
}

static json_t *loom_pmpi_json_algs(const char *algs)
{
    json_t *list = json_array();
    char name[64];
    int cls, n;

    while (sscanf(algs, "%d:%63s%n", &cls, name, &n) == 2) {
        json_array_append_new(list, json_pack("{s:I, s:s}", "min_bytes",
                                              (json_int_t)(cls == 0 ? 0 : 1ll << (cls - 1)),
                                              "algorithm", name));
        algs += n;
        while (*algs == ' ') {
            ++algs;
        }
    }
    return list;
}

static json_t *loom_pmpi_json_site(const loom_pmpi_profile_t *p, const loom_pmpi_merged_t *m)
{
    const loom_pmpi_site_rec_t *r = &m->recs[0];
    json_t *ranks = json_array();
    char id[24], alg[64];
    int i;

    for (i = 0; i < m->nrecs; ++i) {
        const loom_pmpi_site_rec_t *k = &m->recs[i];

        json_array_append_new(ranks, json_pack(
            "{s:i, s:I, s:I, s:f, s:f, s:I}", "rank", k->rank, "calls", (json_int_t)k->calls,
            "bytes", (json_int_t)k->bytes, "time_s", k->t_sum * 1e-9, "wait_median_s",
            loom_pmpi_hist_median(k->wait_hist, k->wait_n) * 1e-9, "times_last",
            (json_int_t)k->times_last));
    }
    snprintf(id, sizeof(id), "%016llx", (unsigned long long)r->comm_id);
    return json_pack(
        "{s:s, s:{s:s, s:s, s:i}, s:{s:s, s:I, s:s, s:s}, s:I, s:I, s:i,"
        " s:{s:f, s:f, s:f, s:f, s:o}, s:{s:I, s:f, s:f, s:o}, s:o, s:o, s:o, s:o}",
        "function", loom_pmpi_fn_names[r->fn],
        "communicator", "id", id, "name", loom_pmpi_comm_name(p, r->comm_id), "size", r->comm_size,
        "site", "module", r->module, "offset", (json_int_t)r->offset, "symbol", r->symbol,
        "location", r->where,
        "calls", (json_int_t)m->calls, "bytes", (json_int_t)m->bytes, "root", r->root,
        "time", "total_s", m->t_sum * 1e-9, "min_s", m->t_min * 1e-9, "median_s",
        loom_pmpi_site_median(m) * 1e-9, "max_s", m->t_max * 1e-9, "histogram",
        loom_pmpi_json_hist(m->hist),
        "wait", "count", (json_int_t)m->wait_n, "median_s",
        loom_pmpi_hist_median(m->wait_hist, m->wait_n) * 1e-9, "mean_s",
        m->wait_n > 0 ? m->wait_sum * 1e-9 / (double)m->wait_n : 0.0, "histogram",
        loom_pmpi_json_hist(m->wait_hist),
        "last_arrival", m->last_rank >= 0 ? json_pack("{s:i, s:I}", "rank", m->last_rank, "times",
                                                       (json_int_t)m->last_times) : json_null(),
        "algorithm", loom_pmpi_site_alg(m, alg, sizeof(alg)) != NULL ? json_string(alg)
                                                                   : json_null(),
        "algorithms", loom_pmpi_json_algs(r->algs), "ranks", ranks);
}

static json_t *loom_pmpi_json_matrix(const loom_pmpi_profile_t *p, const uint64_t *cells)
{
    json_t *rows = json_array(), *row;
    int i, j;

    for (i = 0; i < p->nranks; ++i) {
        row = json_array();
        for (j = 0; j < p->nranks; ++j) {
            json_array_append_new(row, json_integer((json_int_t)cells[(size_t)i * p->nranks + j]));
        }
        json_array_append_new(rows, row);
    }
    return rows;
}

static json_t *loom_pmpi_json_ranks(const loom_pmpi_profile_t *p, json_t **late_p)
{
    json_t *ranks = json_array(), *late = json_array();
    int i, *order = malloc((size_t)p->nranks * sizeof(int));
    const loom_pmpi_rank_rec_t *k;

    for (i = 0; i < p->nranks; ++i) {
        k = &p->ranks[i];
        json_array_append_new(ranks, json_pack(
            "{s:i, s:s, s:f, s:f, s:f, s:f, s:I, s:I, s:i}", "rank", k->rank, "host", k->host,
            "offset_init_s", k->offset_ns[0] * 1e-9, "offset_final_s", k->offset_ns[1] * 1e-9,
            "drift_s", (double)(k->offset_ns[1] - k->offset_ns[0]) * 1e-9, "half_rtt_s",
            (k->rtt_ns[0] > k->rtt_ns[1] ? k->rtt_ns[0] : k->rtt_ns[1]) / 2e9, "p2p_bytes",
            (json_int_t)k->p2p_bytes, "p2p_messages", (json_int_t)k->p2p_msgs, "sites_dropped",
            k->sites_dropped));
    }
    if (order != NULL) {
        loom_pmpi_late_order(p, order);
        for (i = 0; i < p->nranks; ++i) {
            k = &p->ranks[order[i]];
            json_array_append_new(late, json_pack(
                "{s:i, s:s, s:I, s:I, s:f, s:f}", "rank", k->rank, "host", k->host, "times_last",
                (json_int_t)k->times_last, "collectives", (json_int_t)k->arrivals,
                "total_lateness_s", k->lateness_sum, "mean_lateness_s",
                k->arrivals > 0 ? k->lateness_sum / (double)k->arrivals : 0.0));
        }
        free(order);
    }
    *late_p = late;
    return ranks;
}

int loom_pmpi_report_json(const loom_pmpi_profile_t *p, const char *path)
{
    json_t *root, *sites = json_array(), *comms = json_array(), *late, *ranks;
    char id[24];
    int i, rc;

    for (i = 0; i < p->nsites; ++i) {
        json_array_append_new(sites, loom_pmpi_json_site(p, &p->sites[i]));
    }
    for (i = 0; i < p->ncomms; ++i) {
        snprintf(id, sizeof(id), "%016llx", (unsigned long long)p->comms[i].id);
        json_array_append_new(comms, json_pack("{s:s, s:s, s:i}", "id", id, "name",
                                               loom_pmpi_comm_name(p, p->comms[i].id), "size",
                                               p->comms[i].size));
    }
    ranks = loom_pmpi_json_ranks(p, &late);
    root = json_pack("{s:s, s:i, s:s, s:i, s:i, s:{s:f}, s:o, s:o, s:o, s:o,"
                     " s:{s:o, s:o}}",
                     "tool", "libloom-pmpi", "format", 1, "mpi_library", p->library, "ranks",
                     p->nranks, "window", loom_pmpi.settings.window,
                     "clock", "error_bound_s", p->clock_bound,
                     "rank_info", ranks, "communicators", comms, "sites", sites,
                     "late_ranks", late,
                     "traffic", "p2p", loom_pmpi_json_matrix(p, p->p2p), "collectives",
                     loom_pmpi_json_matrix(p, p->coll));
    if (root == NULL) {
        return 0;
    }
    rc = json_dump_file(root, path, JSON_INDENT(1) | JSON_REAL_PRECISION(9));
    json_decref(root);
    return rc == 0;
}
