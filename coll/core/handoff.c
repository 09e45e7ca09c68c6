#include "handoff.h"
#include "common/log.h"

/* A collective's two settings; pair 0 where it has none. */
static void loom_handoff_settings(const loom_coll_config_t *cfg, loom_coll_kind_t id,
                                  size_t *threshold_p, size_t *pair_p)
{
    *pair_p = 0;
    switch (id) {
    case LOOM_COLL_ALLREDUCE:
        *threshold_p = cfg->allreduce_handoff;
        break;
    case LOOM_COLL_BCAST:
        *threshold_p = cfg->bcast_handoff;
        *pair_p = cfg->bcast_pair_handoff;
        break;
    case LOOM_COLL_REDUCE:
        *threshold_p = cfg->reduce_handoff;
        break;
    case LOOM_COLL_ALLGATHER:
        *threshold_p = cfg->allgather_handoff;
        *pair_p = cfg->allgather_pair_handoff;
        break;
    case LOOM_COLL_REDUCE_SCATTER:
    default:
        *threshold_p = cfg->reduce_scatter_handoff;
        break;
    }
}

size_t loom_handoff_limit(const loom_coll_config_t *cfg, const loom_team_t *team,
                          loom_coll_kind_t id, int *pair_p)
{
    size_t threshold, pair;

    loom_handoff_settings(cfg, id, &threshold, &pair);
    *pair_p = team->size == 2 && pair > threshold;
    if (team->num_nodes != 1) {
        return 0;
    }
    return *pair_p ? pair : threshold;
}

void loom_handoff_explain(loom_team_t *team, loom_coll_kind_t id, const char *coll, int pair,
                          size_t threshold, size_t bytes)
{
    if (!loom_log_enabled(LOOM_LOG_INFO) || !loom_team_first_in_class(team, id, bytes)) {
        return;
    }
    loom_info("coll", "%s on context %u, %d ranks, %zu bytes (and this size "
              "class): handed to the module below Loom (below %s%s=%zu "
              "on one node)", coll, team->context_id, team->size, bytes, coll,
              pair ? "_pair_handoff" : "_handoff", threshold);
}

void loom_shm_explain(loom_team_t *team, loom_coll_kind_t id, const char *coll, size_t bytes)
{
    if (!loom_log_enabled(LOOM_LOG_INFO) || !loom_team_first_in_class(team, id, bytes)) {
        return;
    }
    loom_info("coll", "%s on context %u, %d ranks, %zu bytes (and this size "
              "class): shm, through the node's shared segment (one node, at "
              "least shm_min_bytes)", coll, team->context_id, team->size, bytes);
}
