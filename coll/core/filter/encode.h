/*
 * Encodings of one rank's selection, chosen by density (docs/filter.md):
 * the sparse allreduce's allgather sends every rank's block in the one
 * encoding whose total over all ranks is smallest, and every rank decodes
 * every block with it.
 *
 * A selection is k values at k strictly ascending indices below n.  Every
 * encoding puts the values first, so that in a block aligned for the type
 * (the allgather's are) the values are aligned whatever else follows, with
 * no padding and no header; the length of a block and its k (both
 * exchanged before the blocks) say where each part ends.
 *
 *   coo     k values, k uint32 indices (pairs.h)            k (e + 4)
 *   delta   k values, then the k indices as LEB128 varints:   k e + sum of
 *           the first index, then each index minus the one     varint bytes
 *           before it (1 to 5 bytes each: 7 bits a byte, the
 *           high bit set on every byte but the last)
 *   bitmap  k values in index order, then ceil(n/8) bytes:    k e + ceil(n/8)
 *           bit i % 8 of byte i / 8 set iff index i is
 *           selected; bits at n and above zero
 *   block   the values of every block of LOOM_ENC_BLOCK_ELEMS  b (B e + 4)
 *           elements holding a selected index, B each (zeros   less the short
 *           where nothing was selected; the last block of the  last block's
 *           vector has n % B when that is not 0), then the b   missing values
 *           uint32 numbers of those blocks, ascending
 *
 * Where each wins, for a uniform selection of density q = k/n, in bytes
 * an element selected beyond its value: coo 4; delta the varint of its
 * gap, 1 while gaps stay under 128 (q above about 4%), 2 under 2^14, and
 * 5 only for gaps of 2^28 and more (where coo wins); the bitmap 1/(8q),
 * so it passes delta above q = 1/8; block 4/B for each block holding a
 * selected index plus a value for every element of it not selected, so
 * it wins only where nearly every block is full (q above about 98%) or
 * the selection is clustered (whole rows of a layer).
 *
 * Byte order is the host's: all ranks of a job share it.  Floats and
 * doubles (filter_type.h).
 */
#ifndef LOOM_FILTER_ENCODE_H
#define LOOM_FILTER_ENCODE_H

#include "coll/core/filter/filter_type.h"
#include "loom/status.h"

#include <stddef.h>
#include <stdint.h>

/* Values travel in loom_sparse_args_t.encoding and the outcome: never
 * reuse one. */
typedef enum loom_encoding {
    LOOM_ENC_AUTO = 0,      /* the cheapest: the caller chooses among the rest */
    LOOM_ENC_COO = 1,
    LOOM_ENC_DELTA = 2,
    LOOM_ENC_BITMAP = 3,
    LOOM_ENC_BLOCK = 4,
    LOOM_ENC_COUNT
} loom_encoding_t;

/* Elements of a block of the block encoding.  A full block pays a 4-byte
 * number for B elements, the bitmap 1/8 byte an element: B must pass 32
 * for block to ever beat the bitmap, and 64 halves the bitmap's overhead
 * (1/16 byte an element) while a block of floats stays 256 bytes, four
 * cache lines, so a scattered selection wastes little on the zeros of
 * partly filled blocks. */
#define LOOM_ENC_BLOCK_ELEMS 64

/* "auto", "coo", "delta", "bitmap", "block", by value; NULL-terminated. */
extern const char *const loom_encoding_names[LOOM_ENC_COUNT + 1];

/* Why a block was refused, for the caller to log. */
typedef struct loom_encode_why {
    char text[160];
} loom_encode_why_t;

/*
 * Bytes of the selection (index[0..k), strictly ascending, < n) in enc;
 * SIZE_MAX for AUTO, a value outside the enum, an unknown type or indices
 * that are not so.  What loom_encode_write writes, to the byte.
 */
size_t loom_encode_size(loom_encoding_t enc, const uint32_t *index, size_t k, size_t n,
                        loom_filter_type_t type);

/*
 * Every encoding's size at once (sizes_p[enc] for COO .. BLOCK; sizes_p[0]
 * is SIZE_MAX), in one pass that also checks the selection: indices
 * strictly ascending and below n.  If not, returns
 * LOOM_ERR_INVALID_PARAM with the reason in *why_p, and sizes_p untouched.
 */
loom_status_t loom_encode_sizes(const uint32_t *index, size_t k, size_t n,
                                loom_filter_type_t type, size_t sizes_p[LOOM_ENC_COUNT],
                                loom_encode_why_t *why_p);

/*
 * Writes the selection (index[], value[] as topk.h gives them, valid as
 * loom_encode_sizes checks) in enc to out, which has
 * loom_encode_size(enc, ...) bytes; returns that many (SIZE_MAX, nothing
 * written, for AUTO or a value outside the enum).
 */
size_t loom_encode_write(loom_encoding_t enc, const uint32_t *index, const void *value,
                         size_t k, size_t n, loom_filter_type_t type, void *out);

/*
 * dst[i] += v for every (i, v) of a block of bytes bytes that encodes k
 * indices below n in enc; the block encoding adds its zeros too, which
 * change no sum (x + 0 is x, for every x but -0, and a sum that starts at
 * +0 never becomes -0).  Checks the whole block first: indices ascending
 * and below n, the length exactly what the content says (nothing
 * truncated, nothing trailing), k what the content holds, varints no
 * longer than needed; if not, returns LOOM_ERR_INVALID_PARAM with the
 * reason in *why_p (may be NULL), and dst is untouched.
 */
loom_status_t loom_encode_accumulate(loom_encoding_t enc, void *dst, size_t n,
                                     loom_filter_type_t type, const void *block,
                                     size_t bytes, size_t k, loom_encode_why_t *why_p);

/*
 * The same checks, then the block's (index, value) entries into index[]
 * and value[] (room for room of them), ascending; their number to *got_p.
 * For block, every element of every listed block, zeros included.  A
 * decoder that needs no dense vector (a block with indices near 2^32).
 */
loom_status_t loom_encode_unpack(loom_encoding_t enc, size_t n, loom_filter_type_t type,
                                 const void *block, size_t bytes, size_t k, uint32_t *index,
                                 void *value, size_t room, size_t *got_p,
                                 loom_encode_why_t *why_p);

/*
 * The expected bytes of enc for k indices drawn uniformly at random from
 * n (every k-subset equally likely), for the simulator and the cost model
 * (encode.c derives each); SIZE_MAX for AUTO, a value outside the enum,
 * an unknown type or k > n.  Exact for coo and bitmap.
 */
size_t loom_encode_model_size(loom_encoding_t enc, size_t k, size_t n,
                              loom_filter_type_t type);

#endif
