/*
 * Allgather and allgatherv: algorithms and how one is chosen.
 *
 * Arguments (args.h): count elements per rank, or counts[r] (and displs[r],
 * element offsets in recvbuf; NULL: packed in rank order) for allgatherv;
 * in_place: rank r's block is already in recvbuf.  Each algorithm is a
 * plan function in a file of its own; the choice is a function of the team
 * size, the total byte count and the settings only, the same on every
 * rank.
 */
#ifndef LOOM_ALLGATHER_H
#define LOOM_ALLGATHER_H

#include "allreduce.h"      /* loom_plan_fn_t */
#include "coll_config.h"
#include "sched.h"

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

typedef struct loom_allgather_algorithm {
    const char      *name;
    loom_plan_fn_t  plan;
    int             segmented;      /* honours args->seg_bytes */
} loom_allgather_algorithm_t;

extern const loom_allgather_algorithm_t loom_allgather_algorithms[LOOM_ALLGATHER_ALG_COUNT];

loom_status_t loom_allgather_bruck_plan(const loom_coll_args_t *args,
                                        loom_team_t *team, loom_sched_t **sched_p);
loom_status_t loom_allgather_ring_plan(const loom_coll_args_t *args,
                                       loom_team_t *team, loom_sched_t **sched_p);
loom_status_t loom_allgather_hier_plan(const loom_coll_args_t *args,
                                       loom_team_t *team, loom_sched_t **sched_p);

typedef struct loom_allgather_choice {
    loom_allgather_alg_t    alg;
    size_t                  seg_bytes;  /* 0: not segmented */
    int                     depth;      /* unused by allgather algorithms: 0 */
    int                     forced;     /* by a setting or a rule, not the cost model */
    int                     rule;       /* the user rule that decided (rules.h), -1: none */
    double                  cost_s;     /* the model's estimate for alg */
    loom_allgather_alg_t    next_alg;   /* the cheapest other algorithm (AUTO: none) */
    double                  next_cost_s;
} loom_allgather_choice_t;

/* The algorithm and segment size for total_bytes gathered (the sum over
 * all ranks) on p ranks: the cost model's choice unless the settings force
 * one (allgather_select.c). */
void loom_allgather_select(const loom_coll_config_t *cfg, int p, size_t total_bytes,
                           loom_allgather_choice_t *choice_p);

/* The same for a team whose nodes and racks the cost model sees: across
 * nodes the hierarchical allgather competes (cost_links.h). */
void loom_allgather_select_team(const loom_coll_config_t *cfg, const loom_team_t *team,
                                size_t total_bytes, loom_allgather_choice_t *choice_p);

/* Select, then build the schedule of the chosen algorithm; the choice goes
 * to *choice_p when it is not NULL.  LOOM_ERR_UNSUPPORTED means "hand this
 * call to another implementation". */
loom_status_t loom_allgather_plan(const loom_coll_args_t *args, loom_team_t *team,
                                  const loom_coll_config_t *cfg, loom_sched_t **sched_p,
                                  loom_allgather_choice_t *choice_p);

#endif
