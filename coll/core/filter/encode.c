/*
 * The encodings of a selection (encode.h): sizes, writing, and one checked
 * walk per encoding that both decoders run twice, first to check the whole
 * block and then to add or unpack it, so a bad block touches nothing.
 */
#include "coll/core/filter/encode.h"

#include <math.h>
#include <stdarg.h>
#include <stdio.h>
#include <string.h>

#define ENC_B LOOM_ENC_BLOCK_ELEMS

const char *const loom_encoding_names[LOOM_ENC_COUNT + 1] = {
    [LOOM_ENC_AUTO] = "auto",     [LOOM_ENC_COO] = "coo",     [LOOM_ENC_DELTA] = "delta",
    [LOOM_ENC_BITMAP] = "bitmap", [LOOM_ENC_BLOCK] = "block", [LOOM_ENC_COUNT] = NULL,
};

static void enc_why(loom_encode_why_t *why, const char *fmt, ...)
    __attribute__((format(printf, 2, 3)));

static void enc_why(loom_encode_why_t *why, const char *fmt, ...)
{
    va_list ap;

    if (why == NULL) {
        return;
    }
    va_start(ap, fmt);
    vsnprintf(why->text, sizeof(why->text), fmt, ap);
    va_end(ap);
}

static size_t enc_varint_bytes(uint32_t v)
{
    size_t bytes = 1;

    while (v >= 128) {
        v >>= 7;
        ++bytes;
    }
    return bytes;
}

static size_t enc_nblocks(size_t n)
{
    return (n + ENC_B - 1) / ENC_B;
}

/* Elements of block b of a vector of n: B, or n % B for the last. */
static size_t enc_block_len(size_t b, size_t n)
{
    size_t left = n - b * ENC_B;

    return left < ENC_B ? left : ENC_B;
}

static int enc_known(loom_encoding_t enc, loom_filter_type_t type)
{
    return enc > LOOM_ENC_AUTO && enc < LOOM_ENC_COUNT && loom_filter_type_size(type) != 0;
}

/* ------------------------------------------------------------------ sizes */

loom_status_t loom_encode_sizes(const uint32_t *index, size_t k, size_t n,
                                loom_filter_type_t type, size_t sizes_p[LOOM_ENC_COUNT],
                                loom_encode_why_t *why_p)
{
    size_t e = loom_filter_type_size(type), varints = 0, nblk = 0, vals = 0, j;
    uint32_t prev = 0;

    if (e == 0) {
        enc_why(why_p, "type %d; float (%d) and double (%d) are accepted", (int)type,
                (int)LOOM_FILTER_FLOAT, (int)LOOM_FILTER_DOUBLE);
        return LOOM_ERR_INVALID_PARAM;
    }
    for (j = 0; j < k; ++j) {
        uint32_t idx = index[j];

        if (idx >= n || (j > 0 && idx <= prev)) {
            enc_why(why_p, "index %u at position %zu is %s", idx, j,
                    idx >= n ? "not below the vector's length" : "not above the one before");
            return LOOM_ERR_INVALID_PARAM;
        }
        varints += enc_varint_bytes(j > 0 ? idx - prev : idx);
        if (j == 0 || idx / ENC_B != prev / ENC_B) {
            ++nblk;
            vals += enc_block_len(idx / ENC_B, n);
        }
        prev = idx;
    }
    sizes_p[LOOM_ENC_AUTO] = SIZE_MAX;
    sizes_p[LOOM_ENC_COO] = k * (e + sizeof(uint32_t));
    sizes_p[LOOM_ENC_DELTA] = k * e + varints;
    sizes_p[LOOM_ENC_BITMAP] = k * e + (n + 7) / 8;
    sizes_p[LOOM_ENC_BLOCK] = vals * e + nblk * sizeof(uint32_t);
    return LOOM_OK;
}

size_t loom_encode_size(loom_encoding_t enc, const uint32_t *index, size_t k, size_t n,
                        loom_filter_type_t type)
{
    size_t sizes[LOOM_ENC_COUNT];

    if (!enc_known(enc, type) || loom_encode_sizes(index, k, n, type, sizes, NULL) != LOOM_OK) {
        return SIZE_MAX;
    }
    return sizes[enc];
}

/* ---------------------------------------------------------------- writing */

static size_t enc_write_delta(const uint32_t *index, size_t k, unsigned char *p)
{
    unsigned char *start = p;
    uint32_t prev = 0, v;
    size_t j;

    for (j = 0; j < k; ++j) {
        v = index[j] - prev;
        prev = index[j];
        while (v >= 128) {
            *p++ = (unsigned char)(v | 128);
            v >>= 7;
        }
        *p++ = (unsigned char)v;
    }
    return (size_t)(p - start);
}

static size_t enc_write_bitmap(const uint32_t *index, size_t k, size_t n, unsigned char *bm)
{
    size_t j;

    memset(bm, 0, (n + 7) / 8);
    for (j = 0; j < k; ++j) {
        bm[index[j] / 8] |= (unsigned char)(1u << (index[j] % 8));
    }
    return (n + 7) / 8;
}

/* The values of each listed block, zeros where nothing was selected,
 * then the blocks' numbers. */
static size_t enc_write_block(const uint32_t *index, const char *value, size_t k, size_t n,
                              size_t e, char *out)
{
    size_t j, vals = 0, nblk = 0, at = 0;
    uint32_t b, last = 0;
    char *ids;

    for (j = 0; j < k; ++j) {
        if (j == 0 || index[j] / ENC_B != index[j - 1] / ENC_B) {
            vals += enc_block_len(index[j] / ENC_B, n);
        }
    }
    ids = out + vals * e;
    for (j = 0; j < k; ++j) {
        b = index[j] / ENC_B;
        if (nblk == 0 || b != last) {
            at = nblk == 0 ? 0 : at + enc_block_len(last, n);
            memset(out + at * e, 0, enc_block_len(b, n) * e);
            memcpy(ids + nblk * sizeof(b), &b, sizeof(b));
            ++nblk;
            last = b;
        }
        memcpy(out + (at + index[j] % ENC_B) * e, value + j * e, e);
    }
    return vals * e + nblk * sizeof(uint32_t);
}

size_t loom_encode_write(loom_encoding_t enc, const uint32_t *index, const void *value,
                         size_t k, size_t n, loom_filter_type_t type, void *out)
{
    size_t e = loom_filter_type_size(type), vbytes = k * e;
    char *o = out;

    if (!enc_known(enc, type)) {
        return SIZE_MAX;
    }
    if (enc == LOOM_ENC_BLOCK) {
        return enc_write_block(index, value, k, n, e, o);
    }
    if (k > 0) {
        memcpy(o, value, vbytes);
    }
    switch (enc) {
    case LOOM_ENC_COO:
        if (k > 0) {
            memcpy(o + vbytes, index, k * sizeof(uint32_t));
        }
        return vbytes + k * sizeof(uint32_t);
    case LOOM_ENC_DELTA:
        return vbytes + enc_write_delta(index, k, (unsigned char *)o + vbytes);
    default:
        return vbytes + enc_write_bitmap(index, k, n, (unsigned char *)o + vbytes);
    }
}

/* --------------------------------------------------------------- decoding */

typedef enum enc_sink_kind {
    ENC_SINK_CHECK,     /* count the entries, touch nothing */
    ENC_SINK_ADD,       /* dst[i] += v */
    ENC_SINK_UNPACK     /* index[got] = i, value[got] = v */
} enc_sink_kind_t;

/* Where a walk puts each (index, value) it decodes. */
typedef struct enc_sink {
    enc_sink_kind_t     kind;
    loom_filter_type_t  type;
    size_t              e;
    char                *dst;
    uint32_t            *index;
    char                *value;
    size_t              got;
} enc_sink_t;

static inline void enc_put(enc_sink_t *s, size_t i, const char *v)
{
    if (s->kind == ENC_SINK_ADD) {
        if (s->type == LOOM_FILTER_FLOAT) {
            float a, b;

            memcpy(&a, s->dst + i * sizeof(a), sizeof(a));
            memcpy(&b, v, sizeof(b));
            a += b;
            memcpy(s->dst + i * sizeof(a), &a, sizeof(a));
        } else {
            double a, b;

            memcpy(&a, s->dst + i * sizeof(a), sizeof(a));
            memcpy(&b, v, sizeof(b));
            a += b;
            memcpy(s->dst + i * sizeof(a), &a, sizeof(a));
        }
    } else if (s->kind == ENC_SINK_UNPACK) {
        s->index[s->got] = (uint32_t)i;
        memcpy(s->value + s->got * s->e, v, s->e);
    }
    ++s->got;
}

/* What one walk reads: a block of bytes bytes holding k indices below n. */
typedef struct enc_in {
    const char  *at;
    size_t      bytes;
    size_t      k;
    size_t      n;
    size_t      e;
} enc_in_t;

static loom_status_t enc_walk_coo(const enc_in_t *in, enc_sink_t *s, loom_encode_why_t *why)
{
    size_t j, want = in->k * (in->e + sizeof(uint32_t));
    uint32_t idx, prev = 0;

    if (in->bytes != want) {
        enc_why(why, "coo block of %zu bytes for %zu pairs of %zu bytes: %zu expected",
                in->bytes, in->k, in->e + sizeof(uint32_t), want);
        return LOOM_ERR_INVALID_PARAM;
    }
    for (j = 0; j < in->k; ++j) {
        memcpy(&idx, in->at + in->k * in->e + j * sizeof(idx), sizeof(idx));
        if (idx >= in->n || (j > 0 && idx <= prev)) {
            enc_why(why, "coo index %u at position %zu is %s", idx, j,
                    idx >= in->n ? "not below the vector's length" : "not above the one before");
            return LOOM_ERR_INVALID_PARAM;
        }
        enc_put(s, idx, in->at + j * in->e);
        prev = idx;
    }
    return LOOM_OK;
}

/* One LEB128 varint of at most 32 bits, in its shortest form, from
 * [*p, end); the byte after it to *p. */
static loom_status_t enc_varint(const unsigned char **p, const unsigned char *end, size_t j,
                                uint32_t *v_p, loom_encode_why_t *why)
{
    uint32_t v = 0;
    unsigned shift = 0, byte;

    for (;;) {
        if (*p == end) {
            enc_why(why, "delta block truncated: varint %zu runs past its end", j);
            return LOOM_ERR_INVALID_PARAM;
        }
        byte = *(*p)++;
        if (shift == 28 && byte > 15) {
            enc_why(why, "delta varint %zu does not fit 32 bits", j);
            return LOOM_ERR_INVALID_PARAM;
        }
        v |= (uint32_t)(byte & 127) << shift;
        if (byte < 128) {
            break;
        }
        shift += 7;
    }
    if (byte == 0 && shift > 0) {
        enc_why(why, "delta varint %zu is longer than needed", j);
        return LOOM_ERR_INVALID_PARAM;
    }
    *v_p = v;
    return LOOM_OK;
}

static loom_status_t enc_walk_delta(const enc_in_t *in, enc_sink_t *s, loom_encode_why_t *why)
{
    const unsigned char *p, *end = (const unsigned char *)in->at + in->bytes;
    uint64_t idx = 0;
    loom_status_t status;
    uint32_t gap;
    size_t j;

    if (in->bytes < in->k * in->e) {
        enc_why(why, "delta block of %zu bytes is shorter than its %zu values of %zu bytes",
                in->bytes, in->k, in->e);
        return LOOM_ERR_INVALID_PARAM;
    }
    p = (const unsigned char *)in->at + in->k * in->e;
    for (j = 0; j < in->k; ++j) {
        status = enc_varint(&p, end, j, &gap, why);
        if (status != LOOM_OK) {
            return status;
        }
        if (j > 0 && gap == 0) {
            enc_why(why, "delta index %zu repeats the one before (gap 0)", j);
            return LOOM_ERR_INVALID_PARAM;
        }
        idx = j > 0 ? idx + gap : gap;
        if (idx >= in->n) {
            enc_why(why, "delta index %llu at position %zu is not below the vector's length %zu",
                    (unsigned long long)idx, j, in->n);
            return LOOM_ERR_INVALID_PARAM;
        }
        enc_put(s, (size_t)idx, in->at + j * in->e);
    }
    if (p != end) {
        enc_why(why, "delta block has %zu bytes after its %zu varints", (size_t)(end - p), in->k);
        return LOOM_ERR_INVALID_PARAM;
    }
    return LOOM_OK;
}

static loom_status_t enc_walk_bitmap(const enc_in_t *in, enc_sink_t *s, loom_encode_why_t *why)
{
    size_t nb = (in->n + 7) / 8, want = in->k * in->e + nb, b, j = 0;
    const unsigned char *bm = (const unsigned char *)in->at + in->k * in->e;
    uint64_t word;
    unsigned byte;

    if (in->bytes != want) {
        enc_why(why, "bitmap block of %zu bytes for %zu values and %zu bits: %zu expected",
                in->bytes, in->k, in->n, want);
        return LOOM_ERR_INVALID_PARAM;
    }
    if (in->n % 8 != 0 && bm[nb - 1] >> (in->n % 8) != 0) {
        enc_why(why, "bitmap sets bits at or above the vector's length %zu", in->n);
        return LOOM_ERR_INVALID_PARAM;
    }
    for (b = 0; b < nb; ++b) {
        /* Skip empty stretches a word at a time: the sparse case. */
        if (b % 8 == 0 && b + 8 <= nb) {
            memcpy(&word, bm + b, sizeof(word));
            if (word == 0) {
                b += 7;
                continue;
            }
        }
        for (byte = bm[b]; byte != 0; byte &= byte - 1) {
            if (j == in->k) {
                enc_why(why, "bitmap sets more bits than its %zu values", in->k);
                return LOOM_ERR_INVALID_PARAM;
            }
            enc_put(s, b * 8 + (size_t)__builtin_ctz(byte), in->at + j * in->e);
            ++j;
        }
    }
    if (j != in->k) {
        enc_why(why, "bitmap sets %zu bits for %zu values", j, in->k);
        return LOOM_ERR_INVALID_PARAM;
    }
    return LOOM_OK;
}

/*
 * The number of listed blocks from the length: b blocks cost u = B e + 4
 * bytes each, less (B - n % B) e when the short last block is among them.
 * The shortfall is below u and not 0, so at most one reading fits.
 */
static loom_status_t enc_block_count(const enc_in_t *in, size_t *nblk_p, int *short_p,
                                     loom_encode_why_t *why)
{
    size_t u = ENC_B * in->e + sizeof(uint32_t), r = in->n % ENC_B;
    size_t missing = r != 0 ? (ENC_B - r) * in->e : 0;

    if (in->bytes % u == 0) {
        *nblk_p = in->bytes / u;
        *short_p = 0;
    } else if (r != 0 && (in->bytes + missing) % u == 0) {
        *nblk_p = (in->bytes + missing) / u;
        *short_p = 1;
    } else {
        enc_why(why, "block length %zu bytes is no whole number of blocks of %d values "
                "and a number", in->bytes, ENC_B);
        return LOOM_ERR_INVALID_PARAM;
    }
    if (*nblk_p > enc_nblocks(in->n) || *nblk_p > in->k || (in->k > 0 && *nblk_p == 0)) {
        enc_why(why, "block length %zu bytes lists %zu blocks for %zu selected of %zu "
                "blocks", in->bytes, *nblk_p, in->k, enc_nblocks(in->n));
        return LOOM_ERR_INVALID_PARAM;
    }
    return LOOM_OK;
}

static loom_status_t enc_walk_block(const enc_in_t *in, enc_sink_t *s, loom_encode_why_t *why)
{
    size_t nblk, j, t, len, at = 0, last = enc_nblocks(in->n) - 1;
    const char *ids;
    loom_status_t status;
    uint32_t b, prev = 0;
    int has_short;

    status = enc_block_count(in, &nblk, &has_short, why);
    if (status != LOOM_OK) {
        return status;
    }
    ids = in->at + in->bytes - nblk * sizeof(uint32_t);
    for (j = 0; j < nblk; ++j) {
        memcpy(&b, ids + j * sizeof(b), sizeof(b));
        if (b > last || (j > 0 && b <= prev)) {
            enc_why(why, "block number %u at position %zu is %s", b, j,
                    b > last ? "past the vector's last block" : "not above the one before");
            return LOOM_ERR_INVALID_PARAM;
        }
        len = enc_block_len(b, in->n);
        if ((len < ENC_B) != (has_short && j == nblk - 1)) {
            enc_why(why, "block length %zu bytes does not match its blocks (the short last "
                    "block %s listed)", in->bytes, has_short ? "is not" : "is");
            return LOOM_ERR_INVALID_PARAM;
        }
        for (t = 0; t < len; ++t) {
            enc_put(s, (size_t)b * ENC_B + t, in->at + (at + t) * in->e);
        }
        at += len;
        prev = b;
    }
    if (s->got < in->k) {
        enc_why(why, "block lists %zu values for %zu selected", s->got, in->k);
        return LOOM_ERR_INVALID_PARAM;
    }
    return LOOM_OK;
}

static loom_status_t enc_walk(loom_encoding_t enc, const enc_in_t *in, enc_sink_t *s,
                              loom_encode_why_t *why)
{
    switch (enc) {
    case LOOM_ENC_COO:
        return enc_walk_coo(in, s, why);
    case LOOM_ENC_DELTA:
        return enc_walk_delta(in, s, why);
    case LOOM_ENC_BITMAP:
        return enc_walk_bitmap(in, s, why);
    case LOOM_ENC_BLOCK:
        return enc_walk_block(in, s, why);
    default:
        enc_why(why, "encoding %d; coo (1), delta (2), bitmap (3) and block (4) are accepted",
                (int)enc);
        return LOOM_ERR_INVALID_PARAM;
    }
}

/* The check pass every decoder runs first; the number of entries to
 * *got_p. */
static loom_status_t enc_check(loom_encoding_t enc, const enc_in_t *in, loom_filter_type_t type,
                               size_t *got_p, loom_encode_why_t *why)
{
    enc_sink_t s = { .kind = ENC_SINK_CHECK, .type = type, .e = in->e };
    loom_status_t status;

    if (in->e == 0) {
        enc_why(why, "type %d; float (%d) and double (%d) are accepted", (int)type,
                (int)LOOM_FILTER_FLOAT, (int)LOOM_FILTER_DOUBLE);
        return LOOM_ERR_INVALID_PARAM;
    }
    status = enc_walk(enc, in, &s, why);
    *got_p = s.got;
    return status;
}

loom_status_t loom_encode_accumulate(loom_encoding_t enc, void *dst, size_t n,
                                     loom_filter_type_t type, const void *block,
                                     size_t bytes, size_t k, loom_encode_why_t *why_p)
{
    enc_in_t in = { .at = block, .bytes = bytes, .k = k, .n = n,
                    .e = loom_filter_type_size(type) };
    enc_sink_t s = { .kind = ENC_SINK_ADD, .type = type, .e = in.e, .dst = dst };
    loom_status_t status;
    size_t got;

    status = enc_check(enc, &in, type, &got, why_p);
    return status != LOOM_OK ? status : enc_walk(enc, &in, &s, why_p);
}

loom_status_t loom_encode_unpack(loom_encoding_t enc, size_t n, loom_filter_type_t type,
                                 const void *block, size_t bytes, size_t k, uint32_t *index,
                                 void *value, size_t room, size_t *got_p,
                                 loom_encode_why_t *why_p)
{
    enc_in_t in = { .at = block, .bytes = bytes, .k = k, .n = n,
                    .e = loom_filter_type_size(type) };
    enc_sink_t s = { .kind = ENC_SINK_UNPACK, .type = type, .e = in.e, .index = index,
                     .value = value };
    loom_status_t status;
    size_t got;

    status = enc_check(enc, &in, type, &got, why_p);
    if (status != LOOM_OK) {
        return status;
    }
    if (got > room) {
        enc_why(why_p, "the block holds %zu entries, room was given for %zu", got, room);
        return LOOM_ERR_INVALID_PARAM;
    }
    status = enc_walk(enc, &in, &s, why_p);
    *got_p = s.got;
    return status;
}

/* ------------------------------------------------------------------ model */

/* ln(x!) for a whole x >= 0: the sum below 16, Stirling's series above,
 * whose next term is under 1e-12 there (and which, unlike lgamma, keeps
 * no global sign, so planning threads may call it). */
static double enc_lfact(double x)
{
    double s = 0, i;

    if (x < 16) {
        for (i = 2; i <= x; ++i) {
            s += log(i);
        }
        return s;
    }
    return x * log(x) - x + 0.5 * log(x) + 0.91893853320467274178 /* ln(2 pi) / 2 */ +
           1 / (12 * x) - 1 / (360 * x * x * x) +
           1 / (1260 * x * x * x * x * x);
}

/*
 * P(none of m given positions is selected) when k of n are, every
 * k-subset alike: C(n - m, k) / C(n, k) = (n-m)! (n-k)! / (n! (n-m-k)!).
 */
static double enc_empty(double n, double k, double m)
{
    if (m <= 0 || k <= 0) {
        return 1;
    }
    if (n - m < k) {
        return 0;
    }
    return exp(enc_lfact(n - m) + enc_lfact(n - k) - enc_lfact(n) - enc_lfact(n - m - k));
}

/*
 * Expected varint bytes of the k indices: a varint has 1 + [v >= 2^7] +
 * [v >= 2^14] + [v >= 2^21] + [v >= 2^28] bytes.  The first index is at
 * least m when positions 0 .. m-1 are all unselected: enc_empty(n, k, m).
 * A later gap is at least m when the m - 1 positions after the index
 * before it are unselected; given that index, the other k - 1 lie
 * uniformly among the other n - 1 positions: enc_empty(n - 1, k - 1,
 * m - 1).  (That window is taken as never running past the vector's end,
 * which overstates the last gaps a little; exact in the limit of many
 * gaps.)
 */
static double enc_model_varints(double n, double k)
{
    double bytes = k;
    int j;

    for (j = 1; j <= 4 && k > 0; ++j) {
        double m = ldexp(1, 7 * j);

        bytes += enc_empty(n, k, m) + (k - 1) * enc_empty(n - 1, k - 1, m - 1);
    }
    return bytes;
}

/*
 * Expected bytes of the block encoding: a block of m elements is listed
 * unless all m are unselected (enc_empty(n, k, m)), and then costs m
 * values and a number.  n / B full blocks and, when B does not divide n,
 * one of n % B.  Exact, by linearity of expectation.
 */
static double enc_model_block(double n, double k, size_t nn, double e)
{
    double full = (double)(nn / ENC_B), r = (double)(nn % ENC_B);
    double listed_full = full * (1 - enc_empty(n, k, ENC_B));
    double listed_short = r > 0 ? 1 - enc_empty(n, k, r) : 0;

    return listed_full * (ENC_B * e + 4) + listed_short * (r * e + 4);
}

size_t loom_encode_model_size(loom_encoding_t enc, size_t k, size_t n,
                              loom_filter_type_t type)
{
    size_t e = loom_filter_type_size(type);
    double bytes;

    if (!enc_known(enc, type) || k > n) {
        return SIZE_MAX;
    }
    switch (enc) {
    case LOOM_ENC_COO:
        return k * (e + sizeof(uint32_t));
    case LOOM_ENC_BITMAP:
        return k * e + (n + 7) / 8;
    case LOOM_ENC_DELTA:
        bytes = (double)(k * e) + enc_model_varints((double)n, (double)k);
        break;
    default:
        bytes = enc_model_block((double)n, (double)k, n, (double)e);
        break;
    }
    return (size_t)ceil(bytes - 1e-9);
}
