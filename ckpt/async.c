/*
 * Asynchronous saves: the application's thread copies each chunk that may
 * have changed (change tracking's candidates, track.h) into a bounded
 * staging area and goes back to training; one background thread per
 * context hashes each staged chunk, drops those whose hash did not change,
 * writes the others (fsync, rename), fsyncs their directories once, then
 * creates the step's directory and formats and writes the rank's manifest.  Hashing here rather than on
 * the caller's thread is what keeps the caller's stall near one memcpy of
 * what changed: XXH3 reads at about half the speed memcpy copies.  The ranks'
 * agreement and the commit record stay on the application's thread
 * (loom_ckpt_wait), so no MPI call is ever made from the writer.
 *
 * The staging area is bounded by bytes: staging a chunk that does not fit
 * waits for the writer to free room, and that wait is the stall the
 * statistics report.  A chunk larger than the whole area is staged alone.
 *
 * While the caller is inside a save the writer is idle (the previous
 * save is finished), so it shares the copies: they wait until the caller
 * has staged everything (or needs room), then both threads take them
 * chunk by chunk.  From the first chunk staged the writer polls instead
 * of sleeping: in a VM, waking a sleeping thread on an idle core takes
 * about as long as the work.  It does not help with the scan of the page
 * tables that comes before: a second thread of the process running then
 * makes every write-protection the scan applies interrupt that thread's
 * core (TLB shootdown), which doubled the scan here.  The caller returns
 * only when every copy is done, so the application never writes a chunk
 * that is still being read.
 */
#include "ckpt/async.h"

#include <pthread.h>
#include <sched.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

#include "ckpt/chunks.h"
#include "common/log.h"

typedef struct staged {
    struct staged *next;
    loom_ckpt_chunk_ref_t *ref;
    char old[LOOM_CKPT_HASH_HEX + 1];   /* empty: no committed chunk */
    int store;
    int hashed;
    const void *src;                    /* the copy still to make, or NULL */
    size_t len;
    size_t cap;                         /* bytes data[] can hold */
    unsigned char data[];
} staged_t;

struct loom_ckpt_async {
    loom_ckpt_t *ckpt;
    pthread_t thread;
    pthread_mutex_t lock;
    pthread_cond_t cond;        /* both directions: work queued, room freed */
    staged_t *head, *tail;
    staged_t *uncopied;         /* the first staged chunk not copied yet; the
                                 * rest of the queue after it is not either */
    int copying;                /* the caller copies: the writer helps */
    int copies_in_flight;
    int attending;              /* copies are coming: the writer polls */
    size_t staged_bytes;
    size_t capacity;
    /* Buffers written out, kept for the next save: fresh memory would
     * take a page fault per page at the copy, which costs more than the
     * copy itself.  pool_bytes counts every buffer, staged or free, and
     * stays within the capacity (or one chunk beyond an empty area). */
    staged_t *pool;
    size_t pool_bytes;
    int closing;
    /* The manifest that ends the current save, once the chunks are out. */
    loom_ckpt_manifest_t *manifest;
    char stepdir[4096];
    char name[64];
    int manifest_queued;
    int draining;               /* the caller waits for room: write now */
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

/* Hashes a staged chunk into its manifest entry; stores it if it changed
 * and is this rank's to store. */
static void write_one(loom_ckpt_async_t *a, staged_t *s)
{
    loom_ckpt_t *ckpt = a->ckpt;
    size_t written = 0;
    if (!s->hashed) {
        loom_ckpt_chunk_hash(s->data, s->len, s->ref->hash);
        if (strcmp(s->ref->hash, s->old) == 0) {
            __atomic_add_fetch(&ckpt->stats.chunks_reused, 1, __ATOMIC_RELAXED);
            return;
        }
        if (!s->store) {
            return;
        }
    }
    loom_status_t st = loom_ckpt_chunk_store(ckpt->io, ckpt->dir, s->ref->hash,
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
    char *text = NULL;
    size_t len = 0;
    if (a->manifest == NULL) {
        return;     /* the caller failed and says so at wait */
    }
    if (st == LOOM_OK) {
        st = loom_ckpt_chunk_sync_dirs(ckpt->io, ckpt->dir, a->dirty);
    }
    if (st == LOOM_OK) {
        int rc = loom_ckpt_io_mkdir_durable(ckpt->io, ckpt->dir, a->stepdir,
                                            ckpt->dir_mode);
        if (rc != 0) {
            loom_error("ckpt", "cannot create %s: %s", a->stepdir, strerror(-rc));
            st = LOOM_ERR_IO;
        }
    }
    if (st == LOOM_OK) {
        st = loom_ckpt_manifest_format(a->manifest, &text, &len);
    }
    if (st == LOOM_OK) {
        int rc = loom_ckpt_io_write_durable(ckpt->io, a->stepdir, a->name,
                                            text, len, ckpt->file_mode, 1);
        if (rc != 0) {
            loom_error("ckpt", "cannot write %s/%s: %s", a->stepdir, a->name,
                       strerror(-rc));
            st = LOOM_ERR_IO;
        } else {
            __atomic_add_fetch(&ckpt->stats.manifest_bytes, (uint64_t)len,
                               __ATOMIC_RELAXED);
        }
    }
    free(text);
    a->status = st;
}

/* Takes the next uncopied chunk and copies it, with a->lock held on entry
 * and on return; 0 when none is left.  src goes NULL under the lock once
 * the copy is made: the writer takes only such chunks. */
static int copy_next(loom_ckpt_async_t *a)
{
    staged_t *s = a->uncopied;
    if (s == NULL) {
        return 0;
    }
    const void *src = s->src;
    a->uncopied = s->next;
    a->copies_in_flight++;
    pthread_mutex_unlock(&a->lock);
    memcpy(s->data, src, s->len);
    pthread_mutex_lock(&a->lock);
    s->src = NULL;
    a->copies_in_flight--;
    return 1;
}

/* Whether the oldest staged chunk can be hashed and written: its copy is
 * made (a drain goes on while the caller stages, and copies, newer ones). */
static int head_copied(const loom_ckpt_async_t *a)
{
    return a->head != NULL && a->head->src == NULL;
}

/* Lets the other thread run for a moment; a->lock held on entry and on
 * return.  Both threads wait this way inside a save (see the top). */
static void poll_once(loom_ckpt_async_t *a)
{
    pthread_mutex_unlock(&a->lock);
    sched_yield();
    pthread_mutex_lock(&a->lock);
}

/* The caller copies every staged chunk, the writer helping; a->lock held. */
static void copy_staged(loom_ckpt_async_t *a)
{
    if (a->uncopied == NULL) {
        return;
    }
    a->copying = 1;
    pthread_cond_broadcast(&a->cond);
    while (copy_next(a)) {
    }
    while (a->copies_in_flight > 0) {
        poll_once(a);
    }
    a->copying = 0;
}

/* Whether the writer has anything to do; a->lock held. */
static int writer_has_work(const loom_ckpt_async_t *a)
{
    return (a->manifest_queued && (a->head == NULL || head_copied(a))) ||
           (a->closing && a->head == NULL) || (a->draining && head_copied(a)) ||
           (a->copying && a->uncopied != NULL);
}

static void *writer_main(void *arg)
{
    loom_ckpt_async_t *a = arg;
    pthread_mutex_lock(&a->lock);
    for (;;) {
        /* Staged chunks wait until the caller has returned (the manifest
         * is queued) or needs room: hashing and writing beside its copy
         * would only slow the copy down (memory bandwidth, cores). */
        while (!writer_has_work(a)) {
            if (a->attending) {
                poll_once(a);
            } else {
                pthread_cond_wait(&a->cond, &a->lock);
            }
        }
        if (a->copying && a->uncopied != NULL) {
            while (copy_next(a)) {
            }
            pthread_cond_broadcast(&a->cond);
        } else if (head_copied(a)) {
            staged_t *s = a->head;
            a->head = s->next;
            if (a->head == NULL) {
                a->tail = NULL;
            }
            pthread_mutex_unlock(&a->lock);
            write_one(a, s);
            pthread_mutex_lock(&a->lock);
            a->staged_bytes -= s->len;
            s->next = a->pool;
            a->pool = s;
            pthread_cond_broadcast(&a->cond);
        } else if (a->head == NULL && a->manifest_queued) {
            pthread_mutex_unlock(&a->lock);
            write_manifest(a);
            pthread_mutex_lock(&a->lock);
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
    a->draining = 0;
    a->status = LOOM_OK;
    memset(a->dirty, 0, sizeof(a->dirty));
    pthread_mutex_unlock(&a->lock);
}

loom_status_t loom_ckpt_async_stage(loom_ckpt_async_t *a,
                                    const loom_ckpt_stage_t *what,
                                    const void *data, size_t len)
{
    pthread_mutex_lock(&a->lock);
    if (a->staged_bytes > 0 && a->staged_bytes + len > a->capacity) {
        copy_staged(a);     /* the writer takes only copied chunks */
        uint64_t t0 = now_ns();
        a->draining = 1;
        pthread_cond_broadcast(&a->cond);
        while (a->staged_bytes > 0 && a->staged_bytes + len > a->capacity) {
            pthread_cond_wait(&a->cond, &a->lock);
        }
        a->ckpt->stats.stall_ns += now_ns() - t0;
    }
    loom_status_t st = a->status;
    if (st != LOOM_OK) {
        pthread_mutex_unlock(&a->lock);
        return st;      /* the writer failed: stop staging */
    }
    /* A free buffer that fits, else a new one, after freeing others to
     * stay within the bound. */
    staged_t *s = NULL, **at = &a->pool;
    while (*at != NULL && (*at)->cap < len) {
        at = &(*at)->next;
    }
    if (*at != NULL) {
        s = *at;
        *at = s->next;
    } else {
        while (a->pool != NULL && a->pool_bytes + len > a->capacity) {
            staged_t *drop = a->pool;
            a->pool = drop->next;
            a->pool_bytes -= drop->cap;
            free(drop);
        }
        a->pool_bytes += len;
    }
    pthread_mutex_unlock(&a->lock);
    if (s == NULL) {
        if ((s = malloc(sizeof(*s) + len)) == NULL) {
            pthread_mutex_lock(&a->lock);
            a->pool_bytes -= len;
            pthread_mutex_unlock(&a->lock);
            return LOOM_ERR_NO_MEMORY;
        }
        s->cap = len;
    }
    s->ref = what->ref;
    snprintf(s->old, sizeof(s->old), "%s", what->old ? what->old->hash : "");
    s->store = what->store;
    s->hashed = what->hashed;
    s->len = len;
    s->src = data;      /* copied at the end of the save, or before a drain */
    s->next = NULL;
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
    if (a->uncopied == NULL) {
        a->uncopied = s;
    }
    if (!a->attending) {
        a->attending = 1;   /* wakes now, while the caller stages the rest */
        pthread_cond_broadcast(&a->cond);
    }
    pthread_mutex_unlock(&a->lock);
    return LOOM_OK;
}

void loom_ckpt_async_end(loom_ckpt_async_t *a, const char *stepdir,
                         const char *name, loom_ckpt_manifest_t *m)
{
    pthread_mutex_lock(&a->lock);
    /* The copies are the application's cost of an asynchronous save. */
    copy_staged(a);
    a->attending = 0;
    snprintf(a->stepdir, sizeof(a->stepdir), "%s", stepdir);
    snprintf(a->name, sizeof(a->name), "%s", name);
    a->manifest = m;
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
    while (a->pool != NULL) {
        staged_t *s = a->pool;
        a->pool = s->next;
        free(s);
    }
    pthread_cond_destroy(&a->cond);
    pthread_mutex_destroy(&a->lock);
    free(a);
}
