/* Bcast's algorithm table, and planning through the selection. */
#include "bcast.h"
#include "common/log.h"

#include <stdio.h>

const char *const loom_bcast_alg_names[] = {
    [LOOM_BCAST_AUTO] = "auto",
    [LOOM_BCAST_BINOMIAL] = "binomial",
    [LOOM_BCAST_CHAIN] = "chain",
    [LOOM_BCAST_SCATTER_ALLGATHER] = "scatter_allgather",
    [LOOM_BCAST_HIER] = "hierarchical",
    [LOOM_BCAST_ALG_COUNT] = NULL,
};

const loom_bcast_algorithm_t loom_bcast_algorithms[LOOM_BCAST_ALG_COUNT] = {
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

/* One line per (team, size class): the algorithm and why. */
static void loom_bcast_explain(loom_team_t *team, size_t bytes,
                               const loom_bcast_choice_t *ch)
{
    char why[160];

    if (!loom_log_enabled(LOOM_LOG_INFO) ||
        !loom_team_first_in_class(team, LOOM_COLL_BCAST, bytes)) {
        return;
    }
    if (ch->rule >= 0) {
        snprintf(why, sizeof(why), "user rule %d of coll_loom_rules", ch->rule + 1);
    } else if (ch->forced) {
        snprintf(why, sizeof(why), "forced by bcast_algorithm");
    } else if (ch->next_alg == LOOM_BCAST_AUTO) {
        snprintf(why, sizeof(why), "cost model: %.1f us, the only candidate",
                 ch->cost_s * 1e6);
    } else {
        snprintf(why, sizeof(why), "cost model: %.1f us, next best %s %.1f us",
                 ch->cost_s * 1e6, loom_bcast_alg_names[ch->next_alg],
                 ch->next_cost_s * 1e6);
    }
    loom_info("coll", "bcast on context %u, %d ranks, %zu bytes (and this size class): "
              "%s, segment %zu (%s)", team->context_id, team->size, bytes,
              loom_bcast_alg_names[ch->alg], ch->seg_bytes, why);
}

loom_status_t loom_bcast_plan(const loom_coll_args_t *args, loom_team_t *team,
                              const loom_coll_config_t *cfg, loom_sched_t **sched_p,
                              loom_bcast_choice_t *choice_p)
{
    loom_bcast_choice_t choice;
    loom_coll_args_t a = *args;
    size_t bytes = args->count * args->elem_size;

    if (cfg->bcast_algorithm < 0 || cfg->bcast_algorithm >= LOOM_BCAST_ALG_COUNT) {
        loom_error("coll", "bcast algorithm %d is not one of 0..%d", cfg->bcast_algorithm,
                   LOOM_BCAST_ALG_COUNT - 1);
        return LOOM_ERR_INVALID_PARAM;
    }
    if (args->root < 0 || args->root >= team->size) {
        loom_error("coll", "bcast root %d is not a rank of 0..%d", args->root,
                   team->size - 1);
        return LOOM_ERR_INVALID_PARAM;
    }
    loom_bcast_select_team(cfg, team, bytes, &choice);
    a.seg_bytes = choice.seg_bytes;
    a.depth = choice.depth;
    loom_bcast_explain(team, bytes, &choice);
    loom_debug("coll", "bcast: %zu x %zu bytes on %d ranks from %d: %s (%s), segment %zu",
               args->count, args->elem_size, team->size, args->root,
               loom_bcast_alg_names[choice.alg], choice.forced ? "forced" : "cost model",
               choice.seg_bytes);
    if (choice_p != NULL) {
        *choice_p = choice;
    }
    return loom_bcast_algorithms[choice.alg].plan(&a, team, sched_p);
}
