/*
 * The collectives loom-sim simulates: for each, the engine's algorithm
 * table (names and plan functions), the engine's choice of algorithm,
 * segment and depth, how a message size becomes the plan's element
 * count, and nccl-tests' bus factor.
 *
 * Sizes follow nccl-tests: the vector of allreduce, bcast and reduce;
 * the whole gathered vector of allgather (each rank contributes size/p)
 * and the whole input of reduce_scatter (each rank keeps size/p).  Rooted
 * collectives use root 0.
 */
#ifndef LOOM_SIM_COLL_H
#define LOOM_SIM_COLL_H

#include "coll/core/allreduce.h"
#include "coll/core/coll_config.h"
#include "coll/core/team.h"

#include <stddef.h>

#define LOOM_SIM_MAX_ALGS 8     /* algorithms of one collective, auto included */

/* What the engine runs for a call: algorithm, segment, pipeline depth. */
typedef struct loom_sim_choice {
    int     alg;
    size_t  seg_bytes;
    int     depth;
} loom_sim_choice_t;

typedef struct loom_sim_coll {
    const char          *name;
    const char *const   *alg_names;     /* indexed by algorithm; 0 is "auto" */
    int                 nalgs;          /* auto included */
    int                 defaults[LOOM_SIM_MAX_ALGS];    /* -a's default, in order */
    int                 ndefaults;
    int                 reproducible;   /* the on-request algorithm "all" leaves out; 0: none */
    int                 total;          /* size is the sum over ranks (allgather,
                                         * reduce_scatter) */
    double              bus_num;        /* busbw = algbw * bus_num * (p-1)/p, or
                                         * algbw when bus_num is 0 */
    loom_plan_fn_t      (*plan)(int alg);
    /* The engine's choice for size bytes on team: the cost model's when
     * forced is 0 (auto), else algorithm forced with the segment and
     * depth the engine gives it when a setting forces it. */
    void                (*select)(const loom_coll_config_t *cfg, const loom_team_t *team,
                                  size_t bytes, int forced, loom_sim_choice_t *choice_p);
} loom_sim_coll_t;

extern const loom_sim_coll_t loom_sim_coll_allreduce;

/* The i-th collective loom-sim knows (0 <= i < loom_sim_coll_count()). */
int loom_sim_coll_count(void);
const loom_sim_coll_t *loom_sim_coll_at(int i);

/* The collective called name; NULL when loom-sim has none of that name. */
const loom_sim_coll_t *loom_sim_coll_find(const char *name);

/* The names loom_sim_coll_find accepts, ", " between them, into buf
 * (len > 0; cut short to fit); buf. */
char *loom_sim_coll_list(char *buf, size_t len);

/* The algorithm of coll called name, -1 when none. */
int loom_sim_coll_alg(const loom_sim_coll_t *coll, const char *name);

/* nccl-tests' bus bandwidth for algbw on p ranks. */
double loom_sim_coll_busbw(const loom_sim_coll_t *coll, double algbw, int p);

#endif
