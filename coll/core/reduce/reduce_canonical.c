/*
 * Reproducible reduce: the canonical reduce-scatter (canonical.h), then
 * every rank sends its finished block straight to the root.
 *
 *   phase 1, 2:  block b of every input to rank b, combined there in the
 *                canonical order (lower ranks on the left)
 *   phase 3:     rank b -> root: block b       (the root copies its own)
 *
 * The blocks and the order of every element's combination are those of
 * reproducible allreduce, so the root's result is bitwise what
 * reproducible allreduce gives on the same inputs and rank count, whatever
 * the arrival order.  Non-commutative ops keep rank order (the tree does).
 *
 * Cost: (p-1) alpha + (p-1)/p n beta + (p-1)/p n gamma for the
 * reduce-scatter, then (p-1) alpha + (p-1)/p n beta at the root: about
 * reduce_scatter_gather's volume.  Chosen only on request
 * (coll_loom_reproducible), like its allreduce counterpart.
 */
#include "coll/core/reduce/reduce.h"
#include "coll/core/parts/canonical.h"

#define LOOM_REDUCE_CANONICAL_SCATTER 1    /* tag step of phases 1 and 2 */
#define LOOM_REDUCE_CANONICAL_GATHER  2    /* tag step of phase 3 */

loom_status_t loom_reduce_canonical_plan(const loom_coll_args_t *args, loom_team_t *team,
                                         loom_sched_t **sched_p)
{
    const int p = team->size, r = team->rank, root = args->root;
    const size_t esize = args->elem_size;
    const int in_place = args->in_place && r == root;
    char *out = args->recvbuf;
    loom_canonical_rs_t rs = {
        .input = in_place ? args->recvbuf : args->sendbuf,
        .count = args->count, .split = 1, .tag_step = LOOM_REDUCE_CANONICAL_SCATTER,
    };
    size_t mine_off, mine, off, len;
    loom_status_t status;
    loom_sched_t *sched;
    int q;

    if (root < 0 || root >= p) {
        return LOOM_ERR_INVALID_PARAM;
    }
    status = loom_sched_create(team, args, LOOM_REDUCE_REPRODUCIBLE, &sched);
    if (status != LOOM_OK) {
        return status;
    }
    if (args->count == 0 || loom_canonical_reduce_scatter_add(sched, &rs) != LOOM_OK) {
        goto out;   /* nothing to do, or the build status holds the error */
    }
    loom_canonical_block(&rs, p, r, esize, &mine_off, &mine);
    if (r != root) {
        if (mine > 0) {
            loom_sched_send(sched, root, LOOM_REDUCE_CANONICAL_GATHER, rs.result, mine,
                            LOOM_DEPS(rs.done));
        }
        goto out;
    }
    for (q = 0; q < p; ++q) {
        loom_canonical_block(&rs, p, q, esize, &off, &len);
        if (q == r) {
            /* In place, this overwrites my input block, which the copy
             * into my slot read before any combination. */
            if (mine > 0) {
                loom_sched_copy(sched, rs.result, out + mine_off, mine, LOOM_DEPS(rs.done));
            }
        } else if (len > 0) {
            /* In place, block q of the receive buffer is the input block
             * sent to rank q: received over only once that send is done. */
            loom_sched_recv(sched, q, LOOM_REDUCE_CANONICAL_GATHER, out + off, len,
                            LOOM_DEPS(in_place ? rs.sent[q] : -1));
        }
    }

out:
    return loom_sched_plan_done(sched, sched_p);
}
