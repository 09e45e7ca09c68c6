/*
 * Reduce in loom-bench: the root ends with the reduction of all inputs.
 * The size is the vector.  The root must take in the whole vector's worth
 * of partial results, so busbw = algbw (factor 1, nccl-tests' convention;
 * the shape is bcast's, coll_bcast.c).  Only the root's output is
 * defined, so only the root checks; the others still pass an output,
 * which MPI leaves alone.
 */
#include "check.h"
#include "coll.h"

int loom_bench_reduce_expected(const loom_bench_expect_t *e, int block, int64_t *values)
{
    int j;

    (void)block;
    if (e->rank != e->root) {
        return 0;
    }
    for (j = 0; j < LOOM_BENCH_CHECK_PERIOD; ++j) {
        values[j] = loom_bench_check_reduced(e->op, e->nranks, j);
    }
    return 1;
}

static int loom_bench_reduce_run(const loom_bench_call_t *call)
{
    return MPI_Reduce(call->in, call->out, call->count, call->dtype, call->op, call->root,
                      call->comm);
}

const loom_bench_coll_t loom_bench_coll_reduce = {
    .name = "reduce",
    .pvar_prefix = "coll_loom_reduce_",
    .bus_factor = loom_bench_rooted_bus_factor,
    .shape = loom_bench_rooted_shape,
    .expected = loom_bench_reduce_expected,
    .run = loom_bench_reduce_run,
    .rooted = 1,
    .memcpy_ref = LOOM_BENCH_REF_NONE,
};
