#include "coll/core/select/handoff.h"
#include "coll/core/select/collective.h"
#include "common/log.h"

size_t loom_handoff_limit(const loom_coll_config_t *cfg, const loom_team_t *team,
                          loom_coll_kind_t id, int *pair_p)
{
    const loom_collective_t *coll = loom_collectives[id];
    size_t threshold = loom_coll_size_setting(cfg, coll->handoff);
    size_t pair = loom_coll_size_setting(cfg, coll->pair_handoff);

    *pair_p = team->size == 2 && pair > threshold;
    if (team->num_nodes != 1) {
        return 0;
    }
    return *pair_p ? pair : threshold;
}

void loom_handoff_explain(loom_team_t *team, const loom_coll_config_t *cfg,
                          loom_coll_kind_t id, size_t bytes)
{
    const char *coll = loom_collectives[id]->name;
    size_t threshold;
    int pair;

    if (!loom_log_enabled(LOOM_LOG_INFO) || !loom_team_first_in_class(team, id, bytes)) {
        return;
    }
    threshold = loom_handoff_limit(cfg, team, id, &pair);
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
