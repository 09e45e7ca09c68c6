/*
 * Sparse allreduce by recursive doubling of merged pairs (SparCML's
 * sparse merge), each stage switching to a dense vector once the merged
 * support would cost more than the vector itself.
 *
 * Positions follow the team's rank order; p2 is the largest power of two
 * <= p, r = p - p2.  Every exchange is a "slot": a fixed header (dense or
 * pairs, the payload's bytes, ...), then the payload of that length.
 *
 *   select      (compute)  the caller's select writes this rank's k pairs
 *   slot 0      the fold: position q >= p2 sends its pairs to q - p2,
 *               which merges them into its own
 *   slot s      s = 1 .. log2 p2, d = 2^(s-1): positions q and q ^ d swap
 *               headers, then payloads; both merge, out = lower (+) upper
 *   slot S+1    the hand-back: q - p2 sends the result to q
 *   final       (compute)  the result, densified if still pairs, into the
 *               receive buffer
 *
 *     p = 6, p2 = 4:   4 -> 0, 5 -> 1     (fold)
 *                      0 <-> 1, 2 <-> 3   (d = 1)
 *                      0 <-> 2, 1 <-> 3   (d = 2)
 *                      0 -> 4, 1 -> 5     (hand-back)
 *
 * Pairs (+) pairs is the union of two ascending index lists, the values
 * added where both hold an index.  The result's format is decided from the
 * two headers alone, so both sides decide alike: dense if either input is,
 * or if the union's upper bound (k_lower + k_upper pairs) takes more bytes
 * than the n elements of the vector; pairs otherwise.  The rule prices
 * plain bytes: both formats cost one payload message per stage, so the
 * messages' alpha cancels, and beta and the merge's gamma both scale with
 * the bytes.  args->sparse->path may force it: SPARSE keeps pairs while
 * the union's bound fits the buffers, DENSE makes every merge dense.
 *
 * Cost, every rank k of n elements of e bytes, pairs of w = 4 + e bytes,
 * supports disjoint (the union's bound), S = log2 p2:
 *   2(S + 2[r > 0]) a + sum over s of min(2^(s-1) k w, n e) (b + g)
 * As long as p k w < n e that is 2 S a + (p - 1) k w (b + g): allgather's
 * bytes in log2 p rounds instead of p - 1.  Once dense, each remaining
 * stage moves the whole vector, log2 of the remaining ranks times n e
 * against a dense ring's 2 n e.  So it wins where the supports overlap or
 * stay small (latency-bound, many ranks, very sparse) and loses to the
 * dense ring where the union fills the vector early
 * (loom_sparse_merge_model prices it).
 *
 * The same bits on every rank: each merge adds in one operand order on
 * both sides, the lower positions' data on the left, whatever the formats
 * (pairs, dense, one of each), so both partners compute the same
 * additions of the same operands and hold identical data after the stage
 * (NaN payloads included; commutativity alone would not promise that).
 * By induction over the stages every position in 0..p2 ends with the same
 * bits, and the hand-back copies them to the rest.
 *
 * A failed selection (more pairs than kmax, indices not ascending) does
 * not stop its rank: it sends an empty payload marked bad, every merge
 * passes the mark on, and every rank fails at the end, none left waiting.
 *
 * Buffers in scratch: two work buffers, alternating between stages, and
 * one receive buffer, each room = max(n e, k_max w) bytes: a merged
 * support in pairs never outgrows it (past it the merge goes dense).
 */
#include "coll/core/sparse/sparse.h"
#include "coll/core/filter/pairs.h"
#include "coll/core/engine/tag.h"
#include "common/log.h"

#include <stdint.h>
#include <string.h>

#define LOOM_MERGE_ALIGN 64
/* The fold, a stage per doubling up to LOOM_TAG_MAX_RANKS, the hand-back. */
#define LOOM_MERGE_SLOTS 18

/* What precedes every payload; the same layout on every rank. */
typedef struct loom_merge_hdr {
    uint64_t    dense;          /* 1: n elements follow; 0: pairs (pairs.h) */
    uint64_t    bytes;          /* of the payload */
    uint64_t    ksum;           /* the k of every rank merged in, summed */
    int64_t     first_dense;    /* the first slot any of it went dense at; -1 none */
    uint64_t    bad;            /* a selection merged in failed */
} loom_merge_hdr_t;

struct loom_merge_ctx;

/* One exchange of this rank, and the step arguments of its compute steps. */
typedef struct loom_merge_slot {
    struct loom_merge_ctx   *c;
    int                     i;
    int                     peer;       /* team rank; -1: this rank sits it out */
    int                     sends, recvs, merges;
    int                     left;       /* this rank's data is the sum's left operand */
    char                    *mine;      /* the work buffer holding this rank's data */
    char                    *out;       /* where the merge writes */
    loom_merge_hdr_t        hdr;        /* this rank's data entering the slot */
    loom_merge_hdr_t        hin;        /* the peer's */
    size_t                  send_len, recv_len;
    int                     to_dense;   /* the merge's result format */
} loom_merge_slot_t;

/* The schedule's own state, at the start of its scratch. */
typedef struct loom_merge_ctx {
    loom_sparse_head_t  h;              /* first: sparse.h */
    int                 nslots;         /* S + 2 */
    int                 first;          /* the slot select fills */
    int                 extra;          /* position >= p2: folds in, gets the result */
    char                *recvbuf;
    size_t              count, esize, room;
    size_t              limit;          /* pairs bytes past which a merge goes dense */
    loom_filter_type_t  type;
    char                *rbuf;          /* the receive buffer */
    loom_status_t       fail;           /* this rank's selection's error */
    loom_merge_slot_t   slot[LOOM_MERGE_SLOTS];
} loom_merge_ctx_t;

/* What the sizes depend on, for the plan's model and the selection's. */
typedef struct loom_merge_shape {
    int                 p, p2, r, nstages;
    size_t              n, esize, k, limit;
    loom_sparse_path_t  path;
} loom_merge_shape_t;

static size_t loom_merge_round_up(size_t n)
{
    return (n + LOOM_MERGE_ALIGN - 1) / LOOM_MERGE_ALIGN * LOOM_MERGE_ALIGN;
}

static loom_merge_shape_t loom_merge_shape(int p, size_t n, size_t esize, size_t k,
                                           size_t limit, loom_sparse_path_t path)
{
    int p2 = loom_pow2_floor(p);

    return (loom_merge_shape_t){ .p = p, .p2 = p2, .r = p - p2,
                                 .nstages = loom_log2_ceil(p2), .n = n, .esize = esize,
                                 .k = k < n ? k : n, .limit = limit, .path = path };
}

/* The rule both sides of a merge apply to the two headers. */
static int loom_merge_goes_dense(loom_sparse_path_t path, size_t limit, size_t union_bytes,
                                 int either_dense)
{
    return path == LOOM_SPARSE_PATH_DENSE || either_dense || union_bytes > limit;
}

/* Ranks whose data a position holds before the merge of level
 * (blocks of 2^level positions): its block, and the extras folded in. */
static int loom_merge_contributors(const loom_merge_shape_t *sh, int pos, int level)
{
    int b = 1 << level, g = pos & ~(b - 1), folded = sh->r - g;

    return b + (folded < 0 ? 0 : folded > b ? b : folded);
}

/* The payload of c ranks' data, supports disjoint: their pairs, or the
 * vector once the rule says so (it is monotone in c, so the group's
 * last merge decides). */
static size_t loom_merge_group_bytes(const loom_merge_shape_t *sh, int c, int *dense_p)
{
    size_t pairs = (size_t)c * sh->k * (sh->esize + sizeof(uint32_t));

    *dense_p = c > 1 && loom_merge_goes_dense(sh->path, sh->limit, pairs, 0);
    return *dense_p ? sh->n * sh->esize : pairs;
}

/* The first slot at which some group goes dense, -1 none: the group of
 * position 0 holds the most ranks at every level. */
static int loom_merge_first_dense(const loom_merge_shape_t *sh)
{
    int s, dense;

    if (sh->r > 0 && (loom_merge_group_bytes(sh, 2, &dense), dense)) {
        return 0;
    }
    for (s = 1; s <= sh->nstages; ++s) {
        loom_merge_group_bytes(sh, loom_merge_contributors(sh, 0, s), &dense);
        if (dense) {
            return s;
        }
    }
    return -1;
}

double loom_sparse_merge_model(const loom_cost_t *m, int p, size_t n, size_t esize, size_t k,
                               size_t *bytes_p)
{
    loom_merge_shape_t sh = loom_merge_shape(p, n, esize, k, n * esize,
                                             LOOM_SPARSE_PATH_MODEL);
    double hb = (double)sizeof(loom_merge_hdr_t), t = 0;
    size_t sent = 0, mine, theirs, out;
    int s, dense;

    /* Position 0 holds the largest group at every stage: the busiest. */
    if (sh.r > 0) {
        theirs = loom_merge_group_bytes(&sh, 1, &dense);
        out = loom_merge_group_bytes(&sh, 2, &dense);
        t += 2 * m->alpha + (hb + (double)theirs) * m->beta + (double)out * m->gamma;
    }
    for (s = 1; s <= sh.nstages; ++s) {
        mine = loom_merge_group_bytes(&sh, loom_merge_contributors(&sh, 0, s - 1), &dense);
        theirs = loom_merge_group_bytes(&sh, loom_merge_contributors(&sh, 1 << (s - 1), s - 1),
                                        &dense);
        out = loom_merge_group_bytes(&sh, loom_merge_contributors(&sh, 0, s), &dense);
        t += 2 * m->alpha + (hb + (double)(mine > theirs ? mine : theirs)) * m->beta +
             (double)out * m->gamma;
        sent += sizeof(loom_merge_hdr_t) + mine;
    }
    if (sh.r > 0) {
        out = loom_merge_group_bytes(&sh, p, &dense);
        t += 2 * m->alpha + (hb + (double)out) * m->beta;
        sent += sizeof(loom_merge_hdr_t) + out;
    }
    *bytes_p = sent;
    return t;
}

/* ------------------------------------------------------------ pairs */

/* A block of pairs (pairs.h) as the merge reads it. */
typedef struct loom_merge_view {
    const char  *val;
    const char  *idx;
    size_t      k;
} loom_merge_view_t;

static loom_merge_view_t loom_merge_view(const loom_merge_ctx_t *c, const char *at,
                                         size_t bytes)
{
    size_t k = bytes / (c->esize + sizeof(uint32_t));

    return (loom_merge_view_t){ .val = at, .idx = at + k * c->esize, .k = k };
}

static uint32_t loom_merge_index(const loom_merge_view_t *v, size_t j)
{
    uint32_t x;

    memcpy(&x, v->idx + j * sizeof(x), sizeof(x));
    return x;
}

/* Indices strictly ascending and below count. */
static int loom_merge_pairs_valid(const loom_merge_ctx_t *c, const loom_merge_view_t *v)
{
    size_t j;

    for (j = 0; j < v->k; ++j) {
        uint32_t x = loom_merge_index(v, j);

        if (x >= c->count || (j > 0 && x <= loom_merge_index(v, j - 1))) {
            return 0;
        }
    }
    return 1;
}

/* *out = *a + *b in the vector's type, a on the left. */
static void loom_merge_add(const loom_merge_ctx_t *c, void *out, const void *a, const void *b)
{
    if (c->type == LOOM_FILTER_FLOAT) {
        float x, y;

        memcpy(&x, a, sizeof(x));
        memcpy(&y, b, sizeof(y));
        x = x + y;
        memcpy(out, &x, sizeof(x));
    } else {
        double x, y;

        memcpy(&x, a, sizeof(x));
        memcpy(&y, b, sizeof(y));
        x = x + y;
        memcpy(out, &x, sizeof(x));
    }
}

static size_t loom_merge_union_count(const loom_merge_view_t *a, const loom_merge_view_t *b)
{
    size_t i = 0, j = 0, n = 0;

    while (i < a->k && j < b->k) {
        uint32_t x = loom_merge_index(a, i), y = loom_merge_index(b, j);

        i += x <= y;
        j += y <= x;
        ++n;
    }
    return n + (a->k - i) + (b->k - j);
}

/* Where the union goes: ku pairs, or the dense vector (zeroed first). */
typedef struct loom_merge_sink {
    char    *out;
    size_t  ku;
    int     dense;
} loom_merge_sink_t;

static void loom_merge_put(const loom_merge_ctx_t *c, const loom_merge_sink_t *s, size_t j,
                           uint32_t index, const void *value)
{
    if (s->dense) {
        memcpy(s->out + (size_t)index * c->esize, value, c->esize);
    } else {
        memcpy(s->out + j * c->esize, value, c->esize);
        memcpy(s->out + s->ku * c->esize + j * sizeof(index), &index, sizeof(index));
    }
}

/* a (+) b into the sink, a on the left where both hold an index. */
static void loom_merge_union(const loom_merge_ctx_t *c, const loom_merge_view_t *a,
                             const loom_merge_view_t *b, const loom_merge_sink_t *s)
{
    size_t i = 0, j = 0, n = 0;
    char sum[sizeof(double)];

    if (s->dense) {
        memset(s->out, 0, c->count * c->esize);
    }
    while (i < a->k || j < b->k) {
        uint32_t x = i < a->k ? loom_merge_index(a, i) : UINT32_MAX;
        uint32_t y = j < b->k ? loom_merge_index(b, j) : UINT32_MAX;

        if (i < a->k && j < b->k && x == y) {
            loom_merge_add(c, sum, a->val + i * c->esize, b->val + j * c->esize);
            loom_merge_put(c, s, n, x, sum);
            ++i;
            ++j;
        } else if (j == b->k || (i < a->k && x < y)) {
            loom_merge_put(c, s, n, x, a->val + i++ * c->esize);
        } else {
            loom_merge_put(c, s, n, y, b->val + j++ * c->esize);
        }
        ++n;
    }
}

/* out = dense (+) pairs, in the order the sides stand in. */
static void loom_merge_dense_pairs(const loom_merge_ctx_t *c, const char *dense,
                                   const loom_merge_view_t *v, int dense_left, char *out)
{
    size_t j;

    memcpy(out, dense, c->count * c->esize);
    for (j = 0; j < v->k; ++j) {
        char *at = out + (size_t)loom_merge_index(v, j) * c->esize;
        const char *val = v->val + j * c->esize;

        loom_merge_add(c, at, dense_left ? at : val, dense_left ? val : at);
    }
}

static void loom_merge_dense_dense(const loom_merge_ctx_t *c, const void *a, const void *b,
                                   void *out)
{
    size_t i;

    if (c->type == LOOM_FILTER_FLOAT) {
        const float *x = a, *y = b;
        float *o = out;

        for (i = 0; i < c->count; ++i) {
            o[i] = x[i] + y[i];
        }
    } else {
        const double *x = a, *y = b;
        double *o = out;

        for (i = 0; i < c->count; ++i) {
            o[i] = x[i] + y[i];
        }
    }
}

/* ------------------------------------------------------------ steps */

static loom_status_t loom_merge_select_step(loom_sched_t *sched, void *arg)
{
    loom_merge_ctx_t *c = arg;
    loom_merge_slot_t *s = &c->slot[c->first];
    loom_merge_view_t v;
    size_t k = 0;

    (void)sched;
    c->fail = c->h.sp.select(c->h.sp.ctx, s->mine, &k);
    if (c->fail == LOOM_OK && (k > c->h.sp.kmax || k > c->count)) {
        loom_error("coll", "sparse allreduce: the selection gave %zu pairs, more than its "
                   "bound of %zu (and the vector's %zu elements)", k, c->h.sp.kmax, c->count);
        c->fail = LOOM_ERR_INVALID_PARAM;
    }
    v = loom_merge_view(c, s->mine, loom_pairs_bytes(k, c->type));
    if (c->fail == LOOM_OK && !loom_merge_pairs_valid(c, &v)) {
        loom_error("coll", "sparse allreduce: this rank's pairs are not ascending indices "
                   "below %zu", c->count);
        c->fail = LOOM_ERR_INVALID_PARAM;
    }
    /* A failure travels as a mark, so that every rank ends (see above). */
    s->hdr = (loom_merge_hdr_t){ .ksum = k, .first_dense = -1, .bad = c->fail != LOOM_OK };
    s->hdr.bytes = c->fail == LOOM_OK ? loom_pairs_bytes(k, c->type) : 0;
    s->send_len = (size_t)s->hdr.bytes;
    c->h.out.pairs = k;
    return LOOM_OK;
}

/* The peer's header: checked against what this rank could receive, its
 * length set, and the merge's format decided. */
static loom_status_t loom_merge_lens_step(loom_sched_t *sched, void *arg)
{
    loom_merge_slot_t *s = arg;
    const loom_merge_ctx_t *c = s->c;
    const loom_merge_hdr_t *a = &s->hdr, *b = &s->hin;
    size_t w = c->esize + sizeof(uint32_t), vec = c->count * c->esize, ka, kb;

    (void)sched;
    if (b->dense > 1 || b->bytes > c->room || (b->bad && b->bytes != 0) ||
        (b->dense ? b->bytes != vec : b->bytes % w != 0 || b->bytes / w > c->count)) {
        loom_error("coll", "sparse allreduce: rank %d announced %s of %llu bytes; this rank "
                   "takes pairs of at most %zu bytes or a vector of %zu (count and kmax must "
                   "be the same on every rank)", s->peer, b->dense ? "a vector" : "pairs",
                   (unsigned long long)b->bytes, c->room, vec);
        return LOOM_ERR_INVALID_PARAM;
    }
    s->recv_len = (size_t)b->bytes;
    if (s->merges) {
        ka = a->dense ? 0 : (size_t)a->bytes / w;
        kb = b->dense ? 0 : (size_t)b->bytes / w;
        s->to_dense = loom_merge_goes_dense(c->h.sp.path, c->limit, (ka + kb) * w,
                                            a->dense || b->dense);
    }
    return LOOM_OK;
}

static int64_t loom_merge_min_slot(int64_t a, int64_t b)
{
    return a < 0 ? b : b < 0 ? a : a < b ? a : b;
}

/* The result's payload into out, a on the left. */
static void loom_merge_combine(const loom_merge_slot_t *s, const loom_merge_hdr_t *a,
                               const char *at_a, const loom_merge_hdr_t *b, const char *at_b,
                               loom_merge_hdr_t *res)
{
    const loom_merge_ctx_t *c = s->c;
    loom_merge_view_t va = loom_merge_view(c, at_a, (size_t)a->bytes);
    loom_merge_view_t vb = loom_merge_view(c, at_b, (size_t)b->bytes);
    loom_merge_sink_t sink = { .out = s->out, .dense = s->to_dense };

    if (a->dense && b->dense) {
        loom_merge_dense_dense(c, at_a, at_b, s->out);
    } else if (a->dense || b->dense) {
        loom_merge_dense_pairs(c, a->dense ? at_a : at_b, a->dense ? &vb : &va, a->dense,
                               s->out);
    } else {
        sink.ku = s->to_dense ? 0 : loom_merge_union_count(&va, &vb);
        loom_merge_union(c, &va, &vb, &sink);
    }
    res->dense = (uint64_t)s->to_dense;
    res->bytes = s->to_dense ? c->count * c->esize : loom_pairs_bytes(sink.ku, c->type);
}

/* This rank's data (+) the peer's: the next slot's data and header. */
static loom_status_t loom_merge_merge_step(loom_sched_t *sched, void *arg)
{
    loom_merge_slot_t *s = arg;
    loom_merge_ctx_t *c = s->c;
    loom_merge_slot_t *next = &c->slot[s->i + 1];
    const loom_merge_hdr_t *a = s->left ? &s->hdr : &s->hin, *b = s->left ? &s->hin : &s->hdr;
    loom_merge_view_t theirs = loom_merge_view(c, c->rbuf, s->recv_len);
    loom_merge_hdr_t res = { .ksum = a->ksum + b->ksum, .bad = a->bad || b->bad };

    (void)sched;
    res.first_dense = loom_merge_min_slot(a->first_dense, b->first_dense);
    if (!res.bad && !s->hin.dense && !loom_merge_pairs_valid(c, &theirs)) {
        loom_error("coll", "sparse allreduce: the pairs of rank %d are not ascending indices "
                   "below %zu", s->peer, c->count);
        return LOOM_ERR_INVALID_PARAM;
    }
    if (!res.bad) {
        loom_merge_combine(s, a, s->left ? s->mine : c->rbuf, b, s->left ? c->rbuf : s->mine,
                           &res);
        res.first_dense = loom_merge_min_slot(res.first_dense, s->to_dense ? s->i : -1);
    }
    next->hdr = res;
    next->send_len = (size_t)res.bytes;
    return LOOM_OK;
}

/* The result into the receive buffer; the outcome. */
static loom_status_t loom_merge_final_step(loom_sched_t *sched, void *arg)
{
    loom_merge_ctx_t *c = arg;
    const loom_merge_slot_t *last = &c->slot[c->nslots - 1];
    const loom_merge_hdr_t *hd = c->extra ? &last->hin : &last->hdr;
    const char *at = c->extra ? c->rbuf : last->mine;
    loom_merge_view_t v = loom_merge_view(c, at, (size_t)hd->bytes);
    size_t sent = 0, j;
    int i;

    (void)sched;
    if (hd->bad) {
        if (c->fail == LOOM_OK) {
            loom_error("coll", "sparse allreduce: another rank's selection failed");
        }
        return c->fail != LOOM_OK ? c->fail : LOOM_ERR_INVALID_PARAM;
    }
    if (hd->dense) {
        memcpy(c->recvbuf, at, c->count * c->esize);
    } else {
        memset(c->recvbuf, 0, c->count * c->esize);
        for (j = 0; j < v.k; ++j) {
            memcpy(c->recvbuf + (size_t)loom_merge_index(&v, j) * c->esize,
                   v.val + j * c->esize, c->esize);
        }
    }
    for (i = 0; i < c->nslots; ++i) {
        sent += c->slot[i].sends ? sizeof(loom_merge_hdr_t) + c->slot[i].send_len : 0;
    }
    c->h.out.union_bound = (size_t)hd->ksum;
    c->h.out.dense = hd->dense != 0;
    c->h.out.dense_stage = (int)hd->first_dense;
    c->h.out.bytes_sent = sent;
    return LOOM_OK;
}

/* ------------------------------------------------------------ plan */

/* The position pos exchanges with at slot i. */
static int loom_merge_partner(const loom_merge_shape_t *sh, int pos, int i)
{
    if (i == 0 || i == sh->nstages + 1) {
        return pos >= sh->p2 ? pos - sh->p2 : pos + sh->p2;
    }
    return pos ^ (1 << (i - 1));
}

/* How many ranks' data position pos holds entering slot i. */
static int loom_merge_holds(const loom_merge_shape_t *sh, int pos, int i)
{
    if (i == 0) {
        return 1;
    }
    return i == sh->nstages + 1 ? sh->p : loom_merge_contributors(sh, pos, i - 1);
}

/* Each slot's peer, operand order and buffers for position pos: the fold
 * partner and every stage flip between the two work buffers. */
static void loom_merge_slots(loom_merge_ctx_t *c, const loom_merge_shape_t *sh,
                             const loom_order_t *o, int pos, char *work0, char *work1)
{
    char *work[2] = { work0, work1 };
    int i, q, cur = 0, last = sh->nstages + 1;

    for (i = 0; i < c->nslots; ++i) {
        c->slot[i] = (loom_merge_slot_t){ .c = c, .i = i, .peer = -1,
                                          .hdr.first_dense = -1, .hin.first_dense = -1 };
        q = loom_merge_partner(sh, pos, i);
        if (pos >= sh->p2 ? i != 0 && i != last : (i == 0 || i == last) && pos >= sh->r) {
            continue;
        }
        c->slot[i].peer = loom_order_at(o, q);
        c->slot[i].left = pos < q;
        c->slot[i].mine = work[cur];
        if (pos >= sh->p2) {
            /* Folds in at slot 0, gets the result at the last. */
            c->slot[i].sends = i == 0;
            c->slot[i].recvs = i == last;
        } else {
            c->slot[i].sends = i > 0;
            c->slot[i].recvs = i < last;
            c->slot[i].merges = i < last;
        }
        if (c->slot[i].merges) {
            c->slot[i].out = work[cur ^ 1];
            cur ^= 1;
        }
    }
    c->slot[last].mine = work[pos >= sh->p2 ? 0 : cur];
    c->first = pos >= sh->p2 || pos < sh->r ? 0 : 1;
}

/* For the simulator, which runs no compute step: every header, length
 * and the outcome as the model's sizes make them (supports disjoint). */
static void loom_merge_model_fill(loom_merge_ctx_t *c, const loom_merge_shape_t *sh, int pos)
{
    int i, dense, fd = loom_merge_first_dense(sh);
    size_t sent = 0;

    for (i = 0; i < c->nslots; ++i) {
        loom_merge_slot_t *s = &c->slot[i];
        int q = loom_merge_partner(sh, pos, i);

        if (s->peer < 0) {
            continue;
        }
        s->send_len = loom_merge_group_bytes(sh, loom_merge_holds(sh, pos, i), &dense);
        s->hdr = (loom_merge_hdr_t){ .dense = (uint64_t)dense, .bytes = s->send_len,
                                     .first_dense = -1 };
        s->recv_len = loom_merge_group_bytes(sh, loom_merge_holds(sh, q, i), &dense);
        s->hin = (loom_merge_hdr_t){ .dense = (uint64_t)dense, .bytes = s->recv_len,
                                     .first_dense = -1 };
        loom_merge_group_bytes(sh, loom_merge_holds(sh, pos, i) + loom_merge_holds(sh, q, i),
                               &s->to_dense);
        sent += s->sends ? sizeof(loom_merge_hdr_t) + s->send_len : 0;
    }
    c->h.out.pairs = sh->k;
    c->h.out.union_bound = (size_t)sh->p * sh->k;
    c->h.out.dense = fd >= 0;
    c->h.out.dense_stage = fd;
    c->h.out.bytes_sent = sent;
}

/* The memory a merge works through: what the simulator prices it by. */
static size_t loom_merge_work(const loom_merge_ctx_t *c, const loom_merge_slot_t *s)
{
    if (!c->h.sp.modeled) {
        return 3 * c->room;
    }
    return s->send_len + s->recv_len + (s->to_dense ? c->count * c->esize : s->send_len +
                                                                             s->recv_len);
}

/* The steps of one slot; *writer_p: the step after which this rank's
 * data entering the next slot is written. */
typedef struct loom_merge_ends {
    int send_hdr, send, recv;
} loom_merge_ends_t;

static loom_merge_ends_t loom_merge_add_slot(loom_sched_t *sched, loom_merge_slot_t *s,
                                             int *writer_p)
{
    loom_merge_ctx_t *c = s->c;
    loom_merge_ends_t e = { -1, -1, -1 };
    uint32_t tag = 2 * (uint32_t)s->i;
    int w = *writer_p, lens, merge;

    if (s->sends) {
        e.send_hdr = loom_sched_send(sched, s->peer, tag, &s->hdr, sizeof(s->hdr), LOOM_DEPS(w));
        e.send = loom_sched_send_len(sched, s->peer, tag + 1, s->mine, c->room, &s->send_len,
                                     LOOM_DEPS(w));
    }
    if (!s->recvs) {
        return e;
    }
    e.recv = loom_sched_recv(sched, s->peer, tag, &s->hin, sizeof(s->hin), LOOM_DEPS(w));
    lens = loom_sched_compute(sched, loom_merge_lens_step, s, 2 * sizeof(s->hin),
                              LOOM_DEPS(e.recv, w));
    loom_sched_compute_reads(sched, lens, &s->hin, sizeof(s->hin));
    if (s->merges) {
        loom_sched_compute_reads(sched, lens, &s->hdr, sizeof(s->hdr));
    }
    loom_sched_compute_writes(sched, lens, &s->recv_len, sizeof(s->recv_len));
    loom_sched_compute_writes(sched, lens, &s->to_dense, sizeof(s->to_dense));
    /* The receive buffer's last reader, the previous merge, is w. */
    e.recv = loom_sched_recv_len(sched, s->peer, tag + 1, c->rbuf, c->room, &s->recv_len,
                                 LOOM_DEPS(lens));
    if (!s->merges) {
        return e;
    }
    merge = loom_sched_compute(sched, loom_merge_merge_step, s, loom_merge_work(c, s),
                               LOOM_DEPS(e.recv, e.send, lens));
    loom_sched_compute_reads(sched, merge, &s->hdr, sizeof(s->hdr));
    loom_sched_compute_reads(sched, merge, &s->hin, sizeof(s->hin));
    loom_sched_compute_reads(sched, merge, &s->to_dense, sizeof(s->to_dense));
    loom_sched_compute_reads(sched, merge, &s->send_len, sizeof(s->send_len));
    loom_sched_compute_reads(sched, merge, &s->recv_len, sizeof(s->recv_len));
    loom_sched_compute_reads_len(sched, merge, s->mine, c->room, &s->send_len);
    loom_sched_compute_reads_len(sched, merge, c->rbuf, c->room, &s->recv_len);
    loom_sched_compute_writes(sched, merge, s->out, c->room);
    loom_sched_compute_writes(sched, merge, &c->slot[s->i + 1].hdr, sizeof(s->hdr));
    loom_sched_compute_writes(sched, merge, &c->slot[s->i + 1].send_len, sizeof(s->send_len));
    *writer_p = merge;
    return e;
}

/* select, the slots, final; with what each compute step reads and writes
 * (sched.h), for the verifier. */
static void loom_merge_build(loom_sched_t *sched, const loom_coll_args_t *args,
                             loom_merge_ctx_t *c)
{
    size_t n = c->count * c->esize;
    loom_merge_slot_t *first = &c->slot[c->first], *last = &c->slot[c->nslots - 1];
    loom_merge_ends_t e, end = { -1, -1, -1 };
    int writer, fin, i;

    writer = loom_sched_compute(sched, loom_merge_select_step, c, n, LOOM_NO_DEPS);
    loom_sched_compute_reads(sched, writer, args->in_place ? args->recvbuf : args->sendbuf, n);
    loom_sched_compute_writes(sched, writer, first->mine, c->room);
    loom_sched_compute_writes(sched, writer, &first->hdr, sizeof(first->hdr));
    loom_sched_compute_writes(sched, writer, &first->send_len, sizeof(first->send_len));
    for (i = 0; i < c->nslots; ++i) {
        if (c->slot[i].peer < 0) {
            continue;
        }
        e = loom_merge_add_slot(sched, &c->slot[i], &writer);
        end.send_hdr = e.send_hdr >= 0 ? e.send_hdr : end.send_hdr;
        end.send = e.send >= 0 ? e.send : end.send;
        end.recv = c->extra && e.recv >= 0 ? e.recv : end.recv;
    }
    fin = loom_sched_compute(sched, loom_merge_final_step, c, n,
                             LOOM_DEPS(writer, end.send_hdr, end.send, end.recv));
    if (c->extra) {
        loom_sched_compute_reads(sched, fin, &last->hin, sizeof(last->hin));
        loom_sched_compute_reads_len(sched, fin, c->rbuf, c->room, &last->recv_len);
    } else {
        loom_sched_compute_reads(sched, fin, &last->hdr, sizeof(last->hdr));
        loom_sched_compute_reads_len(sched, fin, last->mine, c->room, &last->send_len);
    }
    for (i = 0; i < c->nslots; ++i) {
        if (c->slot[i].sends) {
            loom_sched_compute_reads(sched, fin, &c->slot[i].send_len, sizeof(size_t));
        }
    }
    loom_sched_compute_writes(sched, fin, c->recvbuf, n);
}

/* Tag steps: a header and a payload per slot. */
static uint64_t loom_merge_rounds(int p)
{
    return 2 * ((uint64_t)loom_log2_ceil(loom_pow2_floor(p)) + 2);
}

/* Checks what the plan cannot run with; every rank decides alike. */
static loom_status_t loom_merge_check(const loom_coll_args_t *args, const loom_team_t *team)
{
    loom_status_t status = loom_sparse_check_args(args, "merge");

    if (status != LOOM_OK) {
        return status;
    }
    if (loom_merge_rounds(team->size) > LOOM_TAG_MAX_STEPS ||
        loom_merge_rounds(team->size) > 2 * LOOM_MERGE_SLOTS) {
        return LOOM_ERR_UNSUPPORTED;
    }
    return LOOM_OK;
}

loom_status_t loom_sparse_merge_plan(const loom_coll_args_t *args, loom_team_t *team,
                                     loom_sched_t **sched_p)
{
    const loom_order_t *o;
    loom_merge_shape_t sh;
    loom_merge_ctx_t *c;
    loom_status_t status;
    loom_filter_type_t type;
    loom_sched_t *sched;
    size_t kmax, room, at;
    char *scratch;
    int pos;

    status = loom_merge_check(args, team);
    if (status != LOOM_OK) {
        return status;
    }
    status = loom_sched_create(team, args, LOOM_SPARSE_MERGE, &sched);
    if (status != LOOM_OK || args->count == 0) {
        return status != LOOM_OK ? status : loom_sched_plan_done(sched, sched_p);
    }
    o = loom_sched_reduce_order(sched);
    pos = loom_order_pos(o, team->rank);
    type = args->elem_size == 4 ? LOOM_FILTER_FLOAT : LOOM_FILTER_DOUBLE;
    kmax = args->sparse->kmax < args->count ? args->sparse->kmax : args->count;
    room = args->count * args->elem_size;
    room = loom_merge_round_up(loom_pairs_bytes(kmax, type) > room ? loom_pairs_bytes(kmax, type)
                                                                   : room);
    at = loom_merge_round_up(sizeof(loom_merge_ctx_t));
    status = loom_sched_alloc_scratch(sched, at + 3 * room, (void **)&scratch);
    if (status != LOOM_OK) {
        goto out;
    }
    c = (loom_merge_ctx_t *)(void *)scratch;
    *c = (loom_merge_ctx_t){
        .h = { .sp = *args->sparse, .out = { .alg = LOOM_SPARSE_MERGE, .dense_stage = -1 } },
        .recvbuf = args->recvbuf, .count = args->count, .esize = args->elem_size,
        .room = room, .type = type, .rbuf = scratch + at + 2 * room,
    };
    c->h.sp.kmax = kmax;
    c->limit = args->sparse->path == LOOM_SPARSE_PATH_SPARSE ? room
                                                              : args->count * args->elem_size;
    sh = loom_merge_shape(team->size, args->count, args->elem_size,
                          args->sparse->modeled ? (args->sparse->model_k < kmax
                                                   ? args->sparse->model_k : kmax) : kmax,
                          c->limit, args->sparse->path);
    c->nslots = sh.nstages + 2;
    c->extra = pos >= sh.p2;
    loom_merge_slots(c, &sh, o, pos, scratch + at, scratch + at + room);
    if (c->h.sp.modeled) {
        loom_merge_model_fill(c, &sh, pos);
    }
    loom_merge_build(sched, args, c);
out:
    return loom_sched_plan_done(sched, sched_p);
}
