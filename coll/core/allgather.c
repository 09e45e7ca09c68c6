#include "allgather.h"
#include "blocks.h"
#include "common/log.h"

#include <stdio.h>

const char *const loom_allgather_alg_names[] = {
    [LOOM_ALLGATHER_AUTO] = "auto",
    [LOOM_ALLGATHER_BRUCK] = "bruck",
    [LOOM_ALLGATHER_RING] = "ring",
    [LOOM_ALLGATHER_HIER] = "hierarchical",
    [LOOM_ALLGATHER_ALG_COUNT] = NULL,
};

const loom_allgather_algorithm_t loom_allgather_algorithms[LOOM_ALLGATHER_ALG_COUNT] = {
    [LOOM_ALLGATHER_BRUCK] = { .name = "bruck", .plan = loom_allgather_bruck_plan,
                               .segmented = 0 },
    [LOOM_ALLGATHER_RING] = { .name = "ring", .plan = loom_allgather_ring_plan,
                              .segmented = 1 },
    /* Forced only: the cost model does not price link classes yet. */
    [LOOM_ALLGATHER_HIER] = { .name = "hierarchical", .plan = loom_allgather_hier_plan,
                              .segmented = 0 },
};

/* Bytes gathered over all ranks: from counts, which every rank passes
 * alike, never from local buffer layouts, so every rank selects the same. */
static size_t loom_allgather_total_bytes(const loom_coll_args_t *args, int p)
{
    size_t total = 0;
    int i;

    if (args->counts == NULL) {
        return (size_t)p * args->count * args->elem_size;
    }
    for (i = 0; i < p; ++i) {
        total += args->counts[i];
    }
    return total * args->elem_size;
}

/* One line per (team, size class of the bytes gathered in all), shared by
 * allgather and allgatherv: the algorithm and why. */
static void loom_allgather_explain(loom_team_t *team, const loom_coll_args_t *args,
                                   size_t bytes, const loom_allgather_choice_t *ch)
{
    char why[160];

    if (!loom_log_enabled(LOOM_LOG_INFO) ||
        !loom_team_first_in_class(team, LOOM_COLL_ALLGATHER, bytes)) {
        return;
    }
    if (ch->forced) {
        snprintf(why, sizeof(why), "forced by allgather_algorithm");
    } else if (ch->next_alg == LOOM_ALLGATHER_AUTO) {
        snprintf(why, sizeof(why), "cost model: %.1f us, the only candidate",
                 ch->cost_s * 1e6);
    } else {
        snprintf(why, sizeof(why), "cost model: %.1f us, next best %s %.1f us",
                 ch->cost_s * 1e6, loom_allgather_alg_names[ch->next_alg],
                 ch->next_cost_s * 1e6);
    }
    loom_info("coll", "%s on context %u, %d ranks, %zu bytes (and this size class): "
              "%s, segment %zu (%s)", args->counts != NULL ? "allgatherv" : "allgather",
              team->context_id, team->size, bytes, loom_allgather_alg_names[ch->alg],
              ch->seg_bytes, why);
}

loom_status_t loom_allgather_plan(const loom_coll_args_t *args, loom_team_t *team,
                                  const loom_coll_config_t *cfg, loom_sched_t **sched_p,
                                  loom_allgather_choice_t *choice_p)
{
    loom_allgather_choice_t choice;
    loom_coll_args_t a = *args;
    size_t bytes = loom_allgather_total_bytes(args, team->size);

    if (cfg->allgather_algorithm < 0 || cfg->allgather_algorithm >= LOOM_ALLGATHER_ALG_COUNT) {
        loom_error("coll", "allgather algorithm %d is not one of 0..%d",
                   cfg->allgather_algorithm, LOOM_ALLGATHER_ALG_COUNT - 1);
        return LOOM_ERR_INVALID_PARAM;
    }
    loom_allgather_select_team(cfg, team, bytes, &choice);
    a.seg_bytes = choice.seg_bytes;
    a.depth = choice.depth;
    loom_allgather_explain(team, args, bytes, &choice);
    loom_debug("coll", "allgather%s: %zu bytes in all on %d ranks: %s (%s), segment %zu",
               args->counts != NULL ? "v" : "", bytes, team->size,
               loom_allgather_alg_names[choice.alg],
               choice.forced ? "forced" : "cost model", choice.seg_bytes);
    if (choice_p != NULL) {
        *choice_p = choice;
    }
    return loom_allgather_algorithms[choice.alg].plan(&a, team, sched_p);
}
