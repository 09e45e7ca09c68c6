/*
 * Reduce-scatter + gather reduce (Rabenseifner's reduce): a reduce-scatter
 * by recursive halving leaves each rank with the full reduction of one
 * block, then a binomial gather, the halving's rounds in reverse, brings
 * the blocks to one rank.
 *
 *   reduce-scatter, rounds k = 0..log2(p)-1, partner v ^ 2^k: keep half
 *     of the current range of blocks (the lower half on the lower rank),
 *     send the other half, reduce the partner's copy of the kept half in.
 *   gather, k = log2(p)-1..0: the rank with bit k set sends the range it
 *     holds to its partner and is done; the partner appends it.
 *
 *   ranges (p = 4):  rank 0: [0,4) -> [0,2) -> [0,1) ... -> [0,2) -> [0,4)
 *                    rank 1: [0,4) -> [2,4) -> [2,3) -> sends [2,3) to 0
 *
 * Non-powers of two first fold the first 2*rem ranks in pairs (the lower
 * rank's vector goes to the higher one, see loom_fold_t).  Commutative ops
 * number the positions of the team's rank order (loom_sched_reduce_order)
 * from the root's so that the gather ends there; non-commutative
 * ones keep real ranks (every combination joins two contiguous groups, the
 * lower as src: rank order), and the result goes from the gather's end to
 * the root when that is another rank: + alpha + n beta.
 *
 * Cost: log2(p) alpha + (p-1)/p n (beta + gamma) for the reduce-scatter,
 * log2(p) alpha + (p-1)/p n beta for the gather (+ alpha + n (beta +
 * gamma) for the fold).  About 2n beta + n gamma whatever p: it wins for
 * large n, where the binomial tree moves and reduces log2(p) n.
 *
 * Working memory: the running vector (the receive buffer at the rank the
 * gather ends at when that is the root, scratch elsewhere) and a receive
 * area of n bytes, both from the schedule's scratch.
 *
 * The halving and the gather are the phases of phase.h over the virtual
 * ranks the fold leaves (in shifted numbering), on the running vector
 * cut into p2 blocks; the halving keeps their order for every op.
 */
#include "coll/core/reduce/reduce.h"
#include "coll/core/parts/partition.h"
#include "coll/core/parts/phase.h"
#include "coll/core/engine/tag.h"

#define LOOM_RSG_TAG_FOLD   0
/* The result's way from the gather's end to the root: a step no round uses. */
#define LOOM_RSG_TAG_ROOT   ((uint32_t)LOOM_TAG_MAX_STEPS)

typedef struct loom_rsg {
    loom_cut_t      cut;        /* the running vector in p2 blocks */
    int             p;
    const loom_order_t *order;  /* the schedule's reduce order (NULL: identity) */
    int             base;       /* the rank at shifted rank 0 (loom_order_vrank) */
    loom_fold_t     fold;
} loom_rsg_t;

/* The real rank of virtual rank v (after the fold, in shifted numbering). */
static int loom_rsg_real(const loom_rsg_t *c, int v)
{
    return loom_order_vrank_real(c->order, loom_fold_real(&c->fold, v), c->base, c->p);
}

/* Blocks [lo, hi) of the running vector. */
static char *loom_rsg_range(const loom_halving_phase_t *ph, int lo, int hi, size_t *bytes_p)
{
    const loom_rsg_t *c = ph->ctx;

    return loom_cut_range(&c->cut, lo, hi, bytes_p);
}

loom_status_t loom_reduce_scatter_gather_plan(const loom_coll_args_t *args,
                                              loom_team_t *team, loom_sched_t **sched_p)
{
    loom_rsg_t c = { .cut = { .count = args->count, .esize = args->elem_size },
                     .p = team->size };
    loom_halving_phase_t ph = { .range = loom_rsg_range, .ctx = &c, .tag_base = 1,
                                .ordered = 1 };
    int p = team->size, r = team->rank, root = args->root, sr, v, top;
    int last = -1, recv, reader = -1, send, input_read = -1, *ranks;
    size_t bytes = args->count * args->elem_size;
    int in_place = args->in_place && r == root;
    const char *in = in_place ? args->recvbuf : args->sendbuf;
    char *scratch, *tmp;
    loom_status_t status;

    if (root < 0 || root >= p) {
        return LOOM_ERR_INVALID_PARAM;
    }
    status = loom_sched_create(team, args, LOOM_REDUCE_SCATTER_GATHER, &ph.sched);
    if (status != LOOM_OK) {
        return status;
    }
    if (bytes == 0) {
        goto out;
    }
    if (p == 1) {
        loom_sched_copy(ph.sched, in, args->recvbuf, bytes, LOOM_NO_DEPS);
        goto out;
    }
    /* Shifted ranks count positions of the rank order (team.h; the
     * identity where rank order must be kept) from base's: the gather
     * ends at virtual rank 0, shifted rank 0 or 1 (1 when the fold pairs
     * shifted rank 0 off); for a commutative op make that the root. */
    c.order = loom_sched_reduce_order(ph.sched);
    c.fold = loom_fold_make(p, 0);
    c.base = args->op.commutative
                 ? loom_order_vrank_real(c.order, -(c.fold.rem > 0), root, p) : 0;
    sr = loom_order_vrank(c.order, r, c.base, p);
    c.fold = loom_fold_make(p, sr);
    c.cut.p = c.fold.p2;
    top = loom_rsg_real(&c, 0);

    /* The running vector is the receive buffer only where the result is
     * wanted and nothing else is received into it. */
    status = loom_sched_alloc_scratch(ph.sched, (r == root && r == top ? 1 : 2) * bytes,
                                      (void **)&scratch);
    if (status != LOOM_OK) {
        goto out;
    }
    tmp = scratch;
    c.cut.buf = r == root && r == top ? args->recvbuf : scratch + bytes;

    /* Fold: the lower rank of a pair hands its vector to the higher one. */
    if (sr < 2 * c.fold.rem && c.fold.vrank < 0) {
        send = loom_sched_send(ph.sched, loom_order_vrank_real(c.order, sr + 1, c.base, p),
                               LOOM_RSG_TAG_FOLD, in,
                               bytes, LOOM_NO_DEPS);
        if (r == root) {
            loom_sched_recv(ph.sched, top, LOOM_RSG_TAG_ROOT, args->recvbuf,
                            bytes, LOOM_DEPS(send));
        }
        goto out;
    }
    if (sr < 2 * c.fold.rem) {
        recv = loom_sched_recv(ph.sched, loom_order_vrank_real(c.order, sr - 1, c.base, p),
                               LOOM_RSG_TAG_FOLD, tmp,
                               bytes, LOOM_NO_DEPS);
        /* buf = (the lower rank: tmp) op (this rank: in) */
        last = loom_sched_copy(ph.sched, in, c.cut.buf, bytes, LOOM_NO_DEPS);
        input_read = last;
        last = loom_sched_reduce(ph.sched, tmp, c.cut.buf, bytes, LOOM_DEPS(recv, last));
        reader = last;
    } else {
        last = loom_sched_copy(ph.sched, in, c.cut.buf, bytes, LOOM_NO_DEPS);
        input_read = last;
    }

    /* The ranks the fold leaves, in shifted order. */
    status = loom_sched_alloc_ints(ph.sched, c.fold.p2, &ranks);
    if (status != LOOM_OK) {
        goto out;
    }
    for (v = 0; v < c.fold.p2; ++v) {
        ranks[v] = loom_rsg_real(&c, v);
    }
    ph.ranks = ranks;
    ph.n = c.fold.p2;
    ph.me = c.fold.vrank;
    ph.tmp = tmp;
    ph.tmp_free = reader;
    ph.last = last;
    loom_phase_halving(&ph);
    /* The gather, the rounds in reverse, until this rank's turn to send. */
    ph.tag_base += (uint32_t)ph.rounds;
    loom_phase_gather(&ph);

    /* Non-commutative: from the gather's end to the root. */
    if (ph.me == 0 && r != root) {
        loom_sched_send(ph.sched, root, LOOM_RSG_TAG_ROOT, c.cut.buf, bytes,
                        LOOM_DEPS(ph.last));
    } else if (r == root && r != top) {
        loom_sched_recv(ph.sched, top, LOOM_RSG_TAG_ROOT, args->recvbuf, bytes,
                        LOOM_DEPS(input_read));
    }
out:
    return loom_sched_plan_done(ph.sched, sched_p);
}
