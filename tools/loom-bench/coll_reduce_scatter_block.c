/*
 * Reduce_scatter_block in loom-bench: rank r ends with block r of the
 * reduction of all inputs.  The size is the input (nccl-tests'
 * convention), so each rank gets size/n back.  Each rank must send the
 * n-1 blocks others own, partly reduced, (n-1)/n of the size, hence
 * busbw = algbw * (n-1)/n.
 */
#include "check.h"
#include "coll.h"

double loom_bench_reduce_scatter_bus_factor(int nranks)
{
    return (double)(nranks - 1) / nranks;
}

/* A size that n does not divide is rounded down to n equal blocks; one
 * below n elements gives count 0 and is skipped. */
void loom_bench_reduce_scatter_shape(size_t elems, int nranks, loom_bench_shape_t *shape_p)
{
    size_t count = elems / (size_t)nranks;

    *shape_p = (loom_bench_shape_t){
        .count = count, .in_count = count * (size_t)nranks, .out_count = count,
        .out_blocks = 1,
    };
}

/* This rank's output element i is the reduction of input element
 * rank * count + i, so its pattern starts rank * count positions on. */
int loom_bench_reduce_scatter_expected(const loom_bench_expect_t *e, int block,
                                       int64_t *values)
{
    size_t shift = (size_t)e->rank * e->count % LOOM_BENCH_CHECK_PERIOD;
    int j;

    (void)block;
    for (j = 0; j < LOOM_BENCH_CHECK_PERIOD; ++j) {
        values[j] = loom_bench_check_reduced(e->op, e->nranks,
                                             (int)((j + shift) % LOOM_BENCH_CHECK_PERIOD));
    }
    return 1;
}

static int loom_bench_reduce_scatter_block_run(const loom_bench_call_t *call)
{
    return MPI_Reduce_scatter_block(call->in, call->out, call->count, call->dtype, call->op,
                                    call->comm);
}

const loom_bench_coll_t loom_bench_coll_reduce_scatter_block = {
    .name = "reduce_scatter_block",
    .pvar_prefix = "coll_loom_reduce_scatter_",
    .bus_factor = loom_bench_reduce_scatter_bus_factor,
    .shape = loom_bench_reduce_scatter_shape,
    .expected = loom_bench_reduce_scatter_expected,
    .run = loom_bench_reduce_scatter_block_run,
    .memcpy_ref = LOOM_BENCH_REF_NONE,
};
