/* The collectives loom-sim simulates (coll.h). */
#include "coll.h"
#include "coll/core/allgather.h"
#include "coll/core/bcast.h"
#include "coll/core/reduce.h"
#include "coll/core/reduce_scatter.h"

#include <stdio.h>
#include <string.h>

/* The plan of an algorithm and the engine's selection, per collective:
 * the same two wrappers around each collective's own table and
 * select_team (the variable part: the commutative flag, with its comma,
 * of those that reduce). */
#define LOOM_SIM_COLL_FNS(coll, ...)                                                        \
    static loom_plan_fn_t loom_sim_plan_##coll(int alg)                                     \
    {                                                                                       \
        return loom_##coll##_algorithms[alg].plan;                                          \
    }                                                                                       \
    static void loom_sim_select_##coll(const loom_coll_config_t *base,                      \
                                       const loom_team_t *team, size_t bytes, int forced,   \
                                       loom_sim_choice_t *choice_p)                         \
    {                                                                                       \
        loom_coll_config_t cfg = *base;                                                     \
        loom_##coll##_choice_t c;                                                           \
                                                                                            \
        cfg.coll##_algorithm = forced;                                                      \
        loom_##coll##_select_team(&cfg, team, bytes, __VA_ARGS__ &c);                       \
        *choice_p = (loom_sim_choice_t){ (int)c.alg, c.seg_bytes, c.depth };                \
    }

/* Simulated ops are commutative: the plans only price reductions. */
LOOM_SIM_COLL_FNS(allreduce, 1,)
LOOM_SIM_COLL_FNS(bcast, )
LOOM_SIM_COLL_FNS(reduce, 1,)
LOOM_SIM_COLL_FNS(allgather, )
LOOM_SIM_COLL_FNS(reduce_scatter, 1,)

const loom_sim_coll_t loom_sim_coll_allreduce = {
    .name = "allreduce", .alg_names = loom_allreduce_alg_names,
    .nalgs = LOOM_ALLREDUCE_ALG_COUNT,
    .defaults = { LOOM_ALLREDUCE_RING, LOOM_ALLREDUCE_RABENSEIFNER, LOOM_ALLREDUCE_DBTREE,
                  LOOM_ALLREDUCE_HIER },
    .ndefaults = 4, .reproducible = LOOM_ALLREDUCE_REPRODUCIBLE, .bus_num = 2,
    .plan = loom_sim_plan_allreduce, .select = loom_sim_select_allreduce,
};

static const loom_sim_coll_t loom_sim_coll_bcast = {
    .name = "bcast", .alg_names = loom_bcast_alg_names, .nalgs = LOOM_BCAST_ALG_COUNT,
    .defaults = { LOOM_BCAST_BINOMIAL, LOOM_BCAST_CHAIN, LOOM_BCAST_SCATTER_ALLGATHER,
                  LOOM_BCAST_HIER },
    .ndefaults = 4, .plan = loom_sim_plan_bcast, .select = loom_sim_select_bcast,
};

static const loom_sim_coll_t loom_sim_coll_reduce = {
    .name = "reduce", .alg_names = loom_reduce_alg_names, .nalgs = LOOM_REDUCE_ALG_COUNT,
    .defaults = { LOOM_REDUCE_BINOMIAL, LOOM_REDUCE_SCATTER_GATHER, LOOM_REDUCE_CHAIN,
                  LOOM_REDUCE_HIER },
    .ndefaults = 4, .reproducible = LOOM_REDUCE_REPRODUCIBLE,
    .plan = loom_sim_plan_reduce, .select = loom_sim_select_reduce,
};

static const loom_sim_coll_t loom_sim_coll_allgather = {
    .name = "allgather", .alg_names = loom_allgather_alg_names,
    .nalgs = LOOM_ALLGATHER_ALG_COUNT,
    .defaults = { LOOM_ALLGATHER_BRUCK, LOOM_ALLGATHER_RING, LOOM_ALLGATHER_HIER },
    .ndefaults = 3, .total = 1, .bus_num = 1,
    .plan = loom_sim_plan_allgather, .select = loom_sim_select_allgather,
};

static const loom_sim_coll_t loom_sim_coll_reduce_scatter = {
    .name = "reduce_scatter", .alg_names = loom_reduce_scatter_alg_names,
    .nalgs = LOOM_REDUCE_SCATTER_ALG_COUNT,
    .defaults = { LOOM_REDUCE_SCATTER_HALVING, LOOM_REDUCE_SCATTER_RING,
                  LOOM_REDUCE_SCATTER_HIER },
    .ndefaults = 3, .reproducible = LOOM_REDUCE_SCATTER_REPRODUCIBLE, .total = 1, .bus_num = 1,
    .plan = loom_sim_plan_reduce_scatter, .select = loom_sim_select_reduce_scatter,
};

static const loom_sim_coll_t *const loom_sim_colls[] = {
    &loom_sim_coll_allreduce, &loom_sim_coll_bcast, &loom_sim_coll_reduce,
    &loom_sim_coll_allgather, &loom_sim_coll_reduce_scatter,
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
        if (strcmp(name, loom_sim_colls[c]->name) == 0) {
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
        n = snprintf(buf + at, len - at, "%s%s", c > 0 ? ", " : "", loom_sim_colls[c]->name);
        at += n > 0 ? (size_t)n : 0;
    }
    return buf;
}

int loom_sim_coll_alg(const loom_sim_coll_t *coll, const char *name)
{
    int a;

    for (a = 0; a < coll->nalgs; ++a) {
        if (strcmp(name, coll->alg_names[a]) == 0) {
            return a;
        }
    }
    return -1;
}

double loom_sim_coll_busbw(const loom_sim_coll_t *coll, double algbw, int p)
{
    return coll->bus_num > 0 ? algbw * coll->bus_num * (p - 1) / p : algbw;
}
