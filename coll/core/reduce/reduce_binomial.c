/*
 * Binomial tree reduce: each rank combines its children's partial results
 * with its own, smallest subtree first, and sends the result to its
 * parent (its virtual rank without the lowest set bit).
 *
 *   p = 8:   7 -> 6;   6 -> 4, 5 -> 4, 3 -> 2;   4 -> 0, 2 -> 0, 1 -> 0
 *
 *        0          a child v + m holds ranks [v + m, v + 2m), so
 *      / | \        combining children by increasing m keeps the
 *     1  2  4       partial result a contiguous, ordered range of ranks
 *        |  | \
 *        3  5  6
 *              |
 *              7
 *
 * Commutative ops number ranks from the root (virtual rank = rank - root
 * mod p), so the result ends at the root.  Non-commutative ones keep real
 * ranks, so every combination is in rank order, and rank 0 sends the
 * result to the root when that is another rank: + alpha + n beta.
 *
 * Under a rank order (team.h), commutative ops draw the tree over
 * positions counted from the root's; non-commutative ones and the
 * reproducible mode keep rank order.
 *
 * Cost: ceil(log2 p) (alpha + n beta + n gamma).  The fewest rounds
 * possible, so it wins for small n; for large n each level moves and
 * reduces the whole vector, where reduce-scatter + gather moves about 2n
 * and reduces n in all.
 *
 * The partial result lives in two scratch halves used in turn (each
 * child's data is received into the half the running result is not in,
 * and the reduce leaves the result there: lower ranks always on the src
 * side, no copy); at the root the last reduce lands in the receive buffer.
 */
#include "coll/core/reduce/reduce.h"
#include "coll/core/parts/partition.h"

#define LOOM_REDUCE_TAG_TREE 0
#define LOOM_REDUCE_TAG_ROOT 1

loom_status_t loom_reduce_binomial_plan(const loom_coll_args_t *args, loom_team_t *team,
                                        loom_sched_t **sched_p)
{
    int p = team->size, r = team->rank, root = args->root;
    /* Where the tree ends: the root, or rank 0 to keep rank order. */
    int top = args->op.commutative ? root : 0;
    int v, m, nc = 0, i, recv, red, last = -1, send = -1;
    size_t bytes = args->count * args->elem_size;
    int in_place = args->in_place && r == root;
    const char *in = in_place ? args->recvbuf : args->sendbuf;
    char *recvbuf = args->recvbuf, *cur, *x, *half[2];
    int busy[3] = { -1, -1, -1 };   /* last step on half[0], half[1], recvbuf */
    const loom_order_t *o;
    loom_status_t status;
    loom_sched_t *sched;

    if (root < 0 || root >= p) {
        return LOOM_ERR_INVALID_PARAM;
    }
    status = loom_sched_create(team, args, LOOM_REDUCE_BINOMIAL, &sched);
    if (status != LOOM_OK) {
        return status;
    }
    /* Virtual ranks count positions from the top's (team.h); the order is
     * the identity where rank order must be kept. */
    o = loom_sched_reduce_order(sched);
    v = loom_order_vrank(o, r, top, p);
    if (bytes == 0) {
        goto out;
    }
    for (m = 1; m < (v == 0 ? p : (v & -v)) && v + m < p; m *= 2) {
        ++nc;
    }
    if (nc > 0) {
        status = loom_sched_alloc_scratch(sched, (nc > 1 ? 2 : 1) * bytes,
                                          (void **)&half[0]);
        if (status != LOOM_OK) {
            goto out;
        }
        half[1] = half[0] + bytes;
    }

    cur = (char *)in;
    for (i = 0, m = 1; i < nc; ++i, m *= 2) {
        /* The child's data goes where the running result is not; the
         * root's last one straight into its receive buffer. */
        if (r == root && v == 0 && i == nc - 1 && cur != recvbuf) {
            x = recvbuf;
        } else {
            x = cur == half[0] ? half[1] : half[0];
        }
        recv = loom_sched_recv(sched, loom_order_vrank_real(o, v + m, top, p),
                               LOOM_REDUCE_TAG_TREE,
                               x, bytes,
                               LOOM_DEPS(busy[x == half[0] ? 0 : x == half[1] ? 1 : 2]));
        /* x = (lower ranks: cur) op (the child's ranks: x) */
        red = loom_sched_reduce(sched, cur, x, bytes, LOOM_DEPS(recv, last));
        busy[cur == half[0] ? 0 : cur == half[1] ? 1 : 2] = red;
        busy[x == half[0] ? 0 : x == half[1] ? 1 : 2] = red;
        cur = x;
        last = red;
    }

    if (v > 0) {
        send = loom_sched_send(sched, loom_order_vrank_real(o, loom_binomial_parent(v), top, p),
                               LOOM_REDUCE_TAG_TREE, cur, bytes, LOOM_DEPS(last));
    } else if (r == root) {
        /* One child and in place, or no child at all: the result is still
         * elsewhere. */
        loom_sched_copy(sched, cur, recvbuf, bytes, LOOM_DEPS(last));
    } else {
        loom_sched_send(sched, root, LOOM_REDUCE_TAG_ROOT, cur, bytes, LOOM_DEPS(last));
    }
    if (r == root && v > 0) {
        /* Rank order kept the result at rank 0; what it overwrites (the
         * input, in place) must have been read first. */
        loom_sched_recv(sched, top, LOOM_REDUCE_TAG_ROOT, recvbuf, bytes,
                        LOOM_DEPS(send, last));
    }
out:
    return loom_sched_plan_done(sched, sched_p);
}
