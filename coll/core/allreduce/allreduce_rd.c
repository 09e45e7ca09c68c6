/*
 * Recursive doubling allreduce: log2(p) rounds; in round k each rank
 * exchanges its whole vector with the rank 2^k away and reduces.
 *
 *   round 0:  0<->1   2<->3   4<->5   6<->7
 *   round 1:  0<->2   1<->3   4<->6   5<->7
 *   round 2:  0<->4   1<->5   2<->6   3<->7
 *
 * Non-powers of two fold the first 2*rem ranks in pairs first and unfold at
 * the end (allreduce_fold.c).
 *
 * Cost: log2(p) (alpha + n beta + n gamma) (+ 2 alpha + 2 n beta + n gamma
 * when p is not a power of two).  The fewest rounds there are, so it wins
 * for small n where alpha dominates; for large n it moves log2(p) times
 * the data, against 2(p-1)/p for ring and Rabenseifner.
 *
 * Under a rank order (team.h) commutative ops pair positions instead of
 * ranks (fold included); non-commutative ones and the reproducible mode
 * keep rank order.
 *
 * Each round combines two contiguous groups of ranks, the lower group's
 * data as src, on both sides of the exchange, even for commutative ops:
 * both compute the very same expression, so replicas stay bitwise
 * identical (MIN of NaN and a number, or of -0 and +0, depends on the
 * operand order), and non-commutative ops are reduced in rank order.  When
 * the partner is the higher group the result lands in the scratch buffer
 * and the two buffers swap roles instead of copying back.
 */
#include "coll/core/allreduce/allreduce.h"
#include "coll/core/parts/partition.h"

loom_status_t loom_allreduce_rd_plan(const loom_coll_args_t *args, loom_team_t *team,
                                     loom_sched_t **sched_p)
{
    size_t bytes = args->count * args->elem_size;
    loom_fold_t fold;
    int last, send, recv, red, round = 1, vpeer, mask, pre, busy[2];
    char *cur = args->recvbuf, *tmp, *swap;
    loom_status_t status;
    loom_sched_t *sched;

    status = loom_sched_create(team, args, LOOM_ALLREDUCE_RD, &sched);
    if (status != LOOM_OK) {
        return status;
    }
    /* Groups of positions under a rank order (team.h); of ranks where
     * rank order must be kept. */
    fold = loom_fold_make_ordered(team->size, loom_sched_reduce_order(sched), team->rank);
    last = loom_sched_copy_input(sched);
    if (team->size == 1 || bytes == 0) {
        goto out;
    }
    status = loom_sched_alloc_scratch(sched, bytes, (void **)&tmp);
    if (status != LOOM_OK) {
        goto out;
    }

    pre = loom_fold_pre(sched, &fold, cur, tmp, bytes, last);
    if (fold.vrank < 0) {
        loom_fold_post(sched, &fold, cur, bytes, pre);
        goto out;
    }
    last = pre;
    busy[0] = pre; /* the pre-fold reduce read tmp */
    busy[1] = -1;

    for (mask = 1; mask < fold.p2; mask <<= 1, ++round) {
        vpeer = fold.vrank ^ mask;
        send = loom_sched_send(sched, loom_fold_rank(&fold, vpeer), (uint32_t)round, cur,
                               bytes, LOOM_DEPS(last));
        recv = loom_sched_recv(sched, loom_fold_rank(&fold, vpeer), (uint32_t)round, tmp,
                               bytes, LOOM_DEPS(busy[0], busy[1]));
        if (vpeer < fold.vrank) {
            /* cur = theirs (op) cur, once the send of cur has left. */
            red = loom_sched_reduce(sched, tmp, cur, bytes, LOOM_DEPS(recv, send));
            busy[0] = red;
            busy[1] = -1;
        } else {
            /* tmp = cur (op) theirs: the result is in tmp, swap the roles;
             * the old cur is free once the send and the reduce read it. */
            red = loom_sched_reduce(sched, cur, tmp, bytes, LOOM_DEPS(recv));
            swap = cur;
            cur = tmp;
            tmp = swap;
            busy[0] = send;
            busy[1] = red;
        }
        last = red;
    }
    if (cur != (char *)args->recvbuf) {
        last = loom_sched_copy(sched, cur, args->recvbuf, bytes,
                               LOOM_DEPS(last, busy[0], busy[1]));
    }
    loom_fold_post(sched, &fold, args->recvbuf, bytes, last);

out:
    return loom_sched_plan_done(sched, sched_p);
}
