/*
 * Allgather in loom-bench: every rank ends with every rank's block, in
 * rank order.  The size is the gathered output (nccl-tests' convention),
 * so each rank puts in size/n.  Each rank must receive the n-1 blocks it
 * lacks, (n-1)/n of the size, hence busbw = algbw * (n-1)/n.
 */
#include "check.h"
#include "coll.h"

double loom_bench_allgather_bus_factor(int nranks)
{
    return (double)(nranks - 1) / nranks;
}

/* A size that n does not divide is rounded down to n equal blocks; one
 * below n elements gives count 0 and is skipped. */
void loom_bench_allgather_shape(size_t elems, int nranks, loom_bench_shape_t *shape_p)
{
    size_t count = elems / (size_t)nranks;

    *shape_p = (loom_bench_shape_t){
        .count = count, .in_count = count, .out_count = count * (size_t)nranks,
        .out_blocks = nranks,
    };
}

/* Block r is rank r's input, element for element. */
int loom_bench_allgather_expected(const loom_bench_expect_t *e, int block, int64_t *values)
{
    int j;

    for (j = 0; j < LOOM_BENCH_CHECK_PERIOD; ++j) {
        values[j] = loom_bench_check_value(e->op, block, j);
    }
    return 1;
}

/* The op does not apply: nothing is reduced. */
static int loom_bench_allgather_run(const loom_bench_call_t *call)
{
    return MPI_Allgather(call->in, call->count, call->dtype, call->out, call->count, call->dtype,
                         call->comm);
}

const loom_bench_coll_t loom_bench_coll_allgather = {
    .name = "allgather",
    .pvar_prefix = "coll_loom_allgather_",
    .bus_factor = loom_bench_allgather_bus_factor,
    .shape = loom_bench_allgather_shape,
    .expected = loom_bench_allgather_expected,
    .run = loom_bench_allgather_run,
    .memcpy_ref = LOOM_BENCH_REF_ALL,
};
