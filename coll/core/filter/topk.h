/*
 * Top-k selection: which k entries of acc[0..count) have the largest
 * magnitudes.  The output is the chosen indices in ascending order (uint32,
 * so count < 2^32) and their values, copied from acc.
 *
 * Order.  Elements are ranked by their bit pattern with the sign cleared,
 * read as an unsigned integer.  For IEEE 754 that is |x| for every
 * non-NaN (denormals included, -0 == +0), with +-Inf above every finite
 * value and every NaN above Inf.  So a NaN is always selected first: it
 * reaches the sum as it would in a dense allreduce, and never sits in a
 * residual poisoning later steps.  Gradients with NaN are a user's bug;
 * this only keeps the result honest and the selection finite.  Equal
 * magnitudes are broken by the lower index, so the choice is a function
 * of the data alone: every run and every rank with the same acc chooses
 * the same entries.
 *
 * Exact (count <= exact_max): a radix select on the 32- or 64-bit keys,
 * one byte per pass (4 passes for float, 8 for double, each a 256-bucket
 * histogram of the candidates that share the bytes found so far), finds
 * the k-th largest key T; a last pass takes every key > T and the first
 * (in index order) of those equal to T.  O(count) worst case, no scratch
 * memory, no data-dependent pivot.
 *
 * Sampled (count > exact_max): a stratified sample, one element drawn by
 * a fixed-seed xorshift inside each of s equal strides, with
 * s = max(1024, 256 * count / k) (exact instead when s >= count).  The
 * threshold is the r-th largest sampled key, r = ceil(k * s / count);
 * every element with key >= threshold is taken, in index order.  The
 * expected number taken is about k; its relative standard deviation is
 * about 1 / sqrt(r) <= 1 / 16 (about 6%), and within +-25% in practice.
 * If more than kmax = min(count, 2k) pass, the exact selection of k runs
 * instead.  Every taken element's magnitude is >= every untaken one's:
 * only the count is estimated, never the order.
 */
#ifndef LOOM_FILTER_TOPK_H
#define LOOM_FILTER_TOPK_H

#include "coll/core/filter/filter_type.h"
#include "loom/status.h"

#include <stddef.h>
#include <stdint.h>

typedef struct loom_topk_args {
    loom_filter_type_t  type;
    const void          *acc;       /* count elements of type */
    size_t              count;      /* < 2^32 */
    size_t              k;          /* wanted; k >= count takes all */
    size_t              exact_max;  /* counts above this are sampled */
    uint32_t            *index_out; /* loom_topk_capacity() entries */
    void                *value_out; /* as many elements of type */
} loom_topk_args_t;

/* How many entries loom_topk_select may write for these sizes: min(k,
 * count) when exact, min(count, 2k) when sampled. */
size_t loom_topk_capacity(size_t count, size_t k, size_t exact_max);

/*
 * Select as described above; *selected_p is how many entries were written
 * to index_out / value_out.  Returns LOOM_ERR_INVALID_PARAM for a count
 * >= 2^32 or an unknown type, LOOM_ERR_NO_MEMORY if the sample cannot be
 * allocated; then nothing was written and *selected_p is untouched.
 */
loom_status_t loom_topk_select(const loom_topk_args_t *args,
                               size_t *selected_p);

/* The ranking key of element i (see "Order" above), for tests and for
 * callers that must compare magnitudes the way selection does. */
uint64_t loom_topk_key(loom_filter_type_t type, const void *acc, size_t i);

#endif
