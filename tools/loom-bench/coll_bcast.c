/*
 * Bcast in loom-bench: the root's buffer ends on every rank.  The size is
 * that buffer.  Every rank but the root must receive all of it, so each
 * rank's link carries the size once: busbw = algbw (factor 1, as
 * nccl-tests counts bcast and reduce, which share this shape).
 *
 * MPI_Bcast has one buffer where the harness gives every call an input
 * and an output: the root passes its input, which MPI only reads there,
 * and every other rank its output, poisoned and checked as any output.
 * The root (--root) is the same for every call of a run.
 */
#include "check.h"
#include "coll.h"

double loom_bench_rooted_bus_factor(int nranks)
{
    (void)nranks;
    return 1.0;
}

/* One buffer of the whole size on every rank, in and out. */
void loom_bench_rooted_shape(size_t elems, int nranks, loom_bench_shape_t *shape_p)
{
    (void)nranks;
    *shape_p = (loom_bench_shape_t){
        .count = elems, .in_count = elems, .out_count = elems, .out_blocks = 1,
    };
}

/* The root's input, element for element; the root itself writes nothing. */
int loom_bench_bcast_expected(const loom_bench_expect_t *e, int block, int64_t *values)
{
    int j;

    (void)block;
    if (e->rank == e->root) {
        return 0;
    }
    for (j = 0; j < LOOM_BENCH_CHECK_PERIOD; ++j) {
        values[j] = loom_bench_check_value(e->op, e->root, j);
    }
    return 1;
}

/* The op does not apply: nothing is reduced. */
static int loom_bench_bcast_run(const loom_bench_call_t *call)
{
    void *buf = call->rank == call->root ? (void *)call->in : call->out;

    return MPI_Bcast(buf, call->count, call->dtype, call->root, call->comm);
}

const loom_bench_coll_t loom_bench_coll_bcast = {
    .name = "bcast",
    .pvar_prefix = "coll_loom_bcast_",
    .bus_factor = loom_bench_rooted_bus_factor,
    .shape = loom_bench_rooted_shape,
    .expected = loom_bench_bcast_expected,
    .run = loom_bench_bcast_run,
    .rooted = 1,
    .memcpy_ref = LOOM_BENCH_REF_BUT_ROOT,
};
