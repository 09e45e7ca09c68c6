#include "allreduce.h"
#include "common/log.h"

#include <stdio.h>

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
    [LOOM_ALLREDUCE_REPRODUCIBLE] = { .name = "reproducible",
                                      .plan = loom_allreduce_canonical_plan,
                                      .noncommutative = 1, .segmented = 0,
                                      .quadratic = 1 },
    [LOOM_ALLREDUCE_HIER] = { .name = "hierarchical", .plan = loom_allreduce_hier_plan,
                              .noncommutative = 0, .segmented = 1, .quadratic = 1 },
};

/* One line per (team, size class): the algorithm and why. */
static void loom_allreduce_explain(loom_team_t *team, const loom_coll_config_t *cfg,
                                   size_t bytes, int commutative,
                                   const loom_allreduce_choice_t *ch)
{
    char why[160];

    if (!loom_log_enabled(LOOM_LOG_INFO) || !loom_team_first_in_class(team, LOOM_COLL_ALLREDUCE, bytes)) {
        return;
    }
    if (ch->alg == LOOM_ALLREDUCE_REPRODUCIBLE) {
        snprintf(why, sizeof(why), "reproducible: floating data with coll_loom_reproducible");
    } else if (ch->rule >= 0) {
        snprintf(why, sizeof(why), "user rule %d of coll_loom_rules", ch->rule + 1);
    } else if (ch->forced && (int)ch->alg != cfg->allreduce_algorithm) {
        snprintf(why, sizeof(why), "allreduce_algorithm=%s cannot keep rank order "
                 "for a non-commutative op", loom_allreduce_alg_names[cfg->allreduce_algorithm]);
    } else if (ch->forced) {
        snprintf(why, sizeof(why), "forced by allreduce_algorithm");
    } else if (ch->next_alg == LOOM_ALLREDUCE_AUTO) {
        snprintf(why, sizeof(why), "cost model: %.1f us, the only candidate%s", ch->cost_s * 1e6,
                 commutative ? "" : " for a non-commutative op");
    } else {
        snprintf(why, sizeof(why), "cost model: %.1f us, next best %s %.1f us",
                 ch->cost_s * 1e6, loom_allreduce_alg_names[ch->next_alg],
                 ch->next_cost_s * 1e6);
    }
    loom_info("coll", "allreduce on context %u, %d ranks, %zu bytes (and this size "
              "class): %s, segment %zu, depth %d (%s)", team->context_id, team->size, bytes,
              loom_allreduce_alg_names[ch->alg], ch->seg_bytes, ch->depth, why);
}

loom_status_t loom_allreduce_plan(const loom_coll_args_t *args, loom_team_t *team,
                                  const loom_coll_config_t *cfg, loom_sched_t **sched_p,
                                  loom_allreduce_choice_t *choice_p)
{
    loom_allreduce_choice_t choice;
    loom_coll_args_t a = *args;
    size_t bytes = args->count * args->elem_size;
    loom_status_t status;

    if (cfg->allreduce_algorithm < 0 || cfg->allreduce_algorithm >= LOOM_ALLREDUCE_ALG_COUNT) {
        loom_error("coll", "allreduce algorithm %d is not one of 0..%d",
                   cfg->allreduce_algorithm, LOOM_ALLREDUCE_ALG_COUNT - 1);
        return LOOM_ERR_INVALID_PARAM;
    }
    loom_allreduce_select_team(cfg, team, bytes, args->op.commutative, &choice);
    if (args->reproducible) {
        choice = (loom_allreduce_choice_t){ .alg = LOOM_ALLREDUCE_REPRODUCIBLE, .forced = 1,
                                            .next_alg = LOOM_ALLREDUCE_AUTO, .rule = -1 };
    }
    a.seg_bytes = choice.seg_bytes;
    a.depth = choice.depth;
    loom_allreduce_explain(team, cfg, bytes, args->op.commutative, &choice);
    loom_debug("coll", "allreduce: %zu x %zu bytes on %d ranks: %s (%s), segment %zu, "
               "depth %d", args->count, args->elem_size, team->size,
               loom_allreduce_alg_names[choice.alg],
               choice.forced ? "forced" : "cost model", choice.seg_bytes, choice.depth);
    if (choice_p != NULL) {
        *choice_p = choice;
    }
    status = loom_allreduce_algorithms[choice.alg].plan(&a, team, sched_p);
    /* The model's hierarchical choice can meet a layout its tags cannot
     * name: the cheapest flat algorithm then runs, on every rank alike. */
    if (status == LOOM_ERR_UNSUPPORTED && !choice.forced && choice.alg == LOOM_ALLREDUCE_HIER &&
        choice.next_alg != LOOM_ALLREDUCE_AUTO) {
        choice.alg = choice.next_alg;
        choice.cost_s = choice.next_cost_s;
        choice.next_alg = LOOM_ALLREDUCE_AUTO;
        if (choice_p != NULL) {
            *choice_p = choice;
        }
        status = loom_allreduce_algorithms[choice.alg].plan(&a, team, sched_p);
    }
    return status;
}
