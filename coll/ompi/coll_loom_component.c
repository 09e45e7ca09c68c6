/*
 * The component: the structure Open MPI loads, opening it (a reference on
 * the process's UCX transport, which libloom_ompi shares with
 * mca_coll_loomfilter: coll/ompi/shared/loom_ompi.h; and Loom's requests
 * registered with Open MPI's progress engine), its init_query after
 * MPI_Init's fence, and closing it.  What open and
 * init_query do beyond the transport sits in files of its own
 * (coll_loom_wireup.h): the modex wireup (coll_loom_modex.c), the rules
 * and calibration (coll_loom_rules.c), the node keys (coll_loom_nodes.c);
 * the parameters are in coll_loom_params.c.
 */
#include "coll_loom.h"
#include "coll_loom_data.h"
#include "coll_loom_request.h"
#include "coll_loom_wireup.h"

#include "coll/ompi/shared/loom_ompi.h"
#include "common/log.h"
#include "coll/core/engine/pool.h"
#include "opal/runtime/opal_progress.h"
#include "ompi/proc/proc.h"
#include "ompi/runtime/mpiruntime.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

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
            .mca_register_component_params = mca_coll_loom_register,
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

static int loom_open(void)
{
    mca_coll_loom_component_t *c = &mca_coll_loom_component;
    mca_coll_loom_modex_head_t head;
    loom_status_t status;

    loom_log_set_level((loom_log_level_t)c->config.verbose);
    /* ompi_info and MPI_T open components too; only MPI_Init gets UCX. */
    if (ompi_mpi_state != OMPI_MPI_STATE_INIT_STARTED || c->priority < 0) {
        return OMPI_SUCCESS;
    }
    /* The transport (and its progress thread, coll_loom_progress_thread)
     * is the process's: the first component to open makes it. */
    if (loom_ompi_proc_open(&c->ucx) != LOOM_OK) {
        return OMPI_ERR_OUT_OF_RESOURCE;
    }
    c->proc_opened = true;
    if (c->ucx == NULL) {
        return OMPI_SUCCESS;
    }
    c->world_size = loom_ompi_proc_world_size();
    mca_coll_loom_rules_load(c);
    /* The head: the topology file's hash, and the rules' hash with world
     * rank 0's calibration, measured here, before the fence, so that its
     * numbers travel with the fence's exchange. */
    memset(&head, 0, sizeof(head));
    head.topo_hash = mca_coll_loom_topo_open(c);
    mca_coll_loom_rules_head(c, &head);
    status = mca_coll_loom_modex_publish(c, &head);
    if (status != LOOM_OK) {
        /* A modex that refused steps aside; the reference on the
         * transport goes at close. */
        c->ucx = NULL;
        return OMPI_SUCCESS;
    }
    opal_progress_register(mca_coll_loom_progress_requests);
    c->progress_registered = true;
    return OMPI_SUCCESS;
}

static int loom_close(void)
{
    mca_coll_loom_component_t *c = &mca_coll_loom_component;

    if (c->progress_registered) {
        opal_progress_unregister(mca_coll_loom_progress_requests);
        c->progress_registered = false;
    }
    c->ucx = NULL;
    if (c->proc_opened) {
        loom_ompi_proc_close();
        c->proc_opened = false;
    }
    mca_coll_loom_order_close();
    mca_coll_loom_nodes_close(c);
    mca_coll_loom_rules_close(c);
    mca_coll_loom_sum_destroy();
    loom_pool_trim();
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
    uint64_t *topo_hashes = calloc((size_t)c->world_size, sizeof(uint64_t));
    int ret;

    if (topo_hashes == NULL || mca_coll_loom_rules_collect(c, topo_hashes) != OMPI_SUCCESS) {
        free(topo_hashes);
        return OMPI_ERR_OUT_OF_RESOURCE;
    }
    ret = mca_coll_loom_nodes_compute(c, topo_hashes);
    free(topo_hashes);
    if (ret != OMPI_SUCCESS) {
        return ret;
    }
    return mca_coll_loom_sum_create();
}
