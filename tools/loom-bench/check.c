/* Values for result checking and the tiles built from them (check.h). */
#include "check.h"

#include <string.h>

int64_t loom_bench_check_value(const loom_bench_op_t *op, int rank, int j)
{
    /* Every value lies in [0, 127], so it fits every type, int8 included. */
    switch (op->id) {
    case LOOM_BENCH_SUM:
        /* 0..3: a missing or doubled rank changes most sums. */
        return (rank * 5 + j) % 4;
    case LOOM_BENCH_PROD:
        /* 1 except a 2 and a 3 from ranks 0..4: products stay at most 6
         * whatever the rank count, so no type overflows. */
        if (rank < 5 && (rank + j) % 5 == 0) {
            return 2;
        }
        if (rank < 5 && (rank + j) % 5 == 2) {
            return 3;
        }
        return 1;
    case LOOM_BENCH_MIN:
    case LOOM_BENCH_MAX:
        return (rank * 11 + j * 7) % 97;
    case LOOM_BENCH_BAND:
    case LOOM_BENCH_BOR:
    case LOOM_BENCH_BXOR:
        /* Bit patterns that differ from rank to rank. */
        return ((rank + 1) * 37 + j * 13) & 0x7f;
    case LOOM_BENCH_LAND:
    case LOOM_BENCH_LOR:
    case LOOM_BENCH_LXOR:
        /* Mostly true, false where (j + 1)(rank + 3) is a multiple of 7:
         * land, lor and lxor all vary along the buffer. */
        return ((j + 1) * (rank + 3)) % 7 != 0;
    }
    return 0;
}

int64_t loom_bench_check_reduced(const loom_bench_op_t *op, int nranks, int j)
{
    int64_t acc = loom_bench_check_value(op, 0, j);
    int r;

    for (r = 1; r < nranks; ++r) {
        acc = loom_bench_op_apply(op, acc, loom_bench_check_value(op, r, j));
    }
    return acc;
}

void loom_bench_tile_fill(const loom_bench_dtype_t *dtype, const int64_t *values, void *tile)
{
    unsigned char *t = tile;
    int k;

    for (k = 0; k < 2 * LOOM_BENCH_CHECK_PERIOD; ++k) {
        loom_bench_dtype_store(dtype, values[k % LOOM_BENCH_CHECK_PERIOD],
                               t + (size_t)k * dtype->size);
    }
}

void loom_bench_tile_copy(const void *tile, size_t elem_size, unsigned seed, void *buf,
                          size_t count)
{
    const unsigned char *t = tile;
    unsigned char *b = buf;
    size_t i, n;

    for (i = 0; i < count; i += n) {
        n = count - i < LOOM_BENCH_CHECK_PERIOD ? count - i : LOOM_BENCH_CHECK_PERIOD;
        memcpy(b + i * elem_size, t + ((i + seed) % LOOM_BENCH_CHECK_PERIOD) * elem_size,
               n * elem_size);
    }
}

size_t loom_bench_tile_compare(const void *tile, size_t elem_size, unsigned seed,
                               const void *buf, size_t count)
{
    const unsigned char *t = tile, *b = buf, *want;
    size_t i, k, n, bad = 0;

    for (i = 0; i < count; i += n) {
        n = count - i < LOOM_BENCH_CHECK_PERIOD ? count - i : LOOM_BENCH_CHECK_PERIOD;
        want = t + ((i + seed) % LOOM_BENCH_CHECK_PERIOD) * elem_size;
        if (memcmp(b + i * elem_size, want, n * elem_size) == 0) {
            continue;   /* the common case: one memcmp per PERIOD elements */
        }
        for (k = 0; k < n; ++k) {
            bad += memcmp(b + (i + k) * elem_size, want + k * elem_size, elem_size) != 0;
        }
    }
    return bad;
}
