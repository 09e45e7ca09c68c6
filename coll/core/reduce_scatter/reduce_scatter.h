/*
 * Reduce_scatter and reduce_scatter_block: algorithms and how one is
 * chosen.
 *
 * Arguments (args.h): the input is p blocks packed in rank order, block i
 * of counts[i] elements (counts NULL: count each, the _block form); rank r
 * receives block r of the reduction in recvbuf.  in_place: the input is in
 * recvbuf and the result goes to its start.  The choice is a function of
 * the team size, the total byte count, whether the op commutes and the
 * settings only, the same on every rank.
 *
 * Planned through its descriptor, loom_reduce_scatter_collective (collective.h):
 * loom_coll_plan(&loom_reduce_scatter_collective, ...).
 */
#ifndef LOOM_REDUCE_SCATTER_H
#define LOOM_REDUCE_SCATTER_H

#include "coll/core/select/coll_config.h"
#include "coll/core/select/collective.h"
#include "coll/core/engine/sched.h"

/* Values go into message tags (LOOM_TAG_ALG_BITS).  Sequence numbers keep
 * collectives apart, so these may share values with other collectives'
 * ids, never with each other. */
typedef enum loom_reduce_scatter_alg {
    LOOM_REDUCE_SCATTER_AUTO = 0,     /* let Loom choose */
    LOOM_REDUCE_SCATTER_HALVING = 1,  /* recursive halving, rank order kept */
    LOOM_REDUCE_SCATTER_RING = 2,     /* pipelined ring, commutative ops */
    LOOM_REDUCE_SCATTER_REPRODUCIBLE = 3, /* canonical order, on request only */
    LOOM_REDUCE_SCATTER_HIER = 4,     /* inside nodes, then nodes, then racks */
    LOOM_REDUCE_SCATTER_ALG_COUNT
} loom_reduce_scatter_alg_t;

/* Names indexed by loom_reduce_scatter_alg_t, NULL-terminated. */
extern const char *const loom_reduce_scatter_alg_names[];

extern const loom_algorithm_t loom_reduce_scatter_algorithms[LOOM_REDUCE_SCATTER_ALG_COUNT];

loom_status_t loom_reduce_scatter_halving_plan(const loom_coll_args_t *args,
                                               loom_team_t *team, loom_sched_t **sched_p);
loom_status_t loom_reduce_scatter_ring_plan(const loom_coll_args_t *args,
                                            loom_team_t *team, loom_sched_t **sched_p);
loom_status_t loom_reduce_scatter_canonical_plan(const loom_coll_args_t *args,
                                                 loom_team_t *team, loom_sched_t **sched_p);
loom_status_t loom_reduce_scatter_hier_plan(const loom_coll_args_t *args,
                                            loom_team_t *team, loom_sched_t **sched_p);

/* The algorithm, segment size and depth for total_bytes of input (the sum
 * over all blocks) on p ranks: the cost model's choice unless the settings
 * force one; a non-commutative op always gets one that reduces in rank
 * order (reduce_scatter_select.c). */
void loom_reduce_scatter_select(const loom_coll_config_t *cfg, int p, size_t total_bytes,
                                int commutative, loom_choice_t *choice_p);

/* The same for a team whose nodes and racks the cost model sees: across
 * nodes the hierarchical reduce_scatter competes for commutative ops. */
void loom_reduce_scatter_select_team(const loom_coll_config_t *cfg, const loom_team_t *team,
                                     size_t total_bytes, int commutative,
                                     loom_choice_t *choice_p);

#endif
