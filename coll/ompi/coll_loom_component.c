/*
 * The component: parameters, counters, and the process-wide UCX transport.
 *
 * Open MPI runs coll components' init_query after MPI_Init's PMIx fence,
 * so the worker address is published earlier, when the component opens
 * (during MPI_Init, before the fence), as pml/ucx does in its init.  Peers
 * read it from the modex when they first talk to this process: creating a
 * communicator never communicates.
 */
#include "coll_loom.h"

#include "common/log.h"
#include "coll/core/pool.h"
#include "opal/mca/base/mca_base_var_enum.h"
#include "opal/mca/pmix/pmix.h"
#include "opal/runtime/opal_progress.h"
#include "ompi/proc/proc.h"
#include "ompi/runtime/mpiruntime.h"

#include <stdlib.h>
#include <string.h>

static int loom_register(void);
static int loom_open(void);
static int loom_close(void);

mca_coll_loom_component_t mca_coll_loom_component = {
    .super = {
        .collm_version = {
            MCA_COLL_BASE_VERSION_2_0_0,
            .mca_component_name            = "loom",
            MCA_BASE_MAKE_VERSION(component, 0, 1, 0),
            .mca_open_component            = loom_open,
            .mca_close_component           = loom_close,
            .mca_register_component_params = loom_register,
        },
        .collm_data = {
            MCA_BASE_METADATA_PARAM_CHECKPOINT
        },
        .collm_init_query = mca_coll_loom_init_query,
        .collm_comm_query = mca_coll_loom_comm_query,
    },
    /* Above tuned (30), so Loom wins where it is loaded; documented. */
    .priority = 40,
};

/* Register one table of engine settings as coll_loom_<name> parameters;
 * the storage is the settings struct itself, so MCA's value is the one
 * the engine reads. */
static int loom_register_table(const loom_config_field_t *table, void *obj)
{
    mca_base_var_enum_value_t *values;
    mca_base_var_enum_t *enumerator;
    const loom_config_field_t *f;
    int i, n, ret;

    for (f = table; f->name != NULL; ++f) {
        enumerator = NULL;
        if (f->type == LOOM_CONFIG_ENUM) {
            for (n = 0; f->enum_names[n] != NULL; ++n) {
            }
            values = calloc((size_t)n + 1, sizeof(*values));
            if (values == NULL) {
                return OMPI_ERR_OUT_OF_RESOURCE;
            }
            for (i = 0; i < n; ++i) {
                values[i].value = i;
                values[i].string = f->enum_names[i];
            }
            ret = mca_base_var_enum_create(f->name, values, &enumerator);
            free(values);
            if (ret != OPAL_SUCCESS) {
                return ret;
            }
        }
        ret = mca_base_component_var_register(
            &mca_coll_loom_component.super.collm_version, f->name, f->help,
            f->type == LOOM_CONFIG_SIZE ? MCA_BASE_VAR_TYPE_SIZE_T : MCA_BASE_VAR_TYPE_INT,
            enumerator, 0, 0, OPAL_INFO_LVL_5, MCA_BASE_VAR_SCOPE_READONLY,
            (char *)obj + f->offset);
        if (enumerator != NULL) {
            OBJ_RELEASE(enumerator);
        }
        if (ret < 0) {
            return ret;
        }
    }
    return OMPI_SUCCESS;
}

static int loom_register(void)
{
    mca_coll_loom_component_t *c = &mca_coll_loom_component;
    int ret;

    (void)mca_base_component_var_register(
        &c->super.collm_version, "priority",
        "Priority of the loom coll component: above 30 it replaces tuned's "
        "allreduce; negative disables it",
        MCA_BASE_VAR_TYPE_INT, NULL, 0, 0, OPAL_INFO_LVL_6,
        MCA_BASE_VAR_SCOPE_READONLY, &c->priority);
    c->print_table = false;
    (void)mca_base_component_var_register(
        &c->super.collm_version, "print_table",
        "Print, for every communicator Loom joins, which component provides "
        "each collective function",
        MCA_BASE_VAR_TYPE_BOOL, NULL, 0, 0, OPAL_INFO_LVL_5,
        MCA_BASE_VAR_SCOPE_READONLY, &c->print_table);

    if (loom_config_set_defaults(loom_coll_config_table, &c->config) != LOOM_OK) {
        return OMPI_ERROR;
    }
    ret = loom_register_table(loom_coll_config_table, &c->config);
    if (ret != OMPI_SUCCESS) {
        return ret;
    }
    return mca_coll_loom_mpit_register();
}

static int loom_progress(void)
{
    loom_transport_t *tr = loom_ucx_transport(mca_coll_loom_component.ucx);

    return tr->ops->progress(tr) + mca_coll_loom_progress_requests();
}

/* Peer addresses come from the modex, published by loom_open everywhere. */
static loom_status_t loom_modex_address(void *ctx, int peer, void **addr_p,
                                        size_t *len_p)
{
    opal_process_name_t name = { .jobid = OMPI_PROC_MY_NAME->jobid,
                                 .vpid = (opal_vpid_t)peer };
    size_t len = 0;
    void *addr = NULL;
    int ret;

    (void)ctx;
    OPAL_MODEX_RECV(ret, &mca_coll_loom_component.super.collm_version, &name,
                    &addr, &len);
    if (ret != OPAL_SUCCESS || addr == NULL) {
        return LOOM_ERR_NOT_FOUND;
    }
    *addr_p = addr;
    *len_p = len;
    return LOOM_OK;
}

static int loom_open(void)
{
    mca_coll_loom_component_t *c = &mca_coll_loom_component;
    loom_ucx_params_t params;
    const void *addr;
    char prefix[32];
    size_t len;
    int ret;

    loom_log_set_level((loom_log_level_t)c->config.verbose);
    /* ompi_info and MPI_T open components too; only MPI_Init gets UCX. */
    if (ompi_mpi_state != OMPI_MPI_STATE_INIT_STARTED || c->priority < 0) {
        return OMPI_SUCCESS;
    }
    snprintf(prefix, sizeof(prefix), "rank %u", OMPI_PROC_MY_NAME->vpid);
    loom_log_set_prefix(prefix);

    c->world_size = ompi_proc_world_size();
    params = (loom_ucx_params_t){
        .env_prefix = "LOOM", .thread_multiple = ompi_mpi_thread_multiple,
        .num_peers = c->world_size, .get_address = loom_modex_address,
    };
    if (loom_ucx_create(&params, &c->ucx) != LOOM_OK) {
        loom_warn("coll", "ucx is not usable: Loom steps aside on every communicator");
        c->ucx = NULL;
        return OMPI_SUCCESS;
    }
    loom_ucx_address(c->ucx, &addr, &len);
    OPAL_MODEX_SEND(ret, OPAL_PMIX_GLOBAL, &c->super.collm_version, addr, len);
    if (ret != OPAL_SUCCESS) {
        loom_warn("coll", "cannot publish the ucx address (%d): Loom steps aside", ret);
        loom_ucx_destroy(c->ucx);
        c->ucx = NULL;
        return OMPI_SUCCESS;
    }
    opal_progress_register(loom_progress);
    loom_debug("coll", "ucx worker ready, %zu-byte address published", len);
    return OMPI_SUCCESS;
}

static int loom_close(void)
{
    mca_coll_loom_component_t *c = &mca_coll_loom_component;

    if (c->ucx != NULL) {
        opal_progress_unregister(loom_progress);
        loom_ucx_destroy(c->ucx);
        c->ucx = NULL;
    }
    free(c->node_keys);
    c->node_keys = NULL;
    loom_pool_trim();
    return OMPI_SUCCESS;
}

/* The host PMIx reports for a world rank, or NULL. */
static char *loom_host_of(int world_rank)
{
    opal_process_name_t name = { .jobid = OMPI_PROC_MY_NAME->jobid,
                                 .vpid = (opal_vpid_t)world_rank };
    char *host = NULL;
    int ret;

    OPAL_MODEX_RECV_VALUE_OPTIONAL(ret, OPAL_PMIX_HOSTNAME, &name, &host, OPAL_STRING);
    return ret == OPAL_SUCCESS ? host : NULL;
}

/* Node keys of every world rank: the lowest world rank on the same host.
 * Computed once, in MPI_Init (single-threaded, after the fence), so that
 * communicator creation only reads them. */
static int loom_compute_node_keys(mca_coll_loom_component_t *c)
{
    char **hosts = calloc((size_t)c->world_size, sizeof(char *));
    int i, j;

    c->node_keys = calloc((size_t)c->world_size, sizeof(uint64_t));
    if (hosts == NULL || c->node_keys == NULL) {
        free(hosts);
        return OMPI_ERR_OUT_OF_RESOURCE;
    }
    for (i = 0; i < c->world_size; ++i) {
        hosts[i] = loom_host_of(i);
        /* Unknown host: a node of its own, never merged with another. */
        c->node_keys[i] = UINT64_C(1) << 63 | (uint64_t)i;
        for (j = 0; hosts[i] != NULL && j <= i; ++j) {
            if (hosts[j] != NULL && strcmp(hosts[j], hosts[i]) == 0) {
                c->node_keys[i] = (uint64_t)j;
                break;
            }
        }
    }
    for (i = 0; i < c->world_size; ++i) {
        free(hosts[i]);
    }
    free(hosts);
    return OMPI_SUCCESS;
}

int mca_coll_loom_init_query(bool enable_progress_threads, bool enable_mpi_threads)
{
    mca_coll_loom_component_t *c = &mca_coll_loom_component;

    (void)enable_progress_threads;
    (void)enable_mpi_threads;
    /* No usable transport: decline here, so no communicator asks. */
    if (c->ucx == NULL) {
        return OMPI_ERR_NOT_AVAILABLE;
    }
    return loom_compute_node_keys(c);
}

int mca_coll_loom_status_to_ompi(loom_status_t status)
{
    switch (status) {
    case LOOM_OK:
    case LOOM_INPROGRESS:        return OMPI_SUCCESS;
    case LOOM_ERR_NO_MEMORY:     return OMPI_ERR_OUT_OF_RESOURCE;
    case LOOM_ERR_INVALID_PARAM: return OMPI_ERR_BAD_PARAM;
    case LOOM_ERR_UNSUPPORTED:   return OMPI_ERR_NOT_SUPPORTED;
    case LOOM_ERR_TRUNCATED:     return MPI_ERR_TRUNCATE;
    case LOOM_ERR_NOT_FOUND:     return OMPI_ERR_NOT_FOUND;
    default:                     return OMPI_ERROR;
    }
}
