/* Allgather (and allgatherv): its algorithm table and its descriptor
 * (collective.h). */
#include "coll/core/allgather/allgather.h"
#include "coll/core/shm/shm.h"

#include <stddef.h>

const char *const loom_allgather_alg_names[] = {
    [LOOM_ALLGATHER_AUTO] = "auto",
    [LOOM_ALLGATHER_BRUCK] = "bruck",
    [LOOM_ALLGATHER_RING] = "ring",
    [LOOM_ALLGATHER_HIER] = "hierarchical",
    [LOOM_ALLGATHER_ALG_COUNT] = NULL,
};

const loom_algorithm_t loom_allgather_algorithms[LOOM_ALLGATHER_ALG_COUNT] = {
    [LOOM_ALLGATHER_BRUCK] = { .name = "bruck", .plan = loom_allgather_bruck_plan,
                               .segmented = 0 },
    [LOOM_ALLGATHER_RING] = { .name = "ring", .plan = loom_allgather_ring_plan,
                              .segmented = 1 },
    /* Forced only: the cost model does not price link classes yet. */
    [LOOM_ALLGATHER_HIER] = { .name = "hierarchical", .plan = loom_allgather_hier_plan,
                              .segmented = 0 },
};

const loom_collective_t loom_allgather_collective = {
    .id = LOOM_COLL_ALLGATHER, .name = "allgather", .call_names = { "allgather", "allgatherv" },
    .alg_names = loom_allgather_alg_names, .algorithms = loom_allgather_algorithms,
    .alg_count = LOOM_ALLGATHER_ALG_COUNT, .reproducible = 0,
    .reduces = 0, .rooted = 0, .vector = 1,
    .select = loom_allgather_select_team,
    .segment = { .run = loom_shm_allgather },
    .setting = offsetof(loom_coll_config_t, allgather_algorithm),
    .handoff = offsetof(loom_coll_config_t, allgather_handoff),
    .pair_handoff = offsetof(loom_coll_config_t, allgather_pair_handoff),
};
