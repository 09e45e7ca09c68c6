#include "coll/core/engine/team.h"
#include "coll/core/engine/sched.h"
#include "coll/core/engine/tag.h"
#include "common/log.h"

#include <stdlib.h>
#include <string.h>

/* Dense rack numbers the same way.  A rack holds whole nodes: a rank
 * whose key disagrees with the first rank of its node follows that rank,
 * so a hierarchy never splits a node. */
static void loom_team_number_racks(loom_team_t *team, const uint64_t *rack_keys)
{
    int i, j;

    for (i = 0; i < team->size; ++i) {
        for (j = 0; j < i && team->node_of[j] != team->node_of[i]; ++j) {
        }
        if (j < i) {
            team->rack_of[i] = team->rack_of[j];
            continue;
        }
        for (j = 0; j < i && rack_keys != NULL && rack_keys[j] != rack_keys[i]; ++j) {
        }
        team->rack_of[i] = rack_keys != NULL && j < i ? team->rack_of[j]
                         : rack_keys != NULL || i == 0 ? team->num_racks++ : 0;
    }
}

static int loom_team_max(const int *v, int n)
{
    int i, m = 0;

    for (i = 0; i < n; ++i) {
        m = v[i] > m ? v[i] : m;
    }
    return m;
}

static int loom_team_min(const int *v, int n)
{
    int i, m = n > 0 ? v[0] : 0;

    for (i = 1; i < n; ++i) {
        m = v[i] < m ? v[i] : m;
    }
    return m;
}

/* Counts per node and per rack, then their extremes (team.h).  Nodes are
 * numbered by first appearance, so rank i is its node's first exactly
 * when node_of[i] is the next number not seen yet. */
static loom_status_t loom_team_measure(loom_team_t *team)
{
    int N = team->num_nodes, R = team->num_racks, p = team->size, i, next, nodes_seen = 0;
    int *counts = calloc((size_t)(2 * N + 3 * R), sizeof(int));
    int *node_ranks = counts, *node_out = counts + N;
    int *rack_ranks = counts + 2 * N, *rack_out = rack_ranks + R, *rack_nodes = rack_out + R;
    loom_team_shape_t *sh = &team->shape;

    if (counts == NULL) {
        return LOOM_ERR_NO_MEMORY;
    }
    for (i = 0; i < p; ++i) {
        next = (i + 1) % p;
        ++node_ranks[team->node_of[i]];
        ++rack_ranks[team->rack_of[i]];
        node_out[team->node_of[i]] += team->node_of[next] != team->node_of[i];
        rack_out[team->rack_of[i]] += team->rack_of[next] != team->rack_of[i];
        if (team->node_of[i] == nodes_seen) {
            ++nodes_seen;
            ++rack_nodes[team->rack_of[i]];
        }
    }
    *sh = (loom_team_shape_t){
        .max_node = loom_team_max(node_ranks, N),
        .min_node = loom_team_min(node_ranks, N),
        .max_rack = loom_team_max(rack_nodes, R),
        .min_rack = loom_team_min(rack_nodes, R),
        .max_rack_ranks = loom_team_max(rack_ranks, R),
        .ring_nic = loom_team_max(node_out, N),
        .ring_uplink = loom_team_max(rack_out, R),
    };
    free(counts);
    return LOOM_OK;
}

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
    team->rack_of = malloc(sizeof(*team->rack_of) * (size_t)params->size);
    if (team->peers == NULL || team->node_of == NULL || team->rack_of == NULL) {
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
        team->rack_of[i] = -1;
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
    loom_team_number_racks(team, params->rack_keys);
    if (loom_team_measure(team) != LOOM_OK) {
        loom_team_destroy(team);
        return LOOM_ERR_NO_MEMORY;
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
    loom_order_unref(team->order);
    loom_order_unref(team->order_next);
    pthread_mutex_destroy(&team->spare_lock);
    free(team->node_of);
    free(team->rack_of);
    free(team->peers);
    free(team);
}

/* ------------------------------------------------------------ rank order */

loom_order_t *loom_order_ref(loom_order_t *o)
{
    if (o != NULL) {
        __atomic_add_fetch(&o->refs, 1, __ATOMIC_RELAXED);
    }
    return o;
}

void loom_order_unref(loom_order_t *o)
{
    if (o != NULL && __atomic_sub_fetch(&o->refs, 1, __ATOMIC_ACQ_REL) == 0) {
        free(o->at);
        free(o);
    }
}

void loom_team_order_switch(loom_team_t *team)
{
    loom_order_unref(team->order);
    team->order = team->order_next;     /* the team's reference moves */
    team->order_next = NULL;
    team->order_pending = 0;
}

/* Checks that order is a permutation of 0..n-1: 0, or -1 with the first
 * fault logged.  seen has n entries. */
static int loom_team_check_order(const int *order, int n, int *seen)
{
    int i;

    for (i = 0; i < n; ++i) {
        seen[i] = -1;
    }
    for (i = 0; i < n; ++i) {
        if (order[i] < 0 || order[i] >= n) {
            loom_error("coll", "rank order: position %d holds %d, which is not a rank of "
                       "this team (0..%d); an order lists every rank once", i, order[i],
                       n - 1);
            return -1;
        }
        if (seen[order[i]] >= 0) {
            loom_error("coll", "rank order: rank %d stands at positions %d and %d; an order "
                       "lists every rank of 0..%d exactly once", order[i], seen[order[i]],
                       i, n - 1);
            return -1;
        }
        seen[order[i]] = i;
    }
    return 0;
}

loom_status_t loom_team_set_order(loom_team_t *team, const int *order, int n,
                                  uint32_t from_seq)
{
    loom_order_t *o = NULL;
    int i, identity = 1;

    if (order != NULL && n != team->size) {
        loom_error("coll", "rank order: %d entries for a team of %d ranks; an order lists "
                   "the %d ranks, one per position", n, team->size, team->size);
        return LOOM_ERR_INVALID_PARAM;
    }
    if ((int32_t)(from_seq - team->next_seq) < 0) {
        loom_error("coll", "rank order: collective %u of this team has already begun; the "
                   "order can take effect from the next one, %u, or any later one",
                   from_seq, team->next_seq);
        return LOOM_ERR_INVALID_PARAM;
    }
    /* The identity is NULL: nothing to allocate, today's schedules. */
    for (i = 0; order != NULL && i < n && identity; ++i) {
        identity = order[i] == i;
    }
    if (order != NULL && !identity) {
        o = calloc(1, sizeof(*o));
        if (o == NULL || (o->at = malloc(2 * sizeof(int) * (size_t)n)) == NULL) {
            free(o);
            return LOOM_ERR_NO_MEMORY;
        }
        o->pos = o->at + n;
        if (loom_team_check_order(order, n, o->pos) != 0) {
            free(o->at);
            free(o);
            return LOOM_ERR_INVALID_PARAM;
        }
        memcpy(o->at, order, sizeof(int) * (size_t)n);
        o->size = n;
        o->refs = 1;
    }
    loom_order_unref(team->order_next);
    team->order_next = o;
    team->order_seq = from_seq;
    team->order_pending = 1;
    return LOOM_OK;
}
