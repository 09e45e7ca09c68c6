/*
 * The module of a communicator that opted in: what it keeps (the module
 * below to hand calls to, the team, the spec) and which calls it filters.
 *
 * It provides allreduce and iallreduce only.  A call is filtered when it
 * is MPI_SUM of MPI_FLOAT or MPI_DOUBLE and at least the spec's min_bytes;
 * it then goes to mca_coll_loomfilter_filtered_allreduce (or its
 * nonblocking twin), the one place filtering happens.  Every other call
 * goes to the module below, untouched, and is counted.  The decision
 * reads only count, type, op and the spec: every rank decides alike.
 */
#include "coll_loomfilter.h"

#include "coll/ompi/shared/loom_ompi.h"
#include "common/log.h"
#include "ompi/op/op.h"

#include <string.h>

static void loomfilter_module_construct(mca_coll_loomfilter_module_t *module)
{
    module->comm = NULL;
    module->team = NULL;
    memset(&module->spec, 0, sizeof(module->spec));
    module->counters = &mca_coll_loomfilter_component.counters;
    module->previous_allreduce = NULL;
    module->previous_allreduce_module = NULL;
    module->previous_iallreduce = NULL;
    module->previous_iallreduce_module = NULL;
    module->steps = NULL;
    module->next_name[0] = '\0';
}

static void loomfilter_module_destruct(mca_coll_loomfilter_module_t *module)
{
    if (module->previous_allreduce_module != NULL) {
        OBJ_RELEASE(module->previous_allreduce_module);
    }
    if (module->previous_iallreduce_module != NULL) {
        OBJ_RELEASE(module->previous_iallreduce_module);
    }
    if (module->team != NULL) {
        __atomic_sub_fetch(&module->counters->comms, 1, __ATOMIC_RELAXED);
        mca_coll_loomfilter_residuals_release(module->comm->c_contextid);
    }
    loom_filter_steps_destroy(module->steps);
    loom_team_destroy(module->team);
    loomfilter_module_construct(module);
}

OBJ_CLASS_INSTANCE(mca_coll_loomfilter_module_t, mca_coll_base_module_t,
                   loomfilter_module_construct, loomfilter_module_destruct);

/* Lower-priority modules are in c_coll while a module is enabled: keep
 * their allreduce and iallreduce, where every call not filtered goes.
 * Creating the team never communicates (libloom_ompi reads peers'
 * addresses from the modex when they are first talked to), so enable is
 * safe inside the progress engine (MPI_Comm_idup). */
static int loomfilter_module_enable(mca_coll_base_module_t *base, ompi_communicator_t *comm)
{
    mca_coll_loomfilter_module_t *module = (mca_coll_loomfilter_module_t *)base;
    mca_coll_loomfilter_component_t *c = &mca_coll_loomfilter_component;
    loom_ompi_team_params_t params;
    loom_status_t status;

    module->comm = comm;
    module->previous_allreduce = comm->c_coll->coll_allreduce;
    module->previous_allreduce_module = comm->c_coll->coll_allreduce_module;
    module->previous_iallreduce = comm->c_coll->coll_iallreduce;
    module->previous_iallreduce_module = comm->c_coll->coll_iallreduce_module;
    if (module->previous_allreduce == NULL || module->previous_allreduce_module == NULL ||
        module->previous_iallreduce == NULL || module->previous_iallreduce_module == NULL) {
        module->previous_allreduce_module = NULL;
        module->previous_iallreduce_module = NULL;
        loom_error("coll", "communicator %s has no allreduce or iallreduce to fall back to",
                   comm->c_name);
        return OMPI_ERROR;
    }
    OBJ_RETAIN(module->previous_allreduce_module);
    OBJ_RETAIN(module->previous_iallreduce_module);

    params = (loom_ompi_team_params_t){
        .space = LOOM_OMPI_SPACE_FILTER, .node_keys = c->node_keys, .rack_keys = NULL,
    };
    status = loom_coll_config_init(&module->config);
    /* The spec's exchange= forces one algorithm; auto leaves the choice to
     * the cost model, call by call (sparse.h). */
    module->config.sparse_allreduce_algorithm = module->spec.exchange;
    if (status == LOOM_OK) {
        status = loom_filter_steps_create(LOOM_FILTER_STEPS_MAX_CALLS_DEFAULT, &module->steps);
    }
    if (status == LOOM_OK) {
        status = loom_ompi_team_create(comm, &params, &module->team);
    }
    if (status != LOOM_OK) {
        module->team = NULL;
        loom_error("coll", "communicator %s: no filter team (%s)", comm->c_name,
                   loom_status_string(status));
        return loom_ompi_status_to_ompi(status);
    }
    mca_coll_loomfilter_count(&module->counters->comms, 1);
    mca_coll_loomfilter_api_attach();
    loom_debug("coll", "filtering communicator %s (cid %u, %d ranks): density %g, "
               "from %zu bytes", comm->c_name, comm->c_contextid, ompi_comm_size(comm),
               module->spec.density, module->spec.min_bytes);
    return OMPI_SUCCESS;
}

/* Open MPI calls this once per function slot the module still holds. */
static int loomfilter_module_disable(mca_coll_base_module_t *base, ompi_communicator_t *comm)
{
    (void)base;
    (void)comm;
    return OMPI_SUCCESS;
}

mca_coll_loomfilter_module_t *mca_coll_loomfilter_module_new(ompi_communicator_t *comm,
                                                             const mca_coll_loomfilter_spec_t *spec)
{
    mca_coll_loomfilter_module_t *module = OBJ_NEW(mca_coll_loomfilter_module_t);

    (void)comm;
    if (module == NULL) {
        return NULL;
    }
    module->spec = *spec;
    module->super.coll_module_enable = loomfilter_module_enable;
    module->super.coll_module_disable = loomfilter_module_disable;
    module->super.coll_allreduce = mca_coll_loomfilter_allreduce;
    module->super.coll_iallreduce = mca_coll_loomfilter_iallreduce;
    return module;
}

/* Whether a call is filtered: MPI_SUM of float or double (predefined, so
 * contiguous), at least min_bytes.  In place is allowed. */
static bool loomfilter_takes(const mca_coll_loomfilter_module_t *module, int count,
                             struct ompi_datatype_t *dtype, struct ompi_op_t *op)
{
    size_t size;

    if (op != &ompi_mpi_op_sum.op || count <= 0 || module->team == NULL ||
        (dtype != &ompi_mpi_float.dt && dtype != &ompi_mpi_double.dt)) {
        return false;
    }
    ompi_datatype_type_size(dtype, &size);
    return (size_t)count * size >= module->spec.min_bytes;
}

int mca_coll_loomfilter_allreduce(const void *sbuf, void *rbuf, int count,
                                  struct ompi_datatype_t *dtype, struct ompi_op_t *op,
                                  struct ompi_communicator_t *comm,
                                  mca_coll_base_module_t *base)
{
    mca_coll_loomfilter_module_t *module = (mca_coll_loomfilter_module_t *)base;

    if (loomfilter_takes(module, count, dtype, op)) {
        return mca_coll_loomfilter_filtered_allreduce(sbuf, rbuf, count, dtype, op, module);
    }
    mca_coll_loomfilter_count(&module->counters->handed_down, 1);
    return module->previous_allreduce(sbuf, rbuf, count, dtype, op, comm,
                                      module->previous_allreduce_module);
}

int mca_coll_loomfilter_iallreduce(const void *sbuf, void *rbuf, int count,
                                   struct ompi_datatype_t *dtype, struct ompi_op_t *op,
                                   struct ompi_communicator_t *comm, ompi_request_t **request,
                                   mca_coll_base_module_t *base)
{
    mca_coll_loomfilter_module_t *module = (mca_coll_loomfilter_module_t *)base;

    if (loomfilter_takes(module, count, dtype, op)) {
        return mca_coll_loomfilter_filtered_iallreduce(sbuf, rbuf, count, dtype, op, request,
                                                       module);
    }
    mca_coll_loomfilter_count(&module->counters->handed_down, 1);
    return module->previous_iallreduce(sbuf, rbuf, count, dtype, op, comm, request,
                                       module->previous_iallreduce_module);
}
