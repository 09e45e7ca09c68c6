/*
 * The report at MPI_Finalize: every rank packs its sites into fixed-size
 * records and rank 0 gathers them on the library's communicator, merges
 * them by (module, offset, communicator, function) and writes the text
 * summary (stderr and <prefix>.txt), <prefix>.json and <prefix>.traffic.
 */
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "report.h"

static void loom_pmpi_pack_site(const loom_pmpi_site_t *s, loom_pmpi_site_rec_t *rec)
{
    size_t used = 0;
    int cls;
    const char *alg;

    memset(rec, 0, sizeof(*rec));
    loom_pmpi_resolve(s->ret, rec);
    rec->comm_id = s->comm_id;
    rec->fn = s->fn;
    rec->root = s->root;
    rec->comm_size = s->comm_size;
    rec->rank = loom_pmpi.world_rank;
    rec->calls = s->calls;
    rec->bytes = s->bytes;
    rec->t_min = s->calls > 0 ? s->t_min : 0;
    rec->t_max = s->t_max;
    rec->t_sum = s->t_sum;
    rec->wait_n = s->wait_n;
    rec->wait_sum = s->wait_sum;
    rec->times_last = s->times_last;
    memcpy(rec->hist, s->hist, sizeof(rec->hist));
    memcpy(rec->wait_hist, s->wait_hist, sizeof(rec->wait_hist));
    for (cls = 0; cls < LOOM_PMPI_SIZE_CLASSES; ++cls) {
        alg = loom_pmpi_mpit_alg_name(s->alg[cls]);
        if (alg != NULL && used + strlen(alg) + 8 < sizeof(rec->algs)) {
            used += (size_t)snprintf(rec->algs + used, sizeof(rec->algs) - used, "%s%d:%s",
                                     used > 0 ? " " : "", cls, alg);
        }
    }
}

static void loom_pmpi_pack_rank(loom_pmpi_rank_rec_t *rec)
{
    memset(rec, 0, sizeof(*rec));
    gethostname(rec->host, sizeof(rec->host) - 1);
    rec->rank = loom_pmpi.world_rank;
    rec->sites = loom_pmpi.site_count;
    rec->sites_dropped = (int32_t)loom_pmpi.sites_dropped;
    rec->times_last = loom_pmpi.times_last;
    rec->arrivals = loom_pmpi.arrivals;
    rec->p2p_bytes = loom_pmpi.p2p_bytes;
    rec->p2p_msgs = loom_pmpi.p2p_msgs;
    rec->lateness_sum = loom_pmpi.lateness_sum;
    memcpy(rec->offset_ns, loom_pmpi.offset_ns, sizeof(rec->offset_ns));
    memcpy(rec->rtt_ns, loom_pmpi.rtt_ns, sizeof(rec->rtt_ns));
}

/* Gathers n items of size bytes from every rank into *all_p on rank 0;
 * returns the total there (0 elsewhere, or -1 when memory ran out). */
static int loom_pmpi_gatherv(const void *mine, int n, size_t size, void **all_p)
{
    int nranks = loom_pmpi.world_size, *counts = NULL, *displs = NULL, total = 0, i;
    int bytes = n * (int)size;
    char *all = NULL;

    if (loom_pmpi.world_rank == 0) {
        counts = calloc((size_t)nranks, sizeof(int));
        displs = calloc((size_t)nranks, sizeof(int));
    }
    PMPI_Gather(&bytes, 1, MPI_INT, counts, 1, MPI_INT, 0, loom_pmpi.lib_comm);
    if (loom_pmpi.world_rank == 0) {
        for (i = 0; i < nranks; ++i) {
            displs[i] = total;
            total += counts[i];
        }
        all = malloc(total > 0 ? (size_t)total : 1);
    }
    PMPI_Gatherv(mine, bytes, MPI_BYTE, all, counts, displs, MPI_BYTE, 0, loom_pmpi.lib_comm);
    free(counts);
    free(displs);
    *all_p = all;
    return loom_pmpi.world_rank == 0 ? total / (int)size : 0;
}

static int loom_pmpi_rec_cmp(const void *a, const void *b)
{
    const loom_pmpi_site_rec_t *x = a, *y = b;
    int c = strcmp(x->module, y->module);

    if (c != 0) {
        return c;
    }
    if (x->offset != y->offset) {
        return x->offset < y->offset ? -1 : 1;
    }
    if (x->comm_id != y->comm_id) {
        return x->comm_id < y->comm_id ? -1 : 1;
    }
    if (x->fn != y->fn) {
        return x->fn - y->fn;
    }
    return x->rank - y->rank;
}

static int loom_pmpi_same_site(const loom_pmpi_site_rec_t *x, const loom_pmpi_site_rec_t *y)
{
    return strcmp(x->module, y->module) == 0 && x->offset == y->offset &&
           x->comm_id == y->comm_id && x->fn == y->fn;
}

static int loom_pmpi_merged_cmp(const void *a, const void *b)
{
    const loom_pmpi_merged_t *x = a, *y = b;

    if (x->t_sum != y->t_sum) {
        return x->t_sum > y->t_sum ? -1 : 1;
    }
    return loom_pmpi_rec_cmp(x->recs, y->recs);
}

static void loom_pmpi_merge_one(loom_pmpi_merged_t *m)
{
    int i, b;

    m->t_min = UINT64_MAX;
    m->last_rank = -1;
    for (i = 0; i < m->nrecs; ++i) {
        const loom_pmpi_site_rec_t *r = &m->recs[i];

        m->calls += r->calls;
        m->bytes += r->bytes;
        m->t_sum += r->t_sum;
        m->wait_n += r->wait_n;
        m->wait_sum += r->wait_sum;
        if (r->calls > 0 && r->t_min < m->t_min) {
            m->t_min = r->t_min;
        }
        if (r->t_max > m->t_max) {
            m->t_max = r->t_max;
        }
        for (b = 0; b < LOOM_PMPI_HIST_BINS; ++b) {
            m->hist[b] += r->hist[b];
            m->wait_hist[b] += r->wait_hist[b];
        }
        if (r->times_last > m->last_times) {
            m->last_times = r->times_last;
            m->last_rank = r->rank;
        }
    }
    if (m->calls == 0) {
        m->t_min = 0;
    }
}

static int loom_pmpi_merge(loom_pmpi_profile_t *p)
{
    int i, start;

    qsort(p->recs, (size_t)p->nrecs, sizeof(*p->recs), loom_pmpi_rec_cmp);
    p->sites = calloc((size_t)p->nrecs + 1, sizeof(*p->sites));
    if (p->sites == NULL) {
        return 0;
    }
    for (start = 0; start < p->nrecs; start = i) {
        for (i = start + 1; i < p->nrecs && loom_pmpi_same_site(&p->recs[start], &p->recs[i]);
             ++i) {
        }
        p->sites[p->nsites].recs = &p->recs[start];
        p->sites[p->nsites].nrecs = i - start;
        loom_pmpi_merge_one(&p->sites[p->nsites++]);
    }
    qsort(p->sites, (size_t)p->nsites, sizeof(*p->sites), loom_pmpi_merged_cmp);
    return 1;
}

/* Communicators by id, once each, a name from any rank that had one. */
static void loom_pmpi_merge_comms(loom_pmpi_profile_t *p, loom_pmpi_known_t *all, int n)
{
    int i, j;

    p->comms = all;
    p->ncomms = 0;
    for (i = 0; i < n; ++i) {
        for (j = 0; j < p->ncomms && all[j].id != all[i].id; ++j) {
        }
        if (j == p->ncomms) {
            all[p->ncomms++] = all[i];
        } else if (all[j].name[0] == '\0') {
            memcpy(all[j].name, all[i].name, sizeof(all[j].name));
        }
    }
}

static void loom_pmpi_clock_bound(loom_pmpi_profile_t *p)
{
    double half = 0, drift = 0, d;
    int r;

    for (r = 0; r < p->nranks; ++r) {
        const loom_pmpi_rank_rec_t *k = &p->ranks[r];

        if (k->rtt_ns[0] / 2e9 > half) {
            half = k->rtt_ns[0] / 2e9;
        }
        if (k->rtt_ns[1] / 2e9 > half) {
            half = k->rtt_ns[1] / 2e9;
        }
        d = (double)(k->offset_ns[1] - k->offset_ns[0]) * 1e-9;
        if (d < 0) {
            d = -d;
        }
        if (d > drift) {
            drift = d;
        }
    }
    p->clock_bound = half + drift;
}

static int loom_pmpi_write_traffic(const loom_pmpi_profile_t *p, const char *path)
{
    FILE *f = fopen(path, "w");
    int i, j;

    if (f == NULL) {
        return 0;
    }
    fprintf(f, "# libloom-pmpi: bytes rank i sent rank j (point-to-point plus collectives, "
               "docs/pmpi.md); %d ranks\n", p->nranks);
    for (i = 0; i < p->nranks; ++i) {
        for (j = 0; j < p->nranks; ++j) {
            fprintf(f, "%s%llu", j > 0 ? " " : "",
                    (unsigned long long)(p->p2p[(size_t)i * p->nranks + j] +
                                         p->coll[(size_t)i * p->nranks + j]));
        }
        fputc('\n', f);
    }
    return fclose(f) == 0;
}

/* Rank 0 writes the three files; a file that cannot be written is said. */
static void loom_pmpi_write_all(loom_pmpi_profile_t *p)
{
    char path[sizeof(loom_pmpi.settings.out) + 16];
    FILE *txt;
    int top = loom_pmpi.settings.top;

    loom_pmpi_report_text(p, stderr, top);
    snprintf(path, sizeof(path), "%s.txt", loom_pmpi.settings.out);
    if ((txt = fopen(path, "w")) != NULL) {
        loom_pmpi_report_text(p, txt, top);
        fclose(txt);
    } else {
        fprintf(stderr, "libloom-pmpi: cannot write %s: %m\n", path);
    }
    snprintf(path, sizeof(path), "%s.traffic", loom_pmpi.settings.out);
    if (!loom_pmpi_write_traffic(p, path)) {
        fprintf(stderr, "libloom-pmpi: cannot write %s: %m\n", path);
    }
    snprintf(path, sizeof(path), "%s.json", loom_pmpi.settings.out);
    if (!loom_pmpi_report_json(p, path)) {
        fprintf(stderr, "libloom-pmpi: cannot write %s: %m\n", path);
    } else {
        loom_pmpi_chart_hook(path);
    }
}

void loom_pmpi_report_write(void)
{
    loom_pmpi_profile_t p;
    loom_pmpi_site_rec_t *mine;
    loom_pmpi_rank_rec_t me;
    void *all_known = NULL;
    size_t cells = (size_t)loom_pmpi.world_size * (size_t)loom_pmpi.world_size;
    int i, n = 0, len;

    memset(&p, 0, sizeof(p));
    mine = calloc((size_t)loom_pmpi.site_count + 1, sizeof(*mine));
    for (i = 0; i < LOOM_PMPI_SITE_CAP && mine != NULL; ++i) {
        if (loom_pmpi.sites[i].ret != NULL) {
            loom_pmpi_pack_site(&loom_pmpi.sites[i], &mine[n++]);
        }
    }
    loom_pmpi_resolve_end();
    loom_pmpi_pack_rank(&me);
    p.nranks = loom_pmpi.world_size;
    if (loom_pmpi.world_rank == 0) {
        p.ranks = calloc((size_t)p.nranks, sizeof(*p.ranks));
        p.p2p = calloc(cells, sizeof(uint64_t));
        p.coll = calloc(cells, sizeof(uint64_t));
    }
    PMPI_Gather(&me, sizeof(me), MPI_BYTE, p.ranks, sizeof(me), MPI_BYTE, 0, loom_pmpi.lib_comm);
    PMPI_Gather(loom_pmpi.traffic, p.nranks, MPI_UINT64_T, p.p2p, p.nranks, MPI_UINT64_T, 0,
                loom_pmpi.lib_comm);
    PMPI_Gather(loom_pmpi.coll_traffic, p.nranks, MPI_UINT64_T, p.coll, p.nranks, MPI_UINT64_T,
                0, loom_pmpi.lib_comm);
    p.nrecs = loom_pmpi_gatherv(mine, n, sizeof(*mine), (void **)&p.recs);
    i = loom_pmpi_gatherv(loom_pmpi.known, loom_pmpi.known_count, sizeof(loom_pmpi_known_t),
                          &all_known);
    free(mine);
    if (loom_pmpi.world_rank == 0) {
        if (p.ranks != NULL && p.p2p != NULL && p.coll != NULL && p.recs != NULL &&
            all_known != NULL && loom_pmpi_merge(&p)) {
            loom_pmpi_merge_comms(&p, all_known, i);
            loom_pmpi_clock_bound(&p);
            PMPI_Get_library_version(p.library, &len);
            loom_pmpi_write_all(&p);
        } else {
            fprintf(stderr, "libloom-pmpi: out of memory gathering the profile: no report\n");
        }
    }
    free(p.ranks);
    free(p.p2p);
    free(p.coll);
    free(p.recs);
    free(p.sites);
    free(all_known);
}
