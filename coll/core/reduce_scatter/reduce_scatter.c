/* Reduce_scatter (and its block form): its algorithm table and its
 * descriptor (collective.h). */
#include "coll/core/reduce_scatter/reduce_scatter.h"
#include "coll/core/shm/shm.h"

#include <stddef.h>

const char *const loom_reduce_scatter_alg_names[] = {
    [LOOM_REDUCE_SCATTER_AUTO] = "auto",
    [LOOM_REDUCE_SCATTER_HALVING] = "recursive_halving",
    [LOOM_REDUCE_SCATTER_RING] = "ring",
    [LOOM_REDUCE_SCATTER_REPRODUCIBLE] = "reproducible",
    [LOOM_REDUCE_SCATTER_HIER] = "hierarchical",
    [LOOM_REDUCE_SCATTER_ALG_COUNT] = NULL,
};

const loom_algorithm_t
    loom_reduce_scatter_algorithms[LOOM_REDUCE_SCATTER_ALG_COUNT] = {
    [LOOM_REDUCE_SCATTER_HALVING] = { .name = "recursive_halving",
                                      .plan = loom_reduce_scatter_halving_plan,
                                      .noncommutative = 1, .segmented = 0 },
    [LOOM_REDUCE_SCATTER_RING] = { .name = "ring", .plan = loom_reduce_scatter_ring_plan,
                                   .noncommutative = 0, .segmented = 1 },
    [LOOM_REDUCE_SCATTER_REPRODUCIBLE] = { .name = "reproducible",
                                           .plan = loom_reduce_scatter_canonical_plan,
                                           .noncommutative = 1, .segmented = 0 },
    /* Forced only: the cost model does not price link classes yet. */
    [LOOM_REDUCE_SCATTER_HIER] = { .name = "hierarchical",
                                   .plan = loom_reduce_scatter_hier_plan,
                                   .noncommutative = 0, .segmented = 0 },
};

const loom_collective_t loom_reduce_scatter_collective = {
    .id = LOOM_COLL_REDUCE_SCATTER, .name = "reduce_scatter", 
    .call_names = { "reduce_scatter_block", "reduce_scatter" },
    .alg_names = loom_reduce_scatter_alg_names, .algorithms = loom_reduce_scatter_algorithms,
    .alg_count = LOOM_REDUCE_SCATTER_ALG_COUNT, 
    .reproducible = LOOM_REDUCE_SCATTER_REPRODUCIBLE,
    .reduces = 1, .rooted = 0, .vector = 1,
    .select = loom_reduce_scatter_select_team,
    .segment = { .run = loom_shm_reduce_scatter, .fits = loom_shm_reduce_scatter_fits },
    .setting = offsetof(loom_coll_config_t, reduce_scatter_algorithm),
    .handoff = offsetof(loom_coll_config_t, reduce_scatter_handoff),
    .pair_handoff = LOOM_COLL_NO_SETTING,
};
