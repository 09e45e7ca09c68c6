/*
 * The UCX transport: UCP tag API, one context and worker per process.
 *
 * The worker address is read once and published by the adapter (through
 * the PMIx modex for Open MPI).  Endpoints are created on first use and
 * cached per peer process, so every team of the process shares them.
 * Peer ids are process indices (world ranks) from 0 to num_peers-1.
 */
#ifndef LOOM_TRANSPORT_UCX_H
#define LOOM_TRANSPORT_UCX_H

#include "coll/core/transport/transport.h"

typedef struct loom_ucx loom_ucx_t;

/* Returns a peer's worker address in memory the transport frees with free(). */
typedef loom_status_t (*loom_ucx_address_fn_t)(void *ctx, int peer, void **addr_p,
                                               size_t *len_p);

typedef struct loom_ucx_params {
    const char              *env_prefix;    /* UCX settings from <prefix>_UCX_*, e.g. "LOOM" */
    int                     thread_multiple;/* several threads may call in at once */
    int                     progress_thread;/* a thread that only progresses the worker */
    int                     num_peers;
    loom_ucx_address_fn_t   get_address;    /* may be set later with loom_ucx_set_resolver */
    void                    *address_ctx;
} loom_ucx_params_t;

loom_status_t loom_ucx_create(const loom_ucx_params_t *params, loom_ucx_t **ucx_p);

/* Closes every endpoint (forced: peers may be gone) and the worker. */
void loom_ucx_destroy(loom_ucx_t *ucx);

void loom_ucx_set_resolver(loom_ucx_t *ucx, loom_ucx_address_fn_t get_address,
                           void *ctx);

/* This process's worker address, owned by the transport. */
void loom_ucx_address(const loom_ucx_t *ucx, const void **addr_p, size_t *len_p);

loom_transport_t *loom_ucx_transport(loom_ucx_t *ucx);

/* Whether the progress thread runs: asked for, and the worker could be
 * put in multi-thread mode. */
int loom_ucx_has_thread(const loom_ucx_t *ucx);

/* What the progress thread did so far (zeros without one, or ucx NULL). */
void loom_ucx_thread_counts(const loom_ucx_t *ucx, unsigned long long *polls_p,
                            unsigned long long *events_p);

#endif
