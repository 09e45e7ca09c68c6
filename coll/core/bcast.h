/*
 * Bcast algorithms and how one is chosen.
 *
 * The root's recvbuf (count elements of elem_size bytes) ends up in every
 * rank's recvbuf; sendbuf and in_place are not used.  Each algorithm is a
 * plan function in a file of its own that builds one rank's schedule.  The
 * choice depends on the team size, the byte count and the settings only:
 * inputs every rank agrees on (the root does not matter to it).
 */
#ifndef LOOM_BCAST_H
#define LOOM_BCAST_H

#include "allreduce.h"      /* loom_plan_fn_t */
#include "coll_config.h"
#include "sched.h"

/* Values go into message tags (LOOM_TAG_ALG_BITS).  Sequence numbers
 * already tell consecutive collectives apart, so these may share numeric
 * values with other collectives' ids; within bcast never reuse one. */
typedef enum loom_bcast_alg {
    LOOM_BCAST_AUTO = 0,               /* let Loom choose */
    LOOM_BCAST_BINOMIAL = 1,
    LOOM_BCAST_CHAIN = 2,              /* pipelined chain */
    LOOM_BCAST_SCATTER_ALLGATHER = 3,  /* binomial scatter + ring allgather */
    LOOM_BCAST_HIER = 4,               /* chains per rack, node and rank level */
    LOOM_BCAST_ALG_COUNT
} loom_bcast_alg_t;

/* Names indexed by loom_bcast_alg_t, NULL-terminated ("auto" first). */
extern const char *const loom_bcast_alg_names[];

/* One entry per algorithm, indexed by loom_bcast_alg_t. */
typedef struct loom_bcast_algorithm {
    const char      *name;
    loom_plan_fn_t  plan;
    int             segmented;      /* honours args->seg_bytes */
} loom_bcast_algorithm_t;

extern const loom_bcast_algorithm_t loom_bcast_algorithms[LOOM_BCAST_ALG_COUNT];

loom_status_t loom_bcast_binomial_plan(const loom_coll_args_t *args, loom_team_t *team,
                                       loom_sched_t **sched_p);
loom_status_t loom_bcast_chain_plan(const loom_coll_args_t *args, loom_team_t *team,
                                    loom_sched_t **sched_p);
loom_status_t loom_bcast_scatter_allgather_plan(const loom_coll_args_t *args,
                                                loom_team_t *team, loom_sched_t **sched_p);
loom_status_t loom_bcast_hier_plan(const loom_coll_args_t *args, loom_team_t *team,
                                   loom_sched_t **sched_p);

typedef struct loom_bcast_choice {
    loom_bcast_alg_t    alg;
    size_t              seg_bytes;  /* 0: not segmented */
    int                 depth;      /* unused by bcast algorithms: 0 */
    int                 forced;     /* by a setting or a rule, not the cost model */
    int                 rule;       /* the user rule that decided (rules.h), -1: none */
    double              cost_s;     /* the model's estimate for alg */
    loom_bcast_alg_t    next_alg;   /* the cheapest other algorithm (AUTO: none) */
    double              next_cost_s;
} loom_bcast_choice_t;

/* The algorithm and segment size for bytes on p ranks: the cost model's
 * choice unless the settings force one (bcast_select.c). */
void loom_bcast_select(const loom_coll_config_t *cfg, int p, size_t bytes,
                       loom_bcast_choice_t *choice_p);

/* The same for a team whose nodes and racks the cost model sees: across
 * nodes the hierarchical bcast competes (cost_links.h). */
void loom_bcast_select_team(const loom_coll_config_t *cfg, const loom_team_t *team,
                            size_t bytes, loom_bcast_choice_t *choice_p);

/* Select, then build the schedule of the chosen algorithm; the choice goes
 * to *choice_p when it is not NULL.  At verbose level info, the first call
 * of each size class on a team prints the choice and why.
 * LOOM_ERR_UNSUPPORTED means "hand this call to another implementation". */
loom_status_t loom_bcast_plan(const loom_coll_args_t *args, loom_team_t *team,
                              const loom_coll_config_t *cfg, loom_sched_t **sched_p,
                              loom_bcast_choice_t *choice_p);

#endif
