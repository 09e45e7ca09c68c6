/*
 * A process-wide pool of pre-faulted scratch buffers.
 *
 * Collectives need scratch the size of the message.  Allocating it per
 * call (as Open MPI's tuned does) pays a page fault per 4 KiB every time;
 * the pool keeps freed buffers by power-of-two size class and hands them
 * out again, already faulted in.  Thread-safe.
 */
#ifndef LOOM_POOL_H
#define LOOM_POOL_H

#include "loom/status.h"

#include <stddef.h>

/* A buffer of at least bytes, 64-byte aligned, every page touched. */
loom_status_t loom_pool_get(size_t bytes, void **buf_p);

/* Give a buffer from loom_pool_get back (NULL is ignored). */
void loom_pool_put(void *buf);

/* Bytes the pool holds on its free lists (for tests and counters). */
size_t loom_pool_cached_bytes(void);

/* Free every cached buffer (at finalize, and in tests). */
void loom_pool_trim(void);

#endif
