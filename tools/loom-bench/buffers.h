/*
 * Where each call's input and output live.
 *
 * Without --fresh every call uses the same input and output, as a training
 * step that reduces the same gradient buffer does; small messages then sit
 * in cache and time well.  With --fresh, consecutive calls walk through
 * arenas at least as large as the last-level cache, so a buffer has left
 * the cache by the time it comes round again and no result is inflated by
 * it.  With --check, the calls of one batch also write distinct outputs
 * (at most about 1 MiB in all, see sweep.c's batch sizes), so that every
 * call's result is there to verify after the batch.
 */
#ifndef LOOM_BENCH_BUFFERS_H
#define LOOM_BENCH_BUFFERS_H

#include <stddef.h>

/* Input and output have their own strides: allgather's output is n times
 * its input, reduce_scatter's input n times its output. */
typedef struct loom_bench_layout {
    size_t in_stride;   /* bytes between input slots: the input, cache-line aligned */
    size_t out_stride;  /* the same for outputs */
    size_t in_slots;
    size_t out_slots;
} loom_bench_layout_t;

typedef struct loom_bench_buffers {
    unsigned char *in;
    unsigned char *out;
    size_t         in_bytes;
    size_t         out_bytes;
} loom_bench_buffers_t;

/* The last-level cache of the cores this process runs on, per hwloc,
 * else sysconf, else 32 MiB; *source_p says which. */
size_t loom_bench_llc_bytes(const char **source_p);

/* The slots for calls that read in_bytes and write out_bytes, batch calls
 * per batch. */
loom_bench_layout_t loom_bench_layout(size_t in_bytes, size_t out_bytes, int batch, int fresh,
                                      size_t span, int check);

/* Arenas of in_bytes and out_bytes, every page touched now so that no page
 * fault lands in a timed batch.  0 on success, -1 out of memory. */
int loom_bench_buffers_create(size_t in_bytes, size_t out_bytes, loom_bench_buffers_t *bufs_p);
void loom_bench_buffers_destroy(loom_bench_buffers_t *bufs);

#endif
