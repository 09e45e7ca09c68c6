/* Allreduce: its algorithm table and its descriptor (collective.h). */
#include "coll/core/allreduce/allreduce.h"
#include "coll/core/shm/shm.h"

#include <stddef.h>

const char *const loom_allreduce_alg_names[] = {
    [LOOM_ALLREDUCE_AUTO] = "auto",
    [LOOM_ALLREDUCE_RING] = "ring",
    [LOOM_ALLREDUCE_RD] = "recursive_doubling",
    [LOOM_ALLREDUCE_RABENSEIFNER] = "rabenseifner",
    [LOOM_ALLREDUCE_DBTREE] = "double_binary_tree",
    [LOOM_ALLREDUCE_REPRODUCIBLE] = "reproducible",
    [LOOM_ALLREDUCE_HIER] = "hierarchical",
    [LOOM_ALLREDUCE_ALG_COUNT] = NULL,
};

const loom_algorithm_t loom_allreduce_algorithms[LOOM_ALLREDUCE_ALG_COUNT] = {
    [LOOM_ALLREDUCE_RING] = { .name = "ring", .plan = loom_allreduce_ring_plan,
                              .noncommutative = 0, .segmented = 1 },
    [LOOM_ALLREDUCE_RD] = { .name = "recursive_doubling", .plan = loom_allreduce_rd_plan,
                            .noncommutative = 1, .segmented = 0 },
    [LOOM_ALLREDUCE_RABENSEIFNER] = { .name = "rabenseifner",
                                      .plan = loom_allreduce_rabenseifner_plan,
                                      .noncommutative = 1, .segmented = 0 },
    [LOOM_ALLREDUCE_DBTREE] = { .name = "double_binary_tree",
                                .plan = loom_allreduce_dbtree_plan,
                                .noncommutative = 0, .segmented = 1 },
    [LOOM_ALLREDUCE_REPRODUCIBLE] = { .name = "reproducible",
                                      .plan = loom_allreduce_canonical_plan,
                                      .noncommutative = 1, .segmented = 0,
                                      .quadratic = 1 },
    [LOOM_ALLREDUCE_HIER] = { .name = "hierarchical", .plan = loom_allreduce_hier_plan,
                              .noncommutative = 0, .segmented = 1, .quadratic = 1 },
};

const loom_collective_t loom_allreduce_collective = {
    .id = LOOM_COLL_ALLREDUCE, .name = "allreduce", .call_names = { "allreduce", "allreduce" },
    .alg_names = loom_allreduce_alg_names, .algorithms = loom_allreduce_algorithms,
    .alg_count = LOOM_ALLREDUCE_ALG_COUNT, .reproducible = LOOM_ALLREDUCE_REPRODUCIBLE,
    .reduces = 1, .rooted = 0, .vector = 0,
    .select = loom_allreduce_select_team,
    .segment = { .run = loom_shm_allreduce },
    .setting = offsetof(loom_coll_config_t, allreduce_algorithm),
    .handoff = offsetof(loom_coll_config_t, allreduce_handoff),
    .pair_handoff = LOOM_COLL_NO_SETTING,
};
