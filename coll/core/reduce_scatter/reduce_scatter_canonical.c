/*
 * Reproducible reduce_scatter and reduce_scatter_block: the canonical
 * reduce-scatter (canonical.h) on the caller's blocks, each rank's
 * finished block then copied to its receive buffer.
 *
 *   block q of every input -> rank q; rank q: (((c0 c1)(c2 c3)) ...)
 *
 * Every element is combined in the order reproducible allreduce uses, so
 * block r equals the matching part of reproducible allreduce's result
 * bitwise, whatever the block sizes or arrival order.  Non-commutative ops
 * keep rank order.
 *
 * Cost: (p-1) alpha + (p-1)/p n beta + (p-1)/p n gamma for n bytes of
 * input (even blocks), plus a local copy of the result: the ring's volume
 * in direct messages.  Chosen only on request (coll_loom_reproducible).
 */
#include "coll/core/reduce_scatter/reduce_scatter.h"
#include "coll/core/parts/canonical.h"
#include "coll/core/engine/sched_join.h"

#define LOOM_RS_CANONICAL_SCATTER 1    /* tag step of the blocks */

loom_status_t loom_reduce_scatter_canonical_plan(const loom_coll_args_t *args,
                                                 loom_team_t *team, loom_sched_t **sched_p)
{
    const int p = team->size, r = team->rank;
    loom_canonical_rs_t rs = {
        .input = args->in_place ? args->recvbuf : args->sendbuf,
        .count = args->count, .counts = args->counts, .split = 0,
        .tag_step = LOOM_RS_CANONICAL_SCATTER,
    };
    size_t mine_off, mine;
    loom_status_t status;
    loom_sched_t *sched;
    int input_read;

    status = loom_sched_create(team, args, LOOM_REDUCE_SCATTER_REPRODUCIBLE, &sched);
    if (status != LOOM_OK) {
        return status;
    }
    if (loom_canonical_reduce_scatter_add(sched, &rs) != LOOM_OK) {
        goto out;   /* the build status holds the error */
    }
    loom_canonical_block(&rs, p, r, args->elem_size, &mine_off, &mine);
    if (mine > 0) {
        /* In place the result goes to the start of the input, over blocks
         * other ranks are still being sent: wait for every step so far. */
        input_read = args->in_place ? loom_sched_join(sched, 0, sched->nsteps) : -1;
        loom_sched_copy(sched, rs.result, args->recvbuf, mine,
                        LOOM_DEPS(rs.done, input_read));
    }

out:
    return loom_sched_plan_done(sched, sched_p);
}
