/*
 * Allgather and allgatherv: algorithms and how one is chosen.
 *
 * Arguments (args.h): count elements per rank, or counts[r] (and displs[r],
 * element offsets in recvbuf; NULL: packed in rank order) for allgatherv;
 * in_place: rank r's block is already in recvbuf.  Each algorithm is a
 * plan function in a file of its own; the choice is a function of the team
 * size, the total byte count and the settings only, the same on every
 * rank.
 *
 * Planned through its descriptor, loom_allgather_collective (collective.h):
 * loom_coll_plan(&loom_allgather_collective, ...).
 */
#ifndef LOOM_ALLGATHER_H
#define LOOM_ALLGATHER_H

#include "coll/core/select/coll_config.h"
#include "coll/core/select/collective.h"
#include "coll/core/engine/sched.h"

/* Values go into message tags (LOOM_TAG_ALG_BITS).  Sequence numbers keep
 * collectives apart, so these may share values with other collectives'
 * ids, never with each other. */
typedef enum loom_allgather_alg {
    LOOM_ALLGATHER_AUTO = 0,    /* let Loom choose */
    LOOM_ALLGATHER_BRUCK = 1,   /* ceil(log2 p) rounds, any p */
    LOOM_ALLGATHER_RING = 2,
    LOOM_ALLGATHER_HIER = 3,    /* across racks, then nodes, then inside nodes */
    LOOM_ALLGATHER_ALG_COUNT
} loom_allgather_alg_t;

/* Names indexed by loom_allgather_alg_t, NULL-terminated. */
extern const char *const loom_allgather_alg_names[];

extern const loom_algorithm_t loom_allgather_algorithms[LOOM_ALLGATHER_ALG_COUNT];

loom_status_t loom_allgather_bruck_plan(const loom_coll_args_t *args,
                                        loom_team_t *team, loom_sched_t **sched_p);
loom_status_t loom_allgather_ring_plan(const loom_coll_args_t *args,
                                       loom_team_t *team, loom_sched_t **sched_p);
loom_status_t loom_allgather_hier_plan(const loom_coll_args_t *args,
                                       loom_team_t *team, loom_sched_t **sched_p);

/* The algorithm and segment size for total_bytes gathered (the sum over
 * all ranks) on p ranks: the cost model's choice unless the settings force
 * one (allgather_select.c).  commutative is there for the one shape of
 * every selection (loom_select_fn_t): nothing is reduced. */
void loom_allgather_select(const loom_coll_config_t *cfg, int p, size_t total_bytes,
                           int commutative, loom_choice_t *choice_p);

/* The same for a team whose nodes and racks the cost model sees: across
 * nodes the hierarchical allgather competes (cost_links.h). */
void loom_allgather_select_team(const loom_coll_config_t *cfg, const loom_team_t *team,
                                size_t total_bytes, int commutative, loom_choice_t *choice_p);

#endif
