/* Bcast: its algorithm table and its descriptor (collective.h). */
#include "coll/core/bcast/bcast.h"
#include "coll/core/shm/shm.h"

#include <stddef.h>

const char *const loom_bcast_alg_names[] = {
    [LOOM_BCAST_AUTO] = "auto",
    [LOOM_BCAST_BINOMIAL] = "binomial",
    [LOOM_BCAST_CHAIN] = "chain",
    [LOOM_BCAST_SCATTER_ALLGATHER] = "scatter_allgather",
    [LOOM_BCAST_HIER] = "hierarchical",
    [LOOM_BCAST_ALG_COUNT] = NULL,
};

const loom_algorithm_t loom_bcast_algorithms[LOOM_BCAST_ALG_COUNT] = {
    [LOOM_BCAST_BINOMIAL] = { .name = "binomial", .plan = loom_bcast_binomial_plan,
                              .segmented = 0 },
    [LOOM_BCAST_CHAIN] = { .name = "chain", .plan = loom_bcast_chain_plan,
                           .segmented = 1 },
    [LOOM_BCAST_SCATTER_ALLGATHER] = { .name = "scatter_allgather",
                                       .plan = loom_bcast_scatter_allgather_plan,
                                       .segmented = 0 },
    /* Forced only: the cost model does not price link classes yet. */
    [LOOM_BCAST_HIER] = { .name = "hierarchical", .plan = loom_bcast_hier_plan,
                          .segmented = 1 },
};

const loom_collective_t loom_bcast_collective = {
    .id = LOOM_COLL_BCAST, .name = "bcast", .call_names = { "bcast", "bcast" },
    .alg_names = loom_bcast_alg_names, .algorithms = loom_bcast_algorithms,
    .alg_count = LOOM_BCAST_ALG_COUNT, .reproducible = 0,
    .reduces = 0, .rooted = 1, .vector = 0,
    .select = loom_bcast_select_team,
    .segment = { .run = loom_shm_bcast },
    .setting = offsetof(loom_coll_config_t, bcast_algorithm),
    .handoff = offsetof(loom_coll_config_t, bcast_handoff),
    .pair_handoff = offsetof(loom_coll_config_t, bcast_pair_handoff),
};
