/*
 * Result checking: values that every rank can compute for every other
 * rank, so that each rank verifies its own results without extra
 * communication.
 *
 * Rank r's input element i is value(r, (i + seed) mod PERIOD).  The values
 * are small integers chosen per op so that no reduction overflows a
 * float's exact range (sums stay below 2^24) and integer types wrap only
 * the way MPI's own reduction wraps: float and integer results are exact
 * and compared bit for bit.  PERIOD is prime so that a block moved by a
 * power-of-two offset (a misplaced segment) changes the values; the seed
 * changes from batch to batch so that a stale result from an earlier
 * batch does not pass.
 *
 * A tile holds 2 * PERIOD elements, value(k mod PERIOD) at k, so that any
 * run of PERIOD elements starting at an offset below PERIOD is one memcpy
 * or memcmp.
 */
#ifndef LOOM_BENCH_CHECK_H
#define LOOM_BENCH_CHECK_H

#include "types.h"

#include <stddef.h>
#include <stdint.h>

#define LOOM_BENCH_CHECK_PERIOD 61

/* The value rank contributes at position j (0 <= j < PERIOD) under op. */
int64_t loom_bench_check_value(const loom_bench_op_t *op, int rank, int j);

/* The values of ranks 0..nranks-1 at position j, reduced with op: what a
 * reduction leaves where every rank put its value(r, j). */
int64_t loom_bench_check_reduced(const loom_bench_op_t *op, int nranks, int j);

/* Fill tile (2 * PERIOD elements of dtype) with values[k mod PERIOD]. */
void loom_bench_tile_fill(const loom_bench_dtype_t *dtype, const int64_t *values, void *tile);

/* buf[i] = tile element (i + seed) mod PERIOD, for count elements. */
void loom_bench_tile_copy(const void *tile, size_t elem_size, unsigned seed, void *buf,
                          size_t count);

/* The number of elements of buf that differ from what tile_copy writes. */
size_t loom_bench_tile_compare(const void *tile, size_t elem_size, unsigned seed,
                               const void *buf, size_t count);

#endif
