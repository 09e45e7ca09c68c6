/*
 * The text summary rank 0 prints at MPI_Finalize: top call sites by total
 * time, then late ranks, then the clock error bound (docs/pmpi.md shows one).
 */
#include <stdlib.h>
#include <string.h>

#include "report.h"

const char *loom_pmpi_comm_name(const loom_pmpi_profile_t *p, uint64_t id)
{
    int i;

    for (i = 0; i < p->ncomms; ++i) {
        if (p->comms[i].id == id && p->comms[i].name[0] != '\0') {
            return p->comms[i].name;
        }
    }
    return id == LOOM_PMPI_ID_WORLD ? "MPI_COMM_WORLD" : id == LOOM_PMPI_ID_SELF ? "MPI_COMM_SELF"
                                                                                : "(unnamed)";
}

double loom_pmpi_site_median(const loom_pmpi_merged_t *m)
{
    double med = loom_pmpi_hist_median(m->hist, m->calls);

    if (m->calls == 0) {
        return 0;
    }
    return med < (double)m->t_min ? (double)m->t_min : med > (double)m->t_max ? (double)m->t_max
                                                                              : med;
}

const char *loom_pmpi_site_alg(const loom_pmpi_merged_t *m, char *buf, size_t len)
{
    const char *algs = m->recs[0].algs, *colon;
    char word[64];
    int n;

    /* Rank 0's row (or the first row) decides; its last class is the largest. */
    buf[0] = '\0';
    while (*algs != '\0' && sscanf(algs, "%63s%n", word, &n) == 1) {
        colon = strchr(word, ':');
        if (colon != NULL) {
            snprintf(buf, len, "%s", colon + 1);
        }
        algs += n;
        while (*algs == ' ') {
            ++algs;
        }
    }
    return buf[0] != '\0' ? buf : NULL;
}

static const loom_pmpi_profile_t *loom_pmpi_late_profile;

static int loom_pmpi_late_cmp(const void *a, const void *b)
{
    const loom_pmpi_rank_rec_t *x = &loom_pmpi_late_profile->ranks[*(const int *)a];
    const loom_pmpi_rank_rec_t *y = &loom_pmpi_late_profile->ranks[*(const int *)b];

    if (x->lateness_sum != y->lateness_sum) {
        return x->lateness_sum > y->lateness_sum ? -1 : 1;
    }
    return x->rank - y->rank;
}

void loom_pmpi_late_order(const loom_pmpi_profile_t *p, int *order)
{
    int i;

    for (i = 0; i < p->nranks; ++i) {
        order[i] = i;
    }
    loom_pmpi_late_profile = p;
    qsort(order, (size_t)p->nranks, sizeof(int), loom_pmpi_late_cmp);
}

/* The communicator's name, with the start of its id where another
 * communicator has the same name (the two halves of a split). */
static const char *loom_pmpi_text_comm(const loom_pmpi_profile_t *p, uint64_t id, char *buf,
                                       size_t len)
{
    const char *name = loom_pmpi_comm_name(p, id);
    int i;

    for (i = 0; i < p->ncomms; ++i) {
        if (p->comms[i].id != id && strcmp(loom_pmpi_comm_name(p, p->comms[i].id), name) == 0) {
            snprintf(buf, len, "%.40s#%04llx", name, (unsigned long long)(id >> 48));
            return buf;
        }
    }
    return name;
}

static void loom_pmpi_text_site(const loom_pmpi_profile_t *p, const loom_pmpi_merged_t *m,
                                int index, FILE *out)
{
    const loom_pmpi_site_rec_t *r = &m->recs[0];
    char where[272], alg[64], last[32], comm[64];
    const char *base = strrchr(r->module, '/');
    /* Without a symbol (a stripped program), the module names the site. */
    const char *name = r->symbol[0] != '\0' ? r->symbol
                       : base != NULL       ? base + 1
                       : r->module[0] != '\0' ? r->module : "?";

    if (r->where[0] != '\0') {
        snprintf(where, sizeof(where), "%.80s (%.160s)", name, r->where);
    } else {
        snprintf(where, sizeof(where), "%.160s+0x%llx", name, (unsigned long long)r->offset);
    }
    if (m->last_rank >= 0) {
        snprintf(last, sizeof(last), "rank %d (%llu)", m->last_rank,
                 (unsigned long long)m->last_times);
    } else {
        snprintf(last, sizeof(last), "-");
    }
    fprintf(out, "%3d  %-26s %-16s %-32s %8llu %12llu %10.1f %10.1f %10.1f %10.1f  %-14s %s\n",
            index, loom_pmpi_fn_names[r->fn],
            loom_pmpi_text_comm(p, r->comm_id, comm, sizeof(comm)), where,
            (unsigned long long)m->calls, (unsigned long long)m->bytes, m->t_min / 1e3,
            loom_pmpi_site_median(m) / 1e3, m->t_max / 1e3,
            loom_pmpi_hist_median(m->wait_hist, m->wait_n) / 1e3, last,
            loom_pmpi_site_alg(m, alg, sizeof(alg)) != NULL ? alg : "-");
}

void loom_pmpi_report_text(const loom_pmpi_profile_t *p, FILE *out, int top)
{
    int i, *order = malloc((size_t)p->nranks * sizeof(int));
    const loom_pmpi_rank_rec_t *k;

    fprintf(out, "libloom-pmpi: %d ranks, %d call sites; top %d by total time (times in us; "
                 "wait = median wait for the last arrival)\n",
            p->nranks, p->nsites, top < p->nsites ? top : p->nsites);
    fprintf(out, "%3s  %-26s %-16s %-32s %8s %12s %10s %10s %10s %10s  %-14s %s\n", "#",
            "function", "communicator", "site", "calls", "bytes", "min", "median", "max", "wait",
            "last", "loom");
    for (i = 0; i < p->nsites && i < top; ++i) {
        loom_pmpi_text_site(p, &p->sites[i], i + 1, out);
    }
    if (order != NULL) {
        loom_pmpi_late_order(p, order);
        fprintf(out, "late ranks (by total lateness behind the earliest entry):\n");
        for (i = 0; i < p->nranks && i < top; ++i) {
            k = &p->ranks[order[i]];
            fprintf(out, "  rank %d  host %s  last in %llu of %llu collectives, mean lateness "
                         "%.3f ms\n", k->rank, k->host, (unsigned long long)k->times_last,
                    (unsigned long long)k->arrivals,
                    k->arrivals > 0 ? k->lateness_sum / (double)k->arrivals * 1e3 : 0.0);
        }
        free(order);
    }
    fprintf(out, "clock error bound: %.3f us (largest half round trip plus drift)\n",
            p->clock_bound * 1e6);
}
