#include "allreduce.h"
#include "common/log.h"

const char *const loom_allreduce_alg_names[] = {
    [LOOM_ALLREDUCE_AUTO] = "auto",
    [LOOM_ALLREDUCE_RING] = "ring",
    [LOOM_ALLREDUCE_ALG_COUNT] = NULL,
};

const loom_allreduce_algorithm_t loom_allreduce_algorithms[LOOM_ALLREDUCE_ALG_COUNT] = {
    [LOOM_ALLREDUCE_RING] = { .name = "ring", .plan = loom_allreduce_ring_plan,
                              .noncommutative = 0, .segmented = 0 },
};

loom_allreduce_alg_t loom_allreduce_choose(const loom_coll_args_t *args,
                                           const loom_team_t *team,
                                           loom_allreduce_alg_t requested)
{
    (void)args;
    (void)team;
    if (requested != LOOM_ALLREDUCE_AUTO) {
        return requested;
    }
    /* Ring is the one algorithm so far; the cost model arrives with the
     * algorithm suite. */
    return LOOM_ALLREDUCE_RING;
}

loom_status_t loom_allreduce_plan(const loom_coll_args_t *args, loom_team_t *team,
                                  loom_allreduce_alg_t requested,
                                  loom_sched_t **sched_p)
{
    loom_allreduce_alg_t alg;

    if ((int)requested < 0 || requested >= LOOM_ALLREDUCE_ALG_COUNT) {
        loom_error("coll", "allreduce algorithm %d is not one of 0..%d",
                   (int)requested, LOOM_ALLREDUCE_ALG_COUNT - 1);
        return LOOM_ERR_INVALID_PARAM;
    }
    alg = loom_allreduce_choose(args, team, requested);
    loom_debug("coll", "allreduce: %zu x %zu bytes on %d ranks: %s", args->count,
               args->elem_size, team->size, loom_allreduce_alg_names[alg]);
    return loom_allreduce_algorithms[alg].plan(args, team, sched_p);
}
