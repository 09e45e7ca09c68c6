/*
 * The wire format of one rank's selection ("pairs"), and its merge into a
 * dense buffer.
 *
 * A block of k pairs is
 *
 *     value[0] .. value[k-1]   k elements of the type (4 or 8 bytes each)
 *     index[0] .. index[k-1]   k uint32, strictly ascending, < count
 *
 * with no header and no padding: loom_pairs_bytes(k, type) =
 * k * (size + 4), and k follows from a block's length.  Values come first
 * so that, in a block aligned for the type (as malloc's are), both arrays
 * are naturally aligned (k * size is a multiple of 4) whatever k is; the
 * functions here read and write through memcpy anyway, so a block at any
 * address is correct, merely slower.  Byte order is the host's: all ranks
 * of a job share it.
 *
 * Every rank gets the same bits when every rank merges the same blocks in
 * the same order (ranks 0 .. p-1) into a buffer that starts the same:
 * loom_pairs_densify for rank 0's block, loom_pairs_accumulate for the
 * others.  Floating-point addition is not associative; the order is what
 * makes the sums agree.
 */
#ifndef LOOM_FILTER_PAIRS_H
#define LOOM_FILTER_PAIRS_H

#include "coll/core/filter/filter_type.h"
#include "loom/status.h"

#include <stddef.h>
#include <stdint.h>

/* Bytes of a block of k pairs; 0 for an unknown type or on overflow. */
size_t loom_pairs_bytes(size_t k, loom_filter_type_t type);

/* The k of a block of bytes bytes: LOOM_ERR_INVALID_PARAM (and *k_p
 * untouched) if bytes is not a whole number of pairs. */
loom_status_t loom_pairs_count(size_t bytes, loom_filter_type_t type,
                               size_t *k_p);

/* Writes k pairs (index[], value[] as topk.h outputs them) into block,
 * which has loom_pairs_bytes(k, type) bytes. */
void loom_pairs_encode(const uint32_t *index, const void *value, size_t k,
                       loom_filter_type_t type, void *block);

/*
 * dst[index[j]] += value[j] for the k pairs of block, in dst's type.
 * First checks the whole block: indices strictly ascending and < count;
 * if not, returns LOOM_ERR_INVALID_PARAM and dst is untouched.
 */
loom_status_t loom_pairs_accumulate(void *dst, size_t count,
                                    loom_filter_type_t type,
                                    const void *block, size_t k);

/* Zeroes dst[0..count) then dst[index[j]] = value[j]; the same check and
 * the same promise as loom_pairs_accumulate (dst untouched on error). */
loom_status_t loom_pairs_densify(void *dst, size_t count,
                                 loom_filter_type_t type,
                                 const void *block, size_t k);

#endif
