/*
 * The collectives loom-sim simulates: for each, the engine's descriptor
 * (collective.h: algorithms, names, selection), the algorithms a sweep
 * runs by default, how a message size becomes the plan's element count,
 * and nccl-tests' bus factor.
 *
 * Sizes follow nccl-tests: the vector of allreduce, bcast and reduce;
 * the whole gathered vector of allgather (each rank contributes size/p)
 * and the whole input of reduce_scatter (each rank keeps size/p).  Rooted
 * collectives use root 0.  The sparse allreduce's size is the dense
 * vector's; its plans take every rank's selection from --density
 * (loom_sim_sparse_t).
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
    int                 sparse;         /* plans need args->sparse (sparse.h):
                                         * a modeled selection, loom_sim_sparse_t */
    /* The path each arm (sched.h) of its plans stands for, shown after
     * the algorithm's name; NULL: plans without arms. */
    const char *const   *arm_names;
    int                 narms;
} loom_sim_coll_t;

/* The sparse allreduce's selection in a simulated run: every rank
 * selects k = ceil(density * count) elements (count: the size in
 * floats), and the dense ring replaces the pairs as path says. */
typedef struct loom_sim_sparse {
    double              density;        /* (0, 1] */
    int                 path;           /* loom_sparse_path_t */
} loom_sim_sparse_t;

#define LOOM_SIM_SPARSE_DENSITY 0.01    /* --density's default */

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

/* The pairs every rank selects: ceil(density * count), count elements. */
size_t loom_sim_sparse_k(double density, size_t count);

/* The name of the path arm arm stands for in coll's plans ("sparse",
 * "dense"); NULL when it names none. */
const char *loom_sim_coll_arm_name(const loom_sim_coll_t *coll, int arm);

/* nccl-tests' bus bandwidth for algbw on p ranks. */
double loom_sim_coll_busbw(const loom_sim_coll_t *coll, double algbw, int p);

#endif
