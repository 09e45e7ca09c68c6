/* The table of collectives loom-bench knows (coll.h). */
#include "coll.h"

#include <string.h>

static const loom_bench_coll_t *const loom_bench_colls[] = {
    &loom_bench_coll_allreduce,
    &loom_bench_coll_iallreduce,
    &loom_bench_coll_allgather,
    &loom_bench_coll_iallgather,
    &loom_bench_coll_reduce_scatter_block,
    &loom_bench_coll_ireduce_scatter_block,
    &loom_bench_coll_allgatherv,
    &loom_bench_coll_reduce_scatter,
    &loom_bench_coll_bcast,
    &loom_bench_coll_ibcast,
    &loom_bench_coll_reduce,
    &loom_bench_coll_ireduce,
};

const loom_bench_coll_t *loom_bench_coll_find(const char *name)
{
    size_t i;

    for (i = 0; i < sizeof(loom_bench_colls) / sizeof(loom_bench_colls[0]); ++i) {
        if (strcmp(loom_bench_colls[i]->name, name) == 0) {
            return loom_bench_colls[i];
        }
    }
    return NULL;
}

const char *loom_bench_coll_names(void)
{
    return "allreduce, iallreduce, allgather, iallgather, reduce_scatter_block, "
           "ireduce_scatter_block, allgatherv, reduce_scatter, bcast, ibcast, reduce, ireduce";
}
