/*
 * The encodings of a selection (coll/core/filter/encode.h): every one
 * round trips random selections of both types (k = 0 and k = n, n not a
 * multiple of 8 or of the block, indices 0 and n - 1) to exactly the
 * bytes its size says; gaps of 2^21 and 2^28 take multi-byte varints;
 * malformed blocks of each are refused with a reason and the destination
 * untouched; the modeled sizes are exact for coo and bitmap and the mean
 * of real random selections for delta and block; randomly damaged blocks
 * are taken whole or refused, never read out of bounds.
 */
#include "coll/core/filter/encode.h"

#include <check.h>
#include "test/unit/support/check_main.h"
#include <math.h>
#include <stdint.h>
#include <stdlib.h>
#include <string.h>

#define GUARD 16

/* A selection: k ascending indices of n, values of one type. */
typedef struct sel {
    loom_filter_type_t  type;
    size_t              n, k, e;
    uint32_t            *idx;
    char                *val;
} sel_t;

static double sel_value(const sel_t *s, size_t j)
{
    if (s->type == LOOM_FILTER_FLOAT) {
        float f;

        memcpy(&f, s->val + j * s->e, sizeof(f));
        return f;
    }
    double d;

    memcpy(&d, s->val + j * s->e, sizeof(d));
    return d;
}

static void sel_set(sel_t *s, size_t j, double v)
{
    float f = (float)v;

    if (s->type == LOOM_FILTER_FLOAT) {
        memcpy(s->val + j * s->e, &f, sizeof(f));
    } else {
        memcpy(s->val + j * s->e, &v, sizeof(v));
    }
}

/* Takes k of the positions first .. first + m - 1, ascending (Knuth's
 * selection sampling: each with probability still needed / still left). */
static void sel_sample(sel_t *s, size_t first, size_t m, size_t k, unsigned *seed)
{
    size_t i, taken = 0;

    for (i = 0; i < m && taken < k; ++i) {
        if ((size_t)rand_r(seed) % (m - i) < k - taken) {
            s->idx[s->k++] = (uint32_t)(first + i);
            ++taken;
        }
    }
}

/* k random indices of n, ascending, with 0 and n - 1 among them when ends
 * is set and k >= 2; values nonzero and exact in both types. */
static void sel_random(sel_t *s, loom_filter_type_t type, size_t n, size_t k, int ends,
                       unsigned *seed)
{
    size_t j;

    s->type = type;
    s->n = n;
    s->e = loom_filter_type_size(type);
    s->k = 0;
    s->idx = malloc((k + 1) * sizeof(uint32_t));
    s->val = malloc((k + 1) * s->e);
    if (ends && k >= 2 && n >= 2) {
        s->idx[s->k++] = 0;
        sel_sample(s, 1, n - 2, k - 2, seed);
        s->idx[s->k++] = (uint32_t)(n - 1);
    } else {
        sel_sample(s, 0, n, k, seed);
    }
    for (j = 0; j < s->k; ++j) {
        sel_set(s, j, (double)(rand_r(seed) % 200 - 100) + (rand_r(seed) % 2 ? 0.5 : 0.25));
    }
}

static void sel_free(sel_t *s)
{
    free(s->idx);
    free(s->val);
}

/* Where v lies in the selection, or -1. */
static long sel_find(const sel_t *s, size_t i)
{
    size_t lo = 0, hi = s->k;

    while (lo < hi) {
        size_t mid = (lo + hi) / 2;

        if (s->idx[mid] < i) {
            lo = mid + 1;
        } else {
            hi = mid;
        }
    }
    return lo < s->k && s->idx[lo] == i ? (long)lo : -1;
}

static double dense_at(const char *d, loom_filter_type_t type, size_t i)
{
    if (type == LOOM_FILTER_FLOAT) {
        float f;

        memcpy(&f, d + i * sizeof(f), sizeof(f));
        return f;
    }
    double v;

    memcpy(&v, d + i * sizeof(v), sizeof(v));
    return v;
}

/* Encodes s in enc and checks the size, the guard, accumulate onto a
 * vector of 1.0 and unpack. */
static void round_trip(const sel_t *s, loom_encoding_t enc)
{
    size_t sizes[LOOM_ENC_COUNT], size, got, i, j, room;
    char *buf, *dense, *uval;
    uint32_t *uidx;
    loom_encode_why_t why = { "" };

    ck_assert_int_eq(loom_encode_sizes(s->idx, s->k, s->n, s->type, sizes, &why), LOOM_OK);
    size = loom_encode_size(enc, s->idx, s->k, s->n, s->type);
    ck_assert_uint_eq(size, sizes[enc]);
    buf = malloc(size + GUARD);
    memset(buf, 0xa5, size + GUARD);
    ck_assert_uint_eq(loom_encode_write(enc, s->idx, s->val, s->k, s->n, s->type, buf), size);
    for (i = size; i < size + GUARD; ++i) {
        ck_assert_msg((unsigned char)buf[i] == 0xa5, "%s wrote past its %zu bytes",
                      loom_encoding_names[enc], size);
    }

    dense = malloc(s->n * s->e + 1);
    for (i = 0; i < s->n; ++i) {
        double one = 1.0;
        float f = 1.0f;

        memcpy(dense + i * s->e, s->type == LOOM_FILTER_FLOAT ? (void *)&f : (void *)&one, s->e);
    }
    ck_assert_msg(loom_encode_accumulate(enc, dense, s->n, s->type, buf, size, s->k, &why) ==
                      LOOM_OK, "%s n %zu k %zu: %s", loom_encoding_names[enc], s->n, s->k,
                  why.text);
    for (i = 0; i < s->n; ++i) {
        long at = sel_find(s, i);
        double want = 1.0 + (at >= 0 ? sel_value(s, (size_t)at) : 0.0);

        ck_assert_msg(dense_at(dense, s->type, i) == want, "%s n %zu k %zu element %zu: %g not %g",
                      loom_encoding_names[enc], s->n, s->k, i, dense_at(dense, s->type, i), want);
    }

    room = s->n + 1;
    uidx = malloc(room * sizeof(uint32_t));
    uval = malloc(room * s->e);
    ck_assert_int_eq(loom_encode_unpack(enc, s->n, s->type, buf, size, s->k, uidx, uval, room,
                                        &got, &why), LOOM_OK);
    if (enc != LOOM_ENC_BLOCK) {
        ck_assert_uint_eq(got, s->k);
        ck_assert_int_eq(memcmp(uidx, s->idx, s->k * sizeof(uint32_t)), 0);
        ck_assert_int_eq(memcmp(uval, s->val, s->k * s->e), 0);
    } else {
        /* Whole blocks: every selected entry with its value, zeros else. */
        for (j = 0; j < got; ++j) {
            long at = sel_find(s, uidx[j]);
            double v = dense_at(uval, s->type, j);

            ck_assert(j == 0 || uidx[j] > uidx[j - 1]);
            ck_assert(v == (at >= 0 ? sel_value(s, (size_t)at) : 0.0));
        }
        for (j = 0, i = 0; j < s->k; ++j) {
            while (i < got && uidx[i] < s->idx[j]) {
                ++i;
            }
            ck_assert(i < got && uidx[i] == s->idx[j]);
        }
    }
    free(uidx);
    free(uval);
    free(dense);
    free(buf);
}

START_TEST(test_round_trip)
{
    static const size_t ns[] = { 1, 2, 7, 8, 9, 63, 64, 65, 100, 129, 1000, 4099 };
    unsigned seed = 17;
    size_t ni, ki, ks[6];
    int t, e, ends;
    sel_t s;

    for (t = 0; t < LOOM_FILTER_TYPE_COUNT; ++t) {
        for (ni = 0; ni < sizeof(ns) / sizeof(ns[0]); ++ni) {
            size_t n = ns[ni];

            ks[0] = 0;
            ks[1] = 1;
            ks[2] = n / 100 + 1;
            ks[3] = n / 3;
            ks[4] = (size_t)rand_r(&seed) % (n + 1);
            ks[5] = n;
            for (ki = 0; ki < 6; ++ki) {
                for (ends = 0; ends <= 1; ++ends) {
                    sel_random(&s, (loom_filter_type_t)t, n, ks[ki], ends, &seed);
                    ck_assert_uint_eq(s.k, ks[ki] < n ? ks[ki] : n);
                    if (ends && s.k >= 2) {
                        ck_assert_uint_eq(s.idx[0], 0);
                        ck_assert_uint_eq(s.idx[s.k - 1], n - 1);
                    }
                    for (e = LOOM_ENC_COO; e < LOOM_ENC_COUNT; ++e) {
                        round_trip(&s, (loom_encoding_t)e);
                    }
                    sel_free(&s);
                }
            }
        }
    }
}
END_TEST

/* Sizes from the definitions, by hand: 3 floats at 0, 70 and 200 of 201. */
START_TEST(test_sizes_by_hand)
{
    const uint32_t idx[3] = { 0, 70, 200 };
    size_t sizes[LOOM_ENC_COUNT];

    ck_assert_int_eq(loom_encode_sizes(idx, 3, 201, LOOM_FILTER_FLOAT, sizes, NULL), LOOM_OK);
    ck_assert_uint_eq(sizes[LOOM_ENC_COO], 3 * 8);
    ck_assert_uint_eq(sizes[LOOM_ENC_DELTA], 12 + 1 + 1 + 2);       /* gaps 0, 70, 130 */
    ck_assert_uint_eq(sizes[LOOM_ENC_BITMAP], 12 + 26);             /* ceil(201 / 8) */
    /* Blocks 0 (64), 1 (64) and the short 3 (201 - 192 = 9): 137 values. */
    ck_assert_uint_eq(sizes[LOOM_ENC_BLOCK], 137 * 4 + 3 * 4);
    ck_assert_uint_eq(loom_encode_size(LOOM_ENC_AUTO, idx, 3, 201, LOOM_FILTER_FLOAT), SIZE_MAX);
    ck_assert_uint_eq(loom_encode_size(LOOM_ENC_COUNT, idx, 3, 201, LOOM_FILTER_FLOAT), SIZE_MAX);
    ck_assert_uint_eq(loom_encode_size(LOOM_ENC_COO, idx, 3, 200, LOOM_FILTER_FLOAT), SIZE_MAX);
    ck_assert_str_eq(loom_encoding_names[LOOM_ENC_DELTA], "delta");
    ck_assert_str_eq(loom_encoding_names[LOOM_ENC_BLOCK], "block");
    ck_assert_ptr_null(loom_encoding_names[LOOM_ENC_COUNT]);
}
END_TEST

/* Gaps past 2^21 and 2^28 in a vector of 2^32 - 1: varints of 4 and 5
 * bytes, decoded without a dense vector. */
START_TEST(test_large_gaps)
{
    const size_t n = UINT32_MAX;
    const uint32_t idx[5] = { 0, 127, 130 + (1u << 21), 131 + (1u << 21) + (1u << 28) + 1,
                              UINT32_MAX - 1 };
    const double val[5] = { 1.5, -2, 3, -4, 5 };
    /* Varints: 0 (1), 127 (1), 2^21 + 3 (4), 2^28 + 2 (5), the rest, over
     * 2^31 (5). */
    const size_t want[LOOM_ENC_COUNT] = { SIZE_MAX, 5 * 12, 5 * 8 + 16, 5 * 8 + (n + 7) / 8,
                                          5 * (64 * 8 + 4) - (64 - n % 64) * 8 };
    size_t sizes[LOOM_ENC_COUNT], got, e, j;
    uint32_t uidx[5 * 64];
    double uval[5 * 64];
    char buf[5 * (64 * 8 + 4)];
    loom_encode_why_t why = { "" };

    ck_assert_int_eq(loom_encode_sizes(idx, 5, n, LOOM_FILTER_DOUBLE, sizes, &why), LOOM_OK);
    for (e = LOOM_ENC_COO; e < LOOM_ENC_COUNT; ++e) {
        ck_assert_msg(sizes[e] == want[e], "%s: %zu, expected %zu", loom_encoding_names[e],
                      sizes[e], want[e]);
    }
    for (e = LOOM_ENC_COO; e < LOOM_ENC_COUNT; ++e) {
        if (e == LOOM_ENC_BITMAP) {
            continue;   /* 512 MiB: its size is checked above */
        }
        ck_assert_uint_eq(loom_encode_write(e, idx, val, 5, n, LOOM_FILTER_DOUBLE, buf), sizes[e]);
        ck_assert_msg(loom_encode_unpack(e, n, LOOM_FILTER_DOUBLE, buf, sizes[e], 5, uidx, uval,
                                         5 * 64, &got, &why) == LOOM_OK, "%s: %s",
                      loom_encoding_names[e], why.text);
        if (e != LOOM_ENC_BLOCK) {
            ck_assert_uint_eq(got, 5);
            ck_assert_int_eq(memcmp(uidx, idx, sizeof(idx)), 0);
            ck_assert_int_eq(memcmp(uval, val, sizeof(val)), 0);
        } else {
            /* Four full blocks and the short last one (n % 64 = 63). */
            ck_assert_uint_eq(got, 4 * 64 + n % 64);
            for (j = 0; j < 5; ++j) {
                size_t at = j * 64 + idx[j] % 64;

                ck_assert_uint_eq(uidx[at], idx[j]);
                ck_assert(uval[at] == val[j]);
            }
        }
    }
}
END_TEST

/* ------------------------------------------------------- malformed blocks */

enum { BAD_N = 203, BAD_K = 6 };

typedef struct bad {
    char        buf[2048];
    size_t      size;
    char        dst[BAD_N * sizeof(float)];
    char        before[BAD_N * sizeof(float)];
} bad_t;

static const uint32_t bad_idx[BAD_K] = { 3, 9, 70, 140, 199, 202 };
static const float bad_val[BAD_K] = { 1, 2, 3, 4, 5, 6 };

static void bad_make(bad_t *b, loom_encoding_t enc)
{
    size_t i;

    memset(b->buf, 0, sizeof(b->buf));
    b->size = loom_encode_write(enc, bad_idx, bad_val, BAD_K, BAD_N, LOOM_FILTER_FLOAT, b->buf);
    for (i = 0; i < sizeof(b->dst); ++i) {
        b->dst[i] = (char)(i * 7);
    }
    memcpy(b->before, b->dst, sizeof(b->dst));
}

/* The block (bytes long, k indices) is refused, the reason holds words,
 * and dst is as it was. */
static void bad_expect(bad_t *b, loom_encoding_t enc, size_t bytes, size_t k, const char *words)
{
    loom_encode_why_t why = { "" };

    ck_assert_int_eq(loom_encode_accumulate(enc, b->dst, BAD_N, LOOM_FILTER_FLOAT, b->buf, bytes,
                                            k, &why), LOOM_ERR_INVALID_PARAM);
    ck_assert_msg(strstr(why.text, words) != NULL, "%s: '%s' lacks '%s'",
                  loom_encoding_names[enc], why.text, words);
    ck_assert_int_eq(memcmp(b->dst, b->before, sizeof(b->dst)), 0);
}

static void bad_put_u32(bad_t *b, size_t at, uint32_t v)
{
    memcpy(b->buf + at, &v, sizeof(v));
}

START_TEST(test_malformed_coo)
{
    bad_t b;
    size_t at = BAD_K * 4;

    bad_make(&b, LOOM_ENC_COO);
    bad_expect(&b, LOOM_ENC_COO, b.size - 1, BAD_K, "expected");
    bad_expect(&b, LOOM_ENC_COO, b.size + 8, BAD_K, "expected");
    bad_put_u32(&b, at + 4, 2);                 /* 3, 2: descending */
    bad_expect(&b, LOOM_ENC_COO, b.size, BAD_K, "not above the one before");
    bad_make(&b, LOOM_ENC_COO);
    bad_put_u32(&b, at + 5 * 4, BAD_N);         /* the last, at n */
    bad_expect(&b, LOOM_ENC_COO, b.size, BAD_K, "not below the vector's length");
}
END_TEST

START_TEST(test_malformed_delta)
{
    bad_t b;
    size_t v = BAD_K * 4;   /* the varints: 3, 6, 61, 70, 59, 3 */

    bad_make(&b, LOOM_ENC_DELTA);
    ck_assert_uint_eq(b.size, v + 6);
    bad_expect(&b, LOOM_ENC_DELTA, b.size - 1, BAD_K, "truncated");
    bad_expect(&b, LOOM_ENC_DELTA, v - 1, BAD_K, "shorter than its");
    bad_expect(&b, LOOM_ENC_DELTA, b.size + 1, BAD_K, "after its");
    b.buf[v + 2] = 0;                           /* 9, 9: not ascending */
    bad_expect(&b, LOOM_ENC_DELTA, b.size, BAD_K, "gap 0");
    bad_make(&b, LOOM_ENC_DELTA);
    b.buf[v + 5] = 4;                           /* 199 + 4 = 203 = n */
    bad_expect(&b, LOOM_ENC_DELTA, b.size, BAD_K, "not below the vector's length");
    bad_make(&b, LOOM_ENC_DELTA);
    b.buf[v + 5] = (char)0x83;                  /* 3 as 0x83 0x00: too long */
    b.buf[v + 6] = 0;
    bad_expect(&b, LOOM_ENC_DELTA, b.size + 1, BAD_K, "longer than needed");
    memcpy(b.buf + v + 5, "\xff\xff\xff\xff\x1f", 5);     /* 37 bits */
    bad_expect(&b, LOOM_ENC_DELTA, b.size + 4, BAD_K, "does not fit 32 bits");
}
END_TEST

START_TEST(test_malformed_bitmap)
{
    bad_t b;
    size_t bm = BAD_K * 4;

    bad_make(&b, LOOM_ENC_BITMAP);
    ck_assert_uint_eq(b.size, bm + 26);
    bad_expect(&b, LOOM_ENC_BITMAP, b.size - 1, BAD_K, "expected");
    bad_expect(&b, LOOM_ENC_BITMAP, b.size + 1, BAD_K, "expected");
    /* Bit 203 (= n) of the last byte, which holds 200 .. 202. */
    b.buf[bm + 25] = (char)(b.buf[bm + 25] | 1 << 3);
    bad_expect(&b, LOOM_ENC_BITMAP, b.size, BAD_K, "at or above the vector's length");
    bad_make(&b, LOOM_ENC_BITMAP);
    b.buf[bm] = (char)(b.buf[bm] | 1);           /* a seventh bit, index 0 */
    bad_expect(&b, LOOM_ENC_BITMAP, b.size, BAD_K, "more bits than");
    bad_make(&b, LOOM_ENC_BITMAP);
    b.buf[bm] = 0;                               /* index 3 gone: five bits */
    bad_expect(&b, LOOM_ENC_BITMAP, b.size, BAD_K, "sets 5 bits for 6 values");
}
END_TEST

START_TEST(test_malformed_block)
{
    bad_t b;
    /* Blocks 0, 1, 2 and the short 3 (203 % 64 = 11): 203 values, then
     * the four numbers. */
    size_t ids = 203 * 4;

    bad_make(&b, LOOM_ENC_BLOCK);
    ck_assert_uint_eq(b.size, ids + 16);
    bad_expect(&b, LOOM_ENC_BLOCK, b.size - 1, BAD_K, "no whole number");
    bad_expect(&b, LOOM_ENC_BLOCK, b.size + 1, BAD_K, "no whole number");
    /* Without the last 4 bytes, it reads as blocks ending short where the
     * numbers say otherwise, or as too few for k. */
    bad_expect(&b, LOOM_ENC_BLOCK, b.size, 2, "lists 4 blocks for 2 selected");
    bad_put_u32(&b, ids + 4, 0);                 /* 0, 0: not ascending */
    bad_expect(&b, LOOM_ENC_BLOCK, b.size, BAD_K, "not above the one before");
    bad_make(&b, LOOM_ENC_BLOCK);
    bad_put_u32(&b, ids + 12, 4);                /* past block 3, the last */
    bad_expect(&b, LOOM_ENC_BLOCK, b.size, BAD_K, "past the vector's last block");
    bad_make(&b, LOOM_ENC_BLOCK);
    /* Only the first three blocks: a whole number of full blocks, but the
     * last number is the short block's. */
    memmove(b.buf + 192 * 4, b.buf + ids, 12);
    bad_put_u32(&b, 192 * 4 + 8, 3);
    bad_expect(&b, LOOM_ENC_BLOCK, 192 * 4 + 12, BAD_K, "the short last block is listed");
}
END_TEST

/* Random damage to valid blocks (bytes changed, lengths and k off by a
 * little): every block is either taken whole or refused with a reason and
 * the destination untouched; never a read or write out of bounds (the
 * sanitizers' build runs this too). */
START_TEST(test_damaged)
{
    enum { N = 333, TRIES = 3000 };
    unsigned seed = 41;
    char *block, *dst = malloc(N * sizeof(double)), *before = malloc(N * sizeof(double));
    size_t size, bytes, k, at, i;
    loom_encode_why_t why;
    loom_status_t st;
    int e, t, refused = 0;
    sel_t s;

    for (e = LOOM_ENC_COO; e < LOOM_ENC_COUNT; ++e) {
        for (t = 0; t < TRIES; ++t) {
            sel_random(&s, t % 2 ? LOOM_FILTER_DOUBLE : LOOM_FILTER_FLOAT, N,
                       (size_t)rand_r(&seed) % (N + 1), t % 3 == 0, &seed);
            size = loom_encode_size(e, s.idx, s.k, N, s.type);
            bytes = size + (size_t)(rand_r(&seed) % 9) - 4;
            bytes = bytes > size + 4 ? 0 : bytes;
            block = malloc(size + 5);
            ck_assert_uint_eq(loom_encode_write(e, s.idx, s.val, s.k, N, s.type, block), size);
            for (i = size; i < bytes; ++i) {
                block[i] = (char)rand_r(&seed);
            }
            for (i = (size_t)(rand_r(&seed) % 3); bytes > 0 && i > 0; --i) {
                at = (size_t)rand_r(&seed) % bytes;
                block[at] = (char)(block[at] ^ (1 << (rand_r(&seed) % 8)));
            }
            k = s.k + (size_t)(rand_r(&seed) % 5 == 0 ? rand_r(&seed) % 3 : 1) - 1;
            k = k > N ? s.k : k;
            memset(dst, 0x3c, N * s.e);
            memcpy(before, dst, N * s.e);
            why.text[0] = '\0';
            st = loom_encode_accumulate(e, dst, N, s.type, block, bytes, k, &why);
            ck_assert(st == LOOM_OK || st == LOOM_ERR_INVALID_PARAM);
            if (st != LOOM_OK) {
                ck_assert(why.text[0] != '\0');
                ck_assert_int_eq(memcmp(dst, before, N * s.e), 0);
                ++refused;
            }
            free(block);
            sel_free(&s);
        }
    }
    /* Most damage is caught: the checks are not vacuous. */
    ck_assert_int_gt(refused, 4 * TRIES / 2);
    free(dst);
    free(before);
}
END_TEST

/* ------------------------------------------------------------------ model */

/* Mean encoded size over random selections against the model: exact for
 * coo and bitmap; for delta and block within four standard errors of the
 * mean (and a byte: the model rounds up). */
START_TEST(test_model)
{
    static const size_t ns[] = { 20000, 100003 };
    static const double qs[] = { 0.3, 0.1, 0.01, 0.001, 0.9 };
    enum { TRIALS = 24 };
    unsigned seed = 23;
    size_t ni, qi, trial, sizes[LOOM_ENC_COUNT];
    double sum[LOOM_ENC_COUNT], sq[LOOM_ENC_COUNT];
    int e;
    sel_t s;

    for (ni = 0; ni < 2; ++ni) {
        for (qi = 0; qi < sizeof(qs) / sizeof(qs[0]); ++qi) {
            size_t n = ns[ni], k = (size_t)(qs[qi] * (double)n);

            memset(sum, 0, sizeof(sum));
            memset(sq, 0, sizeof(sq));
            for (trial = 0; trial < TRIALS; ++trial) {
                sel_random(&s, LOOM_FILTER_FLOAT, n, k, 0, &seed);
                ck_assert_int_eq(loom_encode_sizes(s.idx, s.k, n, s.type, sizes, NULL), LOOM_OK);
                for (e = LOOM_ENC_COO; e < LOOM_ENC_COUNT; ++e) {
                    sum[e] += (double)sizes[e];
                    sq[e] += (double)sizes[e] * (double)sizes[e];
                }
                sel_free(&s);
            }
            for (e = LOOM_ENC_COO; e < LOOM_ENC_COUNT; ++e) {
                double model = (double)loom_encode_model_size(e, k, n, LOOM_FILTER_FLOAT);
                double mean = sum[e] / TRIALS, var = sq[e] / TRIALS - mean * mean;
                double tol = 4 * sqrt(var > 0 ? var / (TRIALS - 1) : 0) + 1;

                if (e == LOOM_ENC_COO || e == LOOM_ENC_BITMAP) {
                    ck_assert_msg(model == mean, "%s n %zu k %zu: model %.0f, size %.0f",
                                  loom_encoding_names[e], n, k, model, mean);
                }
                ck_assert_msg(fabs(model - mean) <= tol, "%s n %zu k %zu: model %.0f, mean %.1f "
                              "(within %.1f)", loom_encoding_names[e], n, k, model, mean, tol);
            }
        }
    }
    ck_assert_uint_eq(loom_encode_model_size(LOOM_ENC_DELTA, 11, 10, LOOM_FILTER_FLOAT),
                      SIZE_MAX);
    ck_assert_uint_eq(loom_encode_model_size(LOOM_ENC_AUTO, 1, 10, LOOM_FILTER_FLOAT), SIZE_MAX);
    ck_assert_uint_eq(loom_encode_model_size(LOOM_ENC_BLOCK, 0, 10, LOOM_FILTER_DOUBLE), 0);
    ck_assert_uint_eq(loom_encode_model_size(LOOM_ENC_BLOCK, 10, 10, LOOM_FILTER_DOUBLE),
                      10 * 8 + 4);
    ck_assert_uint_eq(loom_encode_model_size(LOOM_ENC_DELTA, 10, 10, LOOM_FILTER_DOUBLE),
                      10 * 8 + 10);
}
END_TEST

static Suite *encode_suite(void)
{
    Suite *s = suite_create("encode");
    TCase *tc = tcase_create("encode");

    tcase_set_timeout(tc, 60);
    tcase_add_test(tc, test_round_trip);
    tcase_add_test(tc, test_sizes_by_hand);
    tcase_add_test(tc, test_large_gaps);
    tcase_add_test(tc, test_malformed_coo);
    tcase_add_test(tc, test_malformed_delta);
    tcase_add_test(tc, test_malformed_bitmap);
    tcase_add_test(tc, test_malformed_block);
    tcase_add_test(tc, test_damaged);
    tcase_add_test(tc, test_model);
    suite_add_tcase(s, tc);
    return s;
}

int main(void)
{
    return loom_check_run(encode_suite());
}
