/*
 * Sparse allreduce by allgather of each rank's selection, in the encoding
 * the selections' density makes cheapest, dense when that costs less.
 *
 *   select   (compute)  the caller's select writes this rank's k pairs
 *                       (pairs.h) into its staging area; then their exact
 *                       size in every encoding (filter/encode.h)
 *   sizes    (Bruck)    every rank's k and its delta, bitmap and block
 *                       sizes, 4 x 8 bytes each, to every rank:
 *                       ceil(log2 p) rounds
 *   decide   (compute)  from the sizes, the same on every rank: the
 *                       encoding (forced, or the smallest total over the
 *                       ranks among those whose every block fits the
 *                       bound; ties to the lower value), the run-time
 *                       length of every block, and the arm (sched.h)
 *   sparse arm:
 *     encode (compute)  this rank's pairs, from staging into its block
 *     ring allgather of the blocks, each of its run-time length
 *     merge  (compute)  the receive buffer = the sum of every rank's
 *                       block, decoded and added in rank order 0..p-1
 *   dense arm:
 *     densify (compute) the receive buffer = this rank's staged pairs,
 *                       zeros elsewhere
 *     ring allreduce (reduce-scatter ring, allgather ring) in place
 *
 *   scratch: the staging area, then one block per rank, each as large as
 *   kmax pairs (an encoding that would not fit is not taken, so the
 *   coo bound serves every encoding):
 *     [staging][rank 0: its block ...][rank 1 ...] ... [rank p-1 ...]
 *
 * Cost, n elements of e bytes, T the chosen encoding's bytes over all
 * ranks (K (4 + e) in coo, K pairs with repeats):
 *   sparse  (p-1) a + T b + T g                (every block passes every
 *                                               rank once; merged once)
 *   dense   2(p-1) a + 2(p-1)/p n e b + (p-1)/p n e g
 * plus, on both, ceil(log2 p) a + 32 (p-1) b for the sizes.  The decision
 * prices both with the caller's model (args->sparse->cost) and takes the
 * cheaper.  Where ranks chose the same indices the union is smaller, so
 * the sparse arm is priced at its upper bound.  With b = g the sparse arm
 * wins while T stays under 1.5 (p-1)/p n e, the bytes of one and a half
 * vectors: for floats, at 0.1% (delta, about 0.006 n bytes a rank) up to
 * about 1000 ranks; at 30% (bitmap, 1.325 n bytes a rank) at 2 and 3
 * ranks only.
 *
 * Every rank ends with the same bits: the merge decodes the same blocks
 * with the same encoding and adds them in one order on every rank (the
 * block encoding's zeros change no sum: encode.h), and the dense ring
 * reduces each block on one rank and copies it to the others.
 *
 * The ring and Bruck phases place ranks by the team's rank order (the
 * merge's rank order does not follow it: the sum is the same, and its
 * bits must not depend on where ranks sit).
 */
#include "coll/core/sparse/sparse.h"
#include "coll/core/filter/encode.h"
#include "coll/core/filter/pairs.h"
#include "coll/core/parts/partition.h"
#include "coll/core/parts/phase.h"
#include "coll/core/engine/sched_join.h"
#include "coll/core/engine/tag.h"
#include "common/log.h"

#include <math.h>
#include <stdint.h>
#include <string.h>

#define LOOM_SPARSE_DEPTH 4
#define LOOM_SPARSE_ALIGN 64

/* What each rank announces: its k, then its sizes in the encodings after
 * coo (whose size follows from k), at [enc - LOOM_ENC_COO]. */
#define LOOM_SPARSE_NSIZES (LOOM_ENC_COUNT - LOOM_ENC_COO)

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
    loom_encoding_t         enc;        /* set by decide */
    size_t                  bound;      /* bytes of a block of kmax pairs */
    char                    *staging;   /* this rank's pairs as select wrote them */
    size_t                  staged;     /* their bytes, set by select */
    char                    *blocks;    /* p blocks of bound bytes, by team rank */
    uint64_t                *sizes;     /* the Bruck gather: NSIZES of positions mepos, mepos+1, ... */
    size_t                  *len;       /* bytes of each position's block, set by decide */
    size_t                  *rlen;      /* the same, by team rank */
    size_t                  *k;         /* pairs of each team rank, set by decide */
} loom_sparse_ctx_t;

static size_t loom_sparse_round_up(size_t n)
{
    return (n + LOOM_SPARSE_ALIGN - 1) / LOOM_SPARSE_ALIGN * LOOM_SPARSE_ALIGN;
}

/* The staged pairs' indices: after k values (pairs.h). */
static const uint32_t *loom_sparse_staged_index(const loom_sparse_ctx_t *c, size_t k)
{
    return (const uint32_t *)(const void *)(c->staging + k * c->esize);
}

static loom_status_t loom_sparse_select_step(loom_sched_t *sched, void *arg)
{
    loom_sparse_ctx_t *c = arg;
    size_t k = 0, sizes[LOOM_ENC_COUNT];
    loom_encode_why_t why;
    loom_status_t status;
    int e;

    (void)sched;
    status = c->h.sp.select(c->h.sp.ctx, c->staging, &k);
    if (status != LOOM_OK) {
        return status;
    }
    if (k > c->h.sp.kmax || k > c->count) {
        loom_error("coll", "sparse allreduce: the selection gave %zu pairs, more than its "
                   "bound of %zu (and the vector's %zu elements)", k, c->h.sp.kmax, c->count);
        return LOOM_ERR_INVALID_PARAM;
    }
    status = loom_encode_sizes(loom_sparse_staged_index(c, k), k, c->count, c->type, sizes, &why);
    if (status != LOOM_OK) {
        loom_error("coll", "sparse allreduce: this rank's selection: %s", why.text);
        return status;
    }
    c->h.out.pairs = k;
    c->staged = sizes[LOOM_ENC_COO];
    c->sizes[0] = k;
    for (e = LOOM_ENC_COO + 1; e < LOOM_ENC_COUNT; ++e) {
        c->sizes[e - LOOM_ENC_COO] = sizes[e];
    }
    return LOOM_OK;
}

/* Bytes of the sizes gather this rank sends: min(d, p - d) ranks' sizes
 * in round d = 1, 2, 4, ... (phase.h, Bruck). */
static size_t loom_sparse_sizes_sent(int p)
{
    size_t bytes = 0;
    int d;

    for (d = 1; d < p; d *= 2) {
        bytes += sizeof(uint64_t) * LOOM_SPARSE_NSIZES * (size_t)(d < p - d ? d : p - d);
    }
    return bytes;
}

/* What the dense ring sends from position pos: every block but one in
 * each of its two phases (allreduce_ring.c). */
static size_t loom_sparse_dense_sent(size_t count, int p, int pos, size_t esize)
{
    loom_spread_t s = loom_spread(count, p);
    int skip_rs = pos, skip_ag = (pos + 1) % p, j;
    size_t n = 0;

    for (j = 0; j < p; ++j) {
        /* Phase block j is the buffer's block j + 1 (allreduce_ring.c). */
        size_t b = loom_spread_count(s, (j + 1) % p);

        n += (j != skip_rs ? b : 0) + (j != skip_ag ? b : 0);
    }
    return n * esize;
}

/* The encoding every rank takes: the forced one if every block fits in
 * it, else the smallest total among those whose blocks all fit (ties to
 * the lower value); coo always fits. */
static loom_encoding_t loom_sparse_choose(int forced, const double total[LOOM_ENC_COUNT],
                                          const int fits[LOOM_ENC_COUNT])
{
    loom_encoding_t best = LOOM_ENC_COO;
    int e;

    if (forced != LOOM_ENC_AUTO) {
        return fits[forced] ? (loom_encoding_t)forced : LOOM_ENC_COO;
    }
    for (e = LOOM_ENC_COO + 1; e < LOOM_ENC_COUNT; ++e) {
        if (fits[e] && total[e] < total[best]) {
            best = (loom_encoding_t)e;
        }
    }
    return best;
}

/* Both arms' times for T bytes of blocks in all (sparse.h's model, the
 * picture above); nonzero when the dense one is cheaper. */
static int loom_sparse_price(const loom_cost_t *m, int p, double n, double t_bytes,
                             double *t_sparse_p, double *t_dense_p)
{
    *t_sparse_p = (p - 1) * m->alpha + t_bytes * (m->beta + m->gamma);
    *t_dense_p = 2 * (p - 1) * (m->alpha + n / p * m->beta) + (double)(p - 1) / p * n * m->gamma;
    return *t_dense_p < *t_sparse_p;
}

/* The bytes of the block of the rank at position j (the j-th of sizes,
 * counted from this rank) in enc. */
static size_t loom_sparse_block_bytes(const loom_sparse_ctx_t *c, int j, int enc)
{
    const uint64_t *s = c->sizes + (size_t)j * LOOM_SPARSE_NSIZES;

    return enc == LOOM_ENC_COO ? loom_pairs_bytes((size_t)s[0], c->type)
                               : (size_t)s[enc - LOOM_ENC_COO];
}

/* Every rank's k and the encoding's totals from the sizes; an error if a
 * rank announced more than the bound. */
static loom_status_t loom_sparse_totals(loom_sparse_ctx_t *c, double total[LOOM_ENC_COUNT],
                                        int fits[LOOM_ENC_COUNT], size_t *pairs_p)
{
    size_t pairs = 0;
    int j, e, r;

    for (e = 0; e < LOOM_ENC_COUNT; ++e) {
        total[e] = 0;
        fits[e] = e != LOOM_ENC_AUTO;
    }
    for (j = 0; j < c->p; ++j) {
        uint64_t k = c->sizes[(size_t)j * LOOM_SPARSE_NSIZES];

        r = c->ranks[(c->mepos + j) % c->p];
        if (k > c->h.sp.kmax) {
            loom_error("coll", "sparse allreduce: rank %d announced %llu pairs, more than "
                       "the bound of %zu every rank plans with", r, (unsigned long long)k,
                       c->h.sp.kmax);
            return LOOM_ERR_INVALID_PARAM;
        }
        c->k[r] = (size_t)k;
        pairs += (size_t)k;
        for (e = LOOM_ENC_COO; e < LOOM_ENC_COUNT; ++e) {
            size_t b = loom_sparse_block_bytes(c, j, e);

            total[e] += (double)b;
            fits[e] = fits[e] && b <= c->bound;
        }
    }
    *pairs_p = pairs;
    return LOOM_OK;
}

static loom_status_t loom_sparse_decide_step(loom_sched_t *sched, void *arg)
{
    loom_sparse_ctx_t *c = arg;
    double total[LOOM_ENC_COUNT], t_sparse, t_dense;
    int fits[LOOM_ENC_COUNT], j, pos, dense;
    loom_status_t status;
    size_t pairs, sent = 0;

    status = loom_sparse_totals(c, total, fits, &pairs);
    if (status != LOOM_OK) {
        return status;
    }
    c->enc = loom_sparse_choose(c->h.sp.encoding, total, fits);
    if (c->h.sp.encoding != LOOM_ENC_AUTO && (int)c->enc != c->h.sp.encoding) {
        loom_debug("coll", "sparse allreduce: a %s block would pass the bound of %zu bytes; "
                   "sending coo", loom_encoding_names[c->h.sp.encoding], c->bound);
    }
    for (j = 0; j < c->p; ++j) {
        pos = (c->mepos + j) % c->p;
        c->len[pos] = loom_sparse_block_bytes(c, j, c->enc);
        c->rlen[c->ranks[pos]] = c->len[pos];
    }
    dense = loom_sparse_price(&c->h.sp.cost, c->p, (double)c->count * (double)c->esize,
                              total[c->enc], &t_sparse, &t_dense);
    dense = c->h.sp.path == LOOM_SPARSE_PATH_DENSE ||
            (c->h.sp.path == LOOM_SPARSE_PATH_MODEL && dense);
    c->h.out.union_bound = pairs;
    c->h.out.dense = dense;
    c->h.out.encoding = dense ? LOOM_ENC_AUTO : c->enc;
    if (dense) {
        sent = loom_sparse_dense_sent(c->count, c->p, c->mepos, c->esize);
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

static loom_status_t loom_sparse_encode_step(loom_sched_t *sched, void *arg)
{
    loom_sparse_ctx_t *c = arg;
    size_t k = c->k[c->me], wrote;

    (void)sched;
    wrote = loom_encode_write(c->enc, loom_sparse_staged_index(c, k), c->staging, k, c->count,
                              c->type, c->blocks + (size_t)c->me * c->bound);
    if (wrote != c->rlen[c->me]) {
        loom_error("coll", "sparse allreduce: %s wrote %zu bytes where its size said %zu",
                   loom_encoding_names[c->enc], wrote, c->rlen[c->me]);
        return LOOM_ERR_INVALID_PARAM;
    }
    return LOOM_OK;
}

static loom_status_t loom_sparse_merge_step(loom_sched_t *sched, void *arg)
{
    loom_sparse_ctx_t *c = arg;
    loom_status_t status = LOOM_OK;
    loom_encode_why_t why;
    int r;

    (void)sched;
    memset(c->recvbuf, 0, c->count * c->esize);
    for (r = 0; r < c->p && status == LOOM_OK; ++r) {
        status = loom_encode_accumulate(c->enc, c->recvbuf, c->count, c->type,
                                        c->blocks + (size_t)r * c->bound, c->rlen[r], c->k[r],
                                        &why);
        if (status != LOOM_OK) {
            loom_error("coll", "sparse allreduce: the %s block of rank %d: %s",
                       loom_encoding_names[c->enc], r, why.text);
        }
    }
    return status;
}

static loom_status_t loom_sparse_densify_step(loom_sched_t *sched, void *arg)
{
    loom_sparse_ctx_t *c = arg;

    (void)sched;
    /* Select checked the pairs (loom_encode_sizes): this cannot fail. */
    return loom_pairs_densify(c->recvbuf, c->count, c->type, c->staging, c->k[c->me]);
}

/* The compute steps of the plan, for the declarations. */
typedef struct loom_sparse_steps {
    int sel, decide, encode, merge, densify;
} loom_sparse_steps_t;

/* What each compute step reads and writes (sched.h), for the verifier:
 * select the input, the staging area and its own sizes; decide the sizes
 * and the lengths and k it sets; encode the staged pairs (as many bytes as
 * select staged) and its own block; merge the blocks (as long as decide
 * found them) and the receive buffer it fills; densify the staged pairs
 * and the receive buffer. */
static void loom_sparse_declare(loom_sched_t *sched, const loom_coll_args_t *args,
                                const loom_sparse_ctx_t *c, const loom_sparse_steps_t *st)
{
    size_t n = args->count * args->elem_size, per_rank = sizeof(size_t) * (size_t)c->p;
    size_t own = sizeof(uint64_t) * LOOM_SPARSE_NSIZES;
    int j;

    loom_sched_compute_reads(sched, st->sel, args->in_place ? args->recvbuf : args->sendbuf, n);
    loom_sched_compute_writes(sched, st->sel, c->staging, c->bound);
    loom_sched_compute_writes(sched, st->sel, c->sizes, own);
    loom_sched_compute_reads(sched, st->decide, c->sizes, own * (size_t)c->p);
    loom_sched_compute_writes(sched, st->decide, c->len, per_rank);
    loom_sched_compute_writes(sched, st->decide, c->rlen, per_rank);
    loom_sched_compute_writes(sched, st->decide, c->k, per_rank);
    loom_sched_compute_reads(sched, st->encode, c->k, per_rank);
    loom_sched_compute_reads(sched, st->encode, c->rlen, per_rank);
    loom_sched_compute_reads_len(sched, st->encode, c->staging, c->bound, &c->staged);
    loom_sched_compute_writes(sched, st->encode, c->blocks + (size_t)c->me * c->bound, c->bound);
    loom_sched_compute_reads(sched, st->merge, c->k, per_rank);
    loom_sched_compute_reads(sched, st->merge, c->rlen, per_rank);
    for (j = 0; j < c->p; ++j) {
        loom_sched_compute_reads_len(sched, st->merge, c->blocks + (size_t)c->ranks[j] * c->bound,
                                     c->bound, &c->len[j]);
    }
    loom_sched_compute_writes(sched, st->merge, c->recvbuf, n);
    loom_sched_compute_reads(sched, st->densify, c->k, per_rank);
    loom_sched_compute_reads_len(sched, st->densify, c->staging, c->bound, &c->staged);
    loom_sched_compute_writes(sched, st->densify, c->recvbuf, n);
}

/* The sizes gather's run: m ranks' NSIZES sizes of 8 bytes. */
static size_t loom_sparse_sizes_run(const loom_bruck_phase_t *ph, int i, int m)
{
    (void)ph;
    (void)i;
    return (size_t)m * LOOM_SPARSE_NSIZES * sizeof(uint64_t);
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

/* Scratch: the context, the sizes, the lengths by position and by rank,
 * the k, the staging area, the blocks, the dense ring's slots; the ints:
 * the ranks, and the rings' last steps. */
typedef struct loom_sparse_layout {
    size_t  sizes_at, len_at, rlen_at, k_at, staging_at, blocks_at, slots_at, total;
} loom_sparse_layout_t;

static loom_sparse_layout_t loom_sparse_layout(int p, size_t bound, size_t slots_bytes)
{
    size_t per_rank = loom_sparse_round_up(sizeof(size_t) * (size_t)p);
    loom_sparse_layout_t l;

    l.sizes_at = loom_sparse_round_up(sizeof(loom_sparse_ctx_t));
    l.len_at = l.sizes_at +
               loom_sparse_round_up(sizeof(uint64_t) * LOOM_SPARSE_NSIZES * (size_t)p);
    l.rlen_at = l.len_at + per_rank;
    l.k_at = l.rlen_at + per_rank;
    l.staging_at = l.k_at + per_rank;
    l.blocks_at = l.staging_at + bound;
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

/* Checks what the plan cannot run with; every rank decides alike. */
static loom_status_t loom_sparse_check(const loom_coll_args_t *args, const loom_team_t *team)
{
    const loom_sparse_args_t *sp = args->sparse;
    loom_status_t status = loom_sparse_check_args(args, "allgather");

    if (status != LOOM_OK) {
        return status;
    }
    if (sp->encoding < LOOM_ENC_AUTO || sp->encoding >= LOOM_ENC_COUNT) {
        loom_error("coll", "sparse allreduce: encoding %d; 0 (the cheapest), 1 (coo), "
                   "2 (delta), 3 (bitmap) and 4 (block) are accepted", sp->encoding);
        return LOOM_ERR_INVALID_PARAM;
    }
    if (loom_sparse_rounds(team->size) > LOOM_TAG_MAX_STEPS) {
        return LOOM_ERR_UNSUPPORTED;
    }
    return LOOM_OK;
}

/* The sparse arm: this rank's block encoded, the blocks around the ring,
 * then the merge; the steps to st. */
static void loom_sparse_sparse_arm(loom_sched_t *sched, const loom_coll_args_t *args,
                                   loom_sparse_ctx_t *c, int *last, uint32_t tag,
                                   loom_sparse_steps_t *st)
{
    loom_ring_phase_t ring;
    int i, p = c->p, join;

    loom_sched_build_arm(sched, LOOM_SPARSE_PATH_SPARSE);
    st->encode = loom_sched_compute(sched, loom_sparse_encode_step, c, c->bound,
                                    LOOM_DEPS(st->decide));
    ring = (loom_ring_phase_t){
        .sched = sched, .ranks = c->ranks, .n = p, .me = c->mepos,
        .cut = { .block = loom_sparse_pairs_block, .esize = 1, .ctx = c },
        .segs = loom_segs_make(0, 1, c->bound, (uint64_t)(p - 1)), .tag_base = tag,
        .last = last, .len_at = c->len,
    };
    for (i = 0; i < p; ++i) {
        ring.last[i] = st->encode;
    }
    loom_phase_ag_ring(&ring);
    /* Joined from this rank's own position on, so that every rank's
     * schedule is its neighbour's rotated (the simulator folds such
     * runs: coll/sim/fold.h). */
    loom_sparse_rotate(ring.last, p, c->mepos);
    join = loom_sched_join_steps(sched, ring.last, p);
    st->merge = loom_sched_compute(sched, loom_sparse_merge_step, c,
                                   args->count * args->elem_size,
                                   LOOM_DEPS(join >= 0 ? join : st->encode));
}

/* For the simulator, which runs no compute step: every rank's selection
 * is model_k pairs, sized by the model of a uniform selection
 * (encode.h), and the decision is taken now. */
static void loom_sparse_modeled(loom_sched_t *sched, loom_sparse_ctx_t *c)
{
    size_t k = c->h.sp.model_k < c->h.sp.kmax ? c->h.sp.model_k : c->h.sp.kmax;
    loom_status_t status;
    int i, e;

    for (i = 0; i < c->p; ++i) {
        uint64_t *s = c->sizes + (size_t)i * LOOM_SPARSE_NSIZES;

        s[0] = k;
        for (e = LOOM_ENC_COO + 1; e < LOOM_ENC_COUNT; ++e) {
            s[e - LOOM_ENC_COO] = loom_encode_model_size((loom_encoding_t)e, k, c->count,
                                                         c->type);
        }
    }
    c->h.out.pairs = k;
    status = loom_sparse_decide_step(sched, c);
    if (status != LOOM_OK) {
        sched->build_status = status;
    }
}

loom_status_t loom_sparse_allgather_plan(const loom_coll_args_t *args, loom_team_t *team,
                                         loom_sched_t **sched_p)
{
    int p = team->size, depth = args->depth > 0 ? args->depth : LOOM_SPARSE_DEPTH;
    int *ints, *ranks, i, nlast;
    loom_sparse_steps_t st;
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
        .esize = args->elem_size, .type = type, .enc = LOOM_ENC_COO,
        .staging = scratch + lay.staging_at, .blocks = scratch + lay.blocks_at,
        .bound = loom_sparse_round_up(loom_pairs_bytes(kmax, type)),
        .sizes = (uint64_t *)(void *)(scratch + lay.sizes_at),
        .len = (size_t *)(void *)(scratch + lay.len_at),
        .rlen = (size_t *)(void *)(scratch + lay.rlen_at),
        .k = (size_t *)(void *)(scratch + lay.k_at),
    };
    c->h.sp.kmax = kmax;

    st.sel = loom_sched_compute(sched, loom_sparse_select_step, c,
                                args->count * args->elem_size, LOOM_NO_DEPS);
    bruck = (loom_bruck_phase_t){ .sched = sched, .ranks = ranks, .n = p, .me = c->mepos,
                                  .run = loom_sparse_sizes_run, .ctx = c, .tag_base = 0,
                                  .tmp = (char *)c->sizes, .last = st.sel };
    loom_phase_bruck(&bruck);
    tag = (uint32_t)loom_halving_rounds(p);
    st.decide = loom_sched_compute(sched, loom_sparse_decide_step, c,
                                   (size_t)p * LOOM_SPARSE_NSIZES * sizeof(uint64_t),
                                   LOOM_DEPS(bruck.last));
    loom_sparse_sparse_arm(sched, args, c, ints + p, tag, &st);
    tag += (uint32_t)(p - 1);

    /* The dense arm: this rank's pairs spread out, then a ring allreduce
     * in place. */
    loom_sched_build_arm(sched, LOOM_SPARSE_PATH_DENSE);
    st.densify = loom_sched_compute(sched, loom_sparse_densify_step, c,
                                    args->count * args->elem_size, LOOM_DEPS(st.decide));
    if (p > 1) {
        slots.base = scratch + lay.slots_at;
        slots.reader = ints + p + (nlast > p ? nlast : p);
        /* A step of an arm waits for the decision: the first receives
         * into the slots too (segs.h). */
        for (i = 0; i < depth; ++i) {
            slots.reader[i] = st.densify;
        }
        ring = (loom_ring_phase_t){
            .sched = sched, .ranks = ranks, .n = p, .me = c->mepos,
            .cut = { .block = loom_sparse_dense_block, .at = args->recvbuf,
                     .in = args->recvbuf, .esize = args->elem_size, .ctx = c },
            .segs = dense_segs, .tag_base = tag, .last = ints + p, .slots = &slots,
        };
        for (i = 0; i < nlast; ++i) {
            ring.last[i] = st.densify;
        }
        loom_phase_rs_ring(&ring);
        ring.tag_base = tag + (uint32_t)loom_ring_phase_tags(p, &dense_segs);
        loom_phase_ag_ring(&ring);
    }
    loom_sched_build_arm(sched, 0);
    loom_sparse_declare(sched, args, c, &st);
    if (c->h.sp.modeled) {
        loom_sparse_modeled(sched, c);
    }
out:
    return loom_sched_plan_done(sched, sched_p);
}

/*
 * The allgather's predicted time when every one of p ranks selects k of n
 * elements uniformly: the sizes gather, then the cheaper arm, the blocks
 * sized as the simulator's plans size them (loom_encode_model_size) and
 * bounded as a plan with kmax = k bounds them.
 */
double loom_sparse_allgather_model(const loom_cost_t *m, int p, size_t n, size_t esize,
                                   size_t k, int *encoding_p, size_t *bytes_p)
{
    loom_filter_type_t type = esize == 8 ? LOOM_FILTER_DOUBLE : LOOM_FILTER_FLOAT;
    double total[LOOM_ENC_COUNT], t_sparse, t_dense, t_sizes;
    size_t size[LOOM_ENC_COUNT], bound, sizes_sent;
    int fits[LOOM_ENC_COUNT], e, dense;
    loom_encoding_t enc;

    if ((esize != 4 && esize != 8) || p < 1) {
        *encoding_p = LOOM_ENC_AUTO;
        *bytes_p = 0;
        return HUGE_VAL;    /* what the plan refuses, never the cheapest */
    }
    k = k < n ? k : n;
    bound = loom_sparse_round_up(loom_pairs_bytes(k, type));
    for (e = 0; e < LOOM_ENC_COUNT; ++e) {
        size[e] = e == LOOM_ENC_AUTO ? SIZE_MAX : loom_encode_model_size(e, k, n, type);
        total[e] = (double)p * (double)size[e];
        fits[e] = e != LOOM_ENC_AUTO && size[e] <= bound;
    }
    enc = loom_sparse_choose(LOOM_ENC_AUTO, total, fits);
    sizes_sent = loom_sparse_sizes_sent(p);
    t_sizes = loom_log2_ceil(p) * m->alpha + (double)sizes_sent * m->beta;
    dense = loom_sparse_price(m, p, (double)n * (double)esize, total[enc], &t_sparse, &t_dense);
    *encoding_p = enc;
    *bytes_p = sizes_sent + (p < 2 ? 0
                             : dense ? loom_sparse_dense_sent(n, p, 0, esize)
                                     : (size_t)(p - 1) * size[enc]);
    return t_sizes + (dense ? t_dense : t_sparse);
}
