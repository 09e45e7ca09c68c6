/*
 * MPI_Allgatherv in loom-bench, with every rank's count equal: the same
 * data movement as allgather (coll_allgather.c), so the same sizes,
 * factor and results, through the v-variant's entry point and its
 * argument arrays.  Loom counts it in the coll_loom_allgather_*
 * variables.  Uneven counts are the engine tests' business.
 */
#include "coll.h"

static int loom_bench_allgatherv_run(const loom_bench_call_t *call)
{
    return MPI_Allgatherv(call->in, call->count, call->dtype, call->out, call->counts,
                          call->displs, call->dtype, call->comm);
}

const loom_bench_coll_t loom_bench_coll_allgatherv = {
    .name = "allgatherv",
    .pvar_prefix = "coll_loom_allgather_",
    .bus_factor = loom_bench_allgather_bus_factor,
    .shape = loom_bench_allgather_shape,
    .expected = loom_bench_allgather_expected,
    .run = loom_bench_allgatherv_run,
    .memcpy_ref = LOOM_BENCH_REF_ALL,
};
