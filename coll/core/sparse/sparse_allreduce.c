/* The sparse allreduce: its algorithm table, its selection and its
 * descriptor (collective.h, sparse.h). */
#include "coll/core/sparse/sparse.h"

#include <stddef.h>

const char *const loom_sparse_alg_names[] = {
    [LOOM_SPARSE_AUTO] = "auto",
    [LOOM_SPARSE_ALLGATHER] = "allgather",
    [LOOM_SPARSE_MERGE] = "merge",
    [LOOM_SPARSE_SPLIT] = "split",
    [LOOM_SPARSE_ALG_COUNT] = NULL,
};

const loom_algorithm_t loom_sparse_algorithms[LOOM_SPARSE_ALG_COUNT] = {
    [LOOM_SPARSE_ALLGATHER] = { .name = "allgather", .plan = loom_sparse_allgather_plan,
                                .segmented = 1 },
    [LOOM_SPARSE_MERGE] = { .name = "merge", .plan = loom_sparse_merge_plan },
    [LOOM_SPARSE_SPLIT] = { .name = "split", .plan = loom_sparse_split_plan, .segmented = 1 },
};

/* One algorithm so far, which prices its own switch to dense once the
 * sizes are known; what is chosen here is the dense ring's segments, as
 * the ring allreduce's settings say. */
void loom_sparse_select_team(const loom_coll_config_t *cfg, const loom_team_t *team,
                             size_t bytes, int commutative, loom_choice_t *choice_p)
{
    (void)team;
    (void)bytes;
    (void)commutative;
    *choice_p = (loom_choice_t){
        .alg = LOOM_SPARSE_ALLGATHER, .forced = cfg->sparse_allreduce_algorithm != 0,
        .rule = -1, .seg_bytes = cfg->allreduce_segment > 0 ? cfg->allreduce_segment : 256 << 10,
        .depth = cfg->allreduce_depth,
    };
}

const loom_collective_t loom_sparse_allreduce_collective = {
    .id = LOOM_COLL_SPARSE_ALLREDUCE, .name = "sparse_allreduce",
    .call_names = { "sparse_allreduce", "sparse_allreduce" },
    .alg_names = loom_sparse_alg_names, .algorithms = loom_sparse_algorithms,
    .alg_count = LOOM_SPARSE_ALG_COUNT, .reproducible = 0,
    .reduces = 1, .rooted = 0, .vector = 0,
    .select = loom_sparse_select_team,
    .segment = { .run = NULL },
    .setting = offsetof(loom_coll_config_t, sparse_allreduce_algorithm),
    .handoff = LOOM_COLL_NO_SETTING,
    .pair_handoff = LOOM_COLL_NO_SETTING,
};

loom_status_t loom_sparse_outcome(const loom_sched_t *sched, loom_sparse_outcome_t *out_p)
{
    if (sched->status != LOOM_OK || sched->alg_id <= LOOM_SPARSE_AUTO ||
        sched->alg_id >= LOOM_SPARSE_ALG_COUNT) {
        return LOOM_ERR_INVALID_PARAM;
    }
    if (sched->scratch == NULL) {
        *out_p = (loom_sparse_outcome_t){ .alg = sched->alg_id, .dense_stage = -1 };
        return LOOM_OK;
    }
    *out_p = ((const loom_sparse_head_t *)sched->scratch)->out;
    return LOOM_OK;
}
