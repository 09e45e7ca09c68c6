/*
 * Reproducible allreduce: every element is combined in one canonical order,
 * a binary tree over rank ids (canonical.h), whatever arrives first and
 * whatever the message size, so floating sums are bitwise identical from
 * run to run and on every rank (for a given rank count).
 *
 * Block b of the vector belongs to rank b.  Each rank sends block b of its
 * input to rank b; rank b combines the p contributions pairwise in rank
 * order (the canonical reduce-scatter, canonical.c), then sends its
 * finished block to everyone (a direct allgather):
 *
 *   rank:        0    1    2    3
 *   phase 1:    c0 -> block 0 of every rank, c1 -> block 1, ...
 *   phase 2:    rank b: (((c0 c1)(c2 c3)) ...) for block b
 *   phase 3:    block b from rank b to every rank
 *
 * The lower ranks' partial is always the left operand, so the same tree
 * serves non-commutative ops.
 *
 * Cost: 2(p-1) alpha + 2 (p-1)/p n beta + (p-1)/p n gamma: the bandwidth
 * of the ring, with direct messages instead of a pipeline.  It is chosen
 * only on request (coll_loom_reproducible), never by the cost model: the
 * ring and Rabenseifner reach the same volume with fewer or better
 * overlapped messages, but combine in an order that depends on p's
 * factorisation and the segment size.
 */
#include "coll/core/allreduce/allreduce.h"
#include "coll/core/parts/canonical.h"
#include "coll/core/parts/partition.h"

#define LOOM_CANONICAL_SCATTER 1   /* tag step of phases 1 and 2 */
#define LOOM_CANONICAL_GATHER  2   /* tag step of phase 3 */

loom_status_t loom_allreduce_canonical_plan(const loom_coll_args_t *args, loom_team_t *team,
                                            loom_sched_t **sched_p)
{
    const int p = team->size, r = team->rank;
    const size_t esize = args->elem_size;
    char *out = args->recvbuf;
    loom_canonical_rs_t rs = {
        .input = args->in_place ? args->recvbuf : args->sendbuf,
        .count = args->count, .split = 1, .tag_step = LOOM_CANONICAL_SCATTER,
    };
    size_t mine_off, mine, off, len;
    loom_status_t status;
    loom_sched_t *sched;
    int q, done = -1;

    status = loom_sched_create(team, args, LOOM_ALLREDUCE_REPRODUCIBLE, &sched);
    if (status != LOOM_OK) {
        return status;
    }
    if (p == 1 || args->count == 0) {
        loom_sched_copy_input(sched);
        goto out;
    }
    if (loom_canonical_reduce_scatter_add(sched, &rs) != LOOM_OK) {
        goto out;   /* the build status holds the error */
    }
    loom_canonical_block(&rs, p, r, esize, &mine_off, &mine);
    if (mine > 0) {
        /* In place, block r of the output is my input, read by the copy
         * into my slot: that copy precedes every reduce, hence this copy. */
        done = loom_sched_copy(sched, rs.result, out + mine_off, mine, LOOM_DEPS(rs.done));
    }

    /* Phase 3: my finished block to everyone, theirs into place.  In place,
     * block q of the output is the input block q sent in phase 1. */
    for (q = 0; q < p; ++q) {
        if (q == r) {
            continue;
        }
        loom_canonical_block(&rs, p, q, esize, &off, &len);
        if (mine > 0) {
            loom_sched_send(sched, q, LOOM_CANONICAL_GATHER, out + mine_off, mine,
                            LOOM_DEPS(done));
        }
        if (len > 0) {
            loom_sched_recv(sched, q, LOOM_CANONICAL_GATHER, out + off, len,
                            LOOM_DEPS(rs.sent[q]));
        }
    }

out:
    return loom_sched_plan_done(sched, sched_p);
}
