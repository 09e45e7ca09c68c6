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

/* Input and output are the whole size. */
void loom_bench_allreduce_shape(size_t elems, int nranks, loom_bench_shape_t *shape_p)
{
    (void)nranks;
    *shape_p = (loom_bench_shape_t){
        .count = elems, .in_count = elems, .out_count = elems, .out_blocks = 1,
    };
}

int loom_bench_allreduce_expected(const loom_bench_expect_t *e, int block, int64_t *values)
{
    int j;

    (void)block;
    for (j = 0; j < LOOM_BENCH_CHECK_PERIOD; ++j) {
        values[j] = loom_bench_check_reduced(e->op, e->nranks, j);
    }
    return 1;
}

static int loom_bench_allreduce_run(const loom_bench_call_t *call)
{
    return MPI_Allreduce(call->in, call->out, call->count, call->dtype, call->op, call->comm);
}

const loom_bench_coll_t loom_bench_coll_allreduce = {
    .name = "allreduce",
    .pvar_prefix = "coll_loom_allreduce_",
    .bus_factor = loom_bench_allreduce_bus_factor,
    .shape = loom_bench_allreduce_shape,
    .expected = loom_bench_allreduce_expected,
    .run = loom_bench_allreduce_run,
    .memcpy_ref = LOOM_BENCH_REF_NONE,
};
