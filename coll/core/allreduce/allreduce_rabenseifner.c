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
 *
 * The two are the halving and doubling phases (phase.h) over the virtual
 * ranks the fold leaves, on the receive buffer cut into p2 blocks.  The
 * fold pairs positions of the team's rank order (loom_sched_reduce_order),
 * so the groups are contiguous in that order.
 */
#include "coll/core/allreduce/allreduce.h"
#include "coll/core/parts/partition.h"
#include "coll/core/parts/phase.h"

/* Blocks [lo, hi) of the receive buffer cut into p2 blocks. */
static char *loom_rsag_range(const loom_halving_phase_t *ph, int lo, int hi, size_t *bytes_p)
{
    return loom_cut_range(ph->ctx, lo, hi, bytes_p);
}

loom_status_t loom_allreduce_rabenseifner_plan(const loom_coll_args_t *args,
                                               loom_team_t *team, loom_sched_t **sched_p)
{
    loom_cut_t cut = { .buf = args->recvbuf, .count = args->count, .esize = args->elem_size };
    size_t bytes = args->count * args->elem_size;
    loom_fold_t fold;
    loom_halving_phase_t ph = { .range = loom_rsag_range, .ctx = &cut, .tag_base = 1,
                                .ordered = !args->op.commutative };
    int v, last, pre, *ranks;
    loom_status_t status;

    status = loom_sched_create(team, args, LOOM_ALLREDUCE_RABENSEIFNER, &ph.sched);
    if (status != LOOM_OK) {
        return status;
    }
    /* Groups of positions under a rank order (team.h); of ranks where
     * rank order must be kept. */
    fold = loom_fold_make_ordered(team->size, loom_sched_reduce_order(ph.sched), team->rank);
    last = loom_sched_copy_input(ph.sched);
    if (team->size == 1 || bytes == 0) {
        goto out;
    }
    status = loom_sched_alloc_scratch(ph.sched, bytes, (void **)&ph.tmp);
    if (status != LOOM_OK) {
        goto out;
    }
    pre = loom_fold_pre(ph.sched, &fold, cut.buf, ph.tmp, bytes, last);
    if (fold.vrank < 0) {
        loom_fold_post(ph.sched, &fold, cut.buf, bytes, pre);
        goto out;
    }
    /* The ranks the fold leaves, in order. */
    status = loom_sched_alloc_ints(ph.sched, fold.p2, &ranks);
    if (status != LOOM_OK) {
        goto out;
    }
    for (v = 0; v < fold.p2; ++v) {
        ranks[v] = loom_fold_rank(&fold, v);
    }
    cut.p = fold.p2;
    ph.ranks = ranks;
    ph.n = fold.p2;
    ph.me = fold.vrank;
    ph.last = pre;
    ph.tmp_free = pre;

    loom_phase_halving(&ph);
    ph.tag_base += (uint32_t)ph.rounds;
    loom_phase_doubling(&ph);
    loom_fold_post(ph.sched, &fold, cut.buf, bytes, ph.last);

out:
    return loom_sched_plan_done(ph.sched, sched_p);
}
