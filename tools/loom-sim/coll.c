/* The collectives loom-sim simulates (coll.h). */
#include "coll.h"
#include "coll/core/allgather/allgather.h"
#include "coll/core/allreduce/allreduce.h"
#include "coll/core/bcast/bcast.h"
#include "coll/core/reduce/reduce.h"
#include "coll/core/reduce_scatter/reduce_scatter.h"
#include "coll/core/sparse/sparse.h"

#include <math.h>

#include <stdio.h>
#include <string.h>

const loom_sim_coll_t loom_sim_coll_allreduce = {
    .engine = &loom_allreduce_collective,
    .defaults = { LOOM_ALLREDUCE_RING, LOOM_ALLREDUCE_RABENSEIFNER, LOOM_ALLREDUCE_DBTREE,
                  LOOM_ALLREDUCE_HIER },
    .ndefaults = 4, .bus_num = 2,
};

static const loom_sim_coll_t loom_sim_coll_bcast = {
    .engine = &loom_bcast_collective,
    .defaults = { LOOM_BCAST_BINOMIAL, LOOM_BCAST_CHAIN, LOOM_BCAST_SCATTER_ALLGATHER,
                  LOOM_BCAST_HIER },
    .ndefaults = 4,
};

static const loom_sim_coll_t loom_sim_coll_reduce = {
    .engine = &loom_reduce_collective,
    .defaults = { LOOM_REDUCE_BINOMIAL, LOOM_REDUCE_SCATTER_GATHER, LOOM_REDUCE_CHAIN,
                  LOOM_REDUCE_HIER },
    .ndefaults = 4,
};

static const loom_sim_coll_t loom_sim_coll_allgather = {
    .engine = &loom_allgather_collective,
    .defaults = { LOOM_ALLGATHER_BRUCK, LOOM_ALLGATHER_RING, LOOM_ALLGATHER_HIER },
    .ndefaults = 3, .total = 1, .bus_num = 1,
};

static const loom_sim_coll_t loom_sim_coll_reduce_scatter = {
    .engine = &loom_reduce_scatter_collective,
    .defaults = { LOOM_REDUCE_SCATTER_HALVING, LOOM_REDUCE_SCATTER_RING,
                  LOOM_REDUCE_SCATTER_HIER },
    .ndefaults = 3, .total = 1, .bus_num = 1,
};

static const char *const loom_sim_sparse_arms[] = {
    [LOOM_SPARSE_PATH_SPARSE] = "sparse", [LOOM_SPARSE_PATH_DENSE] = "dense",
};

/* The size is the dense vector; algbw its bytes over the time and busbw
 * allreduce's factor, so that its rows read against the dense
 * allreduce's (docs/loom-sim.md). */
static const loom_sim_coll_t loom_sim_coll_sparse_allreduce = {
    .engine = &loom_sparse_allreduce_collective,
    .defaults = { LOOM_SPARSE_ALLGATHER },
    .ndefaults = 1, .bus_num = 2, .sparse = 1,
    .arm_names = loom_sim_sparse_arms,
    .narms = (int)(sizeof(loom_sim_sparse_arms) / sizeof(loom_sim_sparse_arms[0])),
};

static const loom_sim_coll_t *const loom_sim_colls[] = {
    &loom_sim_coll_allreduce, &loom_sim_coll_bcast, &loom_sim_coll_reduce,
    &loom_sim_coll_allgather, &loom_sim_coll_reduce_scatter, &loom_sim_coll_sparse_allreduce,
};

#define LOOM_SIM_NCOLLS ((int)(sizeof(loom_sim_colls) / sizeof(loom_sim_colls[0])))

int loom_sim_coll_count(void)
{
    return LOOM_SIM_NCOLLS;
}

const loom_sim_coll_t *loom_sim_coll_at(int i)
{
    return loom_sim_colls[i];
}

const loom_sim_coll_t *loom_sim_coll_find(const char *name)
{
    int c;

    for (c = 0; c < LOOM_SIM_NCOLLS; ++c) {
        if (strcmp(name, loom_sim_colls[c]->engine->name) == 0) {
            return loom_sim_colls[c];
        }
    }
    return NULL;
}

char *loom_sim_coll_list(char *buf, size_t len)
{
    size_t at = 0;
    int c, n;

    buf[0] = '\0';
    for (c = 0; c < LOOM_SIM_NCOLLS && at < len; ++c) {
        n = snprintf(buf + at, len - at, "%s%s", c > 0 ? ", " : "",
                     loom_sim_colls[c]->engine->name);
        at += n > 0 ? (size_t)n : 0;
    }
    return buf;
}

int loom_sim_coll_alg(const loom_sim_coll_t *coll, const char *name)
{
    int a;

    for (a = 0; a < coll->engine->alg_count; ++a) {
        if (strcmp(name, coll->engine->alg_names[a]) == 0) {
            return a;
        }
    }
    return -1;
}

void loom_sim_select(const loom_sim_coll_t *coll, const loom_coll_config_t *cfg,
                     const loom_team_t *team, size_t bytes, int forced,
                     loom_choice_t *choice_p)
{
    loom_coll_config_t use = *cfg;

    loom_coll_force(coll->engine, &use, forced);
    coll->engine->select(&use, team, bytes, 1, choice_p);
}

size_t loom_sim_sparse_k(double density, size_t count)
{
    double x = density * (double)count;

    /* Less a rounding error: 0.001 of 1000 elements is 1 pair, not 2. */
    return (size_t)ceil(x - x * 1e-12);
}

const char *loom_sim_coll_arm_name(const loom_sim_coll_t *coll, int arm)
{
    return arm > 0 && arm < coll->narms ? coll->arm_names[arm] : NULL;
}

double loom_sim_coll_busbw(const loom_sim_coll_t *coll, double algbw, int p)
{
    return coll->bus_num > 0 ? algbw * coll->bus_num * (p - 1) / p : algbw;
}
