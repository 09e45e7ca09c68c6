#include "allreduce.h"
#include "common/log.h"

const char *const loom_allreduce_alg_names[] = {
    [LOOM_ALLREDUCE_AUTO] = "auto",
    [LOOM_ALLREDUCE_RING] = "ring",
    [LOOM_ALLREDUCE_RD] = "recursive_doubling",
    [LOOM_ALLREDUCE_RABENSEIFNER] = "rabenseifner",
    [LOOM_ALLREDUCE_DBTREE] = "double_binary_tree",
    [LOOM_ALLREDUCE_ALG_COUNT] = NULL,
};

const loom_allreduce_algorithm_t loom_allreduce_algorithms[LOOM_ALLREDUCE_ALG_COUNT] = {
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
};

loom_status_t loom_allreduce_plan(const loom_coll_args_t *args, loom_team_t *team,
                                  const loom_coll_config_t *cfg, loom_sched_t **sched_p)
{
    loom_allreduce_choice_t choice;
    loom_coll_args_t a = *args;

    if (cfg->allreduce_algorithm < 0 || cfg->allreduce_algorithm >= LOOM_ALLREDUCE_ALG_COUNT) {
        loom_error("coll", "allreduce algorithm %d is not one of 0..%d",
                   cfg->allreduce_algorithm, LOOM_ALLREDUCE_ALG_COUNT - 1);
        return LOOM_ERR_INVALID_PARAM;
    }
    loom_allreduce_select(cfg, team->size, args->count * args->elem_size,
                          args->op.commutative, &choice);
    a.seg_bytes = choice.seg_bytes;
    a.depth = choice.depth;
    loom_debug("coll", "allreduce: %zu x %zu bytes on %d ranks: %s (%s), segment %zu, "
               "depth %d", args->count, args->elem_size, team->size,
               loom_allreduce_alg_names[choice.alg],
               choice.forced ? "forced" : "cost model", choice.seg_bytes, choice.depth);
    return loom_allreduce_algorithms[choice.alg].plan(&a, team, sched_p);
}
