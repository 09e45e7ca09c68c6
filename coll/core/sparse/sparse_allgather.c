/*
 * Sparse allreduce by allgather of (index, value) pairs, dense when the
 * pairs would cost more.
 *
 *   select   (compute)  the caller's select writes this rank's k pairs
 *                       into its block
 *   sizes    (Bruck)    every rank's k, 8 bytes each, to every rank:
 *                       ceil(log2 p) rounds
 *   decide   (compute)  from the sizes, the same on every rank: K = sum
 *                       of the k, the run-time length of every block, and
 *                       the arm (sched.h) the schedule takes
 *   sparse arm:
 *     ring allgather of the blocks, each of its run-time length
 *     merge  (compute)  the receive buffer = the sum of every rank's
 *                       pairs, added in rank order 0..p-1
 *   dense arm:
 *     densify (compute) the receive buffer = this rank's pairs, zeros
 *                       elsewhere
 *     ring allreduce (reduce-scatter ring, allgather ring) in place
 *
 *   blocks in scratch, one per rank, each as large as kmax pairs:
 *     [rank 0: k0 pairs ...][rank 1: k1 pairs ...] ... [rank p-1 ...]
 *
 * Cost, n elements of e bytes, pairs of w = 4 + e bytes:
 *   sparse  (p-1) a + K w b + K w g            (every block passes every
 *                                               rank once; merged once)
 *   dense   2(p-1) a + 2(p-1)/p n e b + (p-1)/p n e g
 * plus, on both, ceil(log2 p) a for the sizes.  The decision prices both
 * with the caller's model (args->sparse->cost) and takes the cheaper.
 * K counts pairs with repeats: where ranks chose the same indices the
 * union is smaller, so the sparse arm is priced at its upper bound.
 *
 * Every rank ends with the same bits: the merge adds the ranks' pairs in
 * one order on every rank, and the dense ring reduces each block on one
 * rank and copies it to the others.
 *
 * The ring and Bruck phases place ranks by the team's rank order (the
 * merge's rank order does not follow it: the sum is the same, and its
 * bits must not depend on where ranks sit).
 */
#include "coll/core/sparse/sparse.h"
#include "coll/core/filter/pairs.h"
#include "coll/core/parts/partition.h"
#include "coll/core/parts/phase.h"
#include "coll/core/engine/sched_join.h"
#include "coll/core/engine/tag.h"
#include "common/log.h"

#include <stdint.h>
#include <string.h>

#define LOOM_SPARSE_DEPTH 4
#define LOOM_SPARSE_ALIGN 64

/* The schedule's own state, at the start of its scratch. */
typedef struct loom_sparse_ctx {
    loom_sparse_head_t      h;          /* first: sparse.h */
    int                     p;
    int                     me;         /* team rank */
    int                     mepos;      /* position in the rank order */
    const int               *ranks;     /* position -> team rank */
    char                    *recvbuf;
    size_t                  count;
    size_t                  esize;
    loom_filter_type_t      type;
    size_t                  bound;      /* bytes of a block of kmax pairs */
    char                    *blocks;    /* p blocks of bound bytes, by team rank */
    uint64_t                *sizes;     /* the Bruck gather: k of positions mepos, mepos+1, ... */
    size_t                  *len;       /* bytes of each position's block, set by decide */
    size_t                  *k;         /* pairs of each team rank, set by decide */
} loom_sparse_ctx_t;

static size_t loom_sparse_round_up(size_t n)
{
    return (n + LOOM_SPARSE_ALIGN - 1) / LOOM_SPARSE_ALIGN * LOOM_SPARSE_ALIGN;
}

static loom_status_t loom_sparse_select_step(loom_sched_t *sched, void *arg)
{
    loom_sparse_ctx_t *c = arg;
    size_t k = 0;
    loom_status_t status;

    (void)sched;
    status = c->h.sp.select(c->h.sp.ctx, c->blocks + (size_t)c->me * c->bound, &k);
    if (status != LOOM_OK) {
        return status;
    }
    if (k > c->h.sp.kmax || k > c->count) {
        loom_error("coll", "sparse allreduce: the selection gave %zu pairs, more than its "
                   "bound of %zu (and the vector's %zu elements)", k, c->h.sp.kmax, c->count);
        return LOOM_ERR_INVALID_PARAM;
    }
    c->h.out.pairs = k;
    c->sizes[0] = k;
    return LOOM_OK;
}

/* Bytes of the sizes gather this rank sends: min(d, p - d) sizes in
 * round d = 1, 2, 4, ... (phase.h, Bruck). */
static size_t loom_sparse_sizes_sent(int p)
{
    size_t bytes = 0;
    int d;

    for (d = 1; d < p; d *= 2) {
        bytes += sizeof(uint64_t) * (size_t)(d < p - d ? d : p - d);
    }
    return bytes;
}

/* What the dense ring sends from this position: every block but one in
 * each of its two phases (allreduce_ring.c). */
static size_t loom_sparse_dense_sent(const loom_sparse_ctx_t *c)
{
    loom_spread_t s = loom_spread(c->count, c->p);
    int skip_rs = c->mepos, skip_ag = (c->mepos + 1) % c->p, j;
    size_t n = 0;

    for (j = 0; j < c->p; ++j) {
        /* Phase block j is the buffer's block j + 1 (allreduce_ring.c). */
        size_t b = loom_spread_count(s, (j + 1) % c->p);

        n += (j != skip_rs ? b : 0) + (j != skip_ag ? b : 0);
    }
    return n * c->esize;
}

static loom_status_t loom_sparse_decide_step(loom_sched_t *sched, void *arg)
{
    loom_sparse_ctx_t *c = arg;
    const loom_cost_t *m = &c->h.sp.cost;
    double w, n, t_sparse, t_dense;
    size_t total = 0, sent = 0;
    int j, r, dense;

    for (j = 0; j < c->p; ++j) {
        /* sizes[j]: the k of position mepos + j. */
        int pos = (c->mepos + j) % c->p;

        r = c->ranks[pos];
        if (c->sizes[j] > c->h.sp.kmax) {
            loom_error("coll", "sparse allreduce: rank %d announced %llu pairs, more than "
                       "the bound of %zu every rank plans with", r,
                       (unsigned long long)c->sizes[j], c->h.sp.kmax);
            return LOOM_ERR_INVALID_PARAM;
        }
        c->k[r] = (size_t)c->sizes[j];
        c->len[pos] = loom_pairs_bytes(c->k[r], c->type);
        total += c->k[r];
    }
    w = (double)loom_pairs_bytes(1, c->type);
    n = (double)c->count * (double)c->esize;
    t_sparse = (c->p - 1) * m->alpha + (double)total * w * (m->beta + m->gamma);
    t_dense = 2 * (c->p - 1) * (m->alpha + n / c->p * m->beta) +
              (double)(c->p - 1) / c->p * n * m->gamma;
    dense = c->h.sp.path == LOOM_SPARSE_PATH_DENSE ||
            (c->h.sp.path == LOOM_SPARSE_PATH_MODEL && t_dense < t_sparse);
    c->h.out.union_bound = total;
    c->h.out.dense = dense;
    if (dense) {
        sent = loom_sparse_dense_sent(c);
    } else {
        /* The ring sends every block but the right neighbour's. */
        for (j = 0; j < c->p; ++j) {
            sent += j != (c->mepos + 1) % c->p ? c->len[j] : 0;
        }
    }
    c->h.out.bytes_sent = loom_sparse_sizes_sent(c->p) + (c->p > 1 ? sent : 0);
    loom_sched_take_arm(sched, dense ? LOOM_SPARSE_PATH_DENSE : LOOM_SPARSE_PATH_SPARSE);
    return LOOM_OK;
}

static loom_status_t loom_sparse_merge_step(loom_sched_t *sched, void *arg)
{
    loom_sparse_ctx_t *c = arg;
    loom_status_t status = LOOM_OK;
    int r;

    (void)sched;
    memset(c->recvbuf, 0, c->count * c->esize);
    for (r = 0; r < c->p && status == LOOM_OK; ++r) {
        status = loom_pairs_accumulate(c->recvbuf, c->count, c->type,
                                       c->blocks + (size_t)r * c->bound, c->k[r]);
        if (status != LOOM_OK) {
            loom_error("coll", "sparse allreduce: the pairs of rank %d are not ascending "
                       "indices below %zu", r, c->count);
        }
    }
    return status;
}

static loom_status_t loom_sparse_densify_step(loom_sched_t *sched, void *arg)
{
    loom_sparse_ctx_t *c = arg;

    loom_status_t status;

    (void)sched;
    status = loom_pairs_densify(c->recvbuf, c->count, c->type,
                                c->blocks + (size_t)c->me * c->bound, c->k[c->me]);
    if (status != LOOM_OK) {
        loom_error("coll", "sparse allreduce: this rank's pairs are not ascending indices "
                   "below %zu", c->count);
    }
    return status;
}

/* What each compute step reads and writes (sched.h), for the verifier:
 * select the input and its own block and k, decide the sizes and the
 * lengths and k it sets, merge and densify the blocks (as long as decide
 * found them) and the receive buffer they fill. */
static void loom_sparse_declare(loom_sched_t *sched, const loom_coll_args_t *args,
                                const loom_sparse_ctx_t *c, int sel, int decide, int merge,
                                int densify)
{
    size_t n = args->count * args->elem_size, per_rank = sizeof(size_t) * (size_t)c->p;
    char *own = c->blocks + (size_t)c->me * c->bound;
    int j;

    loom_sched_compute_reads(sched, sel, args->in_place ? args->recvbuf : args->sendbuf, n);
    loom_sched_compute_writes(sched, sel, own, c->bound);
    loom_sched_compute_writes(sched, sel, c->sizes, sizeof(uint64_t));
    loom_sched_compute_reads(sched, decide, c->sizes, sizeof(uint64_t) * (size_t)c->p);
    loom_sched_compute_writes(sched, decide, c->len, per_rank);
    loom_sched_compute_writes(sched, decide, c->k, per_rank);
    loom_sched_compute_reads(sched, merge, c->k, per_rank);
    for (j = 0; j < c->p; ++j) {
        loom_sched_compute_reads_len(sched, merge, c->blocks + (size_t)c->ranks[j] * c->bound,
                                     c->bound, &c->len[j]);
    }
    loom_sched_compute_writes(sched, merge, c->recvbuf, n);
    loom_sched_compute_reads(sched, densify, c->k, per_rank);
    loom_sched_compute_reads_len(sched, densify, own, c->bound, &c->len[c->mepos]);
    loom_sched_compute_writes(sched, densify, c->recvbuf, n);
}

/* The sizes gather's run: m sizes of 8 bytes. */
static size_t loom_sparse_sizes_run(const loom_bruck_phase_t *ph, int i, int m)
{
    (void)ph;
    (void)i;
    return (size_t)m * sizeof(uint64_t);
}

/* Block j of the pairs ring: the block of the rank at position j, as
 * large as its bound (its length comes at run time: ctx->len). */
static loom_phase_block_t loom_sparse_pairs_block(const loom_phase_cut_t *cut, int j)
{
    const loom_sparse_ctx_t *c = cut->ctx;
    char *at = c->blocks + (size_t)c->ranks[j] * c->bound;

    return (loom_phase_block_t){ .at = at, .in = at, .n = c->bound };
}

/* Block j of the dense ring: the receive buffer's block j + 1 of the
 * spread cut, as the ring allreduce cuts it (allreduce_ring.c). */
static loom_phase_block_t loom_sparse_dense_block(const loom_phase_cut_t *cut, int j)
{
    const loom_sparse_ctx_t *c = cut->ctx;
    loom_spread_t s = loom_spread(c->count, c->p);
    int b = j + 1 == c->p ? 0 : j + 1;
    size_t first = loom_spread_offset(s, b);

    return (loom_phase_block_t){ .at = cut->at + first * cut->esize,
                                 .in = cut->in + first * cut->esize,
                                 .n = loom_spread_count(s, b) };
}

/* Scratch: the context, the sizes, the lengths, the k, the blocks, the
 * dense ring's slots; the ints: the ranks, and the rings' last steps. */
typedef struct loom_sparse_layout {
    size_t  sizes_at, len_at, k_at, blocks_at, slots_at, total;
} loom_sparse_layout_t;

static loom_sparse_layout_t loom_sparse_layout(int p, size_t bound, size_t slots_bytes)
{
    loom_sparse_layout_t l;

    l.sizes_at = loom_sparse_round_up(sizeof(loom_sparse_ctx_t));
    l.len_at = l.sizes_at + loom_sparse_round_up(sizeof(uint64_t) * (size_t)p);
    l.k_at = l.len_at + loom_sparse_round_up(sizeof(size_t) * (size_t)p);
    l.blocks_at = l.k_at + loom_sparse_round_up(sizeof(size_t) * (size_t)p);
    l.slots_at = l.blocks_at + bound * (size_t)p;
    l.total = l.slots_at + slots_bytes;
    return l;
}

/* Tag steps of the rounds: the sizes, the pairs ring and the two dense
 * rings.  The dense segments are cut over all of them (segs.h), so that
 * rounds times segments, which bounds the steps used, fits the tags. */
static uint64_t loom_sparse_rounds(int p)
{
    return (uint64_t)loom_halving_rounds(p) + 3 * (uint64_t)(p - 1);
}

static void loom_sparse_reverse(int *a, int n)
{
    int i, t;

    for (i = 0; i < n / 2; ++i) {
        t = a[i];
        a[i] = a[n - 1 - i];
        a[n - 1 - i] = t;
    }
}

/* a[0..n) rotated left by k: a[k], ..., a[n-1], a[0], ..., a[k-1]. */
static void loom_sparse_rotate(int *a, int n, int k)
{
    loom_sparse_reverse(a, k);
    loom_sparse_reverse(a + k, n - k);
    loom_sparse_reverse(a, n);
}

/* Checks what the plan cannot run with; every rank decides alike. */
static loom_status_t loom_sparse_check(const loom_coll_args_t *args, const loom_team_t *team)
{
    const loom_sparse_args_t *sp = args->sparse;

    if (sp == NULL || sp->select == NULL) {
        loom_error("coll", "sparse allreduce: no selection (args->sparse and its select "
                   "are required)");
        return LOOM_ERR_INVALID_PARAM;
    }
    if (args->elem_size != 4 && args->elem_size != 8) {
        loom_error("coll", "sparse allreduce: elements of %zu bytes; float (4) and double "
                   "(8) are accepted", args->elem_size);
        return LOOM_ERR_INVALID_PARAM;
    }
    if (args->count > UINT32_MAX) {
        loom_error("coll", "sparse allreduce: %zu elements; pairs index at most 2^32",
                   args->count);
        return LOOM_ERR_INVALID_PARAM;
    }
    if (sp->path < LOOM_SPARSE_PATH_MODEL || sp->path > LOOM_SPARSE_PATH_DENSE) {
        loom_error("coll", "sparse allreduce: path %d; 0 (model), 1 (sparse) and 2 (dense) "
                   "are accepted", (int)sp->path);
        return LOOM_ERR_INVALID_PARAM;
    }
    if (loom_sparse_rounds(team->size) > LOOM_TAG_MAX_STEPS) {
        return LOOM_ERR_UNSUPPORTED;
    }
    return LOOM_OK;
}

loom_status_t loom_sparse_allgather_plan(const loom_coll_args_t *args, loom_team_t *team,
                                         loom_sched_t **sched_p)
{
    int p = team->size, depth = args->depth > 0 ? args->depth : LOOM_SPARSE_DEPTH;
    int *ints, *ranks, i, sel, decide, merge, densify, nlast;
    const loom_order_t *o;
    loom_sparse_layout_t lay;
    loom_sparse_ctx_t *c;
    loom_slots_t slots = { .depth = depth };
    loom_ring_phase_t ring = { .n = p };
    loom_bruck_phase_t bruck = { .n = p };
    loom_segs_t dense_segs;
    loom_status_t status;
    loom_filter_type_t type;
    loom_sched_t *sched;
    size_t kmax;
    char *scratch;
    uint32_t tag;

    status = loom_sparse_check(args, team);
    if (status != LOOM_OK) {
        return status;
    }
    status = loom_sched_create(team, args, LOOM_SPARSE_ALLGATHER, &sched);
    if (status != LOOM_OK || args->count == 0) {
        return status != LOOM_OK ? status : loom_sched_plan_done(sched, sched_p);
    }
    o = loom_sched_reduce_order(sched);
    type = args->elem_size == 4 ? LOOM_FILTER_FLOAT : LOOM_FILTER_DOUBLE;
    kmax = args->sparse->kmax < args->count ? args->sparse->kmax : args->count;
    dense_segs = loom_segs_make(args->seg_bytes, args->elem_size,
                                loom_spread_max(loom_spread(args->count, p)),
                                loom_sparse_rounds(p));
    slots.bytes = dense_segs.seg * args->elem_size;
    lay = loom_sparse_layout(p, loom_sparse_round_up(loom_pairs_bytes(kmax, type)),
                             p > 1 ? (size_t)depth * slots.bytes : 0);
    status = loom_sched_alloc_scratch(sched, lay.total, (void **)&scratch);
    if (status != LOOM_OK) {
        goto out;
    }
    nlast = p * dense_segs.nseg_max;
    status = loom_sched_alloc_ints(sched, p + (nlast > p ? nlast : p) + depth, &ints);
    if (status != LOOM_OK) {
        goto out;
    }
    ranks = ints;
    for (i = 0; i < p; ++i) {
        ranks[i] = loom_order_at(o, i);
    }
    c = (loom_sparse_ctx_t *)(void *)scratch;
    *c = (loom_sparse_ctx_t){
        .h = { .sp = *args->sparse, .out = { .alg = LOOM_SPARSE_ALLGATHER, .dense_stage = -1 } },
        .p = p, .me = team->rank, .mepos = loom_order_pos(o, team->rank),
        .ranks = ranks, .recvbuf = args->recvbuf, .count = args->count,
        .esize = args->elem_size, .type = type, .blocks = scratch + lay.blocks_at,
        .bound = loom_sparse_round_up(loom_pairs_bytes(kmax, type)),
        .sizes = (uint64_t *)(void *)(scratch + lay.sizes_at),
        .len = (size_t *)(void *)(scratch + lay.len_at),
        .k = (size_t *)(void *)(scratch + lay.k_at),
    };
    c->h.sp.kmax = kmax;

    sel = loom_sched_compute(sched, loom_sparse_select_step, c, args->count * args->elem_size,
                             LOOM_NO_DEPS);
    bruck = (loom_bruck_phase_t){ .sched = sched, .ranks = ranks, .n = p, .me = c->mepos,
                                  .run = loom_sparse_sizes_run, .ctx = c, .tag_base = 0,
                                  .tmp = (char *)c->sizes, .last = sel };
    loom_phase_bruck(&bruck);
    tag = (uint32_t)loom_halving_rounds(p);
    decide = loom_sched_compute(sched, loom_sparse_decide_step, c,
                                (size_t)p * sizeof(uint64_t), LOOM_DEPS(bruck.last));

    /* The sparse arm: the blocks around the ring, then the merge. */
    loom_sched_build_arm(sched, LOOM_SPARSE_PATH_SPARSE);
    ring = (loom_ring_phase_t){
        .sched = sched, .ranks = ranks, .n = p, .me = c->mepos,
        .cut = { .block = loom_sparse_pairs_block, .esize = 1, .ctx = c },
        .segs = loom_segs_make(0, 1, c->bound, (uint64_t)(p - 1)), .tag_base = tag,
        .last = ints + p, .len_at = c->len,
    };
    for (i = 0; i < p; ++i) {
        ring.last[i] = decide;
    }
    loom_phase_ag_ring(&ring);
    /* Joined from this rank's own position on, so that every rank's
     * schedule is its neighbour's rotated (the simulator folds such
     * runs: coll/sim/fold.h). */
    loom_sparse_rotate(ring.last, p, c->mepos);
    merge = loom_sched_join_steps(sched, ring.last, p);
    merge = loom_sched_compute(sched, loom_sparse_merge_step, c, args->count * args->elem_size,
                               LOOM_DEPS(merge >= 0 ? merge : decide));
    tag += (uint32_t)(p - 1);

    /* The dense arm: this rank's pairs spread out, then a ring allreduce
     * in place. */
    loom_sched_build_arm(sched, LOOM_SPARSE_PATH_DENSE);
    densify = loom_sched_compute(sched, loom_sparse_densify_step, c,
                                 args->count * args->elem_size, LOOM_DEPS(decide));
    if (p > 1) {
        slots.base = scratch + lay.slots_at;
        slots.reader = ints + p + (nlast > p ? nlast : p);
        /* A step of an arm waits for the decision: the first receives
         * into the slots too (segs.h). */
        for (i = 0; i < depth; ++i) {
            slots.reader[i] = densify;
        }
        ring = (loom_ring_phase_t){
            .sched = sched, .ranks = ranks, .n = p, .me = c->mepos,
            .cut = { .block = loom_sparse_dense_block, .at = args->recvbuf,
                     .in = args->recvbuf, .esize = args->elem_size, .ctx = c },
            .segs = dense_segs, .tag_base = tag, .last = ints + p, .slots = &slots,
        };
        for (i = 0; i < nlast; ++i) {
            ring.last[i] = densify;
        }
        loom_phase_rs_ring(&ring);
        ring.tag_base = tag + (uint32_t)loom_ring_phase_tags(p, &dense_segs);
        loom_phase_ag_ring(&ring);
    }
    loom_sched_build_arm(sched, 0);
    loom_sparse_declare(sched, args, c, sel, decide, merge, densify);
    if (c->h.sp.modeled) {
        /* What the compute steps would have found, for the simulator. */
        for (i = 0; i < p; ++i) {
            c->sizes[i] = c->h.sp.model_k < kmax ? c->h.sp.model_k : kmax;
        }
        c->h.out.pairs = (size_t)c->sizes[0];
        status = loom_sparse_decide_step(sched, c);
        if (status != LOOM_OK) {
            sched->build_status = status;
        }
    }
out:
    return loom_sched_plan_done(sched, sched_p);
}
