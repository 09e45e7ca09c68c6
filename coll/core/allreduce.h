/*
 * Allreduce algorithms and how one is chosen.
 *
 * Each algorithm is a plan function in a file of its own that builds one
 * rank's schedule.  The choice is a function of the team size, the byte
 * count and the settings only: inputs every rank agrees on.
 */
#ifndef LOOM_ALLREDUCE_H
#define LOOM_ALLREDUCE_H

#include "sched.h"

/* Values go into message tags (LOOM_TAG_ALG_BITS): never reuse one. */
typedef enum loom_allreduce_alg {
    LOOM_ALLREDUCE_AUTO = 0,   /* let Loom choose */
    LOOM_ALLREDUCE_RING = 1,
    LOOM_ALLREDUCE_ALG_COUNT
} loom_allreduce_alg_t;

/* Names indexed by loom_allreduce_alg_t, NULL-terminated. */
extern const char *const loom_allreduce_alg_names[];

typedef loom_status_t (*loom_plan_fn_t)(const loom_coll_args_t *args,
                                        loom_team_t *team, loom_sched_t **sched_p);

/* One entry per algorithm, indexed by loom_allreduce_alg_t. */
typedef struct loom_allreduce_algorithm {
    const char      *name;
    loom_plan_fn_t  plan;
    int             noncommutative; /* reduces in rank order: any op works */
    int             segmented;      /* honours args->seg_bytes and depth */
} loom_allreduce_algorithm_t;

extern const loom_allreduce_algorithm_t loom_allreduce_algorithms[LOOM_ALLREDUCE_ALG_COUNT];

loom_status_t loom_allreduce_ring_plan(const loom_coll_args_t *args,
                                       loom_team_t *team, loom_sched_t **sched_p);

/* Resolve LOOM_ALLREDUCE_AUTO to an algorithm for these arguments. */
loom_allreduce_alg_t loom_allreduce_choose(const loom_coll_args_t *args,
                                           const loom_team_t *team,
                                           loom_allreduce_alg_t requested);

/* Build the schedule of the requested (or chosen) algorithm.
 * LOOM_ERR_UNSUPPORTED means "hand this call to another implementation". */
loom_status_t loom_allreduce_plan(const loom_coll_args_t *args, loom_team_t *team,
                                  loom_allreduce_alg_t requested,
                                  loom_sched_t **sched_p);

#endif
