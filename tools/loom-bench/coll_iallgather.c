/*
 * MPI_Iallgather in loom-bench: started and waited for at once, as
 * iallreduce is (coll_iallreduce.c).  Loom counts both forms in the same
 * coll_loom_allgather_* variables, and the results are allgather's.
 */
#include "coll.h"

static int loom_bench_iallgather_run(const loom_bench_call_t *call)
{
    MPI_Request req;
    int ret;

    ret = MPI_Iallgather(call->in, call->count, call->dtype, call->out, call->count, call->dtype,
                         call->comm, &req);
    if (ret != MPI_SUCCESS) {
        return ret;
    }
    return MPI_Wait(&req, MPI_STATUS_IGNORE);
}

const loom_bench_coll_t loom_bench_coll_iallgather = {
    .name = "iallgather",
    .pvar_prefix = "coll_loom_allgather_",
    .bus_factor = loom_bench_allgather_bus_factor,
    .shape = loom_bench_allgather_shape,
    .expected = loom_bench_allgather_expected,
    .run = loom_bench_iallgather_run,
    .memcpy_ref = LOOM_BENCH_REF_ALL,
};
