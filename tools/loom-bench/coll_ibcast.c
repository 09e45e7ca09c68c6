/*
 * MPI_Ibcast in loom-bench: started and waited for at once, as iallreduce
 * is (coll_iallreduce.c).  Loom counts both forms in the same
 * coll_loom_bcast_* variables; buffers and results are bcast's
 * (coll_bcast.c).
 */
#include "coll.h"

static int loom_bench_ibcast_run(const loom_bench_call_t *call)
{
    void *buf = call->rank == call->root ? (void *)call->in : call->out;
    MPI_Request req;
    int ret;

    ret = MPI_Ibcast(buf, call->count, call->dtype, call->root, call->comm, &req);
    if (ret != MPI_SUCCESS) {
        return ret;
    }
    return MPI_Wait(&req, MPI_STATUS_IGNORE);
}

const loom_bench_coll_t loom_bench_coll_ibcast = {
    .name = "ibcast",
    .pvar_prefix = "coll_loom_bcast_",
    .bus_factor = loom_bench_rooted_bus_factor,
    .shape = loom_bench_rooted_shape,
    .expected = loom_bench_bcast_expected,
    .run = loom_bench_ibcast_run,
    .rooted = 1,
    .memcpy_ref = LOOM_BENCH_REF_BUT_ROOT,
};
