/*
 * Recursive halving reduce_scatter(_block), for any p and any op.
 *
 * On p2 = 2^m ranks: in round k = 0..m-1 each rank exchanges with the rank
 * 2^k away, keeps half of the blocks it is responsible for, sends the
 * other half and reduces the partner's copy of the kept half into its own.
 * After m rounds each rank holds one block, reduced over all ranks.
 *
 *   p = 4 (positions, see below): rank 0 keeps [0,4) -> [0,2) -> [0,1)
 *                                 rank 1 keeps [0,4) -> [2,4) -> [2,3)
 *
 * The partner distance grows (1, 2, 4, ...), so each round combines two
 * adjacent groups of ranks (0-1 with 2-3, ...), and with the lower group's
 * data as src a non-commutative op is reduced in rank order (costing a
 * copy back when the partner is the higher group).  The price of that
 * order: the block a rank ends with is selected by its bits from the
 * lowest up, the bit-reversal of its rank.  So the rank first copies its
 * input into a scratch buffer in bit-reversed block order (position i
 * holds the block of rank bitrev(i)); the halves of every round are then
 * contiguous, one message each, and rank v ends with position bitrev(v),
 * which holds its own block.  The input has to be copied anyway: out of
 * place it must not be written, in place the result goes to the start.
 * The growing distance also suits a hierarchy, commutative ops included:
 * the first, largest halves go to the nearest ranks (on the same node
 * when ranks fill nodes in order) and only the last, smallest ones cross
 * racks.  The shrinking distance (p2/2 first) needs no reordering copies
 * but sends half the vector across racks first; on loom-sim's default
 * cluster it was 1.3 to 5 times slower from 16 ranks up at 1 MiB and
 * 16 MiB (2026-12-01).
 *
 * Non-powers of two fold first (loom_fold_t): of the first 2*rem ranks
 * each even one sends its whole input to the odd one above it, which
 * reduces it in (the even one is the lower: src) and then stands for both
 * as one virtual rank whose block is the pair's two blocks.  At the end it
 * sends the even rank its part.  Virtual ranks are contiguous in rank
 * order, so rank order survives the fold.
 *
 * Cost: log2(p2) alpha + (p2-1)/p2 n (beta + gamma) + n of local copies,
 * for n bytes of input; the fold adds 2 alpha + n beta + n gamma +
 * 2 n/p beta.  Few rounds and no more bytes than the ring: it wins for
 * small n; for large n the ring overlaps transfer with reduction and
 * needs neither the copies nor the fold.
 *
 * The rounds are the halving phase (phase.h) over the virtual ranks the
 * fold leaves; its block i is position i of the scratch copy, so virtual
 * rank v, which ends with block bitrev(v), ends with its own data.
 *
 * Under a rank order (loom_sched_reduce_order: the identity for the
 * reproducible mode; a non-commutative op never gets here with one) all
 * of the above counts positions of the order instead of ranks: the fold
 * pairs positions, virtual rank v stands for the ranks at its positions,
 * and the scratch copy holds, at the place of a virtual rank, the input
 * blocks of the ranks it stands for.  Blocks stay their ranks'.
 */
#include "coll/core/reduce_scatter/reduce_scatter.h"
#include "coll/core/parts/blocks.h"
#include "coll/core/parts/partition.h"
#include "coll/core/parts/phase.h"
#include "coll/core/engine/sched_join.h"

#define LOOM_RSHALF_ALIGN   64
#define LOOM_RSHALF_TAG_PRE 0

static size_t loom_rshalf_align(size_t bytes)
{
    return (bytes + LOOM_RSHALF_ALIGN - 1) / LOOM_RSHALF_ALIGN * LOOM_RSHALF_ALIGN;
}

static int loom_rshalf_bitrev(int i, int bits)
{
    int out = 0, k;

    for (k = 0; k < bits; ++k) {
        out |= ((i >> k) & 1) << (bits - 1 - k);
    }
    return out;
}

/* The input copied in position order: position i at w + pos[i]. */
typedef struct loom_rshalf_copy {
    char            *w;
    const size_t    *pos;   /* p2 + 1 byte offsets */
} loom_rshalf_copy_t;

/* Positions [lo, hi) of the copy, back to back. */
static char *loom_rshalf_range(const loom_halving_phase_t *ph, int lo, int hi,
                               size_t *bytes_p)
{
    const loom_rshalf_copy_t *c = ph->ctx;

    *bytes_p = c->pos[hi] - c->pos[lo];
    return c->w + c->pos[lo];
}

/* The first position, and how many, that virtual rank v stands for. */
static int loom_rshalf_first(const loom_fold_t *f, int v, int *n_p)
{
    *n_p = v < f->rem ? 2 : 1;
    return v < f->rem ? 2 * v : v + f->rem;
}

loom_status_t loom_reduce_scatter_halving_plan(const loom_coll_args_t *args,
                                               loom_team_t *team, loom_sched_t **sched_p)
{
    int p = team->size, r = team->rank, bits, i, v, n, first, start, recv, red, send;
    int mpos, k, m, q;
    loom_fold_t fold;
    const loom_order_t *o;
    size_t esize = args->elem_size, total_bytes, own_bytes, below, pos_bytes, bytes;
    char *buf = args->recvbuf, *scratch, *w, *rbuf, *result, *dst;
    size_t *pos;   /* byte offset of each position in w; p2 + 1 entries */
    const char *in = args->in_place ? buf : (const char *)args->sendbuf;
    loom_rshalf_copy_t copy;
    loom_halving_phase_t ph = { .range = loom_rshalf_range, .ctx = &copy, .tag_base = 1,
                                .ordered = !args->op.commutative };
    loom_blocks_t blocks;
    int *ranks;
    loom_status_t status;

    status = loom_blocks_init(&blocks, p, args->count, args->counts, NULL);
    if (status != LOOM_OK) {
        return status;
    }
    status = loom_sched_create(team, args, LOOM_REDUCE_SCATTER_HALVING, &ph.sched);
    if (status != LOOM_OK) {
        loom_blocks_fini(&blocks);
        return status;
    }
    o = loom_sched_reduce_order(ph.sched);
    mpos = loom_order_pos(o, r);
    fold = loom_fold_make(p, mpos);
    total_bytes = blocks.total * esize;
    own_bytes = loom_blocks_count(&blocks, r) * esize;
    if (p == 1 || total_bytes == 0) {
        if (!args->in_place) {
            loom_sched_copy(ph.sched, in, buf, own_bytes, LOOM_NO_DEPS);
        }
        goto out;
    }
    bits = loom_halving_rounds(fold.p2);

    if (fold.vrank < 0) {
        /* Sits out: hand the input up, get the block back.  In place the
         * result may land only once the input has left. */
        send = loom_sched_send(ph.sched, loom_order_at(o, mpos + 1), LOOM_RSHALF_TAG_PRE, in,
                               total_bytes, LOOM_NO_DEPS);
        loom_sched_recv(ph.sched, loom_order_at(o, mpos + 1), (uint32_t)(bits + 1), buf,
                        own_bytes, args->in_place ? LOOM_DEPS(send) : LOOM_NO_DEPS);
        goto out;
    }

    pos_bytes = loom_rshalf_align(sizeof(size_t) * (size_t)(fold.p2 + 1));
    status = loom_sched_alloc_scratch(ph.sched, pos_bytes + 2 * loom_rshalf_align(total_bytes),
                                      (void **)&scratch);
    if (status != LOOM_OK) {
        goto out;
    }
    pos = (size_t *)scratch;
    w = scratch + pos_bytes;
    rbuf = w + loom_rshalf_align(total_bytes);
    pos[0] = 0;
    for (i = 0; i < fold.p2; ++i) {
        first = loom_rshalf_first(&fold, loom_rshalf_bitrev(i, bits), &n);
        pos[i + 1] = pos[i];
        for (k = 0; k < n; ++k) {
            pos[i + 1] += loom_blocks_count(&blocks, loom_order_at(o, first + k)) * esize;
        }
    }

    /* The input in position order; a folded pair's odd rank reduces the
     * even rank's input (the lower: src) in on the way.  The blocks of a
     * virtual rank's ranks go in one copy where they lie back to back in
     * the input (always without an order). */
    start = ph.sched->nsteps;
    recv = mpos < 2 * fold.rem
               ? loom_sched_recv(ph.sched, loom_order_at(o, mpos - 1), LOOM_RSHALF_TAG_PRE,
                                 rbuf, total_bytes, LOOM_NO_DEPS)
               : -1;
    for (i = 0; i < fold.p2; ++i) {
        v = loom_rshalf_bitrev(i, bits);
        first = loom_rshalf_first(&fold, v, &n);
        dst = w + pos[i];
        for (k = 0; k < n; k += m) {
            q = loom_order_at(o, first + k);
            m = 1;
            while (k + m < n && loom_order_at(o, first + k + m) == q + m) {
                ++m;
            }
            below = loom_blocks_packed(&blocks, q) * esize;
            bytes = loom_blocks_run(&blocks, q, m) * esize;
            red = loom_sched_copy(ph.sched, in + below, dst, bytes, LOOM_NO_DEPS);
            if (recv >= 0) {
                loom_sched_reduce(ph.sched, rbuf + below, dst, bytes, LOOM_DEPS(recv, red));
            }
            dst += bytes;
        }
    }

    /* The ranks the fold leaves, in position order. */
    status = loom_sched_alloc_ints(ph.sched, fold.p2, &ranks);
    if (status != LOOM_OK) {
        goto out;
    }
    for (v = 0; v < fold.p2; ++v) {
        ranks[v] = loom_order_at(o, loom_fold_real(&fold, v));
    }
    copy = (loom_rshalf_copy_t){ .w = w, .pos = pos };
    ph.ranks = ranks;
    ph.n = fold.p2;
    ph.me = fold.vrank;
    ph.tmp = rbuf;
    ph.last = loom_sched_join(ph.sched, start, ph.sched->nsteps);
    ph.tmp_free = ph.last;   /* of rbuf */
    loom_phase_halving(&ph);

    /* Position lo = bitrev(vrank) holds this virtual rank's block(s). */
    result = w + pos[ph.lo];
    if (mpos < 2 * fold.rem) {
        below = loom_blocks_count(&blocks, loom_order_at(o, mpos - 1)) * esize;
        loom_sched_send(ph.sched, loom_order_at(o, mpos - 1), (uint32_t)(bits + 1), result,
                        below, LOOM_DEPS(ph.last));
        result += below;
    }
    loom_sched_copy(ph.sched, result, buf, own_bytes, LOOM_DEPS(ph.last));

out:
    loom_blocks_fini(&blocks);
    return loom_sched_plan_done(ph.sched, sched_p);
}
