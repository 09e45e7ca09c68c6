/*
 * MPI_Iallreduce in loom-bench: started and waited for at once, so its
 * time is the nonblocking path's own cost (request, progress through Open
 * MPI's hook) beside the blocking call's; overlap with computation is the
 * training examples' business.  Loom counts both forms in the same
 * coll_loom_allreduce_* variables, and the results are allreduce's.
 */
#include "coll.h"

static int loom_bench_iallreduce_run(const loom_bench_call_t *call)
{
    MPI_Request req;
    int ret;

    ret = MPI_Iallreduce(call->in, call->out, call->count, call->dtype, call->op, call->comm,
                         &req);
    if (ret != MPI_SUCCESS) {
        return ret;
    }
    return MPI_Wait(&req, MPI_STATUS_IGNORE);
}

const loom_bench_coll_t loom_bench_coll_iallreduce = {
    .name = "iallreduce",
    .pvar_prefix = "coll_loom_allreduce_",
    .bus_factor = loom_bench_allreduce_bus_factor,
    .shape = loom_bench_allreduce_shape,
    .expected = loom_bench_allreduce_expected,
    .run = loom_bench_iallreduce_run,
    .memcpy_ref = LOOM_BENCH_REF_NONE,
};
