/*
 * The transport interface the executor drives.
 *
 * Two implementations: UCX's UCP tag API (real runs) and an in-process
 * loopback (unit tests with many ranks in one process).  Messages are
 * matched on (source peer, 64-bit tag); a posted operation reports its end
 * through a loom_completion_t that the caller owns and keeps alive until
 * done is set.  Completions may be set from another thread's progress call
 * (UCX in multi-thread mode), hence the atomics.
 */
#ifndef LOOM_TRANSPORT_H
#define LOOM_TRANSPORT_H

#include "loom/status.h"

#include <stddef.h>
#include <stdint.h>

typedef struct loom_completion {
    int             done;    /* written with release, read with acquire */
    loom_status_t   status;  /* valid once done */
    size_t          length;  /* bytes received (receives only) */
    void            *transport; /* the posting transport's, for its callbacks */
} loom_completion_t;

static inline void loom_completion_init(loom_completion_t *comp)
{
    comp->status = LOOM_OK;
    comp->length = 0;
    __atomic_store_n(&comp->done, 0, __ATOMIC_RELAXED);
}

static inline void loom_completion_finish(loom_completion_t *comp,
                                          loom_status_t status, size_t length)
{
    comp->status = status;
    comp->length = length;
    __atomic_store_n(&comp->done, 1, __ATOMIC_RELEASE);
}

static inline int loom_completion_is_done(const loom_completion_t *comp)
{
    return __atomic_load_n(&comp->done, __ATOMIC_ACQUIRE);
}

typedef struct loom_transport loom_transport_t;

typedef struct loom_transport_ops {
    const char *name;
    /* Post a send of len bytes to peer.  LOOM_OK: posted (comp may be done
     * already); an error: nothing was posted and comp is untouched. */
    loom_status_t (*send)(loom_transport_t *tr, int peer, uint64_t tag,
                          const void *buf, size_t len, loom_completion_t *comp);
    /* Post a receive of at most len bytes from peer, same contract. */
    loom_status_t (*recv)(loom_transport_t *tr, int peer, uint64_t tag,
                          void *buf, size_t len, loom_completion_t *comp);
    /* Advance outstanding operations; returns how many events it saw. */
    int (*progress)(loom_transport_t *tr);
} loom_transport_ops_t;

struct loom_transport {
    const loom_transport_ops_t *ops;
};

#endif
