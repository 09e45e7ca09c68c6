/*
 * Rabenseifner allreduce: a reduce-scatter by recursive halving, then an
 * allgather by recursive doubling.
 *
 *   reduce-scatter, rounds k = 0..log2(p)-1 with partner r ^ 2^k:
 *     keep half of the current range, send the other half, reduce the
 *     partner's copy of the kept half into it.
 *   allgather, the rounds in reverse: send the range held, receive the
 *     partner's, which is the other half of the range of that round.
 *
 *   ranges of rank 0 (p = 4):  [0,4) -> [0,2) -> [0,1) -> [0,2) -> [0,4)
 *
 * Non-powers of two fold the first 2*rem ranks in pairs (allreduce_fold.c).
 *
 * Cost: 2 log2(p) alpha + 2 (p-1)/p n beta + (p-1)/p n gamma.  Moves as
 * little data as ring with only 2 log2(p) latency terms: the choice for
 * medium and large n when p is large enough for ring's 2(p-1) alphas to
 * matter.
 *
 * The partner distance grows (1, 2, 4, ...), so every round combines two
 * contiguous groups of ranks: with the lower group's data as src, a
 * non-commutative op is reduced in rank order (costing a copy back when
 * the partner is the higher group).
 */
#include "coll/core/allreduce/allreduce.h"
#include "coll/core/parts/halving.h"
#include "coll/core/parts/partition.h"

typedef struct loom_rsag {
    loom_sched_t    *sched;
    loom_cut_t      cut;        /* the receive buffer in p2 blocks */
} loom_rsag_t;

loom_status_t loom_allreduce_rabenseifner_plan(const loom_coll_args_t *args,
                                               loom_team_t *team, loom_sched_t **sched_p)
{
    loom_rsag_t c = { .cut = { .buf = args->recvbuf, .count = args->count,
                               .esize = args->elem_size } };
    size_t bytes = args->count * args->elem_size;
    loom_fold_t fold = loom_fold_make(team->size, team->rank);
    loom_halving_t h;
    int rs_send[LOOM_HALVING_MAX_ROUNDS];
    int k, rounds = 0, peer, last, pre, recv, red, scratch_reader, send;
    char *scratch;
    loom_status_t status;

    status = loom_sched_create(team, args, LOOM_ALLREDUCE_RABENSEIFNER, &c.sched);
    if (status != LOOM_OK) {
        return status;
    }
    last = loom_sched_copy_input(c.sched);
    if (team->size == 1 || bytes == 0) {
        goto out;
    }
    status = loom_sched_alloc_scratch(c.sched, bytes, (void **)&scratch);
    if (status != LOOM_OK) {
        goto out;
    }
    pre = loom_fold_pre(c.sched, &fold, c.cut.buf, scratch, bytes, last);
    if (fold.vrank < 0) {
        loom_fold_post(c.sched, &fold, c.cut.buf, bytes, pre);
        goto out;
    }
    last = pre;
    scratch_reader = pre;
    c.cut.p = fold.p2;
    loom_halving_start(&h, c.cut.p);

    /* Reduce-scatter by recursive halving. */
    for (k = 0; (1 << k) < c.cut.p; ++k, ++rounds) {
        peer = loom_fold_real(&fold, fold.vrank ^ (1 << k));
        loom_halving_split(&h, &c.cut, k, fold.vrank & (1 << k));
        send = loom_sched_send(c.sched, peer, (uint32_t)(1 + k), h.sent, h.sent_bytes,
                               LOOM_DEPS(last));
        rs_send[k] = send;
        recv = loom_sched_recv(c.sched, peer, (uint32_t)(1 + k), scratch, h.kept_bytes,
                               LOOM_DEPS(scratch_reader));
        if ((fold.vrank & (1 << k)) != 0 || args->op.commutative) {
            /* The partner's group is lower (or order does not matter). */
            red = loom_sched_reduce(c.sched, scratch, h.kept, h.kept_bytes,
                                    LOOM_DEPS(recv, last));
            scratch_reader = red;
        } else {
            red = loom_sched_reduce(c.sched, h.kept, scratch, h.kept_bytes,
                                    LOOM_DEPS(recv, last));
            red = loom_sched_copy(c.sched, scratch, h.kept, h.kept_bytes, LOOM_DEPS(red));
            scratch_reader = red;
        }
        /* An empty kept range leaves the data as it was. */
        last = red >= 0 ? red : last;
    }

    /* Allgather by recursive doubling, the rounds in reverse. */
    for (k = rounds - 1; k >= 0; --k) {
        peer = loom_fold_real(&fold, fold.vrank ^ (1 << k));
        loom_halving_join(&h, &c.cut, k);
        send = loom_sched_send(c.sched, peer, (uint32_t)(1 + rounds + k), h.kept,
                               h.kept_bytes, LOOM_DEPS(last));
        /* What arrives is the half this rank sent away in round k. */
        recv = loom_sched_recv(c.sched, peer, (uint32_t)(1 + rounds + k), h.sent,
                               h.sent_bytes, LOOM_DEPS(rs_send[k], last));
        last = recv >= 0 ? recv : last;
        (void)send;
    }
    loom_fold_post(c.sched, &fold, c.cut.buf, bytes, last);

out:
    return loom_sched_plan_done(c.sched, sched_p);
}
