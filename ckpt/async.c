/*
 * Asynchronous saves: the application's thread copies each changed chunk
 * into a bounded staging area and goes back to training; one background
 * thread per context writes the staged chunks (fsync, rename), fsyncs
 * their directories once, then writes the rank's manifest.  The ranks'
 * agreement and the commit record stay on the application's thread
 * (loom_ckpt_wait), so no MPI call is ever made from the writer.
 *
 * The staging area is bounded by bytes: staging a chunk that does not fit
 * waits for the writer to free room, and that wait is the stall the
 * statistics report.  A chunk larger than the whole area is staged alone.
 */
#include "ckpt/async.h"

#include <pthread.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

#include "ckpt/chunks.h"
#include "common/log.h"

typedef struct staged {
    struct staged *next;
    char hash[LOOM_CKPT_HASH_HEX + 1];
    size_t len;
    unsigned char data[];
} staged_t;

struct loom_ckpt_async {
    loom_ckpt_t *ckpt;
    pthread_t thread;
    pthread_mutex_t lock;
    pthread_cond_t cond;        /* both directions: work queued, room freed */
    staged_t *head, *tail;
    size_t staged_bytes;
    size_t capacity;
    int closing;
    /* The manifest that ends the current save, once the chunks are out. */
    char *manifest;
    size_t manifest_len;
    char stepdir[4096];
    char name[64];
    int manifest_queued;
    int idle;                   /* nothing staged, nothing being written */
    loom_status_t status;       /* the first error of the current save */
    uint8_t dirty[LOOM_CKPT_CHUNK_DIRS];
};

static uint64_t now_ns(void)
{
    struct timespec ts;
    clock_gettime(CLOCK_MONOTONIC, &ts);
    return (uint64_t)ts.tv_sec * 1000000000u + (uint64_t)ts.tv_nsec;
}

static void write_one(loom_ckpt_async_t *a, staged_t *s)
{
    loom_ckpt_t *ckpt = a->ckpt;
    size_t written = 0;
    loom_status_t st = loom_ckpt_chunk_store(ckpt->io, ckpt->dir, s->hash,
                                             s->data, s->len,
                                             &(loom_ckpt_store_opts_t){
                                                 .file_mode = ckpt->file_mode,
                                                 .dir_mode = ckpt->dir_mode,
                                                 .zstd_level = ckpt->zstd_level },
                                             a->dirty, &written);
    __atomic_add_fetch(&ckpt->stats.chunks_written, (uint64_t)(written > 0),
                       __ATOMIC_RELAXED);
    __atomic_add_fetch(&ckpt->stats.chunks_reused, (uint64_t)(written == 0),
                       __ATOMIC_RELAXED);
    __atomic_add_fetch(&ckpt->stats.bytes_written, (uint64_t)written,
                       __ATOMIC_RELAXED);
    if (st != LOOM_OK && a->status == LOOM_OK) {
        a->status = st;
    }
}

static void write_manifest(loom_ckpt_async_t *a)
{
    loom_ckpt_t *ckpt = a->ckpt;
    loom_status_t st = a->status;
    if (st == LOOM_OK) {
        st = loom_ckpt_chunk_sync_dirs(ckpt->io, ckpt->dir, a->dirty);
    }
    if (st == LOOM_OK) {
        int rc = loom_ckpt_io_write_durable(ckpt->io, a->stepdir, a->name,
                                            a->manifest, a->manifest_len,
                                            ckpt->file_mode, 1);
        if (rc != 0) {
            loom_error("ckpt", "cannot write %s/%s: %s", a->stepdir, a->name,
                       strerror(-rc));
            st = LOOM_ERR_IO;
        } else {
            __atomic_add_fetch(&ckpt->stats.manifest_bytes,
                               (uint64_t)a->manifest_len, __ATOMIC_RELAXED);
        }
    }
    a->status = st;
}

static void *writer_main(void *arg)
{
    loom_ckpt_async_t *a = arg;
    pthread_mutex_lock(&a->lock);
    for (;;) {
        while (a->head == NULL && !a->manifest_queued && !a->closing) {
            pthread_cond_wait(&a->cond, &a->lock);
        }
        if (a->head != NULL) {
            staged_t *s = a->head;
            a->head = s->next;
            if (a->head == NULL) {
                a->tail = NULL;
            }
            pthread_mutex_unlock(&a->lock);
            write_one(a, s);
            pthread_mutex_lock(&a->lock);
            a->staged_bytes -= s->len;
            free(s);
            pthread_cond_broadcast(&a->cond);
        } else if (a->manifest_queued) {
            pthread_mutex_unlock(&a->lock);
            write_manifest(a);
            pthread_mutex_lock(&a->lock);
            free(a->manifest);
            a->manifest = NULL;
            a->manifest_queued = 0;
            a->idle = 1;
            pthread_cond_broadcast(&a->cond);
        } else {
            break;      /* closing, nothing left */
        }
    }
    pthread_mutex_unlock(&a->lock);
    return NULL;
}

loom_status_t loom_ckpt_async_create(loom_ckpt_t *ckpt, size_t capacity,
                                     loom_ckpt_async_t **async_p)
{
    loom_ckpt_async_t *a = calloc(1, sizeof(*a));
    if (a == NULL) {
        return LOOM_ERR_NO_MEMORY;
    }
    a->ckpt = ckpt;
    a->capacity = capacity;
    a->idle = 1;
    pthread_mutex_init(&a->lock, NULL);
    pthread_cond_init(&a->cond, NULL);
    if (pthread_create(&a->thread, NULL, writer_main, a) != 0) {
        loom_error("ckpt", "cannot start the checkpoint writer thread");
        pthread_cond_destroy(&a->cond);
        pthread_mutex_destroy(&a->lock);
        free(a);
        return LOOM_ERR_NO_MEMORY;
    }
    *async_p = a;
    return LOOM_OK;
}

void loom_ckpt_async_begin(loom_ckpt_async_t *a)
{
    pthread_mutex_lock(&a->lock);
    a->idle = 0;
    a->status = LOOM_OK;
    memset(a->dirty, 0, sizeof(a->dirty));
    pthread_mutex_unlock(&a->lock);
}

loom_status_t loom_ckpt_async_stage(loom_ckpt_async_t *a, const char *hash,
                                    const void *data, size_t len)
{
    staged_t *s = malloc(sizeof(*s) + len);
    if (s == NULL) {
        return LOOM_ERR_NO_MEMORY;
    }
    memcpy(s->hash, hash, sizeof(s->hash));
    s->len = len;
    s->next = NULL;

    pthread_mutex_lock(&a->lock);
    if (a->staged_bytes > 0 && a->staged_bytes + len > a->capacity) {
        uint64_t t0 = now_ns();
        while (a->staged_bytes > 0 && a->staged_bytes + len > a->capacity) {
            pthread_cond_wait(&a->cond, &a->lock);
        }
        a->ckpt->stats.stall_ns += now_ns() - t0;
    }
    loom_status_t st = a->status;
    pthread_mutex_unlock(&a->lock);
    if (st != LOOM_OK) {
        free(s);
        return st;      /* the writer failed: stop staging */
    }
    /* The copy is the application's cost of an asynchronous save. */
    memcpy(s->data, data, len);
    pthread_mutex_lock(&a->lock);
    a->staged_bytes += len;
    if (a->staged_bytes > a->ckpt->stats.staging_peak) {
        a->ckpt->stats.staging_peak = a->staged_bytes;
    }
    if (a->tail != NULL) {
        a->tail->next = s;
    } else {
        a->head = s;
    }
    a->tail = s;
    pthread_cond_broadcast(&a->cond);
    pthread_mutex_unlock(&a->lock);
    return LOOM_OK;
}

void loom_ckpt_async_end(loom_ckpt_async_t *a, const char *stepdir,
                         const char *name, char *manifest, size_t len)
{
    pthread_mutex_lock(&a->lock);
    snprintf(a->stepdir, sizeof(a->stepdir), "%s", stepdir);
    snprintf(a->name, sizeof(a->name), "%s", name);
    a->manifest = manifest;
    a->manifest_len = len;
    a->manifest_queued = 1;
    pthread_cond_broadcast(&a->cond);
    pthread_mutex_unlock(&a->lock);
}

int loom_ckpt_async_idle(loom_ckpt_async_t *a)
{
    pthread_mutex_lock(&a->lock);
    int idle = a->idle;
    pthread_mutex_unlock(&a->lock);
    return idle;
}

loom_status_t loom_ckpt_async_wait(loom_ckpt_async_t *a)
{
    pthread_mutex_lock(&a->lock);
    while (!a->idle) {
        pthread_cond_wait(&a->cond, &a->lock);
    }
    loom_status_t st = a->status;
    pthread_mutex_unlock(&a->lock);
    return st;
}

void loom_ckpt_async_destroy(loom_ckpt_async_t *a)
{
    if (a == NULL) {
        return;
    }
    pthread_mutex_lock(&a->lock);
    a->closing = 1;
    pthread_cond_broadcast(&a->cond);
    pthread_mutex_unlock(&a->lock);
    pthread_join(a->thread, NULL);
    free(a->manifest);
    pthread_cond_destroy(&a->cond);
    pthread_mutex_destroy(&a->lock);
    free(a);
}
