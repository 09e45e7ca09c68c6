/*
 * What every collective of the engine is made of, and the one way a call
 * is planned.
 *
 * A collective is a descriptor (loom_collective_t): its algorithm table,
 * indexed by the algorithm's value (0 is "auto", no algorithm), and its
 * selection, the cost model's candidates for that collective.  Planning
 * is the same for all of them (loom_coll_plan): check the settings,
 * select, explain the choice once per size class, build the chosen
 * algorithm's schedule.  Adding an algorithm is its plan file, a row in
 * its collective's table and a candidate in the selection; adding a
 * collective is one more descriptor (docs/adding.md).
 *
 * The node segment (shm.h) is one more algorithm of every collective: a
 * blocking call among the ranks of one host, from shm_min_bytes, runs
 * through shared memory instead of a schedule.  It sits in the descriptor
 * beside the table, not in it, because it builds no schedule (the
 * verifier, the simulator and the tags know only schedules) and the
 * settings do not name it; the same selection chooses it.
 */
#ifndef LOOM_COLLECTIVE_H
#define LOOM_COLLECTIVE_H

#include "coll/core/select/coll_config.h"
#include "coll/core/engine/coll_kind.h"
#include "coll/core/engine/sched.h"

#include <stddef.h>

/* Builds one rank's schedule of one algorithm for args on team. */
typedef loom_status_t (*loom_plan_fn_t)(const loom_coll_args_t *args, loom_team_t *team,
                                        loom_sched_t **sched_p);

/* One algorithm of a collective. */
typedef struct loom_algorithm {
    const char      *name;
    loom_plan_fn_t  plan;
    int             noncommutative; /* reduces in rank order: any op works */
    int             segmented;      /* honours args->seg_bytes (and depth) */
    int             quadratic;      /* p(p-1) messages in all: the verifier's
                                     * sweeps cover it up to 64 ranks */
} loom_algorithm_t;

/* What the selection decided for a call: the same for every collective;
 * alg indexes the collective's table. */
typedef struct loom_choice {
    int     alg;
    /* 1: run the call through the node segment (coll->segment); alg is
     * then the schedule to build should the segment not be there. */
    int     segment;
    size_t  seg_bytes;      /* 0: not segmented */
    int     depth;          /* segments in flight; 0 where the algorithm has none */
    int     forced;         /* by a setting or a rule, not the cost model */
    int     rule;           /* the user rule that decided (rules.h), -1: none */
    double  cost_s;         /* the model's estimate for alg */
    int     next_alg;       /* the cheapest other algorithm (0: none) */
    double  next_cost_s;
} loom_choice_t;

/* A collective's selection for bytes (its quantity every rank computes
 * alike: loom_coll_bytes) on team: the cost model's choice, priced with
 * the links the team crosses, unless the settings or a rule force one.
 * commutative: whether the op may combine in any order (1 where nothing
 * is reduced). */
typedef void (*loom_select_fn_t)(const loom_coll_config_t *cfg, const loom_team_t *team,
                                 size_t bytes, int commutative, loom_choice_t *choice_p);

struct loom_shm;

/* The node segment's run of a collective (shm.h): blocking, no schedule. */
typedef void (*loom_segment_run_fn_t)(struct loom_shm *shm, const loom_coll_args_t *args);

typedef struct loom_segment_alg {
    loom_segment_run_fn_t   run;
    /* Whether args on p ranks suit the segment's limits (slots of
     * slot_bytes per rank) beyond the op and reproducibility; NULL: all do. */
    int                     (*fits)(size_t slot_bytes, int p, const loom_coll_args_t *args);
} loom_segment_alg_t;

typedef struct loom_collective {
    loom_coll_kind_t        id;
    const char              *name;          /* "allreduce": the setting is <name>_algorithm */
    /* What calls are named in explanations: the uniform form's and the
     * form with per-rank counts (args->counts set). */
    const char              *call_names[2];
    const char *const       *alg_names;     /* indexed like algorithms, NULL-terminated */
    const loom_algorithm_t  *algorithms;    /* [0] is auto: no plan */
    int                     alg_count;
    int                     reproducible;   /* the canonical-order algorithm, 0: none */
    int                     reduces;        /* combines data with args->op */
    int                     rooted;         /* args->root must be a rank */
    int                     vector;         /* bytes are the total over all ranks' blocks */
    loom_select_fn_t        select;
    /* NULL, or what the call's arguments add to the choice where its
     * bytes alone do not decide (the sparse allreduce: how many entries
     * every rank selects); runs after select unless a setting or rule
     * forced the algorithm. */
    void                    (*refine)(const loom_coll_args_t *args, const loom_team_t *team,
                                      loom_choice_t *choice_p);
    loom_segment_alg_t      segment;
    /* Where its settings sit in loom_coll_config_t (offsetof):
     * <name>_algorithm (an int), <name>_handoff and <name>_pair_handoff
     * (size_t; LOOM_COLL_NO_SETTING: it has none). */
    size_t                  setting;
    size_t                  handoff;
    size_t                  pair_handoff;
} loom_collective_t;

#define LOOM_COLL_NO_SETTING ((size_t)-1)

/* coll's <name>_algorithm in cfg. */
static inline int loom_coll_setting(const loom_collective_t *coll, const loom_coll_config_t *cfg)
{
    return *(const int *)(const void *)((const char *)cfg + coll->setting);
}

/* Set coll's <name>_algorithm in cfg to alg (what a forcing setting does). */
static inline void loom_coll_force(const loom_collective_t *coll, loom_coll_config_t *cfg,
                                   int alg)
{
    *(int *)(void *)((char *)cfg + coll->setting) = alg;
}

/* One of coll's byte settings in cfg (handoff, pair_handoff); 0 where it
 * has none. */
static inline size_t loom_coll_size_setting(const loom_coll_config_t *cfg, size_t at)
{
    return at == LOOM_COLL_NO_SETTING
               ? 0
               : *(const size_t *)(const void *)((const char *)cfg + at);
}

extern const loom_collective_t loom_allreduce_collective;
extern const loom_collective_t loom_bcast_collective;
extern const loom_collective_t loom_reduce_collective;
extern const loom_collective_t loom_allgather_collective;
extern const loom_collective_t loom_reduce_scatter_collective;
extern const loom_collective_t loom_sparse_allreduce_collective;

/* Every collective, indexed by its id. */
extern const loom_collective_t *const loom_collectives[LOOM_COLL_KIND_COUNT];

/* The bytes coll selects on for args on p ranks: count x element size,
 * or for a vector collective the total over all ranks' blocks (from the
 * counts every rank passes alike, never a local layout). */
size_t loom_coll_bytes(const loom_collective_t *coll, const loom_coll_args_t *args, int p);

/* The choice for a call of args on team: coll's selection, or with
 * args->reproducible its canonical-order algorithm; and whether the call
 * runs through the node segment: a blocking call (args->blocking) on a
 * team inside one host, of at least shm_min_bytes, that the settings did
 * not force to an algorithm, whose op commutes, and whose data fit the
 * segment.
 * LOOM_ERR_INVALID_PARAM: the setting names no algorithm, or the root is
 * not a rank (both said in an error line). */
loom_status_t loom_coll_select(const loom_collective_t *coll, const loom_coll_args_t *args,
                               const loom_team_t *team, const loom_coll_config_t *cfg,
                               loom_choice_t *choice_p);

/* Build the schedule of choice->alg (whatever choice->segment says) for
 * args on team, saying at verbose level
 * info, the first time in a size class on team, what was chosen and why.
 * A model's choice whose plan declines is replaced by the next best in
 * *choice.  LOOM_ERR_UNSUPPORTED: hand this call to another
 * implementation. */
loom_status_t loom_coll_build(const loom_collective_t *coll, const loom_coll_args_t *args,
                              loom_team_t *team, const loom_coll_config_t *cfg,
                              loom_choice_t *choice, loom_sched_t **sched_p);

/* Select, then build the schedule of the chosen algorithm; the choice goes
 * to *choice_p when it is not NULL.  args->reproducible takes the
 * collective's canonical-order algorithm.  At verbose level info, the
 * first call of each size class on a team prints the choice and why.
 * LOOM_ERR_INVALID_PARAM: the setting names no algorithm, or the root is
 * not a rank; LOOM_ERR_UNSUPPORTED: hand this call to another
 * implementation. */
loom_status_t loom_coll_plan(const loom_collective_t *coll, const loom_coll_args_t *args,
                             loom_team_t *team, const loom_coll_config_t *cfg,
                             loom_sched_t **sched_p, loom_choice_t *choice_p);

#endif
