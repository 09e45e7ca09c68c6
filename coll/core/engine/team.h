/*
 * A team: the ranks of one communicator as the engine sees them.
 *
 * Created from what the adapter already knows (size, own rank, each peer's
 * transport id and node identity); creating one never communicates, so it
 * is safe inside Open MPI's communicator creation.
 */
#ifndef LOOM_TEAM_H
#define LOOM_TEAM_H

#include "coll/core/engine/coll_kind.h"
#include "coll/core/transport/transport.h"

#include <pthread.h>
#include <stddef.h>
#include <stdint.h>

typedef struct loom_team_params {
    int                 size;
    int                 rank;
    loom_transport_t    *transport;
    const int           *peers;       /* size entries: transport peer of each rank */
    /* size entries each: equal keys = same node (NULL: one node each),
     * same rack (NULL: one rack for all) */
    const uint64_t      *node_keys;
    const uint64_t      *rack_keys;
    uint32_t            context_id;   /* at most LOOM_TAG_MAX_CONTEXT */
} loom_team_params_t;

/* How the ranks spread over nodes and racks, for the cost model: what a
 * flat algorithm's traffic meets on the links between nodes. */
typedef struct loom_team_shape {
    int     max_node;       /* ranks on the largest node */
    int     min_node;       /* and on the smallest */
    int     max_rack;       /* nodes in the largest rack */
    int     min_rack;       /* and in the smallest */
    int     max_rack_ranks; /* ranks in the largest rack */
    int     ring_nic;       /* most rank-order ring edges (r -> r+1) leaving one node */
    int     ring_uplink;    /* most of them leaving one rack */
} loom_team_shape_t;

typedef struct loom_team {
    int                 size;
    int                 rank;
    loom_transport_t    *transport;
    int                 *peers;
    int                 *node_of;     /* dense node index of each rank, by first appearance */
    int                 num_nodes;
    int                 *rack_of;     /* dense rack index of each rank, by first appearance;
                                       * a node's ranks share its first rank's rack */
    int                 num_racks;
    loom_team_shape_t   shape;
    uint32_t            context_id;
    uint32_t            next_seq;     /* sequence number of the next collective */
    struct loom_sched   *spare_scheds;/* finished schedules kept for reuse */
    pthread_mutex_t     spare_lock;   /* a request may finish on another thread */
    uint64_t            explained[LOOM_COLL_KIND_COUNT]; /* per collective, the size
                                       * classes whose choice was printed */
} loom_team_t;

loom_status_t loom_team_create(const loom_team_params_t *params, loom_team_t **team_p);
void loom_team_destroy(loom_team_t *team);

/* Sequence number for a new collective; every rank calls collectives on a
 * team in the same order, so every rank gets the same number. */
static inline uint32_t loom_team_next_seq(loom_team_t *team)
{
    return team->next_seq++;
}

/* 1 the first time a call of coll in this size class (floor of log2 of
 * bytes) is seen on team, so each collective's choice is explained once
 * per class. */
static inline int loom_team_first_in_class(loom_team_t *team, loom_coll_kind_t coll, size_t bytes)
{
    int k = bytes == 0 ? 0 : 63 - __builtin_clzll((unsigned long long)bytes);
    uint64_t bit = (uint64_t)1 << k;

    if (team->explained[coll] & bit) {
        return 0;
    }
    team->explained[coll] |= bit;
    return 1;
}

#endif
