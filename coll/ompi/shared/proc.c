/*
 * The process's state shared by Loom's components (loom_ompi.h): the UCX
 * transport with its reference count, the modex publishing of its worker
 * address and the reading of the peers', the progress callback, and the
 * node keys of every world rank.
 *
 * Components open and close during MPI_Init and MPI_Finalize, on one
 * thread, and the node keys are computed in init_query, also single
 * threaded: nothing here needs a lock.
 */
#include "loom_ompi.h"

#include "common/log.h"
#include "opal/mca/base/mca_base_var.h"
#include "opal/mca/pmix/pmix.h"
#include "opal/runtime/opal_progress.h"
#include "ompi/proc/proc.h"
#include "ompi/runtime/mpiruntime.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

/* The modex key of the worker address: one per process, whichever
 * component published it. */
#define LOOM_OMPI_MODEX_KEY "loom_ompi.ucx_address"

static struct {
    int         refs;           /* components that opened and have not closed */
    loom_ucx_t  *ucx;           /* NULL: not usable in this process */
    int         world_size;
    uint64_t    *node_keys;     /* per world rank; NULL until asked for */
} loom_proc;

static int loom_ompi_progress(void)
{
    loom_transport_t *tr = loom_ucx_transport(loom_proc.ucx);

    return tr->ops->progress(tr);
}

/* A peer's address, from the modex (the transport's resolver). */
static loom_status_t loom_ompi_modex_address(void *ctx, int peer, void **addr_p, size_t *len_p)
{
    opal_process_name_t name = { .jobid = OMPI_PROC_MY_NAME->jobid,
                                 .vpid = (opal_vpid_t)peer };
    void *addr = NULL;
    size_t len = 0;
    int ret;

    (void)ctx;
    OPAL_MODEX_RECV_STRING(ret, LOOM_OMPI_MODEX_KEY, &name, &addr, &len);
    if (ret != OPAL_SUCCESS || addr == NULL || len == 0) {
        free(addr);
        return LOOM_ERR_NOT_FOUND;
    }
    *addr_p = addr;
    *len_p = len;
    return LOOM_OK;
}

static loom_status_t loom_ompi_modex_publish(loom_ucx_t *ucx)
{
    const void *addr;
    size_t len;
    int ret;

    loom_ucx_address(ucx, &addr, &len);
    OPAL_MODEX_SEND_STRING(ret, OPAL_PMIX_GLOBAL, LOOM_OMPI_MODEX_KEY, (void *)addr, len);
    if (ret != OPAL_SUCCESS) {
        loom_warn("coll", "cannot publish the ucx address (%d): Loom steps aside", ret);
        return LOOM_ERR_TRANSPORT;
    }
    loom_debug("coll", "ucx worker ready, %zu-byte address published", len);
    return LOOM_OK;
}

/* coll_loom_progress_thread, when mca_coll_loom registered it: the
 * thread is the process's, not one component's. */
static int loom_ompi_want_thread(void)
{
    const bool *value = NULL;
    int index = mca_base_var_find("ompi", "coll", "loom", "progress_thread");

    if (index < 0 || mca_base_var_get_value(index, &value, NULL, NULL) != OPAL_SUCCESS ||
        value == NULL) {
        return 0;
    }
    return *value ? 1 : 0;
}

static void loom_ompi_proc_create(void)
{
    loom_ucx_params_t params;
    char prefix[32];

    snprintf(prefix, sizeof(prefix), "rank %u", OMPI_PROC_MY_NAME->vpid);
    loom_log_set_prefix(prefix);
    loom_proc.world_size = (int)ompi_proc_world_size();
    params = (loom_ucx_params_t){
        .env_prefix = "LOOM", .thread_multiple = ompi_mpi_thread_multiple,
        .progress_thread = loom_ompi_want_thread(),
        .num_peers = loom_proc.world_size, .get_address = loom_ompi_modex_address,
    };
    if (loom_ucx_create(&params, &loom_proc.ucx) != LOOM_OK) {
        loom_warn("coll", "ucx is not usable: Loom steps aside on every communicator");
        loom_proc.ucx = NULL;
        return;
    }
    if (params.progress_thread && !loom_ucx_has_thread(loom_proc.ucx)) {
        loom_warn("coll", "coll_loom_progress_thread=1 needs a ucx worker in multi-thread "
                  "mode, which this ucx cannot provide: running without the progress "
                  "thread (nonblocking collectives advance only inside MPI calls)");
    }
    if (loom_ompi_modex_publish(loom_proc.ucx) != LOOM_OK) {
        loom_ucx_destroy(loom_proc.ucx);
        loom_proc.ucx = NULL;
        return;
    }
    opal_progress_register(loom_ompi_progress);
}

loom_status_t loom_ompi_proc_open(loom_ucx_t **ucx_p)
{
    if (loom_proc.refs++ == 0) {
        loom_ompi_proc_create();
    }
    *ucx_p = loom_proc.ucx;
    return LOOM_OK;
}

void loom_ompi_proc_close(void)
{
    if (loom_proc.refs == 0 || --loom_proc.refs > 0) {
        return;
    }
    if (loom_proc.ucx != NULL) {
        opal_progress_unregister(loom_ompi_progress);
        loom_ucx_destroy(loom_proc.ucx);
        loom_proc.ucx = NULL;
    }
    free(loom_proc.node_keys);
    loom_proc.node_keys = NULL;
    loom_proc.world_size = 0;
}

char *loom_ompi_proc_host(int world_rank)
{
    opal_process_name_t name = { .jobid = OMPI_PROC_MY_NAME->jobid,
                                 .vpid = (opal_vpid_t)world_rank };
    char *host = NULL;
    int ret;

    OPAL_MODEX_RECV_VALUE_OPTIONAL(ret, OPAL_PMIX_HOSTNAME, &name, &host, OPAL_STRING);
    return ret == OPAL_SUCCESS ? host : NULL;
}

loom_status_t loom_ompi_proc_node_keys(const uint64_t **keys_p)
{
    int i, j, n = loom_proc.world_size;
    uint64_t *keys;
    char **hosts;

    if (loom_proc.node_keys != NULL) {
        *keys_p = loom_proc.node_keys;
        return LOOM_OK;
    }
    hosts = calloc((size_t)n, sizeof(char *));
    keys = calloc((size_t)n, sizeof(uint64_t));
    if (hosts == NULL || keys == NULL) {
        free(hosts);
        free(keys);
        return LOOM_ERR_NO_MEMORY;
    }
    for (i = 0; i < n; ++i) {
        hosts[i] = loom_ompi_proc_host(i);
        /* Unknown host: a node of its own, never merged with another. */
        keys[i] = UINT64_C(1) << 63 | (uint64_t)i;
        for (j = 0; hosts[i] != NULL && j <= i; ++j) {
            if (hosts[j] != NULL && strcmp(hosts[j], hosts[i]) == 0) {
                keys[i] = (uint64_t)j;
                break;
            }
        }
    }
    for (i = 0; i < n; ++i) {
        free(hosts[i]);
    }
    free(hosts);
    loom_proc.node_keys = keys;
    *keys_p = keys;
    return LOOM_OK;
}

loom_ucx_t *loom_ompi_proc_ucx(void)
{
    return loom_proc.ucx;
}

int loom_ompi_proc_world_size(void)
{
    return loom_proc.world_size;
}
