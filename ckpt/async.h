/*
 * The background writer of asynchronous saves (see async.c).  One save at
 * a time: begin, stage the candidate chunks, end with the manifest, then
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
/* A chunk that may have changed, for the writer to hash (or one known to
 * have changed, for it to store). */
typedef struct loom_ckpt_stage {
    loom_ckpt_chunk_ref_t *ref;         /* its manifest entry: the writer
                                         * fills in the hash */
    const loom_ckpt_chunk_ref_t *old;   /* the last committed save's, or NULL */
    int store;                          /* this rank stores it if changed */
    int hashed;                         /* ref->hash is filled in already and
                                         * differs: store it, no more */
} loom_ckpt_stage_t;

/* Copies data into the staging area, waiting for room if it is full. */
loom_status_t loom_ckpt_async_stage(loom_ckpt_async_t *async,
                                    const loom_ckpt_stage_t *what,
                                    const void *data, size_t len);
/* Once the staged chunks are hashed and written, the writer formats the
 * manifest m (the caller keeps it, untouched until idle) and writes it
 * durably; m NULL: the caller failed, write nothing. */
void loom_ckpt_async_end(loom_ckpt_async_t *async, const char *stepdir,
                         const char *name, loom_ckpt_manifest_t *m);
/* 1 once everything of the current save is durable (or failed). */
int loom_ckpt_async_idle(loom_ckpt_async_t *async);
/* Waits until idle; the save's I/O status. */
loom_status_t loom_ckpt_async_wait(loom_ckpt_async_t *async);
/* Finishes what is queued, then stops the thread. */
void loom_ckpt_async_destroy(loom_ckpt_async_t *async);

#endif
