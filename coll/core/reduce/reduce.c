/* Reduce: its algorithm table and its descriptor (collective.h). */
#include "coll/core/reduce/reduce.h"
#include "coll/core/shm/shm.h"

#include <stddef.h>

const char *const loom_reduce_alg_names[] = {
    [LOOM_REDUCE_AUTO] = "auto",
    [LOOM_REDUCE_BINOMIAL] = "binomial",
    [LOOM_REDUCE_SCATTER_GATHER] = "reduce_scatter_gather",
    [LOOM_REDUCE_REPRODUCIBLE] = "reproducible",
    [LOOM_REDUCE_CHAIN] = "chain",
    [LOOM_REDUCE_HIER] = "hierarchical",
    [LOOM_REDUCE_ALG_COUNT] = NULL,
};

const loom_algorithm_t loom_reduce_algorithms[LOOM_REDUCE_ALG_COUNT] = {
    [LOOM_REDUCE_BINOMIAL] = { .name = "binomial", .plan = loom_reduce_binomial_plan,
                               .noncommutative = 1, .segmented = 0 },
    [LOOM_REDUCE_SCATTER_GATHER] = { .name = "reduce_scatter_gather",
                                     .plan = loom_reduce_scatter_gather_plan,
                                     .noncommutative = 1, .segmented = 0 },
    [LOOM_REDUCE_REPRODUCIBLE] = { .name = "reproducible", .plan = loom_reduce_canonical_plan,
                                   .noncommutative = 1, .segmented = 0 },
    [LOOM_REDUCE_CHAIN] = { .name = "chain", .plan = loom_reduce_chain_plan,
                            .noncommutative = 1, .segmented = 1 },
    /* Forced only: the cost model does not price link classes yet. */
    [LOOM_REDUCE_HIER] = { .name = "hierarchical", .plan = loom_reduce_hier_plan,
                           .noncommutative = 0, .segmented = 1 },
};

const loom_collective_t loom_reduce_collective = {
    .id = LOOM_COLL_REDUCE, .name = "reduce", .call_names = { "reduce", "reduce" },
    .alg_names = loom_reduce_alg_names, .algorithms = loom_reduce_algorithms,
    .alg_count = LOOM_REDUCE_ALG_COUNT, .reproducible = LOOM_REDUCE_REPRODUCIBLE,
    .reduces = 1, .rooted = 1, .vector = 0,
    .select = loom_reduce_select_team,
    .segment = { .run = loom_shm_reduce },
    .setting = offsetof(loom_coll_config_t, reduce_algorithm),
    .handoff = offsetof(loom_coll_config_t, reduce_handoff),
    .pair_handoff = LOOM_COLL_NO_SETTING,
};
