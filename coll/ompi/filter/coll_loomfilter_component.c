/*
 * The component: the structure Open MPI loads, opening it (a reference on
 * the process's UCX transport, shared with mca_coll_loom through
 * libloom_ompi), init_query after MPI_Init's fence, closing it, and
 * comm_query: which communicators get a module.
 */
#include "coll_loomfilter.h"

#include "coll/ompi/shared/loom_ompi.h"
#include "common/log.h"
#include "ompi/runtime/mpiruntime.h"
#include "opal/runtime/opal_progress.h"

static int loomfilter_open(void);
static int loomfilter_close(void);
static int loomfilter_init_query(bool enable_progress_threads, bool enable_mpi_threads);
static mca_coll_base_module_t *loomfilter_comm_query(ompi_communicator_t *comm, int *priority);

mca_coll_loomfilter_component_t mca_coll_loomfilter_component = {
    .super = {
        .collm_version = {
            MCA_COLL_BASE_VERSION_2_0_0,
            .mca_component_name            = "loomfilter",
            MCA_BASE_MAKE_VERSION(component, 0, 1, 0),
            .mca_open_component            = loomfilter_open,
            .mca_close_component           = loomfilter_close,
            .mca_register_component_params = mca_coll_loomfilter_register,
        },
        .collm_data = {
            MCA_BASE_METADATA_PARAM_CHECKPOINT
        },
        .collm_init_query = loomfilter_init_query,
        .collm_comm_query = loomfilter_comm_query,
    },
    /* Above loom's 40, so that on a communicator that opted in the
     * filter's allreduce is the one called; documented. */
    .priority = 50,
};

static int loomfilter_open(void)
{
    mca_coll_loomfilter_component_t *c = &mca_coll_loomfilter_component;

    /* ompi_info and MPI_T open components too; only MPI_Init gets UCX. */
    if (ompi_mpi_state != OMPI_MPI_STATE_INIT_STARTED || c->priority < 0) {
        return OMPI_SUCCESS;
    }
    /* The transport is the process's: the first of Loom's components to
     * open makes it and publishes its address, before the fence. */
    if (loom_ompi_proc_open(&c->ucx) != LOOM_OK) {
        return OMPI_ERR_OUT_OF_RESOURCE;
    }
    c->proc_opened = true;
    opal_progress_register(mca_coll_loomfilter_progress);
    mca_coll_loomfilter_optin_open(c);
    return OMPI_SUCCESS;
}

static int loomfilter_close(void)
{
    mca_coll_loomfilter_component_t *c = &mca_coll_loomfilter_component;

    mca_coll_loomfilter_api_detach();
    mca_coll_loomfilter_residuals_fini();
    c->ucx = NULL;
    c->node_keys = NULL;
    if (c->proc_opened) {
        opal_progress_unregister(mca_coll_loomfilter_progress);
        loom_ompi_proc_close();
        c->proc_opened = false;
    }
    return OMPI_SUCCESS;
}

static int loomfilter_init_query(bool enable_progress_threads, bool enable_mpi_threads)
{
    mca_coll_loomfilter_component_t *c = &mca_coll_loomfilter_component;

    (void)enable_progress_threads;
    (void)enable_mpi_threads;
    /* No usable transport: decline here, so no communicator asks. */
    if (c->ucx == NULL) {
        return OMPI_ERR_NOT_AVAILABLE;
    }
    if (loom_ompi_proc_node_keys(&c->node_keys) != LOOM_OK) {
        return OMPI_ERR_OUT_OF_RESOURCE;
    }
    return OMPI_SUCCESS;
}

/* A module for an intra-communicator that opted in (coll_loomfilter_optin.c)
 * and that a team can be made for; none anywhere else, so nothing changes
 * for communicators that did not ask.  Every test reads only what all
 * members share: the communicator, and the value they gave it. */
static mca_coll_base_module_t *loomfilter_comm_query(ompi_communicator_t *comm, int *priority)
{
    mca_coll_loomfilter_component_t *c = &mca_coll_loomfilter_component;
    mca_coll_loomfilter_module_t *module;
    mca_coll_loomfilter_spec_t spec;

    if (c->ucx == NULL || c->priority < 0 || OMPI_COMM_IS_INTER(comm) ||
        !mca_coll_loomfilter_optin(comm, &spec) || mca_coll_loomfilter_below_loom(c, comm)) {
        return NULL;
    }
    if (!loom_ompi_comm_fits(comm)) {
        if (ompi_comm_rank(comm) == 0) {
            loom_info("coll", "communicator %s (cid %u) asked for filtering but Loom cannot "
                      "run it (spawned processes, or a context id above %u): dense",
                      comm->c_name, comm->c_contextid, (unsigned)LOOM_OMPI_MAX_CONTEXT);
        }
        return NULL;
    }
    module = mca_coll_loomfilter_module_new(comm, &spec);
    if (module == NULL) {
        return NULL;
    }
    *priority = c->priority;
    return &module->super;
}
