/*
 * The modeled cluster loom-sim runs schedules on.
 *
 *   racks of nodes_per_rack nodes, nodes of ranks_per_node ranks;
 *   rank r sits on node r / ranks_per_node (--map-by core) or on node
 *   r mod nodes (--map-by node), and node k in rack k / nodes_per_rack.
 *
 * A message between two ranks belongs to one link class: intra-node,
 * intra-rack (between nodes of one rack) or inter-rack.  Its class gives
 * its latency alpha and its own top speed 1/beta (one stream alone on
 * idle links, as a ping-pong measures it).  Messages that run at the same
 * time share the links of their paths (flow.h):
 *
 *   intra-node  the sender's port out and the receiver's port in (at the
 *               intra-node speed: a rank's messages inside its node share
 *               its link to the node's switch or memory), and the node's
 *               memory link (node_mem_gbs; 0: none)
 *   across      sender's NIC out, receiver's NIC in (nic_gbs each); a
 *               node has nics_per_node NICs, local rank l uses NIC
 *               l mod nics_per_node
 *   racks       also the sender rack's uplink out and the receiver rack's
 *               uplink in: uplink_gbs, or when 0 the rack's NIC capacity
 *               divided by the oversubscription factor
 *
 * gamma prices each byte reduced, copy_gbs each byte copied, on the
 * rank's one compute engine (reductions and copies of a rank run one
 * after the other).  overhead_us is the transport's CPU time for each
 * send and each receive a rank posts, taken on that same engine in turn
 * before the message is posted (LogP's o); alpha stays the latency that
 * messages in flight together share.
 */
#ifndef LOOM_SIM_MODEL_H
#define LOOM_SIM_MODEL_H

#include "loom/status.h"

#include <stdio.h>

typedef enum loom_sim_class {
    LOOM_SIM_INTRA_NODE = 0,
    LOOM_SIM_INTRA_RACK,
    LOOM_SIM_INTER_RACK,
    LOOM_SIM_CLASS_COUNT
} loom_sim_class_t;

extern const char *const loom_sim_class_names[LOOM_SIM_CLASS_COUNT];

typedef enum loom_sim_map {
    LOOM_SIM_MAP_CORE = 0,      /* consecutive ranks fill a node */
    LOOM_SIM_MAP_NODE           /* ranks dealt round-robin over nodes */
} loom_sim_map_t;

typedef struct loom_sim_model {
    int             ranks_per_node;
    int             nodes_per_rack;
    int             nics_per_node;
    loom_sim_map_t  map;
    int             nodes;          /* 0: as many as the ranks fill */
    double          alpha_us[LOOM_SIM_CLASS_COUNT];
    double          gbs[LOOM_SIM_CLASS_COUNT];  /* 1/beta, GB/s (1e9 bytes) */
    double          reduce_gbs;     /* 1/gamma */
    double          copy_gbs;
    double          nic_gbs;        /* 0: the intra-rack stream speed */
    double          uplink_gbs;     /* 0: from the oversubscription */
    double          oversubscription;
    double          node_mem_gbs;   /* 0: intra-node messages share nothing */
    double          overhead_us;    /* CPU per send or receive posted; 0: none */
} loom_sim_model_t;

/* The cluster of docs/scaling.md: 8 accelerators per node with one
 * 400 Gbit/s NIC each, 16 nodes per rack, a 4:1 oversubscribed spine. */
void loom_sim_model_default(loom_sim_model_t *model);

/* Checks every field; on a bad one writes to err (len > 0) which field
 * and what is accepted, and returns LOOM_ERR_INVALID_PARAM. */
loom_status_t loom_sim_model_check(const loom_sim_model_t *model, char *err, size_t len);

/* Sets one field by its file key ("intra_rack_gbs", "map", ...) from text. */
loom_status_t loom_sim_model_set(loom_sim_model_t *model, const char *key,
                                 const char *value, char *err, size_t len);

/* "key = value" lines, '#' comments; fields not named keep their value. */
loom_status_t loom_sim_model_load(loom_sim_model_t *model, const char *path,
                                  char *err, size_t len);
void loom_sim_model_write(FILE *out, const loom_sim_model_t *model);

/* Placement of p ranks. */
typedef struct loom_sim_layout {
    int     p;
    int     nodes;
    int     racks;
    int     *node_of;
    int     *rack_of;       /* by rank */
    int     *nic_of;        /* global NIC index by rank */
    int     *order;         /* the rank order of the team (position -> rank,
                             * engine/team.h); NULL: rank order */
} loom_sim_layout_t;

loom_status_t loom_sim_layout_create(const loom_sim_model_t *model, int p,
                                     loom_sim_layout_t **layout_p);

/* Gives the layout's team a rank order: order lists the rank at each
 * position 0..p-1 (a copy is kept; NULL: back to rank order).
 * LOOM_ERR_INVALID_PARAM when it is not a permutation of 0..p-1.  A run
 * with an order is never folded (fold.h): every rank runs. */
loom_status_t loom_sim_layout_set_order(loom_sim_layout_t *layout, const int *order);
void loom_sim_layout_destroy(loom_sim_layout_t *layout);

static inline loom_sim_class_t loom_sim_layout_class(const loom_sim_layout_t *lay, int a, int b)
{
    if (lay->node_of[a] == lay->node_of[b]) {
        return LOOM_SIM_INTRA_NODE;
    }
    return lay->rack_of[a] == lay->rack_of[b] ? LOOM_SIM_INTRA_RACK : LOOM_SIM_INTER_RACK;
}

/* Capacities in bytes/s of the shared links. */
double loom_sim_model_nic_bps(const loom_sim_model_t *model);
double loom_sim_model_uplink_bps(const loom_sim_model_t *model);

#endif
