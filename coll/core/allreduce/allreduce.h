/*
 * Allreduce algorithms and how one is chosen.
 *
 * Each algorithm is a plan function in a file of its own that builds one
 * rank's schedule.  The choice is a function of the team size, the byte
 * count and the settings only: inputs every rank agrees on.
 *
 * Planned through its descriptor, loom_allreduce_collective (collective.h):
 * loom_coll_plan(&loom_allreduce_collective, ...).
 */
#ifndef LOOM_ALLREDUCE_H
#define LOOM_ALLREDUCE_H

#include "coll/core/select/coll_config.h"
#include "coll/core/select/collective.h"
#include "coll/core/select/cost.h"
#include "coll/core/parts/partition.h"
#include "coll/core/engine/sched.h"

/* Values go into message tags (LOOM_TAG_ALG_BITS): never reuse one. */
typedef enum loom_allreduce_alg {
    LOOM_ALLREDUCE_AUTO = 0,   /* let Loom choose */
    LOOM_ALLREDUCE_RING = 1,
    LOOM_ALLREDUCE_RD = 2,            /* recursive doubling */
    LOOM_ALLREDUCE_RABENSEIFNER = 3,  /* recursive halving + doubling */
    LOOM_ALLREDUCE_DBTREE = 4,        /* double binary tree, pipelined */
    LOOM_ALLREDUCE_REPRODUCIBLE = 5,  /* canonical order, on request only */
    LOOM_ALLREDUCE_HIER = 6,          /* inside nodes, then across them */
    LOOM_ALLREDUCE_ALG_COUNT
} loom_allreduce_alg_t;

/* Names indexed by loom_allreduce_alg_t, NULL-terminated. */
extern const char *const loom_allreduce_alg_names[];

extern const loom_algorithm_t loom_allreduce_algorithms[LOOM_ALLREDUCE_ALG_COUNT];

loom_status_t loom_allreduce_ring_plan(const loom_coll_args_t *args,
                                       loom_team_t *team, loom_sched_t **sched_p);
loom_status_t loom_allreduce_rd_plan(const loom_coll_args_t *args,
                                     loom_team_t *team, loom_sched_t **sched_p);
loom_status_t loom_allreduce_rabenseifner_plan(const loom_coll_args_t *args,
                                               loom_team_t *team, loom_sched_t **sched_p);
loom_status_t loom_allreduce_canonical_plan(const loom_coll_args_t *args,
                                            loom_team_t *team, loom_sched_t **sched_p);
loom_status_t loom_allreduce_hier_plan(const loom_coll_args_t *args,
                                       loom_team_t *team, loom_sched_t **sched_p);
/* The hierarchical allreduce's modelled time (allreduce_hier.c) for n_bytes
 * on racks racks of at most nodes_per_rack_max nodes of at most
 * ranks_per_node_max ranks, pipelined in segments of seg_bytes per
 * top-level message (0: one segment).  cls[0] prices links inside a node
 * (a rank's own path), cls[1] inside a rack (a node's NIC), cls[2] across
 * racks (a rack's uplink).  With one rack, pass the node count as
 * nodes_per_rack_max.  On uneven layouts one rank owns several shards
 * and sends the messages of each: owned[0] is the most shards a rank
 * owns, owned[1] the most sub-shards (both 1 when nodes and racks are
 * even; NULL means that). */
double loom_allreduce_hier_cost(const loom_cost_t cls[3], int ranks_per_node_max,
                                int nodes_per_rack_max, int racks, const int owned[2],
                                double n_bytes, double seg_bytes);
loom_status_t loom_allreduce_dbtree_plan(const loom_coll_args_t *args,
                                         loom_team_t *team, loom_sched_t **sched_p);

/* The fold of positions under a rank order o (team.h; NULL: the ranks
 * themselves): rank r's place in it, and the team rank virtual rank v
 * stands for. */
static inline loom_fold_t loom_fold_make_ordered(int p, const loom_order_t *o, int r)
{
    loom_fold_t f = loom_fold_make(p, loom_order_pos(o, r));

    f.order = o;
    return f;
}

static inline int loom_fold_rank(const loom_fold_t *f, int v)
{
    return loom_order_at(f->order, loom_fold_real(f, v));
}

/* The non-power-of-two fold shared by recursive doubling and Rabenseifner
 * (allreduce_fold.c); see loom_fold_t.  It pairs positions of the fold's
 * order (ranks, for a fold of loom_fold_make).  loom_fold_pre returns the step
 * after which buf holds this rank's part (for a rank that sits out: its
 * send), loom_fold_post hands the result back after step dep. */
int loom_fold_pre(loom_sched_t *sched, const loom_fold_t *fold, char *buf,
                  char *scratch, size_t bytes, int dep);
void loom_fold_post(loom_sched_t *sched, const loom_fold_t *fold, char *buf,
                    size_t bytes, int dep);

/* The algorithm, segment size and depth for bytes on p ranks: the cost
 * model's choice unless the settings force one (allreduce_select.c). */
void loom_allreduce_select(const loom_coll_config_t *cfg, int p, size_t bytes,
                           int commutative, loom_choice_t *choice_p);

/* The same for a team, whose nodes and racks the cost model sees
 * (cost_links.h): on more than one node the flat candidates are priced
 * with the links they cross, and the hierarchical allreduce competes. */
void loom_allreduce_select_team(const loom_coll_config_t *cfg, const loom_team_t *team,
                                size_t bytes, int commutative,
                                loom_choice_t *choice_p);

#endif
