/* Split-and-reduce's compute steps (sparse_split.c draws the algorithm):
 * what runs on a rank's own memory between the messages. */
#include "coll/core/sparse/sparse_split.h"
#include "coll/core/filter/pairs.h"
#include "common/log.h"

#include <float.h>
#include <math.h>
#include <stdlib.h>
#include <string.h>

static uint32_t loom_split_index(const char *block, size_t k, size_t j, size_t esize)
{
    uint32_t i;

    memcpy(&i, block + k * esize + j * sizeof(uint32_t), sizeof(i));
    return i;
}


static double loom_split_elem(const char *buf, size_t i, loom_filter_type_t type)
{
    return type == LOOM_FILTER_FLOAT ? ((const float *)(const void *)buf)[i]
                                     : ((const double *)(const void *)buf)[i];
}

/* Pair j of a block of k: value and index copied from src pair sj of a
 * block of sk. */
static void loom_split_move(char *dst, size_t k, size_t j, const char *src, size_t sk,
                            size_t sj, size_t esize)
{
    memmove(dst + j * esize, src + sj * esize, esize);
    memmove(dst + k * esize + j * sizeof(uint32_t), src + sk * esize + sj * sizeof(uint32_t),
            sizeof(uint32_t));
}

/* --------------------------------------------------------- the steps */

/* Checks this rank's selection (its k, ascending indices below count) and
 * cuts it into one block per region. */
/* This rank's selection checked: strictly ascending indices, no more than
 * kmax of them. */
static loom_status_t loom_split_selected(loom_split_ctx_t *c, size_t *k_p)
{
    size_t k = 0, j;
    uint32_t i, prev = 0;
    loom_status_t status;

    status = c->h.sp.select(c->h.sp.ctx, c->sel, &k);
    if (status != LOOM_OK) {
        return status;
    }
    if (k > c->h.sp.kmax || k > c->count) {
        loom_error("coll", "sparse split: the selection gave %zu pairs, more than its bound "
                   "of %zu (and the vector's %zu elements)", k, c->h.sp.kmax, c->count);
        return LOOM_ERR_INVALID_PARAM;
    }
    for (j = 0; j < k; ++j) {
        i = loom_split_index(c->sel, k, j, c->esize);
        if (i >= c->count || (j > 0 && i <= prev)) {
            loom_error("coll", "sparse split: pair %zu of this rank's selection has index "
                       "%u; strictly ascending indices below %zu are accepted", j, i,
                       c->count);
            return LOOM_ERR_INVALID_PARAM;
        }
        prev = i;
    }
    *k_p = k;
    return LOOM_OK;
}

loom_status_t loom_split_select_step(loom_sched_t *sched, void *arg)
{
    loom_split_ctx_t *c = arg;
    size_t k = 0, j, at = 0, start;
    int r;

    (void)sched;
    c->fail = loom_split_selected(c, &k);
    if (c->fail != LOOM_OK) {
        for (r = 0; r < c->p; ++r) {
            c->send_len[r] = 0;
            c->cnt_out[r] = LOOM_SPLIT_BAD;
        }
        return LOOM_OK;
    }
    c->h.out.pairs = k;
    for (r = 0; r < c->p; ++r) {
        size_t n;

        for (start = at; at < k && loom_split_index(c->sel, k, at, c->esize) < c->b[r + 1];
             ++at) {
        }
        n = at - start;
        for (j = 0; j < n; ++j) {
            loom_split_move(loom_split_out_block(c, r), n, j, c->sel, k, start + j, c->esize);
        }
        c->send_len[r] = loom_pairs_bytes(n, c->type);
        c->cnt_out[r] = (uint64_t)n | (uint64_t)k << 32;
    }
    return LOOM_OK;
}

/* Every incoming block's length, and K. */
loom_status_t loom_split_tally_step(loom_sched_t *sched, void *arg)
{
    loom_split_ctx_t *c = arg;
    uint64_t total = 0, v;
    size_t n, k;
    int j;

    (void)sched;
    for (j = 0; j < c->p; ++j) {
        v = j == c->mepos ? c->cnt_out[j] : c->cnt_in[j];
        if (v == LOOM_SPLIT_BAD) {
            if (c->fail == LOOM_OK) {
                loom_error("coll", "sparse split: the selection of rank %d failed",
                           c->ranks[j]);
                c->fail = LOOM_ERR_INVALID_PARAM;
            }
            v = 0;
        }
        n = (size_t)(v & UINT32_MAX);
        k = (size_t)(v >> 32);
        if (k > c->h.sp.kmax || (j != c->mepos && n > c->in_cap)) {
            loom_error("coll", "sparse split: rank %d announced %zu pairs, %zu of them for "
                       "this region; at most %zu and %zu are accepted", c->ranks[j], k, n,
                       c->h.sp.kmax, c->in_cap);
            return LOOM_ERR_INVALID_PARAM;
        }
        c->recv_len[j] = j == c->mepos ? 0 : loom_pairs_bytes(n, c->type);
        total += k;
    }
    c->h.out.union_bound = (size_t)total;
    c->k_call = (size_t)((total + (uint64_t)c->p - 1) / (uint64_t)c->p);
    return LOOM_OK;
}

/* The own region, summed into the receive buffer: sources in team-rank
 * order; a source's pairs must lie in the region. */
static loom_status_t loom_split_sum(loom_split_ctx_t *c)
{
    size_t lo = c->b[c->mepos], hi = c->b[c->mepos + 1], k;
    loom_status_t status;
    const char *block;
    int r, j;

    memset(c->recvbuf + lo * c->esize, 0, (hi - lo) * c->esize);
    for (r = 0; r < c->p; ++r) {
        j = c->posof[r];
        block = j == c->mepos ? loom_split_out_block(c, j) : loom_split_in_block(c, j);
        k = (size_t)((j == c->mepos ? c->cnt_out[j] : c->cnt_in[j]) & UINT32_MAX);
        status = k > 0 && loom_split_index(block, k, 0, c->esize) < lo
                     ? LOOM_ERR_INVALID_PARAM
                     : loom_pairs_accumulate(c->recvbuf, hi, c->type, block, k);
        if (status != LOOM_OK) {
            loom_error("coll", "sparse split: the pairs of rank %d for region [%zu, %zu) are "
                       "not ascending indices inside it", r, lo, hi);
            return status;
        }
    }
    return LOOM_OK;
}

static int loom_split_cmp_desc(const void *a, const void *b)
{
    double x = *(const double *)a, y = *(const double *)b;

    return x < y ? 1 : x > y ? -1 : 0;
}

/* The cut of a capped keep: of the region's nonzero magnitudes, the
 * m-th largest (all of them if fewer), and how many equal to it the top
 * m takes (the lowest indices first). */
static double loom_split_cut(loom_split_ctx_t *c, size_t m, size_t *ties_p)
{
    size_t lo = c->b[c->mepos], hi = c->b[c->mepos + 1], nz = 0, i, above = 0;
    double t;

    for (i = lo; i < hi; ++i) {
        double v = fabs(loom_split_elem(c->recvbuf, i, c->type));

        if (v != 0) {
            c->mag[nz++] = v;
        }
    }
    if (nz == 0 || m == 0) {
        *ties_p = 0;
        return INFINITY;
    }
    qsort(c->mag, nz, sizeof(double), loom_split_cmp_desc);
    t = c->mag[(m < nz ? m : nz) - 1];
    while (above < nz && c->mag[above] > t) {
        ++above;
    }
    *ties_p = (m < nz ? m : nz) - above;
    return t;
}

/* Whether an entry of magnitude v passes: above the cut, or on it while
 * a capped keep's ties last (the lowest indices come first). */
static int loom_split_passes(double v, double t, int capped, size_t *ties)
{
    if (v == 0 || v < t) {
        return 0;
    }
    if (v > t || !capped) {
        return 1;
    }
    if (*ties == 0) {
        return 0;
    }
    --*ties;
    return 1;
}

/* How many of the region's entries reach theta. */
static size_t loom_split_reaching(const loom_split_ctx_t *c, double theta)
{
    size_t lo = c->b[c->mepos], hi = c->b[c->mepos + 1], i, n = 0;

    for (i = lo; i < hi; ++i) {
        double v = fabs(loom_split_elem(c->recvbuf, i, c->type));

        n += v != 0 && v >= theta;
    }
    return n;
}

/* The cut the keep applies and whether it is capped (a top-m one, ties
 * to the lower index): an estimate call's top ceil(K/p), theta, or,
 * where more than B reach theta, the top B -- the slot holds no more,
 * and the finish's putback hands the rest back to the residuals. */
static double loom_split_keep_cut(loom_split_ctx_t *c, int *capped_p, size_t *ties_p)
{
    size_t m = (c->k_call + (size_t)c->p - 1) / (size_t)c->p;

    *ties_p = 0;
    *capped_p = 1;
    if (c->estimate) {
        /* ceil(K/p) <= ceil(kmax/p) <= B unless B is the largest region;
         * then the region caps it anyway: the min only states it. */
        return loom_split_cut(c, m < c->bcap ? m : c->bcap, ties_p);
    }
    if (loom_split_reaching(c, c->theta) > c->bcap) {
        return loom_split_cut(c, c->bcap, ties_p);
    }
    *capped_p = 0;
    return c->theta;
}

/* t as a float no larger than t: a cut rounded up would drop the entry it
 * was taken from. */
static float loom_split_down(double t)
{
    float f;

    if (t >= (double)FLT_MAX) {
        return FLT_MAX;
    }
    f = (float)t;
    return (double)f > t ? nextafterf(f, 0.0f) : f;
}

/* Keeps the region's entries that pass (into the own slot, and zeros
 * the others in the receive buffer), reports to rep[0]. */
static void loom_split_keep(loom_split_ctx_t *c)
{
    size_t lo = c->b[c->mepos], hi = c->b[c->mepos + 1], i, kept = 0, ties0, ties, j = 0;
    char *blk = loom_split_slot(c, 0);
    uint32_t idx;
    int capped;
    double t = loom_split_keep_cut(c, &capped, &ties0);

    ties = ties0;
    for (i = lo; i < hi; ++i) {
        kept += (size_t)loom_split_passes(fabs(loom_split_elem(c->recvbuf, i, c->type)), t,
                                          capped, &ties);
    }
    ties = ties0;
    for (i = lo; i < hi; ++i) {
        char *e = c->recvbuf + i * c->esize;

        if (loom_split_passes(fabs(loom_split_elem(c->recvbuf, i, c->type)), t, capped,
                              &ties)) {
            idx = (uint32_t)i;
            memcpy(blk + j * c->esize, e, c->esize);
            memcpy(blk + kept * c->esize + j * sizeof(uint32_t), &idx, sizeof(idx));
            ++j;
        } else {
            memset(e, 0, c->esize);
        }
    }
    /* The padding travels too: zeros, so the wire holds the same bits
     * every run. */
    memset(blk + kept * c->w, 0, (c->bcap - kept) * c->w);
    c->rep[0] = (loom_split_report_t){ .kept = (uint32_t)kept,
                                       .t = c->estimate && kept > 0 ? loom_split_down(t) : 0 };
}

loom_status_t loom_split_reduce_step(loom_sched_t *sched, void *arg)
{
    loom_split_ctx_t *c = arg;
    loom_status_t status;

    (void)sched;
    if (c->fail != LOOM_OK) {
        /* An empty slot and report; the receive buffer stays as it was. */
        memset(loom_split_slot(c, 0), 0, c->slot);
        c->rep[0] = (loom_split_report_t){ .kept = 0, .t = 0 };
        return LOOM_OK;
    }
    status = loom_split_sum(c);
    if (status == LOOM_OK) {
        loom_split_keep(c);
    }
    return status;
}

/* Round d = 2^k sends min(d, p - d) blocks; over the rounds that is
 * every block but the own one, once. */
size_t loom_split_bruck_sent(int p, size_t unit)
{
    return p > 1 ? (size_t)(p - 1) * unit : 0;
}

static int loom_split_cmp_asc(const void *a, const void *b)
{
    double x = *(const double *)a, y = *(const double *)b;

    return x < y ? -1 : x > y ? 1 : 0;
}

/* Theta for the next calls: the median (the lower one of an even count)
 * of the cuts of the owners that kept anything. */
static void loom_split_set_theta(loom_split_ctx_t *c)
{
    int j, m = 0;

    for (j = 0; j < c->p; ++j) {
        if (c->rep[j].kept > 0) {
            c->mag[m++] = c->rep[j].t;
        }
    }
    if (m == 0) {
        return;
    }
    qsort(c->mag, (size_t)m, sizeof(double), loom_split_cmp_asc);
    c->state->theta = c->mag[(m - 1) / 2];
    c->state->theta_set = 1;
}

loom_status_t loom_split_decide_step(loom_sched_t *sched, void *arg)
{
    loom_split_ctx_t *c = arg;
    size_t total = 0, sent = 8 * (size_t)(c->p - 1), kept;
    int i, j, right = (c->mepos + 1) % c->p, dense;

    for (i = 0; i < c->p; ++i) {
        j = (c->mepos + i) % c->p;
        kept = (size_t)c->rep[i].kept;
        if (kept > c->bcap) {
            loom_error("coll", "sparse split: rank %d kept %zu pairs, more than the %zu a "
                       "slot holds", c->ranks[j], kept, c->bcap);
            return LOOM_ERR_INVALID_PARAM;
        }
        total += kept;
    }
    /* A failed call takes the sparse arm everywhere: all slots are empty. */
    dense = c->fail == LOOM_OK && (c->h.sp.path == LOOM_SPARSE_PATH_DENSE ||
            (c->h.sp.path == LOOM_SPARSE_PATH_MODEL &&
             loom_split_dense_wins(&c->h.sp.cost, c->p, c->count, c->esize, c->slot)));
    for (j = 0; j < c->p; ++j) {
        sent += j != c->mepos ? c->send_len[j] : 0;
        if (dense && j != right) {
            sent += (c->b[j + 1] - c->b[j]) * c->esize;
        }
    }
    if (!dense) {
        sent += loom_split_bruck_sent(c->p, c->slot);
    }
    c->h.out.kept = total;
    c->h.out.dense = dense;
    c->h.out.bytes_sent =
        c->p > 1 ? sent + loom_split_bruck_sent(c->p, sizeof(loom_split_report_t)) : 0;
    if (c->estimate && c->state != NULL && c->fail == LOOM_OK) {
        /* rep is rotated; the median does not care. */
        loom_split_set_theta(c);
    }
    loom_sched_take_arm(sched, dense ? LOOM_SPARSE_PATH_DENSE : LOOM_SPARSE_PATH_SPARSE);
    return LOOM_OK;
}

/* The sparse arm's result: zeros plus every slot's pairs (regions are
 * disjoint: a copy, the same bits everywhere). */
loom_status_t loom_split_merge_step(loom_sched_t *sched, void *arg)
{
    loom_split_ctx_t *c = arg;
    loom_status_t status;
    size_t k;
    int i, j;

    (void)sched;
    if (c->fail != LOOM_OK) {
        return LOOM_OK;
    }
    memset(c->recvbuf, 0, c->count * c->esize);
    for (i = 0; i < c->p; ++i) {
        j = (c->mepos + i) % c->p;
        k = c->rep[i].kept;
        status = k <= c->bcap
                     ? loom_pairs_accumulate(c->recvbuf, c->b[j + 1], c->type,
                                             loom_split_slot(c, i), k)
                     : LOOM_ERR_INVALID_PARAM;
        if (status != LOOM_OK) {
            loom_error("coll", "sparse split: the slot of rank %d holds %zu pairs; at most "
                       "%zu pairs at ascending indices below %zu are accepted", c->ranks[j],
                       k, c->bcap, c->b[j + 1]);
            return status;
        }
    }
    return LOOM_OK;
}

/* New bounds at the quantiles of the kept indices (the nonzeros of the
 * result, the same on every rank); fewer kept than ranks say too little,
 * and the bounds stay. */
static void loom_split_rebalance(loom_split_ctx_t *c)
{
    size_t i, seen = 0, total = c->h.out.kept, *b = c->state->b;
    int j = 1;

    if (total < (size_t)c->p) {
        return;
    }
    for (i = 0; i < c->count && j < c->p; ++i) {
        if (loom_split_elem(c->recvbuf, i, c->type) == 0) {
            continue;
        }
        while (j < c->p && seen == total * (size_t)j / (size_t)c->p) {
            b[j++] = i;
        }
        ++seen;
    }
    b[0] = 0;
    b[c->p] = c->count;
}

/* The pairs of this rank's selection whose entry the result does not
 * hold (kept entries are never 0), compacted in place and handed back. */
static void loom_split_putback(loom_split_ctx_t *c)
{
    size_t k = c->h.out.pairs, j, n = 0;
    uint32_t i;

    for (j = 0; j < k; ++j) {
        i = loom_split_index(c->sel, k, j, c->esize);
        if (loom_split_elem(c->recvbuf, i, c->type) == 0) {
            memmove(c->sel + n * c->esize, c->sel + j * c->esize, c->esize);
            ++n;
        }
    }
    /* The indices move down in the same order: each lands at or before
     * where it is read, so none is overwritten before it is read. */
    for (j = 0, i = 0; j < k; ++j) {
        uint32_t idx = loom_split_index(c->sel, k, j, c->esize);

        if (loom_split_elem(c->recvbuf, idx, c->type) == 0) {
            memmove(c->sel + n * c->esize + (size_t)i * sizeof(uint32_t), &idx, sizeof(idx));
            ++i;
        }
    }
    c->h.out.put_back = n;
    if (c->h.sp.putback != NULL && n > 0) {
        c->h.sp.putback(c->h.sp.ctx, c->sel, n);
    }
}

loom_status_t loom_split_finish_step(loom_sched_t *sched, void *arg)
{
    loom_split_ctx_t *c = arg;

    (void)sched;
    if (c->fail != LOOM_OK) {
        return c->fail;
    }
    if (c->estimate && c->state != NULL) {
        loom_split_rebalance(c);
    }
    loom_split_putback(c);
    return LOOM_OK;
}
