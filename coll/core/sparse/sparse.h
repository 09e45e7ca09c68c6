/*
 * The sparse allreduce: every rank contributes a selection of its vector
 * as (index, value) pairs, and every rank ends with the dense sum of all
 * ranks' selections, the same bits on every rank.  Gradient filtering
 * (docs/filter.md) is its user: the selection is top-k with error
 * feedback, made by the caller's select function when the schedule's
 * first step runs.
 *
 * Its algorithms (coll_loom's sparse_allreduce_algorithm):
 *   allgather  the pairs of every rank go to every rank (a ring over the
 *              ranks' blocks), and each rank adds them up in rank order;
 *              when the exchanged sizes say a dense ring allreduce of the
 *              selections costs less, every rank takes that instead
 *              (sparse_allgather.c).
 *
 * A pair block (coll/core/filter/pairs.h) is this rank's k pairs; its
 * largest size, for kmax pairs, bounds every receive.  Floats and doubles
 * (elem_size 4 or 8) are summed; args->op must be their sum, which the
 * dense path reduces with.
 */
#ifndef LOOM_SPARSE_H
#define LOOM_SPARSE_H

#include "coll/core/select/collective.h"
#include "coll/core/select/cost.h"
#include "coll/core/engine/sched.h"

/* Values go into message tags (LOOM_TAG_ALG_BITS): never reuse one. */
typedef enum loom_sparse_alg {
    LOOM_SPARSE_AUTO = 0,
    LOOM_SPARSE_ALLGATHER = 1,
    LOOM_SPARSE_MERGE = 2,      /* recursive doubling of merged pairs (sparse_merge.c) */
    LOOM_SPARSE_SPLIT = 3,      /* split-and-reduce, global threshold (sparse_split.c) */
    LOOM_SPARSE_ALG_COUNT
} loom_sparse_alg_t;

/* Which way the exchange goes once the sizes are known: the cost model
 * decides, or a test or the simulator does. */
typedef enum loom_sparse_path {
    LOOM_SPARSE_PATH_MODEL = 0,
    LOOM_SPARSE_PATH_SPARSE = 1,    /* the arms of the schedule (sched.h) */
    LOOM_SPARSE_PATH_DENSE = 2
} loom_sparse_path_t;

/* What split-and-reduce keeps from one call of a slot to the next (the
 * global threshold, the owners' regions); made and freed by its owner
 * (sparse_split.c), held by the caller per gradient slot. */
typedef struct loom_sparse_state loom_sparse_state_t;

/* What the sparse allreduce needs beyond loom_coll_args_t (args->sparse);
 * copied into the schedule when it is planned. */
typedef struct loom_sparse_args {
    /* Writes this rank's pairs into block (room for kmax) and their number
     * to *k_p; runs once, as the schedule's first step, and may read the
     * input (the caller's ctx knows where it is; in place, the receive
     * buffer, which nothing has written yet). */
    loom_status_t       (*select)(void *ctx, void *block, size_t *k_p);
    void                *ctx;
    size_t              kmax;
    /* The k the selection aims at (0: kmax).  kmax bounds it; a sampled
     * selection's bound is well above it (topk.h).  Split sizes its
     * gather's slots by it, and the cost model prices with it. */
    size_t              k;
    loom_cost_t         cost;   /* the model the switch to dense prices with */
    loom_sparse_path_t  path;
    /* For the simulator, which runs no compute step: when set, the plan
     * takes every rank's selection to be model_k pairs, and sets the
     * lengths and takes the arm itself (sched.h: what the simulator
     * prices).  Never set on a real call. */
    int                 modeled;
    size_t              model_k;
    /* Split-and-reduce: pairs this rank selected that the global
     * threshold did not keep, handed back once the call is done so that
     * the caller returns them to its residual (nothing is lost); NULL
     * where the caller keeps no residual (then they are dropped). */
    void                (*putback)(void *ctx, const void *block, size_t k);
    loom_sparse_state_t *state;     /* split: NULL, or the slot's state */
    int                 encoding;   /* allgather: 0 (the cheapest), or a forced one */
} loom_sparse_args_t;

/* What one call did, for the caller's counters: read it once the
 * schedule is done (loom_sparse_outcome). */
typedef struct loom_sparse_outcome {
    size_t  pairs;          /* this rank's k */
    size_t  union_bound;    /* every rank's k summed: the union's upper bound */
    int     dense;          /* took the dense path */
    size_t  bytes_sent;     /* what this rank sent, sizes included */
    int     alg;            /* loom_sparse_alg_t that ran */
    int     encoding;       /* allgather: the encoding every rank used */
    int     dense_stage;    /* merge: the first stage that went dense, -1 none */
    size_t  kept;           /* split: pairs of the result (after the global threshold) */
    size_t  put_back;       /* split: this rank's pairs handed to putback */
} loom_sparse_outcome_t;

/* Where every algorithm's schedule state begins, at the start of its
 * scratch, so that loom_sparse_outcome reads any of them. */
typedef struct loom_sparse_head {
    loom_sparse_args_t      sp;
    loom_sparse_outcome_t   out;
} loom_sparse_head_t;

extern const char *const loom_sparse_alg_names[];
extern const loom_algorithm_t loom_sparse_algorithms[LOOM_SPARSE_ALG_COUNT];
extern const loom_collective_t loom_sparse_allreduce_collective;

loom_status_t loom_sparse_allgather_plan(const loom_coll_args_t *args, loom_team_t *team,
                                         loom_sched_t **sched_p);
loom_status_t loom_sparse_merge_plan(const loom_coll_args_t *args, loom_team_t *team,
                                     loom_sched_t **sched_p);
loom_status_t loom_sparse_split_plan(const loom_coll_args_t *args, loom_team_t *team,
                                     loom_sched_t **sched_p);

/* The outcome of a done sparse allreduce schedule. */
loom_status_t loom_sparse_outcome(const loom_sched_t *sched, loom_sparse_outcome_t *out_p);

/* The algorithm the cost model prices lowest for args's selection
 * (collective.h: refine). */
void loom_sparse_refine(const loom_coll_args_t *args, const loom_team_t *team,
                        loom_choice_t *choice_p);

/* What every algorithm's plan refuses alike: no selection, elements that
 * are not float or double, more than 2^32 of them, an unknown path.  alg
 * names the algorithm in the message. */
loom_status_t loom_sparse_check_args(const loom_coll_args_t *args, const char *alg);

/* a[0..n) rotated left by k, so that every rank's joins start at its own
 * position (its schedule is its neighbour's rotated: coll/sim/fold.h). */
void loom_sparse_rotate(int *a, int n, int k);

/* The k a plan prices: model_k when modeled, else k (kmax if unset). */
size_t loom_sparse_k_of(const loom_sparse_args_t *sp);

void loom_sparse_select_team(const loom_coll_config_t *cfg, const loom_team_t *team,
                             size_t bytes, int commutative, loom_choice_t *choice_p);

/* The predicted time of the merge (sparse_merge.c) when each of p ranks
 * selects k of n elements of esize bytes, supports disjoint (the union's
 * upper bound); *bytes_p: what its busiest rank sends, headers included. */
double loom_sparse_merge_model(const loom_cost_t *m, int p, size_t n, size_t esize, size_t k,
                               size_t *bytes_p);

/* The allgather algorithm's predicted time (sparse_allgather.c) when each
 * of p ranks selects k of n elements of esize bytes uniformly: the cheaper
 * arm by the model m, blocks of the modeled sizes (filter/encode.h).  The
 * encoding its sparse arm would take to *encoding_p (loom_encoding_t,
 * whichever arm is cheaper), the bytes a rank sends to *bytes_p.
 * HUGE_VAL (and 0, 0) for an esize but 4 and 8, or p < 1. */
double loom_sparse_allgather_model(const loom_cost_t *m, int p, size_t n, size_t esize,
                                   size_t k, int *encoding_p, size_t *bytes_p);

/* Split-and-reduce's state (sparse_split.c), one per gradient slot: the
 * global threshold and the owners' regions, for p ranks; an estimate call
 * re-estimates both every `every` calls (1 .. ).  A state met with another
 * team size or vector length starts over.  _free takes void * so that it
 * is a residual slot's state_free (coll/core/filter/residual.h). */
loom_status_t loom_sparse_state_create(int p, unsigned every, loom_sparse_state_t **state_p);
void loom_sparse_state_free(void *state);
/* 1 and *theta_p once an estimate set theta, else 0. */
int loom_sparse_state_theta(const loom_sparse_state_t *state, double *theta_p);
/* The p + 1 region bounds for a vector of n, or NULL before a call of n. */
const size_t *loom_sparse_state_bounds(const loom_sparse_state_t *state, size_t n);

/* Split-and-reduce's predicted time for p ranks, n elements of esize
 * bytes and k pairs per rank, and in *bytes_p what one rank sends. */
double loom_sparse_split_model(const loom_cost_t *m, int p, size_t n, size_t esize, size_t k,
                               size_t *bytes_p);

#endif
