#include "coll/core/transport/transport_ucx.h"
#include "coll/core/transport/transport_ucx_thread.h"
#include "common/log.h"

#include <pthread.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <ucp/api/ucp.h>

struct loom_ucx {
    loom_transport_t        super;          /* first: the transport handle */
    ucp_context_h           context;
    ucp_worker_h            worker;
    ucp_address_t           *address;
    size_t                  address_len;
    int                     num_peers;
    ucp_ep_h                *eps;           /* lazily created, per peer */
    pthread_mutex_t         ep_lock;        /* guards eps under THREAD_MULTIPLE */
    loom_ucx_address_fn_t   get_address;
    void                    *address_ctx;
    /* Posted, unfinished operations: raised by the posting thread, lowered
     * by the completion callback, which may run on the progress thread. */
    unsigned long           inflight;
    /* Progress calls from MPI threads: started, and still inside. */
    unsigned long           mpi_polls[2];
    loom_ucx_thread_t       *thread;        /* NULL unless progress_thread */
};

static const loom_transport_ops_t loom_ucx_ops;

static loom_status_t loom_ucx_status(ucs_status_t status)
{
    switch (status) {
    case UCS_OK:                     return LOOM_OK;
    case UCS_ERR_MESSAGE_TRUNCATED:  return LOOM_ERR_TRUNCATED;
    case UCS_ERR_NO_MEMORY:          return LOOM_ERR_NO_MEMORY;
    default:                         return LOOM_ERR_TRANSPORT;
    }
}

/*
 * UCX settings whose defaults Loom changes, unless the user set them with
 * Loom's prefix.  RNDV_THRESH: UCX's automatic threshold on shared memory
 * sends messages above a few KiB by rendezvous over CMA, and measured side
 * by side with Open MPI's tuned at 2 ranks (docs/allreduce.md) the eager
 * path through UCX's shared-memory FIFO is 1.2x to 4x faster from 8 KiB to
 * 16 MiB.  Loom's segmented algorithms keep each message at most one
 * segment (4 MiB by default), which bounds what eager buffering can hold.
 */
static const struct { const char *name, *value; } loom_ucx_defaults[] = {
    { "RNDV_THRESH", "4mb" },
};

static loom_status_t loom_ucx_apply_defaults(const char *env_prefix, ucp_config_t *config)
{
    char var[128];
    ucs_status_t ustatus;
    size_t i;

    for (i = 0; i < sizeof(loom_ucx_defaults) / sizeof(loom_ucx_defaults[0]); ++i) {
        snprintf(var, sizeof(var), "%s_UCX_%s", env_prefix, loom_ucx_defaults[i].name);
        if (getenv(var) != NULL) {
            continue;
        }
        ustatus = ucp_config_modify(config, loom_ucx_defaults[i].name,
                                    loom_ucx_defaults[i].value);
        if (ustatus != UCS_OK) {
            loom_error("coll", "cannot set UCX %s=%s: %s", loom_ucx_defaults[i].name,
                       loom_ucx_defaults[i].value, ucs_status_string(ustatus));
            return LOOM_ERR_TRANSPORT;
        }
    }
    return LOOM_OK;
}

loom_status_t loom_ucx_create(const loom_ucx_params_t *params, loom_ucx_t **ucx_p)
{
    ucp_params_t ctx_params = {
        .field_mask   = UCP_PARAM_FIELD_FEATURES | UCP_PARAM_FIELD_MT_WORKERS_SHARED,
        .features     = UCP_FEATURE_TAG,
        .mt_workers_shared = 0,
    };
    /* A progress thread calls the worker concurrently with MPI threads. */
    ucp_worker_params_t worker_params = {
        .field_mask  = UCP_WORKER_PARAM_FIELD_THREAD_MODE,
        .thread_mode = params->thread_multiple || params->progress_thread
                           ? UCS_THREAD_MODE_MULTI : UCS_THREAD_MODE_SERIALIZED,
    };
    ucp_worker_attr_t attr = { .field_mask = UCP_WORKER_ATTR_FIELD_THREAD_MODE };
    ucp_config_t *config;
    ucs_status_t ustatus;
    loom_status_t status;
    loom_ucx_t *ucx;

    ucx = calloc(1, sizeof(*ucx));
    if (ucx == NULL) {
        return LOOM_ERR_NO_MEMORY;
    }
    ucx->super.ops   = &loom_ucx_ops;
    ucx->num_peers   = params->num_peers;
    ucx->get_address = params->get_address;
    ucx->address_ctx = params->address_ctx;
    pthread_mutex_init(&ucx->ep_lock, NULL);
    ucx->eps = calloc((size_t)(params->num_peers > 0 ? params->num_peers : 1),
                      sizeof(*ucx->eps));
    if (ucx->eps == NULL) {
        status = LOOM_ERR_NO_MEMORY;
        goto err_free;
    }

    /* Our own prefix: LOOM_UCX_TLS configures Loom apart from Open MPI. */
    ustatus = ucp_config_read(params->env_prefix, NULL, &config);
    if (ustatus != UCS_OK) {
        loom_error("coll", "ucp_config_read(%s) failed: %s", params->env_prefix,
                   ucs_status_string(ustatus));
        status = LOOM_ERR_TRANSPORT;
        goto err_free;
    }
    status = loom_ucx_apply_defaults(params->env_prefix, config);
    if (status != LOOM_OK) {
        ucp_config_release(config);
        goto err_free;
    }
    ustatus = ucp_init(&ctx_params, config, &ucx->context);
    ucp_config_release(config);
    if (ustatus != UCS_OK) {
        loom_error("coll", "ucp_init failed: %s", ucs_status_string(ustatus));
        status = LOOM_ERR_TRANSPORT;
        goto err_free;
    }
    ustatus = ucp_worker_create(ucx->context, &worker_params, &ucx->worker);
    if (ustatus != UCS_OK) {
        loom_error("coll", "ucp_worker_create failed: %s", ucs_status_string(ustatus));
        status = LOOM_ERR_TRANSPORT;
        goto err_cleanup;
    }
    if (ucp_worker_query(ucx->worker, &attr) != UCS_OK) {
        attr.thread_mode = UCS_THREAD_MODE_SINGLE;  /* unknown: assume the least */
    }
    if (params->thread_multiple && attr.thread_mode != UCS_THREAD_MODE_MULTI) {
        loom_error("coll", "ucx worker cannot run in multi-thread mode");
        status = LOOM_ERR_UNSUPPORTED;
        goto err_worker;
    }
    /* Without multi-thread mode the worker serves one thread at a time:
     * the caller learns from loom_ucx_has_thread that there is none and
     * says so, naming its own setting; the transport works as without. */
    if (params->progress_thread && attr.thread_mode == UCS_THREAD_MODE_MULTI) {
        status = loom_ucx_thread_start(ucx->worker, &ucx->inflight, ucx->mpi_polls,
                                       &ucx->thread);
        if (status != LOOM_OK) {
            goto err_worker;
        }
    }
    ustatus = ucp_worker_get_address(ucx->worker, &ucx->address, &ucx->address_len);
    if (ustatus != UCS_OK) {
        loom_error("coll", "ucp_worker_get_address failed: %s",
                   ucs_status_string(ustatus));
        status = LOOM_ERR_TRANSPORT;
        goto err_thread;
    }
    *ucx_p = ucx;
    return LOOM_OK;

err_thread:
    loom_ucx_thread_stop(ucx->thread);
err_worker:
    ucp_worker_destroy(ucx->worker);
err_cleanup:
    ucp_cleanup(ucx->context);
err_free:
    pthread_mutex_destroy(&ucx->ep_lock);
    free(ucx->eps);
    free(ucx);
    return status;
}

static void loom_ucx_close_eps(loom_ucx_t *ucx)
{
    ucp_request_param_t param = {
        .op_attr_mask = UCP_OP_ATTR_FIELD_FLAGS,
        .flags        = UCP_EP_CLOSE_FLAG_FORCE,
    };
    ucs_status_ptr_t req;
    int i;

    for (i = 0; i < ucx->num_peers; ++i) {
        if (ucx->eps[i] == NULL) {
            continue;
        }
        /* Forced: at finalize peers may be gone, and a flushing close
         * over TCP reports timeouts for them. */
        req = ucp_ep_close_nbx(ucx->eps[i], &param);
        if (UCS_PTR_IS_PTR(req)) {
            while (ucp_request_check_status(req) == UCS_INPROGRESS) {
                ucp_worker_progress(ucx->worker);
            }
            ucp_request_free(req);
        }
        ucx->eps[i] = NULL;
    }
}

void loom_ucx_destroy(loom_ucx_t *ucx)
{
    if (ucx == NULL) {
        return;
    }
    /* First, so that closing the endpoints and destroying the worker
     * happen on this thread alone. */
    loom_ucx_thread_stop(ucx->thread);
    ucx->thread = NULL;
    loom_ucx_close_eps(ucx);
    ucp_worker_release_address(ucx->worker, ucx->address);
    ucp_worker_destroy(ucx->worker);
    ucp_cleanup(ucx->context);
    pthread_mutex_destroy(&ucx->ep_lock);
    free(ucx->eps);
    free(ucx);
}

void loom_ucx_set_resolver(loom_ucx_t *ucx, loom_ucx_address_fn_t get_address,
                           void *ctx)
{
    ucx->get_address = get_address;
    ucx->address_ctx = ctx;
}

void loom_ucx_address(const loom_ucx_t *ucx, const void **addr_p, size_t *len_p)
{
    *addr_p = ucx->address;
    *len_p  = ucx->address_len;
}

loom_transport_t *loom_ucx_transport(loom_ucx_t *ucx)
{
    return &ucx->super;
}

int loom_ucx_has_thread(const loom_ucx_t *ucx)
{
    return ucx->thread != NULL;
}

void loom_ucx_thread_counts(const loom_ucx_t *ucx, unsigned long long *polls_p,
                            unsigned long long *events_p)
{
    loom_ucx_thread_stats_t stats = { 0, 0 };

    if (ucx != NULL && ucx->thread != NULL) {
        loom_ucx_thread_stats(ucx->thread, &stats);
    }
    *polls_p  = stats.polls;
    *events_p = stats.events;
}

/* Count an operation about to be posted; the first of a burst wakes the
 * progress thread.  Raised before posting: with a progress thread the
 * completion callback may run before the post call returns. */
static void loom_ucx_op_begin(loom_ucx_t *ucx, loom_completion_t *comp)
{
    comp->transport = ucx;
    if (__atomic_fetch_add(&ucx->inflight, 1, __ATOMIC_ACQ_REL) == 0 &&
        ucx->thread != NULL) {
        loom_ucx_thread_wake(ucx->thread);
    }
}

static void loom_ucx_op_end(loom_ucx_t *ucx)
{
    __atomic_sub_fetch(&ucx->inflight, 1, __ATOMIC_ACQ_REL);
}

static loom_status_t loom_ucx_ep(loom_ucx_t *ucx, int peer, ucp_ep_h *ep_p)
{
    ucp_ep_params_t ep_params = { .field_mask = UCP_EP_PARAM_FIELD_REMOTE_ADDRESS };
    loom_status_t status = LOOM_OK;
    ucp_ep_h ep;
    ucs_status_t ustatus;
    size_t len;
    void *addr;

    if (peer < 0 || peer >= ucx->num_peers) {
        loom_error("coll", "peer %d is outside 0..%d", peer, ucx->num_peers - 1);
        return LOOM_ERR_INVALID_PARAM;
    }
    /* Endpoints are created once and kept: after the first, no lock. */
    *ep_p = __atomic_load_n(&ucx->eps[peer], __ATOMIC_ACQUIRE);
    if (*ep_p != NULL) {
        return LOOM_OK;
    }
    pthread_mutex_lock(&ucx->ep_lock);
    if (ucx->eps[peer] != NULL) {
        goto out;
    }
    if (ucx->get_address == NULL) {
        status = LOOM_ERR_NOT_FOUND;
        goto out;
    }
    status = ucx->get_address(ucx->address_ctx, peer, &addr, &len);
    if (status != LOOM_OK) {
        loom_error("coll", "no ucx address for peer %d: %s", peer,
                   loom_status_string(status));
        goto out;
    }
    ep_params.address = addr;
    ustatus = ucp_ep_create(ucx->worker, &ep_params, &ep);
    free(addr);
    if (ustatus != UCS_OK) {
        loom_error("coll", "ucp_ep_create to peer %d failed: %s", peer,
                   ucs_status_string(ustatus));
        status = LOOM_ERR_TRANSPORT;
    } else {
        __atomic_store_n(&ucx->eps[peer], ep, __ATOMIC_RELEASE);
    }
out:
    *ep_p = ucx->eps[peer];
    pthread_mutex_unlock(&ucx->ep_lock);
    return status;
}

/* The callbacks run inside ucp_worker_progress, on an MPI thread or on
 * the progress thread: they only publish the result (the completion's
 * release store) and count down, and read nothing of the completion after
 * publishing, since its owner may reuse it at once. */
static void loom_ucx_send_cb(void *request, ucs_status_t status, void *user_data)
{
    loom_completion_t *comp = user_data;
    loom_ucx_t *ucx = comp->transport;

    loom_completion_finish(comp, loom_ucx_status(status), 0);
    ucp_request_free(request);
    loom_ucx_op_end(ucx);
}

static void loom_ucx_recv_cb(void *request, ucs_status_t status,
                             const ucp_tag_recv_info_t *info, void *user_data)
{
    loom_completion_t *comp = user_data;
    loom_ucx_t *ucx = comp->transport;

    loom_completion_finish(comp, loom_ucx_status(status),
                           status == UCS_OK ? info->length : 0);
    ucp_request_free(request);
    loom_ucx_op_end(ucx);
}

static loom_status_t loom_ucx_send(loom_transport_t *tr, int peer, uint64_t tag,
                                   const void *buf, size_t len, loom_completion_t *comp)
{
    loom_ucx_t *ucx = (loom_ucx_t *)tr;
    ucp_request_param_t param = {
        .op_attr_mask = UCP_OP_ATTR_FIELD_CALLBACK | UCP_OP_ATTR_FIELD_USER_DATA,
        .cb.send      = loom_ucx_send_cb,
        .user_data    = comp,
    };
    ucs_status_ptr_t req;
    loom_status_t status;
    ucp_ep_h ep;

    status = loom_ucx_ep(ucx, peer, &ep);
    if (status != LOOM_OK) {
        return status;
    }
    loom_ucx_op_begin(ucx, comp);
    req = ucp_tag_send_nbx(ep, buf, len, tag, &param);
    if (req == NULL) {
        loom_ucx_op_end(ucx);
        loom_completion_finish(comp, LOOM_OK, 0);
    } else if (UCS_PTR_IS_ERR(req)) {
        loom_ucx_op_end(ucx);
        loom_error("coll", "send of %zu bytes to peer %d failed: %s", len, peer,
                   ucs_status_string(UCS_PTR_STATUS(req)));
        return LOOM_ERR_TRANSPORT;
    }
    return LOOM_OK;
}

static loom_status_t loom_ucx_recv(loom_transport_t *tr, int peer, uint64_t tag,
                                   void *buf, size_t len, loom_completion_t *comp)
{
    loom_ucx_t *ucx = (loom_ucx_t *)tr;
    /* No immediate completion: UCX 1.13.1 returns NULL for an unexpected
     * message without filling recv_info, and the length must be checked. */
    ucp_request_param_t param = {
        .op_attr_mask = UCP_OP_ATTR_FIELD_CALLBACK | UCP_OP_ATTR_FIELD_USER_DATA |
                        UCP_OP_ATTR_FLAG_NO_IMM_CMPL,
        .cb.recv      = loom_ucx_recv_cb,
        .user_data    = comp,
    };
    ucs_status_ptr_t req;

    (void)peer; /* the source rank is part of the tag */
    loom_ucx_op_begin(ucx, comp);
    req = ucp_tag_recv_nbx(ucx->worker, buf, len, tag, UINT64_MAX, &param);
    if (UCS_PTR_IS_ERR(req)) {
        loom_ucx_op_end(ucx);
        loom_error("coll", "receive of %zu bytes from peer %d failed: %s", len, peer,
                   ucs_status_string(UCS_PTR_STATUS(req)));
        return LOOM_ERR_TRANSPORT;
    }
    return LOOM_OK;
}

static int loom_ucx_progress(loom_transport_t *tr)
{
    loom_ucx_t *ucx = (loom_ucx_t *)tr;
    int events;

    if (ucx->thread == NULL) {
        return (int)ucp_worker_progress(ucx->worker);
    }
    /* Tells the progress thread that an MPI thread is polling now. */
    __atomic_add_fetch(&ucx->mpi_polls[0], 1, __ATOMIC_RELAXED);
    __atomic_add_fetch(&ucx->mpi_polls[1], 1, __ATOMIC_RELAXED);
    events = (int)ucp_worker_progress(ucx->worker);
    __atomic_sub_fetch(&ucx->mpi_polls[1], 1, __ATOMIC_RELAXED);
    return events;
}

static const loom_transport_ops_t loom_ucx_ops = {
    .name     = "ucx",
    .send     = loom_ucx_send,
    .recv     = loom_ucx_recv,
    .progress = loom_ucx_progress,
};
