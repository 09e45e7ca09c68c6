#include "coll/core/engine/pool.h"
#include "common/log.h"

#include <pthread.h>
#include <stdint.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#define LOOM_POOL_MIN_SHIFT   12   /* 4 KiB: smaller requests use this class */
#define LOOM_POOL_CLASSES     40
#define LOOM_POOL_KEEP        4    /* cached buffers per class */
#define LOOM_POOL_ALIGN       64

/* Stored just before the buffer: which class it belongs to. */
typedef struct loom_pool_hdr {
    struct loom_pool_hdr    *next;  /* free-list link while cached */
    unsigned                klass;
    unsigned                pad[(LOOM_POOL_ALIGN - sizeof(void *) - sizeof(unsigned)) /
                                sizeof(unsigned)];
} loom_pool_hdr_t;

static pthread_mutex_t loom_pool_lock = PTHREAD_MUTEX_INITIALIZER;
static loom_pool_hdr_t *loom_pool_free[LOOM_POOL_CLASSES];
static int loom_pool_count[LOOM_POOL_CLASSES];
static size_t loom_pool_bytes;

static unsigned loom_pool_class(size_t bytes)
{
    unsigned k = LOOM_POOL_MIN_SHIFT;

    while (k < LOOM_POOL_MIN_SHIFT + LOOM_POOL_CLASSES - 1 && ((size_t)1 << k) < bytes) {
        ++k;
    }
    return k - LOOM_POOL_MIN_SHIFT;
}

static size_t loom_pool_class_bytes(unsigned klass)
{
    return (size_t)1 << (klass + LOOM_POOL_MIN_SHIFT);
}

loom_status_t loom_pool_get(size_t bytes, void **buf_p)
{
    unsigned klass = loom_pool_class(bytes);
    size_t size = loom_pool_class_bytes(klass), page, off;
    loom_pool_hdr_t *hdr;
    char *buf;

    if (bytes > size) {
        return LOOM_ERR_NO_MEMORY; /* beyond the largest class */
    }
    pthread_mutex_lock(&loom_pool_lock);
    hdr = loom_pool_free[klass];
    if (hdr != NULL) {
        loom_pool_free[klass] = hdr->next;
        --loom_pool_count[klass];
        loom_pool_bytes -= size;
    }
    pthread_mutex_unlock(&loom_pool_lock);

    if (hdr == NULL) {
        if (posix_memalign((void **)&hdr, LOOM_POOL_ALIGN, sizeof(*hdr) + size) != 0) {
            loom_error("coll", "cannot allocate %zu bytes of scratch", size);
            return LOOM_ERR_NO_MEMORY;
        }
        hdr->klass = klass;
        /* Fault every page in now, once, rather than in each collective. */
        buf = (char *)(hdr + 1);
        page = (size_t)sysconf(_SC_PAGESIZE);
        for (off = 0; off < size; off += page) {
            buf[off] = 0;
        }
    }
    hdr->next = NULL;
    *buf_p = hdr + 1;
    return LOOM_OK;
}

void loom_pool_put(void *buf)
{
    loom_pool_hdr_t *hdr;
    unsigned klass;

    if (buf == NULL) {
        return;
    }
    hdr = (loom_pool_hdr_t *)buf - 1;
    klass = hdr->klass;
    pthread_mutex_lock(&loom_pool_lock);
    if (loom_pool_count[klass] < LOOM_POOL_KEEP) {
        hdr->next = loom_pool_free[klass];
        loom_pool_free[klass] = hdr;
        ++loom_pool_count[klass];
        loom_pool_bytes += loom_pool_class_bytes(klass);
        hdr = NULL;
    }
    pthread_mutex_unlock(&loom_pool_lock);
    free(hdr);
}

size_t loom_pool_cached_bytes(void)
{
    size_t bytes;

    pthread_mutex_lock(&loom_pool_lock);
    bytes = loom_pool_bytes;
    pthread_mutex_unlock(&loom_pool_lock);
    return bytes;
}

void loom_pool_trim(void)
{
    loom_pool_hdr_t *hdr, *next;
    unsigned k;

    pthread_mutex_lock(&loom_pool_lock);
    for (k = 0; k < LOOM_POOL_CLASSES; ++k) {
        for (hdr = loom_pool_free[k]; hdr != NULL; hdr = next) {
            next = hdr->next;
            free(hdr);
        }
        loom_pool_free[k] = NULL;
        loom_pool_count[k] = 0;
    }
    loom_pool_bytes = 0;
    pthread_mutex_unlock(&loom_pool_lock);
}
