/*
 * A team: the ranks of one communicator as the engine sees them.
 *
 * Created from what the adapter already knows (size, own rank, each peer's
 * transport id and node identity); creating one never communicates, so it
 * is safe inside Open MPI's communicator creation.
 */
#ifndef LOOM_TEAM_H
#define LOOM_TEAM_H

#include "coll/core/engine/coll_kind.h"
#include "coll/core/transport/transport.h"

#include <pthread.h>
#include <stddef.h>
#include <stdint.h>

typedef struct loom_team_params {
    int                 size;
    int                 rank;
    loom_transport_t    *transport;
    const int           *peers;       /* size entries: transport peer of each rank */
    /* size entries each: equal keys = same node (NULL: one node each),
     * same rack (NULL: one rack for all) */
    const uint64_t      *node_keys;
    const uint64_t      *rack_keys;
    uint32_t            context_id;   /* at most LOOM_TAG_MAX_CONTEXT */
} loom_team_params_t;

/* How the ranks spread over nodes and racks, for the cost model: what a
 * flat algorithm's traffic meets on the links between nodes. */
typedef struct loom_team_shape {
    int     max_node;       /* ranks on the largest node */
    int     min_node;       /* and on the smallest */
    int     max_rack;       /* nodes in the largest rack */
    int     min_rack;       /* and in the smallest */
    int     max_rack_ranks; /* ranks in the largest rack */
    int     ring_nic;       /* most rank-order ring edges (r -> r+1) leaving one node */
    int     ring_uplink;    /* most of them leaving one rack */
} loom_team_shape_t;

/*
 * A rank order: the logical position of every rank of a team.  Algorithms
 * place ranks by position (a ring's neighbours, a tree's shape, a chain's
 * order, the root's place) while what belongs to a rank (its block of an
 * allgather or reduce_scatter, a root's data) stays that rank's.  The
 * identity is NULL everywhere: no memory, and the very schedules a team
 * without an order builds.  An order is never changed once made; a team
 * and its schedules hold references to it (refs), so a schedule keeps the
 * order it was built with for its whole life.
 */
typedef struct loom_order {
    int     refs;       /* the team and schedules holding it (atomic) */
    int     size;
    int     *at;        /* position -> team rank */
    int     *pos;       /* team rank -> position */
} loom_order_t;

/* The rank at position pos, the position of rank r; o NULL: identity. */
static inline int loom_order_at(const loom_order_t *o, int pos)
{
    return o == NULL ? pos : o->at[pos];
}

static inline int loom_order_pos(const loom_order_t *o, int r)
{
    return o == NULL ? r : o->pos[r];
}

/* Rooted collectives under an order: the root takes virtual rank 0 and the
 * ranks after it in position order follow, (pos(r) - pos(root)) mod p; and
 * back from a virtual rank to a team rank.  At identity these are
 * partition.h's loom_vrank and loom_vrank_real. */
static inline int loom_order_vrank(const loom_order_t *o, int r, int root, int p)
{
    int v = (loom_order_pos(o, r) - loom_order_pos(o, root)) % p;

    return v < 0 ? v + p : v;
}

static inline int loom_order_vrank_real(const loom_order_t *o, int v, int root, int p)
{
    int q = (v + loom_order_pos(o, root)) % p;

    return loom_order_at(o, q < 0 ? q + p : q);
}

typedef struct loom_team {
    int                 size;
    int                 rank;
    loom_transport_t    *transport;
    int                 *peers;
    int                 *node_of;     /* dense node index of each rank, by first appearance */
    int                 num_nodes;
    int                 *rack_of;     /* dense rack index of each rank, by first appearance;
                                       * a node's ranks share its first rank's rack */
    int                 num_racks;
    loom_team_shape_t   shape;
    uint32_t            context_id;
    uint32_t            next_seq;     /* sequence number of the next collective */
    /* The rank order (loom_team_set_order): the one the last collective
     * begun was built with (NULL: identity), and one waiting for the
     * collective whose sequence number is order_seq. */
    loom_order_t        *order;
    loom_order_t        *order_next;
    uint32_t            order_seq;
    int                 order_pending;
    struct loom_sched   *spare_scheds;/* finished schedules kept for reuse */
    pthread_mutex_t     spare_lock;   /* a request may finish on another thread */
    uint64_t            explained[LOOM_COLL_KIND_COUNT]; /* per collective, the size
                                       * classes whose choice was printed */
} loom_team_t;

loom_status_t loom_team_create(const loom_team_params_t *params, loom_team_t **team_p);
void loom_team_destroy(loom_team_t *team);

/* Makes the waiting order the team's (loom_team_next_seq). */
void loom_team_order_switch(loom_team_t *team);

/* Sequence number for a new collective; every rank calls collectives on a
 * team in the same order, so every rank gets the same number, and an order
 * set to take effect from a sequence number takes effect at the same call
 * on every rank. */
static inline uint32_t loom_team_next_seq(loom_team_t *team)
{
    if (team->order_pending && (int32_t)(team->next_seq - team->order_seq) >= 0) {
        loom_team_order_switch(team);
    }
    return team->next_seq++;
}

/*
 * Sets the rank order of the team from the collective whose sequence
 * number is from_seq on (every later one too, until another order is
 * set).  order has n entries, the team rank at each position 0..n-1: a
 * permutation of 0..size-1, n the team's size; NULL is the identity.
 * from_seq must not have passed (at least team->next_seq, in the
 * wrapping order of sequence numbers).  An order still waiting for its
 * sequence number is replaced.  Every rank must set the same order from
 * the same number.  Errors (LOOM_ERR_INVALID_PARAM) are logged with what
 * was wrong and what is accepted; the team is then unchanged.
 */
loom_status_t loom_team_set_order(loom_team_t *team, const int *order, int n,
                                  uint32_t from_seq);

/* The order of the last collective begun on team (NULL: identity) and
 * its mapping: the position of rank r, the rank at position pos. */
static inline const loom_order_t *loom_team_order(const loom_team_t *team)
{
    return team->order;
}

static inline int loom_team_pos(const loom_team_t *team, int r)
{
    return loom_order_pos(team->order, r);
}

static inline int loom_team_at(const loom_team_t *team, int pos)
{
    return loom_order_at(team->order, pos);
}

/* Another reference to o (NULL stays NULL), and giving one back: the
 * last one frees it. */
loom_order_t *loom_order_ref(loom_order_t *o);
void loom_order_unref(loom_order_t *o);

/* 1 the first time a call of coll in this size class (floor of log2 of
 * bytes) is seen on team, so each collective's choice is explained once
 * per class. */
static inline int loom_team_first_in_class(loom_team_t *team, loom_coll_kind_t coll, size_t bytes)
{
    int k = bytes == 0 ? 0 : 63 - __builtin_clzll((unsigned long long)bytes);
    uint64_t bit = (uint64_t)1 << k;

    if (team->explained[coll] & bit) {
        return 0;
    }
    team->explained[coll] |= bit;
    return 1;
}

#endif
