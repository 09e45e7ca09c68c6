/*
 * The background writer of asynchronous saves (see async.c).  One save at
 * a time: begin, stage the changed chunks, end with the manifest, then
 * wait (or poll idle) before the commit on the application's thread.
 */
#ifndef LOOM_CKPT_ASYNC_H
#define LOOM_CKPT_ASYNC_H

#include <stddef.h>

#include "ckpt/context.h"

typedef struct loom_ckpt_async loom_ckpt_async_t;

loom_status_t loom_ckpt_async_create(loom_ckpt_t *ckpt, size_t capacity,
                                     loom_ckpt_async_t **async_p);
void loom_ckpt_async_begin(loom_ckpt_async_t *async);
/* Copies data into the staging area, waiting for room if it is full. */
loom_status_t loom_ckpt_async_stage(loom_ckpt_async_t *async, const char *hash,
                                    const void *data, size_t len);
/* Queues the manifest (ownership of the malloc()ed text passes). */
void loom_ckpt_async_end(loom_ckpt_async_t *async, const char *stepdir,
                         const char *name, char *manifest, size_t len);
/* 1 once everything of the current save is durable (or failed). */
int loom_ckpt_async_idle(loom_ckpt_async_t *async);
/* Waits until idle; the save's I/O status. */
loom_status_t loom_ckpt_async_wait(loom_ckpt_async_t *async);
/* Finishes what is queued, then stops the thread. */
void loom_ckpt_async_destroy(loom_ckpt_async_t *async);

#endif
