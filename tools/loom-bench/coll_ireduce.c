/*
 * MPI_Ireduce in loom-bench: started and waited for at once, as iallreduce
 * is (coll_iallreduce.c).  Loom counts both forms in the same
 * coll_loom_reduce_* variables, and the results are reduce's.
 */
#include "coll.h"

static int loom_bench_ireduce_run(const loom_bench_call_t *call)
{
    MPI_Request req;
    int ret;

    ret = MPI_Ireduce(call->in, call->out, call->count, call->dtype, call->op, call->root,
                      call->comm, &req);
    if (ret != MPI_SUCCESS) {
        return ret;
    }
    return MPI_Wait(&req, MPI_STATUS_IGNORE);
}

const loom_bench_coll_t loom_bench_coll_ireduce = {
    .name = "ireduce",
    .pvar_prefix = "coll_loom_reduce_",
    .bus_factor = loom_bench_rooted_bus_factor,
    .shape = loom_bench_rooted_shape,
    .expected = loom_bench_reduce_expected,
    .run = loom_bench_ireduce_run,
    .rooted = 1,
    .memcpy_ref = LOOM_BENCH_REF_NONE,
};
