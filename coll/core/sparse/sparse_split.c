/*
 * Sparse allreduce by split-and-reduce with a global threshold (after
 * Ok-Topk): each rank owns a region of the index space, reduces the pairs
 * that fall in it, keeps the entries of the sum that pass one threshold
 * every rank shares, and the owners' kept pairs are gathered.
 *
 *   select   (compute)  the caller's select writes this rank's k pairs;
 *                       they are cut by region b[j] <= i < b[j+1] into
 *                       one outgoing block per owner
 *   counts   (p-1 each way) 8 bytes to every other rank: how many pairs
 *                       fall in its region, and this rank's k
 *   tally    (compute)  the run-time length of every incoming block, and
 *                       the call's k, K = ceil(sum of the k / p): every
 *                       rank learns every k here, so all agree on K
 *   pairs    (p-1 each way) the block of region j to its owner
 *   reduce   (compute)  the owner sums its region densely, sources in
 *                       team-rank order 0..p-1 (the bits do not depend
 *                       on arrival), then keeps
 *                         estimate call: its top ceil(K/p) by |sum|
 *                           (ties: the lower index), and reports the
 *                           smallest |sum| it kept, t_j
 *                         other calls: every entry with |sum| >= theta,
 *                           but at most its top B (ties as above)
 *                       never an exact 0; B = ceil(2k/p) for the k
 *                       the caller aims at (sparse.h; kmax if it names
 *                       none), at least 1, at most the widest region
 *   report   (Bruck)    every owner's kept count and t_j, 8 bytes each
 *   decide   (compute)  the arm; on an estimate call theta for the next
 *                       calls = the median of the t_j (the same on
 *                       every rank)
 *   sparse arm: Bruck allgather of fixed slots, one per owner: room for
 *                       B pairs (its report says how many it holds); every
 *                       length is known at plan time, ceil(log2 p)
 *                       rounds; merge: the receive buffer = zeros plus
 *                       every slot's pairs (regions are disjoint: a
 *                       copy, the same bits everywhere)
 *   dense arm:  ring allgather of the owners' dense regions (kept values,
 *                       zeros elsewhere), in the receive buffer
 *   finish   (compute)  estimate call: new bounds at the quantiles of the
 *                       kept indices (each region then holds about as
 *                       many); then the pairs this rank selected that no
 *                       owner kept (under theta, or past an owner's B)
 *                       go to the caller's putback, so error feedback
 *                       returns them to its residual
 *
 * An estimate call is one with no theta yet, or every `every`-th call of
 * the state (loom_sparse_state_create); without a state every call is.
 *
 * Volume per rank, k pairs selected by each rank (spread over the
 * regions), pairs of w = 4 + e bytes, B = ceil(2k/p):
 *   counts  8 (p-1) bytes
 *   pairs   k (p-1)/p pairs                  (all but its own region's)
 *   report  8 (p-1) bytes                    (Bruck: every rank's entry
 *                                             reaches every rank once)
 *   gather  (p-1) slots of B w bytes         (Bruck, as the report)
 * the gather is at most (2k/p + 1)(p-1) pairs (the slots are padded to
 * twice an owner's share), so about 3k(p-1)/p pairs plus (16 + w)(p-1)
 * bytes in all, against allgather's (p-1)k pairs; under Ok-Topk's
 * 6k(p-1)/p while 3kw/p >= 16 + w, i.e. k >= p for floats (at least one
 * pair an owner): below that the fixed bytes a peer dominate.
 * loom_sparse_split_model gives the exact bytes.
 *
 * Time: (2 + 2 ceil(log2 p)) a  +  the bytes above b  +  (k w + n/p e)
 * g for the reduce and p slots' g for the merge.  Each all-to-all posts its
 * p-1 messages at once and costs one a, as loom-sim prices messages in
 * flight together (docs/loom-sim.md, "CPU time per message").  Against
 * allgather ((p-1) a + (p-1) k w b) it saves (p-4) k pairs for about
 * 2 log2 p - (p-3) latencies, i.e. it wins at scale.  The dense arm (a
 * ring: (p-1) a) wins only at densities near e / w, or where a is small.
 *
 * Every rank ends with the same bits: each region is summed on one rank
 * only and copied to the others.  Every rank's state evolves alike: theta
 * and the bounds come from gathered data only.
 *
 * Here: the plan and the model; the compute steps are in
 * sparse_split_steps.c, the state in sparse_state.c.
 */
#include "coll/core/sparse/sparse_split.h"
#include "coll/core/filter/pairs.h"
#include "coll/core/parts/partition.h"
#include "coll/core/parts/phase.h"
#include "coll/core/engine/sched_join.h"
#include "coll/core/engine/tag.h"
#include "common/log.h"

#include <stdint.h>
#include <string.h>

#define LOOM_SPLIT_ALIGN 64

/* What each compute step reads and writes (sched.h), for the verifier. */
static void loom_split_declare(loom_sched_t *sched, const loom_coll_args_t *args,
                               const loom_split_ctx_t *c, const int *step)
{
    size_t n = c->count * c->esize, per = sizeof(size_t) * (size_t)c->p;
    size_t lo = c->b[c->mepos], hi = c->b[c->mepos + 1];
    int sel = step[0], tally = step[1], red = step[2], decide = step[3], merge = step[4];
    int fin = step[5], j;

    loom_sched_compute_reads(sched, sel, args->in_place ? args->recvbuf : args->sendbuf, n);
    loom_sched_compute_writes(sched, sel, c->sel, c->h.sp.kmax * c->w);
    if (c->out_at[c->p] > 0) {
        loom_sched_compute_writes(sched, sel, c->out, c->out_at[c->p] * c->w);
    }
    loom_sched_compute_writes(sched, sel, c->cnt_out, sizeof(uint64_t) * (size_t)c->p);
    loom_sched_compute_writes(sched, sel, c->send_len, per);
    loom_sched_compute_reads(sched, tally, c->cnt_out, sizeof(uint64_t) * (size_t)c->p);
    loom_sched_compute_writes(sched, tally, c->recv_len, per);
    loom_sched_compute_reads(sched, red, c->cnt_out, sizeof(uint64_t) * (size_t)c->p);
    for (j = 0; j < c->p; ++j) {
        if (j != c->mepos) {
            loom_sched_compute_reads(sched, tally, &c->cnt_in[j], sizeof(uint64_t));
            loom_sched_compute_reads(sched, red, &c->cnt_in[j], sizeof(uint64_t));
            loom_sched_compute_reads_len(sched, red, loom_split_in_block(c, j),
                                         c->in_cap * c->w, &c->recv_len[j]);
        }
    }
    loom_sched_compute_reads_len(sched, red, loom_split_out_block(c, c->mepos),
                                 (c->out_at[c->mepos + 1] - c->out_at[c->mepos]) * c->w,
                                 &c->send_len[c->mepos]);
    if (hi > lo) {
        loom_sched_compute_writes(sched, red, c->recvbuf + lo * c->esize, (hi - lo) * c->esize);
    }
    loom_sched_compute_writes(sched, red, loom_split_slot(c, 0), c->slot);
    loom_sched_compute_writes(sched, red, c->rep, sizeof(loom_split_report_t));
    loom_sched_compute_reads(sched, decide, c->rep, sizeof(loom_split_report_t) * (size_t)c->p);
    loom_sched_compute_reads(sched, decide, c->send_len, per);
    loom_sched_compute_reads(sched, merge, c->kb, (size_t)c->p * c->slot);
    loom_sched_compute_reads(sched, merge, c->rep, sizeof(loom_split_report_t) * (size_t)c->p);
    loom_sched_compute_writes(sched, merge, c->recvbuf, n);
    loom_sched_compute_reads(sched, fin, c->recvbuf, n);
    loom_sched_compute_reads(sched, fin, c->sel, c->h.sp.kmax * c->w);
    loom_sched_compute_writes(sched, fin, c->sel, c->h.sp.kmax * c->w);
}

/* The report gather's run: m reports. */
static size_t loom_split_reports_run(const loom_bruck_phase_t *ph, int i, int m)
{
    (void)ph;
    (void)i;
    return (size_t)m * sizeof(loom_split_report_t);
}

/* The kept gather's run: m slots. */
static size_t loom_split_slots_run(const loom_bruck_phase_t *ph, int i, int m)
{
    const loom_split_ctx_t *c = ph->ctx;

    (void)i;
    return (size_t)m * c->slot;
}

/* Block j of the dense ring: region j of the receive buffer. */
static loom_phase_block_t loom_split_region_cut(const loom_phase_cut_t *cut, int j)
{
    const loom_split_ctx_t *c = cut->ctx;
    char *at = c->recvbuf + c->b[j] * c->esize;

    return (loom_phase_block_t){ .at = at, .in = at, .n = c->b[j + 1] - c->b[j] };
}

/* How large each block is, from the bounds (NULL: uniform), before the
 * scratch exists: pairs out to region j, in from each source, kept by
 * owner j; the largest region. */
typedef struct loom_split_sizes {
    int                 p, me, estimate, modeled;
    const size_t        *b;
    size_t              n, kmax, mk;
    size_t              ktarget;    /* what the slots are sized by (sparse.h: k) */
} loom_split_sizes_t;

static size_t loom_split_region(const loom_split_sizes_t *z, int j)
{
    loom_spread_t s = loom_spread(z->n, z->p);

    return z->b != NULL ? z->b[j + 1] - z->b[j] : loom_spread_count(s, j);
}

static size_t loom_split_min(size_t a, size_t b)
{
    return a < b ? a : b;
}

static size_t loom_split_max(size_t a, size_t b)
{
    return a > b ? a : b;
}

static size_t loom_split_out_cap(const loom_split_sizes_t *z, int j)
{
    return z->modeled ? loom_spread_count(loom_spread(z->mk, z->p), j)
                      : loom_split_min(z->kmax, loom_split_region(z, j));
}

static size_t loom_split_in_cap(const loom_split_sizes_t *z)
{
    return z->modeled ? loom_spread_count(loom_spread(z->mk, z->p), z->me)
                      : loom_split_min(z->kmax, loom_split_region(z, z->me));
}

/* The largest region, which bounds B. */
static size_t loom_split_region_max(const loom_split_sizes_t *z)
{
    size_t m = 0;
    int j;

    for (j = 0; j < z->p; ++j) {
        m = loom_split_max(m, loom_split_region(z, j));
    }
    return m;
}

size_t loom_split_cap(int p, size_t kmax, size_t region_max)
{
    size_t b = (2 * kmax + (size_t)p - 1) / (size_t)p;

    b = loom_split_min(b, region_max);
    return b > 0 ? b : 1;
}

static size_t loom_split_round_up(size_t n)
{
    return (n + LOOM_SPLIT_ALIGN - 1) / LOOM_SPLIT_ALIGN * LOOM_SPLIT_ALIGN;
}

/* Tag steps: counts, pairs, the reports, the kept gather and the dense
 * ring (its segments are cut over all of them, as sparse_allgather.c
 * does). */
static uint64_t loom_split_rounds(int p)
{
    return 2 + 2 * (uint64_t)loom_halving_rounds(p) + (uint64_t)(p - 1);
}

static loom_status_t loom_split_check(const loom_coll_args_t *args, const loom_team_t *team)
{
    loom_status_t status = loom_sparse_check_args(args, "split");

    if (status != LOOM_OK) {
        return status;
    }
    if (loom_split_rounds(team->size) > LOOM_TAG_MAX_STEPS) {
        return LOOM_ERR_UNSUPPORTED;
    }
    return LOOM_OK;
}

/* The state's part of the plan: its bounds (NULL: uniform) and whether
 * this call estimates; counts the call. */
static loom_status_t loom_split_state_use(loom_sparse_state_t *s, int p, size_t n,
                                          loom_split_sizes_t *z)
{
    loom_status_t status;

    z->estimate = 1;
    z->b = NULL;
    if (s == NULL || z->modeled) {
        return LOOM_OK;
    }
    status = loom_split_state_fit(s, p, n);
    if (status != LOOM_OK) {
        return status;
    }
    z->b = s->b;
    z->estimate = !s->theta_set || s->calls % s->every == 0;
    ++s->calls;
    return LOOM_OK;
}

/* The next area of the scratch s, of bytes, at *at; *at moves past it. */
static void *loom_split_take(char *s, size_t *at, size_t bytes)
{
    void *p = s + *at;

    *at += loom_split_round_up(bytes);
    return p;
}

/* Carves the scratch; fills the bounds and the offsets from z. */
static loom_status_t loom_split_carve(loom_sched_t *sched, const loom_split_sizes_t *z,
                                      size_t w, loom_split_ctx_t *proto, loom_split_ctx_t **c_p)
{
    size_t per = loom_split_round_up(sizeof(size_t) * ((size_t)z->p + 1));
    size_t mag = loom_split_round_up(sizeof(double) *
                                     (loom_split_region(z, z->me) + (size_t)z->p));
    size_t out = 0, at, total;
    loom_status_t status;
    loom_split_ctx_t *c;
    char *s;
    int j;

    for (j = 0; j < z->p; ++j) {
        out += loom_split_out_cap(z, j);
    }
    proto->in_cap = loom_split_in_cap(z);
    proto->bcap = loom_split_cap(z->p, z->ktarget, loom_split_region_max(z));
    proto->slot = loom_split_slot_bytes(proto->bcap, w);
    total = loom_split_round_up(sizeof(*c)) + 6 * per +
            loom_split_round_up(sizeof(loom_split_report_t) * (size_t)z->p) + mag +
            loom_split_round_up(z->kmax * w) + loom_split_round_up(out * w) +
            loom_split_round_up((size_t)z->p * proto->in_cap * w) +
            loom_split_round_up((size_t)z->p * proto->slot);
    status = loom_sched_alloc_scratch(sched, total, (void **)&s);
    if (status != LOOM_OK) {
        return status;
    }
    c = (loom_split_ctx_t *)(void *)s;
    *c = *proto;
    at = loom_split_round_up(sizeof(*c));
    c->b = loom_split_take(s, &at, per);
    c->out_at = loom_split_take(s, &at, per);
    c->cnt_out = loom_split_take(s, &at, per);
    c->cnt_in = loom_split_take(s, &at, per);
    c->send_len = loom_split_take(s, &at, per);
    c->recv_len = loom_split_take(s, &at, per);
    c->rep = loom_split_take(s, &at, sizeof(loom_split_report_t) * (size_t)z->p);
    c->mag = loom_split_take(s, &at, mag);
    c->sel = loom_split_take(s, &at, z->kmax * w);
    c->out = loom_split_take(s, &at, out * w);
    c->in = loom_split_take(s, &at, (size_t)z->p * proto->in_cap * w);
    c->kb = loom_split_take(s, &at, (size_t)z->p * proto->slot);
    c->out_at[0] = 0;
    for (j = 0; j < z->p; ++j) {
        c->b[j] = z->b != NULL ? z->b[j] : loom_spread_offset(loom_spread(z->n, z->p), j);
        c->out_at[j + 1] = c->out_at[j] + loom_split_out_cap(z, j);
    }
    c->b[z->p] = z->n;
    *c_p = c;
    return LOOM_OK;
}

/* The two all-to-all exchanges, peers d = 1 .. p-1 positions away (a
 * rank's schedule is its neighbour's rotated): the counts, then the
 * pairs; returns the reduce step, which waits for both. */
static int loom_split_exchange(loom_sched_t *sched, loom_split_ctx_t *c, int sel, int *steps,
                               int *tally_p)
{
    int d, to, from, p = c->p, tally;

    for (d = 1; d < p; ++d) {
        to = (c->mepos + d) % p;
        from = (c->mepos + p - d) % p;
        loom_sched_send(sched, c->ranks[to], 0, &c->cnt_out[to], sizeof(uint64_t),
                        LOOM_DEPS(sel));
        steps[d - 1] = loom_sched_recv(sched, c->ranks[from], 0, &c->cnt_in[from],
                                       sizeof(uint64_t), LOOM_NO_DEPS);
    }
    steps[p - 1] = sel;
    tally = loom_sched_compute(sched, loom_split_tally_step, c, sizeof(uint64_t) * (size_t)p,
                               LOOM_DEPS(loom_sched_join_steps(sched, steps, p)));
    for (d = 1; d < p; ++d) {
        to = (c->mepos + d) % p;
        from = (c->mepos + p - d) % p;
        loom_sched_send_len(sched, c->ranks[to], 1, loom_split_out_block(c, to),
                            (c->out_at[to + 1] - c->out_at[to]) * c->w, &c->send_len[to],
                            LOOM_DEPS(sel));
        steps[d - 1] = loom_sched_recv_len(sched, c->ranks[from], 1, loom_split_in_block(c, from),
                                           c->in_cap * c->w, &c->recv_len[from],
                                           LOOM_DEPS(tally));
    }
    steps[p - 1] = tally;
    *tally_p = tally;
    return loom_sched_compute(sched, loom_split_reduce_step, c,
                              (c->b[c->mepos + 1] - c->b[c->mepos]) * c->esize +
                                  c->h.sp.kmax * c->w,
                              LOOM_DEPS(loom_sched_join_steps(sched, steps, p)));
}

/* The two arms after decide; returns the step the finish waits for
 * besides the merge.  last: p * segs->nseg_max ints (and at least p). */
static int loom_split_arms(loom_sched_t *sched, loom_split_ctx_t *c, const loom_segs_t *segs,
                           int decide, uint32_t tag, int *last, int *merge_p)
{
    int p = c->p, i, nlast = p * segs->nseg_max;
    loom_bruck_phase_t bruck;
    loom_ring_phase_t ring;

    /* The sparse arm: the slots by Bruck, ceil(log2 p) rounds of lengths
     * the plan knows, then the merge. */
    loom_sched_build_arm(sched, LOOM_SPARSE_PATH_SPARSE);
    bruck = (loom_bruck_phase_t){ .sched = sched, .ranks = c->ranks, .n = p, .me = c->mepos,
                                  .run = loom_split_slots_run, .ctx = c, .tag_base = tag,
                                  .tmp = c->kb, .last = decide };
    loom_phase_bruck(&bruck);
    *merge_p = loom_sched_compute(sched, loom_split_merge_step, c, c->count * c->esize,
                                  LOOM_DEPS(bruck.last));

    /* The dense arm: the owners' regions around the ring, in place. */
    loom_sched_build_arm(sched, LOOM_SPARSE_PATH_DENSE);
    ring = (loom_ring_phase_t){
        .sched = sched, .ranks = c->ranks, .n = p, .me = c->mepos,
        .cut = { .block = loom_split_region_cut, .esize = c->esize, .ctx = c },
        .segs = *segs, .tag_base = tag + (uint32_t)loom_halving_rounds(p), .last = last,
    };
    for (i = 0; i < nlast; ++i) {
        last[i] = decide;
    }
    loom_phase_ag_ring(&ring);
    loom_sparse_rotate(last, nlast, c->mepos * segs->nseg_max);
    i = loom_sched_join_steps(sched, last, nlast);
    loom_sched_build_arm(sched, 0);
    return i >= 0 ? i : decide;
}

/* What the compute steps would have found, for the simulator: every
 * rank's k spread evenly over the regions, each owner keeping
 * ceil(k/p) (the slots' lengths do not depend on it); decide then sets
 * the arm. */
static void loom_split_model_lengths(loom_sched_t *sched, loom_split_ctx_t *c, size_t mk)
{
    loom_status_t status;
    int j;

    c->k_call = mk;
    c->h.out.pairs = mk;
    c->h.out.union_bound = mk * (size_t)c->p;
    for (j = 0; j < c->p; ++j) {
        c->send_len[j] = loom_pairs_bytes(c->out_at[j + 1] - c->out_at[j], c->type);
        c->recv_len[j] = j == c->mepos ? 0 : loom_pairs_bytes(c->in_cap, c->type);
        c->rep[j] = (loom_split_report_t){
            .kept = (uint32_t)loom_split_min(loom_split_min((mk + (size_t)c->p - 1) / (size_t)c->p,
                                                  c->bcap),
                                   c->b[(c->mepos + j) % c->p + 1] - c->b[(c->mepos + j) % c->p]),
        };
    }
    status = loom_split_decide_step(sched, c);
    if (status != LOOM_OK) {
        sched->build_status = status;
    }
}

loom_status_t loom_sparse_split_plan(const loom_coll_args_t *args, loom_team_t *team,
                                     loom_sched_t **sched_p)
{
    const loom_sparse_args_t *sp = args->sparse;
    int p = team->size, i, step[6], nlast, *ints, *last;
    loom_split_sizes_t z;
    loom_split_ctx_t proto, *c;
    loom_bruck_phase_t bruck;
    const loom_order_t *o;
    loom_status_t status;
    loom_sched_t *sched;
    loom_segs_t segs;

    status = loom_split_check(args, team);
    if (status != LOOM_OK) {
        return status;
    }
    status = loom_sched_create(team, args, LOOM_SPARSE_SPLIT, &sched);
    if (status != LOOM_OK || args->count == 0) {
        return status != LOOM_OK ? status : loom_sched_plan_done(sched, sched_p);
    }
    o = loom_sched_reduce_order(sched);
    z = (loom_split_sizes_t){ .p = p, .me = loom_order_pos(o, team->rank),
                              .modeled = sp->modeled, .n = args->count,
                              .kmax = loom_split_min(sp->kmax, args->count) };
    z.mk = loom_split_min(sp->model_k, z.kmax);
    /* A sampled selection's bound is well above the k it aims at: slots
     * sized by the bound would carry mostly padding. */
    z.ktarget = sp->k > 0 ? loom_split_min(sp->k, z.kmax) : z.kmax;
    status = loom_split_state_use(sp->state, p, args->count, &z);
    if (status != LOOM_OK) {
        sched->build_status = status;
        goto out;
    }
    proto = (loom_split_ctx_t){
        .h = { .sp = *sp, .out = { .alg = LOOM_SPARSE_SPLIT, .dense_stage = -1 } },
        .p = p, .me = team->rank, .mepos = z.me, .recvbuf = args->recvbuf,
        .count = args->count, .esize = args->elem_size,
        .type = args->elem_size == 4 ? LOOM_FILTER_FLOAT : LOOM_FILTER_DOUBLE,
        .state = z.modeled ? NULL : sp->state, .estimate = z.estimate,
        .theta = sp->state != NULL ? sp->state->theta : 0,
    };
    proto.w = loom_pairs_bytes(1, proto.type);
    proto.h.sp.kmax = z.kmax;
    status = loom_split_carve(sched, &z, proto.w, &proto, &c);
    if (status != LOOM_OK) {
        goto out;
    }
    segs = loom_segs_make(args->seg_bytes, args->elem_size, loom_split_region_max(&z),
                          loom_split_rounds(p));
    nlast = p * segs.nseg_max;
    status = loom_sched_alloc_ints(sched, 3 * p + (nlast > p ? nlast : p), &ints);
    if (status != LOOM_OK) {
        goto out;
    }
    for (i = 0; i < p; ++i) {
        ints[i] = loom_order_at(o, i);
        ints[p + loom_order_at(o, i)] = i;
    }
    c->ranks = ints;
    c->posof = ints + p;
    last = ints + 3 * p;

    step[0] = loom_sched_compute(sched, loom_split_select_step, c,
                                 args->count * args->elem_size, LOOM_NO_DEPS);
    step[2] = loom_split_exchange(sched, c, step[0], ints + 2 * p, &step[1]);
    bruck = (loom_bruck_phase_t){ .sched = sched, .ranks = c->ranks, .n = p, .me = c->mepos,
                                  .run = loom_split_reports_run, .ctx = c, .tag_base = 2,
                                  .tmp = (char *)c->rep, .last = step[2] };
    loom_phase_bruck(&bruck);
    step[3] = loom_sched_compute(sched, loom_split_decide_step, c,
                                 (size_t)p * sizeof(loom_split_report_t),
                                 LOOM_DEPS(bruck.last));
    i = loom_split_arms(sched, c, &segs, step[3], 2 + (uint32_t)loom_halving_rounds(p), last,
                        &step[4]);
    /* The finish reads the whole result only when it rebalances. */
    step[5] = loom_sched_compute(sched, loom_split_finish_step, c,
                                 c->state != NULL && c->estimate
                                     ? args->count * args->elem_size
                                     : z.kmax * proto.w,
                                 LOOM_DEPS(step[4], i));
    loom_split_declare(sched, args, c, step);
    if (z.modeled) {
        loom_split_model_lengths(sched, c, z.mk);
    }
out:
    return loom_sched_plan_done(sched, sched_p);
}

/* ----------------------------------------------------------- the model */

/* The two all-to-all phases post their p-1 messages at once, so each
 * costs one alpha plus its bytes: loom-sim prices messages in flight
 * together one alpha (docs/loom-sim.md, "CPU time per message").  The
 * Bruck gathers cost a round's alpha each, the dense ring p-1. */
int loom_split_dense_wins(const loom_cost_t *m, int p, size_t n, size_t esize, size_t slot)
{
    double t_sparse = loom_halving_rounds(p) * m->alpha +
                      (double)loom_split_bruck_sent(p, slot) * m->beta +
                      (double)(n * esize + (size_t)p * slot) * m->gamma;
    double t_dense = (p - 1) * m->alpha + (double)(n * esize) * (p - 1) / p * m->beta;

    return t_dense < t_sparse;
}

double loom_sparse_split_model(const loom_cost_t *m, int p, size_t n, size_t esize, size_t k,
                               size_t *bytes_p)
{
    size_t w = 4 + esize, slot, pairs, arm, bytes;
    loom_spread_t spread = loom_spread(n, p);
    int rounds = loom_halving_rounds(p), dense;
    double t;

    if (p <= 1) {
        *bytes_p = 0;
        return (double)(k * w + 2 * n * esize) * m->gamma;
    }
    k = loom_split_min(k, n);
    /* Rank 0's view: its k spread over the regions, all but its own sent. */
    pairs = k - loom_spread_count(loom_spread(k, p), 0);
    slot = loom_split_slot_bytes(loom_split_cap(p, k, loom_spread_max(spread)), w);
    /* The slots by Bruck, or the ring of the dense regions, every one but
     * the right neighbour's, when that costs less (decide's rule). */
    dense = loom_split_dense_wins(m, p, n, esize, slot);
    arm = dense ? n * esize - loom_spread_count(spread, 1) * esize
                : loom_split_bruck_sent(p, slot);
    bytes = 8 * (size_t)(p - 1) + pairs * w +
            loom_split_bruck_sent(p, sizeof(loom_split_report_t)) + arm;
    /* gamma: the reduce and the pairs the merge copies; zeroing the
     * result is left out, as the other algorithms' models leave out
     * theirs, so that the choice among them compares like with like. */
    t = (2.0 + rounds + (dense ? p - 1 : rounds)) * m->alpha + (double)bytes * m->beta +
        (double)(k * w + n / (size_t)p * esize + (dense ? 0 : (size_t)p * slot)) * m->gamma;
    *bytes_p = bytes;
    return t;
}
