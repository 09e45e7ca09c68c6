/*
 * What each rank sends rank 0 at MPI_Finalize (fixed-size records, so the
 * gather is bounded) and what rank 0 builds from them.
 */
#ifndef LOOM_PMPI_REPORT_H
#define LOOM_PMPI_REPORT_H

#include <stdio.h>

#include "pmpi.h"

/* One rank's view of one site. */
typedef struct {
    char module[160];                   /* the call site's file, e.g. /usr/bin/prog */
    char symbol[80];                    /* the calling function, or "" */
    char where[160];                    /* file:line where debug information exists */
    char algs[160];                     /* Loom's choice per size class: "log2:name ..." */
    uint64_t offset;                    /* call site - the module's load address */
    uint64_t comm_id;
    int32_t fn, root, comm_size, rank;  /* rank: the reporter's world rank */
    uint64_t calls, bytes, t_min, t_max, t_sum, wait_n, wait_sum, times_last;
    uint32_t hist[LOOM_PMPI_HIST_BINS];
    uint32_t wait_hist[LOOM_PMPI_HIST_BINS];
} loom_pmpi_site_rec_t;

/* One rank. */
typedef struct {
    char host[64];
    int32_t rank, sites, sites_dropped, pad;
    uint64_t times_last, arrivals, p2p_bytes, p2p_msgs;
    double lateness_sum;
    int64_t offset_ns[2], rtt_ns[2];
} loom_pmpi_rank_rec_t;

/* A site merged over ranks: recs[0..nrecs) are its rows, one per rank. */
typedef struct {
    const loom_pmpi_site_rec_t *recs;
    int nrecs;
    uint64_t calls, bytes, t_min, t_max, t_sum, wait_n, wait_sum;
    uint32_t hist[LOOM_PMPI_HIST_BINS];
    uint32_t wait_hist[LOOM_PMPI_HIST_BINS];
    int last_rank;                      /* the world rank most often last, -1: none */
    uint64_t last_times;
} loom_pmpi_merged_t;

/* Everything rank 0 writes. */
typedef struct {
    int nranks;
    loom_pmpi_rank_rec_t *ranks;
    loom_pmpi_site_rec_t *recs;
    int nrecs;
    loom_pmpi_merged_t *sites;          /* sorted by total time, largest first */
    int nsites;
    loom_pmpi_known_t *comms;
    int ncomms;
    uint64_t *p2p;                      /* nranks x nranks, row = sender */
    uint64_t *coll;
    double clock_bound;                 /* s */
    char library[MPI_MAX_LIBRARY_VERSION_STRING];
} loom_pmpi_profile_t;

/* Fills a record's module, offset, symbol and file:line (resolve.c). */
void loom_pmpi_resolve(const void *ret, loom_pmpi_site_rec_t *rec);
void loom_pmpi_resolve_end(void);

const char *loom_pmpi_comm_name(const loom_pmpi_profile_t *p, uint64_t id);
/* The site's median time in ns: its histogram's, kept between the min and
 * max it saw (a bin's middle can lie outside them). */
double loom_pmpi_site_median(const loom_pmpi_merged_t *m);
/* The algorithm Loom reported most often over the site's size classes. */
const char *loom_pmpi_site_alg(const loom_pmpi_merged_t *m, char *buf, size_t len);
/* Ranks sorted by total lateness, latest first: an array of indices. */
void loom_pmpi_late_order(const loom_pmpi_profile_t *p, int *order);

void loom_pmpi_report_text(const loom_pmpi_profile_t *p, FILE *out, int top);
int loom_pmpi_report_json(const loom_pmpi_profile_t *p, const char *path);

#endif
