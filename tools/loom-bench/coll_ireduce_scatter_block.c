/*
 * MPI_Ireduce_scatter_block in loom-bench: started and waited for at
 * once, as iallreduce is (coll_iallreduce.c).  Loom counts both forms in
 * the same coll_loom_reduce_scatter_* variables, and the results are
 * reduce_scatter_block's.
 */
#include "coll.h"

static int loom_bench_ireduce_scatter_block_run(const loom_bench_call_t *call)
{
    MPI_Request req;
    int ret;

    ret = MPI_Ireduce_scatter_block(call->in, call->out, call->count, call->dtype, call->op,
                                    call->comm, &req);
    if (ret != MPI_SUCCESS) {
        return ret;
    }
    return MPI_Wait(&req, MPI_STATUS_IGNORE);
}

const loom_bench_coll_t loom_bench_coll_ireduce_scatter_block = {
    .name = "ireduce_scatter_block",
    .pvar_prefix = "coll_loom_reduce_scatter_",
    .bus_factor = loom_bench_reduce_scatter_bus_factor,
    .shape = loom_bench_reduce_scatter_shape,
    .expected = loom_bench_reduce_scatter_expected,
    .run = loom_bench_ireduce_scatter_block_run,
    .memcpy_ref = LOOM_BENCH_REF_NONE,
};
