/* Reduce's algorithm table, and planning through the selection. */
#include "reduce.h"
#include "common/log.h"

#include <stdio.h>

const char *const loom_reduce_alg_names[] = {
    [LOOM_REDUCE_AUTO] = "auto",
    [LOOM_REDUCE_BINOMIAL] = "binomial",
    [LOOM_REDUCE_SCATTER_GATHER] = "reduce_scatter_gather",
    [LOOM_REDUCE_REPRODUCIBLE] = "reproducible",
    [LOOM_REDUCE_CHAIN] = "chain",
    [LOOM_REDUCE_HIER] = "hierarchical",
    [LOOM_REDUCE_ALG_COUNT] = NULL,
};

const loom_reduce_algorithm_t loom_reduce_algorithms[LOOM_REDUCE_ALG_COUNT] = {
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

/* One line per (team, size class): the algorithm and why. */
static void loom_reduce_explain(loom_team_t *team, size_t bytes,
                                const loom_reduce_choice_t *ch)
{
    char why[160];

    if (!loom_log_enabled(LOOM_LOG_INFO) ||
        !loom_team_first_in_class(team, LOOM_COLL_REDUCE, bytes)) {
        return;
    }
    if (ch->alg == LOOM_REDUCE_REPRODUCIBLE && ch->forced) {
        snprintf(why, sizeof(why), "reproducible: floating data with coll_loom_reproducible");
    } else if (ch->rule >= 0) {
        snprintf(why, sizeof(why), "user rule %d of coll_loom_rules", ch->rule + 1);
    } else if (ch->forced) {
        snprintf(why, sizeof(why), "forced by reduce_algorithm");
    } else if (ch->next_alg == LOOM_REDUCE_AUTO) {
        snprintf(why, sizeof(why), "cost model: %.1f us, the only candidate",
                 ch->cost_s * 1e6);
    } else {
        snprintf(why, sizeof(why), "cost model: %.1f us, next best %s %.1f us",
                 ch->cost_s * 1e6, loom_reduce_alg_names[ch->next_alg],
                 ch->next_cost_s * 1e6);
    }
    loom_info("coll", "reduce on context %u, %d ranks, %zu bytes (and this size class): "
              "%s, segment %zu (%s)", team->context_id, team->size, bytes,
              loom_reduce_alg_names[ch->alg], ch->seg_bytes, why);
}

loom_status_t loom_reduce_plan(const loom_coll_args_t *args, loom_team_t *team,
                               const loom_coll_config_t *cfg, loom_sched_t **sched_p,
                               loom_reduce_choice_t *choice_p)
{
    loom_reduce_choice_t choice;
    loom_coll_args_t a = *args;
    size_t bytes = args->count * args->elem_size;

    if (cfg->reduce_algorithm < 0 || cfg->reduce_algorithm >= LOOM_REDUCE_ALG_COUNT) {
        loom_error("coll", "reduce algorithm %d is not one of 0..%d", cfg->reduce_algorithm,
                   LOOM_REDUCE_ALG_COUNT - 1);
        return LOOM_ERR_INVALID_PARAM;
    }
    if (args->root < 0 || args->root >= team->size) {
        loom_error("coll", "reduce root %d is not a rank of 0..%d", args->root,
                   team->size - 1);
        return LOOM_ERR_INVALID_PARAM;
    }
    loom_reduce_select_team(cfg, team, bytes, args->op.commutative, &choice);
    if (args->reproducible) {
        choice = (loom_reduce_choice_t){ .alg = LOOM_REDUCE_REPRODUCIBLE, .forced = 1,
                                         .next_alg = LOOM_REDUCE_AUTO };
    }
    a.seg_bytes = choice.seg_bytes;
    a.depth = choice.depth;
    loom_reduce_explain(team, bytes, &choice);
    loom_debug("coll", "reduce: %zu x %zu bytes on %d ranks to %d: %s (%s)", args->count,
               args->elem_size, team->size, args->root, loom_reduce_alg_names[choice.alg],
               choice.forced ? "forced" : "cost model");
    if (choice_p != NULL) {
        *choice_p = choice;
    }
    return loom_reduce_algorithms[choice.alg].plan(&a, team, sched_p);
}
