/*
 * The collectives loom-sim simulates: for each, the engine's descriptor
 * (collective.h: algorithms, names, selection), the algorithms a sweep
 * runs by default, how a message size becomes the plan's element count,
 * and nccl-tests' bus factor.
 *
 * Sizes follow nccl-tests: the vector of allreduce, bcast and reduce;
 * the whole gathered vector of allgather (each rank contributes size/p)
 * and the whole input of reduce_scatter (each rank keeps size/p).  Rooted
 * collectives use root 0.
 */
#ifndef LOOM_SIM_COLL_H
#define LOOM_SIM_COLL_H

#include "coll/core/select/collective.h"
#include "coll/core/select/coll_config.h"
#include "coll/core/engine/team.h"

#include <stddef.h>

#define LOOM_SIM_MAX_ALGS 8     /* algorithms of one collective, auto included */

typedef struct loom_sim_coll {
    const loom_collective_t *engine;    /* name, algorithms, selection */
    int                 defaults[LOOM_SIM_MAX_ALGS];    /* -a's default, in order */
    int                 ndefaults;
    int                 total;          /* size is the sum over ranks (allgather,
                                         * reduce_scatter) */
    double              bus_num;        /* busbw = algbw * bus_num * (p-1)/p, or
                                         * algbw when bus_num is 0 */
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

/* The engine's choice for size bytes on team: the cost model's when
 * forced is 0 (auto), else algorithm forced with the segment and depth the
 * engine gives it when a setting forces it.  Simulated ops are
 * commutative: the plans only price reductions. */
void loom_sim_select(const loom_sim_coll_t *coll, const loom_coll_config_t *cfg,
                     const loom_team_t *team, size_t bytes, int forced,
                     loom_choice_t *choice_p);

/* nccl-tests' bus bandwidth for algbw on p ranks. */
double loom_sim_coll_busbw(const loom_sim_coll_t *coll, double algbw, int p);

#endif
