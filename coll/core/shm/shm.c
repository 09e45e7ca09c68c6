/*
 * A node's shared segment: mapping it and waiting on its counters.
 */
#include "coll/core/shm/shm_sync.h"

#include "common/log.h"

#include <errno.h>
#include <fcntl.h>
#include <sched.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/mman.h>
#include <sys/stat.h>
#include <unistd.h>

/* Polls before a waiting rank calls the idle function: long enough for a
 * peer on another core to finish a step of a segment, short enough that a
 * peer sharing this core gets the core back soon.  With more ranks than
 * cores the peer waited for is likely waiting for this core: give it up
 * sooner. */
#define LOOM_SHM_SPINS 256
#define LOOM_SHM_SPINS_CROWDED 16

static inline void loom_shm_relax(void)
{
#if defined(__x86_64__) || defined(__i386__)
    __builtin_ia32_pause();
#elif defined(__aarch64__)
    __asm__ volatile("yield");
#endif
}

static size_t loom_shm_ctl_bytes(int size)
{
    return (size_t)size * sizeof(struct loom_shm_ctl);
}

size_t loom_shm_bytes(const loom_shm_params_t *params)
{
    return loom_shm_ctl_bytes(params->size) +
           (size_t)params->size * (size_t)params->depth * params->slot_bytes;
}

static loom_status_t loom_shm_check(const loom_shm_params_t *params)
{
    if (params->size < 1 || params->rank < 0 || params->rank >= params->size ||
        params->depth < 1 || params->slot_bytes == 0 || params->slot_bytes % 64 != 0) {
        loom_error("coll", "shm: invalid segment parameters (size %d, rank %d, depth %d, "
                   "slot %zu bytes; slots must be a positive multiple of 64)",
                   params->size, params->rank, params->depth, params->slot_bytes);
        return LOOM_ERR_INVALID_PARAM;
    }
    return LOOM_OK;
}

loom_status_t loom_shm_wrap(void *base, const loom_shm_params_t *params, loom_shm_t **shm_p)
{
    loom_status_t status = loom_shm_check(params);
    loom_shm_t *shm;

    if (status != LOOM_OK) {
        return status;
    }
    shm = calloc(1, sizeof(*shm));
    if (shm == NULL) {
        return LOOM_ERR_NO_MEMORY;
    }
    shm->params = *params;
    shm->base = base;
    shm->bytes = loom_shm_bytes(params);
    shm->ctl = base;
    shm->slots = (char *)base + loom_shm_ctl_bytes(params->size);
    /* base first: a peer reads it once it sees the pid. */
    atomic_store_explicit(&shm->ctl[params->rank].base, (uint64_t)(uintptr_t)base,
                          memory_order_relaxed);
    atomic_store_explicit(&shm->ctl[params->rank].pid, (uint64_t)getpid(),
                          memory_order_release);
    *shm_p = shm;
    return LOOM_OK;
}

static loom_status_t loom_shm_map(int fd, const char *name, const loom_shm_params_t *params,
                                  loom_shm_t **shm_p)
{
    size_t bytes = loom_shm_bytes(params);
    loom_status_t status;
    void *base;

    base = mmap(NULL, bytes, PROT_READ | PROT_WRITE, MAP_SHARED, fd, 0);
    if (base == MAP_FAILED) {
        loom_warn("coll", "shm: mmap of %s (%zu bytes) failed: %s", name, bytes,
                  strerror(errno));
        return LOOM_ERR_NO_MEMORY;
    }
    status = loom_shm_wrap(base, params, shm_p);
    if (status != LOOM_OK) {
        munmap(base, bytes);
        return status;
    }
    (*shm_p)->owns_map = 1;
    return LOOM_OK;
}

loom_status_t loom_shm_create(const char *name, const loom_shm_params_t *params,
                              loom_shm_t **shm_p)
{
    loom_status_t status = loom_shm_check(params);
    int fd, err;

    if (status != LOOM_OK) {
        return status;
    }
    fd = shm_open(name, O_RDWR | O_CREAT | O_EXCL, 0600);
    if (fd < 0) {
        loom_warn("coll", "shm: cannot create %s: %s", name, strerror(errno));
        return LOOM_ERR_NO_MEMORY;
    }
    /* Reserve the pages now: a tmpfs that is full would otherwise accept
     * ftruncate and kill the job with SIGBUS at the first store. */
    err = posix_fallocate(fd, 0, (off_t)loom_shm_bytes(params));
    if (err != 0) {
        loom_warn("coll", "shm: cannot reserve %zu bytes for %s: %s",
                  loom_shm_bytes(params), name, strerror(err));
        status = LOOM_ERR_NO_MEMORY;
    } else {
        status = loom_shm_map(fd, name, params, shm_p);
    }
    close(fd);
    if (status != LOOM_OK) {
        shm_unlink(name);
    }
    return status;
}

loom_status_t loom_shm_attach(const char *name, const loom_shm_params_t *params,
                              loom_shm_t **shm_p)
{
    loom_status_t status = loom_shm_check(params);
    struct stat st;
    int fd;

    if (status != LOOM_OK) {
        return status;
    }
    fd = shm_open(name, O_RDWR, 0);
    if (fd < 0) {
        loom_warn("coll", "shm: cannot open %s: %s", name, strerror(errno));
        return LOOM_ERR_NOT_FOUND;
    }
    if (fstat(fd, &st) != 0 || (size_t)st.st_size != loom_shm_bytes(params)) {
        loom_warn("coll", "shm: %s is not the segment expected (%zu bytes)", name,
                  loom_shm_bytes(params));
        close(fd);
        return LOOM_ERR_INVALID_PARAM;
    }
    status = loom_shm_map(fd, name, params, shm_p);
    close(fd);
    return status;
}

void loom_shm_unlink(const char *name)
{
    if (shm_unlink(name) != 0 && errno != ENOENT) {
        loom_warn("coll", "shm: cannot unlink %s: %s", name, strerror(errno));
    }
}

void loom_shm_destroy(loom_shm_t *shm)
{
    if (shm == NULL) {
        return;
    }
    if (shm->owns_map) {
        munmap(shm->base, shm->bytes);
    }
    free(shm);
}

static _Atomic uint64_t *loom_shm_counter(loom_shm_t *shm, int rank, loom_shm_counter_t counter)
{
    struct loom_shm_ctl *ctl = &shm->ctl[rank];

    switch (counter) {
    case LOOM_SHM_ARRIVED:
        return &ctl->arrived;
    case LOOM_SHM_REDUCED:
        return &ctl->reduced;
    default:
        return &ctl->done;
    }
}

void loom_shm_publish(loom_shm_t *shm, loom_shm_counter_t counter, uint64_t value)
{
    atomic_store_explicit(loom_shm_counter(shm, shm->params.rank, counter), value,
                          memory_order_release);
}

void loom_shm_wait(loom_shm_t *shm, int rank, loom_shm_counter_t counter, uint64_t value)
{
    _Atomic uint64_t *c = loom_shm_counter(shm, rank, counter);
    int spins = 0, max_spins = shm->params.crowded ? LOOM_SHM_SPINS_CROWDED : LOOM_SHM_SPINS;

    ++shm->waits;
    shm->wait_rank = rank;
    shm->wait_counter = (int)counter;
    shm->wait_value = value;
    while (atomic_load_explicit(c, memory_order_acquire) < value) {
        if (++spins < max_spins) {
            loom_shm_relax();
            continue;
        }
        spins = 0;
        if (shm->params.idle != NULL) {
            shm->params.idle(shm->params.idle_ctx);
        } else {
            sched_yield();
        }
    }
}

size_t loom_shm_describe_wait(const loom_shm_t *shm, char *buf, size_t len)
{
    static const char *const what[] = {
        [LOOM_SHM_ARRIVED] = "copy its input of",
        [LOOM_SHM_REDUCED] = "reduce its share of",
        [LOOM_SHM_DONE] = "finish reading",
    };
    loom_shm_t *s = (loom_shm_t *)shm;
    uint64_t at = atomic_load_explicit(loom_shm_counter(s, shm->wait_rank,
                                                        (loom_shm_counter_t)shm->wait_counter),
                                       memory_order_relaxed);
    int n = snprintf(buf, len, "shared segment: rank %d waits for rank %d to %s segment %llu "
                     "(that rank is at %llu)", shm->params.rank, shm->wait_rank,
                     what[shm->wait_counter], (unsigned long long)shm->wait_value - 1,
                     (unsigned long long)at);

    return n < 0 ? 0 : (size_t)n < len ? (size_t)n : len - 1;
}

void loom_shm_wait_slot(loom_shm_t *shm, uint64_t g)
{
    uint64_t depth = (uint64_t)shm->params.depth;
    int q;

    if (g < depth) {
        return;
    }
    for (q = 0; q < shm->params.size; ++q) {
        loom_shm_wait(shm, q, LOOM_SHM_DONE, g - depth + 1);
    }
}
