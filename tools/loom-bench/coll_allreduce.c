/*
 * Allreduce in loom-bench: every rank ends with the reduction of all
 * inputs.  Each rank must send and receive at least 2(n-1)/n of the
 * buffer (reduce-scatter then allgather), hence busbw = algbw * 2(n-1)/n.
 */
#include "check.h"
#include "coll.h"

double loom_bench_allreduce_bus_factor(int nranks)
{
    return 2.0 * (nranks - 1) / nranks;
}

void loom_bench_allreduce_check_values(const loom_bench_op_t *op, int rank, int nranks,
                                       int64_t *in_values, int64_t *out_values)
{
    int j, r;

    for (j = 0; j < LOOM_BENCH_CHECK_PERIOD; ++j) {
        in_values[j] = loom_bench_check_value(op, rank, j);
        out_values[j] = loom_bench_check_value(op, 0, j);
        for (r = 1; r < nranks; ++r) {
            out_values[j] = loom_bench_op_apply(op, out_values[j],
                                                loom_bench_check_value(op, r, j));
        }
    }
}

static int loom_bench_allreduce_run(const loom_bench_call_t *call)
{
    return MPI_Allreduce(call->in, call->out, call->count, call->dtype, call->op, call->comm);
}

const loom_bench_coll_t loom_bench_coll_allreduce = {
    .name = "allreduce",
    .pvar_prefix = "coll_loom_allreduce_",
    .bus_factor = loom_bench_allreduce_bus_factor,
    .check_values = loom_bench_allreduce_check_values,
    .run = loom_bench_allreduce_run,
};
