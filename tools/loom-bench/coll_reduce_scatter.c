/*
 * MPI_Reduce_scatter in loom-bench, with every rank's count equal: the
 * same data movement as reduce_scatter_block (coll_reduce_scatter_block.c),
 * so the same sizes, factor and results, through the v-variant's entry
 * point and its counts array.  Loom counts both in the
 * coll_loom_reduce_scatter_* variables.
 */
#include "coll.h"

static int loom_bench_reduce_scatter_run(const loom_bench_call_t *call)
{
    return MPI_Reduce_scatter(call->in, call->out, call->counts, call->dtype, call->op,
                              call->comm);
}

const loom_bench_coll_t loom_bench_coll_reduce_scatter = {
    .name = "reduce_scatter",
    .pvar_prefix = "coll_loom_reduce_scatter_",
    .bus_factor = loom_bench_reduce_scatter_bus_factor,
    .shape = loom_bench_reduce_scatter_shape,
    .expected = loom_bench_reduce_scatter_expected,
    .run = loom_bench_reduce_scatter_run,
    .memcpy_ref = LOOM_BENCH_REF_NONE,
};
