/*
 * Bcast algorithms and how one is chosen.
 *
 * The root's recvbuf (count elements of elem_size bytes) ends up in every
 * rank's recvbuf; sendbuf and in_place are not used.  Each algorithm is a
 * plan function in a file of its own that builds one rank's schedule.  The
 * choice depends on the team size, the byte count and the settings only:
 * inputs every rank agrees on (the root does not matter to it).
 *
 * Planned through its descriptor, loom_bcast_collective (collective.h):
 * loom_coll_plan(&loom_bcast_collective, ...).
 */
#ifndef LOOM_BCAST_H
#define LOOM_BCAST_H

#include "coll/core/select/coll_config.h"
#include "coll/core/select/collective.h"
#include "coll/core/engine/sched.h"

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

extern const loom_algorithm_t loom_bcast_algorithms[LOOM_BCAST_ALG_COUNT];

loom_status_t loom_bcast_binomial_plan(const loom_coll_args_t *args, loom_team_t *team,
                                       loom_sched_t **sched_p);
loom_status_t loom_bcast_chain_plan(const loom_coll_args_t *args, loom_team_t *team,
                                    loom_sched_t **sched_p);
loom_status_t loom_bcast_scatter_allgather_plan(const loom_coll_args_t *args,
                                                loom_team_t *team, loom_sched_t **sched_p);
loom_status_t loom_bcast_hier_plan(const loom_coll_args_t *args, loom_team_t *team,
                                   loom_sched_t **sched_p);

/* The algorithm and segment size for bytes on p ranks: the cost model's
 * choice unless the settings force one (bcast_select.c).  commutative is
 * there for the one shape of every selection (loom_select_fn_t): nothing
 * is reduced. */
void loom_bcast_select(const loom_coll_config_t *cfg, int p, size_t bytes,
                       int commutative, loom_choice_t *choice_p);

/* The same for a team whose nodes and racks the cost model sees: across
 * nodes the hierarchical bcast competes (cost_links.h). */
void loom_bcast_select_team(const loom_coll_config_t *cfg, const loom_team_t *team,
                            size_t bytes, int commutative, loom_choice_t *choice_p);

#endif
