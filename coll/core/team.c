#include "team.h"
#include "sched.h"
#include "tag.h"
#include "common/log.h"

#include <stdlib.h>

loom_status_t loom_team_create(const loom_team_params_t *params, loom_team_t **team_p)
{
    loom_team_t *team;
    int i, j;

    if (params->size < 1 || params->size > LOOM_TAG_MAX_RANKS ||
        params->rank < 0 || params->rank >= params->size) {
        loom_error("coll", "team of size %d cannot have rank %d (sizes 1..%d)",
                   params->size, params->rank, LOOM_TAG_MAX_RANKS);
        return LOOM_ERR_INVALID_PARAM;
    }
    if (params->context_id > LOOM_TAG_MAX_CONTEXT) {
        loom_error("coll", "context id %u exceeds the tag's %u",
                   params->context_id, LOOM_TAG_MAX_CONTEXT);
        return LOOM_ERR_INVALID_PARAM;
    }

    team = calloc(1, sizeof(*team));
    if (team == NULL) {
        return LOOM_ERR_NO_MEMORY;
    }
    pthread_mutex_init(&team->spare_lock, NULL);
    team->peers   = malloc(sizeof(*team->peers) * (size_t)params->size);
    team->node_of = malloc(sizeof(*team->node_of) * (size_t)params->size);
    if (team->peers == NULL || team->node_of == NULL) {
        loom_team_destroy(team);
        return LOOM_ERR_NO_MEMORY;
    }

    team->size       = params->size;
    team->rank       = params->rank;
    team->transport  = params->transport;
    team->context_id = params->context_id;
    for (i = 0; i < params->size; ++i) {
        team->peers[i] = params->peers[i];
        team->node_of[i] = -1;
    }

    /* Dense node numbers in order of first appearance by rank: every rank
     * sees the same keys in the same order, so every rank numbers alike. */
    for (i = 0; i < params->size; ++i) {
        if (params->node_keys != NULL) {
            for (j = 0; j < i; ++j) {
                if (params->node_keys[j] == params->node_keys[i]) {
                    team->node_of[i] = team->node_of[j];
                    break;
                }
            }
        }
        if (team->node_of[i] < 0) {
            team->node_of[i] = team->num_nodes++;
        }
    }

    *team_p = team;
    return LOOM_OK;
}

void loom_team_destroy(loom_team_t *team)
{
    if (team == NULL) {
        return;
    }
    loom_sched_free_spares(team);
    pthread_mutex_destroy(&team->spare_lock);
    free(team->node_of);
    free(team->peers);
    free(team);
}
