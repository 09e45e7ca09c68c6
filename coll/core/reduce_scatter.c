#include "reduce_scatter.h"
#include "common/log.h"

#include <stdio.h>

const char *const loom_reduce_scatter_alg_names[] = {
    [LOOM_REDUCE_SCATTER_AUTO] = "auto",
    [LOOM_REDUCE_SCATTER_HALVING] = "recursive_halving",
    [LOOM_REDUCE_SCATTER_RING] = "ring",
    [LOOM_REDUCE_SCATTER_REPRODUCIBLE] = "reproducible",
    [LOOM_REDUCE_SCATTER_HIER] = "hierarchical",
    [LOOM_REDUCE_SCATTER_ALG_COUNT] = NULL,
};

const loom_reduce_scatter_algorithm_t
    loom_reduce_scatter_algorithms[LOOM_REDUCE_SCATTER_ALG_COUNT] = {
    [LOOM_REDUCE_SCATTER_HALVING] = { .name = "recursive_halving",
                                      .plan = loom_reduce_scatter_halving_plan,
                                      .noncommutative = 1, .segmented = 0 },
    [LOOM_REDUCE_SCATTER_RING] = { .name = "ring", .plan = loom_reduce_scatter_ring_plan,
                                   .noncommutative = 0, .segmented = 1 },
    [LOOM_REDUCE_SCATTER_REPRODUCIBLE] = { .name = "reproducible",
                                           .plan = loom_reduce_scatter_canonical_plan,
                                           .noncommutative = 1, .segmented = 0 },
    /* Forced only: the cost model does not price link classes yet. */
    [LOOM_REDUCE_SCATTER_HIER] = { .name = "hierarchical",
                                   .plan = loom_reduce_scatter_hier_plan,
                                   .noncommutative = 0, .segmented = 0 },
};

/* Bytes of input over all blocks: from counts, which every rank passes
 * alike, so every rank selects the same. */
static size_t loom_reduce_scatter_total_bytes(const loom_coll_args_t *args, int p)
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

/* One line per (team, size class of the bytes reduced in all), shared by
 * reduce_scatter and reduce_scatter_block: the algorithm and why. */
static void loom_reduce_scatter_explain(loom_team_t *team, const loom_coll_config_t *cfg,
                                        const loom_coll_args_t *args, size_t bytes,
                                        const loom_reduce_scatter_choice_t *ch)
{
    char why[160];

    if (!loom_log_enabled(LOOM_LOG_INFO) ||
        !loom_team_first_in_class(team, LOOM_COLL_REDUCE_SCATTER, bytes)) {
        return;
    }
    if (ch->forced && (int)ch->alg != cfg->reduce_scatter_algorithm) {
        snprintf(why, sizeof(why), "reduce_scatter_algorithm=%s cannot keep rank order "
                 "for a non-commutative op",
                 loom_reduce_scatter_alg_names[cfg->reduce_scatter_algorithm]);
    } else if (ch->forced) {
        snprintf(why, sizeof(why), "forced by reduce_scatter_algorithm");
    } else if (ch->next_alg == LOOM_REDUCE_SCATTER_AUTO) {
        snprintf(why, sizeof(why), "cost model: %.1f us, the only candidate%s",
                 ch->cost_s * 1e6, args->op.commutative ? "" : " for a non-commutative op");
    } else {
        snprintf(why, sizeof(why), "cost model: %.1f us, next best %s %.1f us",
                 ch->cost_s * 1e6, loom_reduce_scatter_alg_names[ch->next_alg],
                 ch->next_cost_s * 1e6);
    }
    loom_info("coll", "%s on context %u, %d ranks, %zu bytes (and this size class): "
              "%s, segment %zu, depth %d (%s)",
              args->counts != NULL ? "reduce_scatter" : "reduce_scatter_block",
              team->context_id, team->size, bytes, loom_reduce_scatter_alg_names[ch->alg],
              ch->seg_bytes, ch->depth, why);
}

loom_status_t loom_reduce_scatter_plan(const loom_coll_args_t *args, loom_team_t *team,
                                       const loom_coll_config_t *cfg, loom_sched_t **sched_p,
                                       loom_reduce_scatter_choice_t *choice_p)
{
    loom_reduce_scatter_choice_t choice;
    loom_coll_args_t a = *args;
    size_t bytes = loom_reduce_scatter_total_bytes(args, team->size);

    if (cfg->reduce_scatter_algorithm < 0 ||
        cfg->reduce_scatter_algorithm >= LOOM_REDUCE_SCATTER_ALG_COUNT) {
        loom_error("coll", "reduce_scatter algorithm %d is not one of 0..%d",
                   cfg->reduce_scatter_algorithm, LOOM_REDUCE_SCATTER_ALG_COUNT - 1);
        return LOOM_ERR_INVALID_PARAM;
    }
    loom_reduce_scatter_select_team(cfg, team, bytes, args->op.commutative, &choice);
    if (args->reproducible) {
        choice = (loom_reduce_scatter_choice_t){ .alg = LOOM_REDUCE_SCATTER_REPRODUCIBLE,
                                                 .forced = 1,
                                                 .next_alg = LOOM_REDUCE_SCATTER_AUTO };
    }
    a.seg_bytes = choice.seg_bytes;
    a.depth = choice.depth;
    loom_reduce_scatter_explain(team, cfg, args, bytes, &choice);
    loom_debug("coll", "reduce_scatter%s: %zu bytes of input on %d ranks: %s (%s), "
               "segment %zu, depth %d", args->counts != NULL ? "" : "_block", bytes,
               team->size, loom_reduce_scatter_alg_names[choice.alg],
               choice.forced ? "forced" : "cost model", choice.seg_bytes, choice.depth);
    if (choice_p != NULL) {
        *choice_p = choice;
    }
    return loom_reduce_scatter_algorithms[choice.alg].plan(&a, team, sched_p);
}
