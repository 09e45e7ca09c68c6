/*
 * Rank-to-rank traffic and where it flows: a traffic matrix (bytes rank i
 * sends to rank j), the bytes a placement puts on each level of the
 * network, and a greedy placement that keeps the heaviest traffic on the
 * fastest links (traffic.c explains it).
 */
#ifndef LOOM_TOPO_TRAFFIC_H
#define LOOM_TOPO_TRAFFIC_H

#include "topo/topo.h"

typedef struct loom_traffic {
    size_t  n;          /* ranks */
    double *bytes;      /* n * n, row i = what rank i sends; the diagonal is ignored */
} loom_traffic_t;

/* Text: one row per rank, n non-negative numbers (bytes) per row,
 * separated by blanks or commas; '#' starts a comment.  Errors name the
 * file (name), line and what was expected. */
loom_status_t loom_traffic_parse(const char *text, const char *name,
                                 loom_traffic_t **traffic_p, loom_topo_error_t *err);
loom_status_t loom_traffic_load(const char *path, loom_traffic_t **traffic_p,
                                loom_topo_error_t *err);
void loom_traffic_destroy(loom_traffic_t *traffic);

/* Bytes over each level when rank r runs on node node_of[r]. */
void loom_traffic_level_bytes(const loom_topo_t *topo, const loom_traffic_t *traffic,
                              const size_t *node_of, double bytes[LOOM_TOPO_LEVEL_COUNT]);

/* Slots of node n: its own, or default_slots where the file gives none. */
unsigned loom_topo_node_slots(const loom_topo_t *topo, size_t n, unsigned default_slots);

/* Ranks 0..n-1 in order, filling each node's slots: mpirun's --map-by
 * slot.  LOOM_ERR_INVALID_PARAM when the nodes hold fewer than n. */
loom_status_t loom_topo_place_block(const loom_topo_t *topo, size_t n,
                                    unsigned default_slots, size_t *node_of);
/* The greedy placement (traffic.c); same capacity rule. */
loom_status_t loom_topo_place_greedy(const loom_topo_t *topo, const loom_traffic_t *traffic,
                                     unsigned default_slots, size_t *node_of);

/* 1 when bytes a are better than b: less across racks, then less between
 * nodes; what counts most is the slowest link. */
int loom_traffic_better(const double a[LOOM_TOPO_LEVEL_COUNT],
                        const double b[LOOM_TOPO_LEVEL_COUNT]);

#endif
