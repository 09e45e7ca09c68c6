/* Planning a call of any collective (collective.h). */
#include "coll/core/select/collective.h"
#include "common/log.h"
#include "coll/core/engine/team.h"
#include "coll/core/select/handoff.h"

#include <stdio.h>

const loom_collective_t *const loom_collectives[LOOM_COLL_KIND_COUNT] = {
    [LOOM_COLL_ALLREDUCE] = &loom_allreduce_collective,
    [LOOM_COLL_BCAST] = &loom_bcast_collective,
    [LOOM_COLL_REDUCE] = &loom_reduce_collective,
    [LOOM_COLL_ALLGATHER] = &loom_allgather_collective,
    [LOOM_COLL_REDUCE_SCATTER] = &loom_reduce_scatter_collective,
    [LOOM_COLL_SPARSE_ALLREDUCE] = &loom_sparse_allreduce_collective,
};

size_t loom_coll_bytes(const loom_collective_t *coll, const loom_coll_args_t *args, int p)
{
    size_t total = 0;
    int i;

    if (!coll->vector) {
        return args->count * args->elem_size;
    }
    if (args->counts == NULL) {
        return (size_t)p * args->count * args->elem_size;
    }
    for (i = 0; i < p; ++i) {
        total += args->counts[i];
    }
    return total * args->elem_size;
}

/* One line per (team, size class): the algorithm and why. */
static void loom_coll_explain(const loom_collective_t *coll, loom_team_t *team,
                              const loom_coll_config_t *cfg, const loom_coll_args_t *args,
                              size_t bytes, const loom_choice_t *ch)
{
    const char *const *names = coll->alg_names;
    int setting = loom_coll_setting(coll, cfg);
    char why[160];

    if (!loom_log_enabled(LOOM_LOG_INFO) || !loom_team_first_in_class(team, coll->id, bytes)) {
        return;
    }
    if (coll->reproducible != 0 && ch->alg == coll->reproducible && ch->forced) {
        snprintf(why, sizeof(why), "reproducible: floating data with coll_loom_reproducible");
    } else if (ch->rule >= 0) {
        snprintf(why, sizeof(why), "user rule %d of coll_loom_rules", ch->rule + 1);
    } else if (ch->forced && ch->alg != setting) {
        snprintf(why, sizeof(why), "%s_algorithm=%s cannot keep rank order for a "
                 "non-commutative op", coll->name, names[setting]);
    } else if (ch->forced) {
        snprintf(why, sizeof(why), "forced by %s_algorithm", coll->name);
    } else if (ch->next_alg == 0) {
        snprintf(why, sizeof(why), "cost model: %.1f us, the only candidate%s",
                 ch->cost_s * 1e6,
                 coll->reduces && !args->op.commutative ? " for a non-commutative op" : "");
    } else {
        snprintf(why, sizeof(why), "cost model: %.1f us, next best %s %.1f us",
                 ch->cost_s * 1e6, names[ch->next_alg], ch->next_cost_s * 1e6);
    }
    loom_info("coll", "%s on context %u, %d ranks, %zu bytes (and this size class): "
              "%s, segment %zu, depth %d (%s)", coll->call_names[args->counts != NULL],
              team->context_id, team->size, bytes, names[ch->alg], ch->seg_bytes, ch->depth,
              why);
}

loom_status_t loom_coll_select(const loom_collective_t *coll, const loom_coll_args_t *args,
                               const loom_team_t *team, const loom_coll_config_t *cfg,
                               loom_choice_t *choice_p)
{
    int setting = loom_coll_setting(coll, cfg);
    size_t bytes = loom_coll_bytes(coll, args, team->size);
    int commutative = !coll->reduces || args->op.commutative;

    if (setting < 0 || setting >= coll->alg_count) {
        loom_error("coll", "%s algorithm %d is not one of 0..%d", coll->name, setting,
                   coll->alg_count - 1);
        return LOOM_ERR_INVALID_PARAM;
    }
    if (coll->rooted && (args->root < 0 || args->root >= team->size)) {
        loom_error("coll", "%s root %d is not a rank of 0..%d", coll->name, args->root,
                   team->size - 1);
        return LOOM_ERR_INVALID_PARAM;
    }
    coll->select(cfg, team, bytes, commutative, choice_p);
    if (coll->refine != NULL && !choice_p->forced) {
        coll->refine(args, team, choice_p);
    }
    if (args->reproducible && coll->reproducible != 0) {
        *choice_p = (loom_choice_t){ .alg = coll->reproducible, .forced = 1, .rule = -1 };
    }
    /* The segment combines in its own order: not for reproducible calls
     * (whether or not the collective has a canonical algorithm to force),
     * nor for an op that does not commute. */
    choice_p->segment = coll->segment.run != NULL && args->blocking && commutative &&
                        !args->reproducible &&
                        loom_shm_applies(team, cfg, bytes, choice_p->forced) &&
                        (coll->segment.fits == NULL ||
                         coll->segment.fits(cfg->shm_slot, team->size, args));
    return LOOM_OK;
}

loom_status_t loom_coll_build(const loom_collective_t *coll, const loom_coll_args_t *args,
                              loom_team_t *team, const loom_coll_config_t *cfg,
                              loom_choice_t *choice, loom_sched_t **sched_p)
{
    size_t bytes = loom_coll_bytes(coll, args, team->size);
    loom_coll_args_t a = *args;
    loom_status_t status;

    a.seg_bytes = choice->seg_bytes;
    a.depth = choice->depth;
    loom_coll_explain(coll, team, cfg, args, bytes, choice);
    loom_debug("coll", "%s: %zu bytes on %d ranks: %s (%s), segment %zu, depth %d",
               coll->call_names[args->counts != NULL], bytes, team->size,
               coll->alg_names[choice->alg], choice->forced ? "forced" : "cost model",
               choice->seg_bytes, choice->depth);
    status = coll->algorithms[choice->alg].plan(&a, team, sched_p);
    /* A choice of the model's can meet a layout its tags cannot name (the
     * hierarchical allreduce on some layouts): the next best runs, on
     * every rank alike, since the plan declines on the team alone. */
    if (status == LOOM_ERR_UNSUPPORTED && !choice->forced && choice->next_alg != 0) {
        choice->alg = choice->next_alg;
        choice->cost_s = choice->next_cost_s;
        choice->next_alg = 0;
        status = coll->algorithms[choice->alg].plan(&a, team, sched_p);
    }
    return status;
}

loom_status_t loom_coll_plan(const loom_collective_t *coll, const loom_coll_args_t *args,
                             loom_team_t *team, const loom_coll_config_t *cfg,
                             loom_sched_t **sched_p, loom_choice_t *choice_p)
{
    loom_choice_t choice;
    loom_status_t status = loom_coll_select(coll, args, team, cfg, &choice);

    if (status != LOOM_OK) {
        return status;
    }
    status = loom_coll_build(coll, args, team, cfg, &choice, sched_p);
    if (choice_p != NULL) {
        *choice_p = choice;
    }
    return status;
}
