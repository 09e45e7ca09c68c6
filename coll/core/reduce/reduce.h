/*
 * Reduce algorithms and how one is chosen.
 *
 * Every rank's input (sendbuf, or at the root with in_place its recvbuf)
 * is reduced into the root's recvbuf; the other ranks' recvbuf is never
 * touched and may be NULL (working memory comes from the schedule's pool
 * scratch).  Non-commutative ops are reduced in rank order by every
 * algorithm here but the hierarchical one, which refuses them.  The
 * choice depends on the team size, the byte count, whether the op
 * commutes and the settings only: inputs every rank agrees on (the root
 * does not matter to it).
 *
 * Planned through its descriptor, loom_reduce_collective (collective.h):
 * loom_coll_plan(&loom_reduce_collective, ...).
 */
#ifndef LOOM_REDUCE_H
#define LOOM_REDUCE_H

#include "coll/core/select/coll_config.h"
#include "coll/core/select/collective.h"
#include "coll/core/engine/sched.h"

/* Values go into message tags (LOOM_TAG_ALG_BITS); within reduce never
 * reuse one (other collectives' ids may share values: sequence numbers
 * tell collectives apart). */
typedef enum loom_reduce_alg {
    LOOM_REDUCE_AUTO = 0,                  /* let Loom choose */
    LOOM_REDUCE_BINOMIAL = 1,
    LOOM_REDUCE_SCATTER_GATHER = 2,        /* recursive halving + binomial gather */
    LOOM_REDUCE_REPRODUCIBLE = 3,          /* canonical order, on request only */
    LOOM_REDUCE_CHAIN = 4,                 /* pipelined chain, segmented */
    LOOM_REDUCE_HIER = 5,                  /* chains per rack, node and rank level */
    LOOM_REDUCE_ALG_COUNT
} loom_reduce_alg_t;

/* Names indexed by loom_reduce_alg_t, NULL-terminated ("auto" first). */
extern const char *const loom_reduce_alg_names[];

extern const loom_algorithm_t loom_reduce_algorithms[LOOM_REDUCE_ALG_COUNT];

loom_status_t loom_reduce_binomial_plan(const loom_coll_args_t *args, loom_team_t *team,
                                        loom_sched_t **sched_p);
loom_status_t loom_reduce_scatter_gather_plan(const loom_coll_args_t *args,
                                              loom_team_t *team, loom_sched_t **sched_p);
loom_status_t loom_reduce_chain_plan(const loom_coll_args_t *args, loom_team_t *team,
                                     loom_sched_t **sched_p);
loom_status_t loom_reduce_canonical_plan(const loom_coll_args_t *args, loom_team_t *team,
                                         loom_sched_t **sched_p);
loom_status_t loom_reduce_hier_plan(const loom_coll_args_t *args, loom_team_t *team,
                                    loom_sched_t **sched_p);

/* The algorithm for bytes on p ranks: the cost model's choice unless the
 * settings force one (reduce_select.c). */
void loom_reduce_select(const loom_coll_config_t *cfg, int p, size_t bytes,
                        int commutative, loom_choice_t *choice_p);

/* The same for a team whose nodes and racks the cost model sees: across
 * nodes the hierarchical reduce competes for commutative ops. */
void loom_reduce_select_team(const loom_coll_config_t *cfg, const loom_team_t *team,
                             size_t bytes, int commutative, loom_choice_t *choice_p);

#endif
