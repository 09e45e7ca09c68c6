/*
 * MPI_Reduce and MPI_Ireduce through the engine.
 *
 * Reduce follows allreduce's rules on the data and is prepared by the same
 * code (mca_coll_loom_reduction_prepare); the receive buffer matters at
 * the root only (the engine never touches
 * it elsewhere).  Small messages on one node go to the module Open MPI
 * selected before Loom (coll_loom_reduce_handoff).  Open MPI runs ireduce
 * itself while creating communicators: that path only plans and posts, it
 * never blocks.
 */
#include "coll_loom.h"
#include "coll_loom_call.h"
#include "coll_loom_data.h"
#include "coll_loom_request.h"

#include "coll/core/reduce/reduce.h"
#include "ompi/datatype/ompi_datatype.h"
#include "ompi/op/op.h"

int mca_coll_loom_reduce(const void *sbuf, void *rbuf, int count, struct ompi_datatype_t *dtype,
                         struct ompi_op_t *op, int root, struct ompi_communicator_t *comm,
                         mca_coll_base_module_t *base)
{
    mca_coll_loom_module_t *module = (mca_coll_loom_module_t *)base;
    mca_coll_loom_reduction_mpi_t mpi = { sbuf, rbuf, count, dtype, op, root };
    mca_coll_loom_shm_run_t shm_run;
    mca_coll_loom_reduce_ctx_t reduce_ctx;
    mca_coll_loom_op_t info;
    loom_status_t status;
    loom_sched_t *sched;

    shm_run.shm = NULL;
    status = mca_coll_loom_reduction_prepare(&loom_reduce_collective, &mpi, module, &reduce_ctx,
                                             &info, &sched, &shm_run);
    if (status == LOOM_ERR_UNSUPPORTED) {
        return module->previous_reduce.fn(sbuf, rbuf, count, dtype,
                                          mca_coll_loom_down_op(op), root, comm,
                                          module->previous_reduce.module);
    }
    return mca_coll_loom_blocking_end(module, LOOM_COLL_REDUCE, status, &info, sched, &shm_run,
                                      NULL, NULL);
}

int mca_coll_loom_ireduce(const void *sbuf, void *rbuf, int count,
                          struct ompi_datatype_t *dtype, struct ompi_op_t *op, int root,
                          struct ompi_communicator_t *comm, ompi_request_t **request,
                          mca_coll_base_module_t *base)
{
    mca_coll_loom_module_t *module = (mca_coll_loom_module_t *)base;
    mca_coll_loom_reduction_mpi_t mpi = { sbuf, rbuf, count, dtype, op, root };
    mca_coll_loom_request_t *req;
    loom_status_t status;
    loom_sched_t *sched;

    req = mca_coll_loom_request_new(module, op, dtype);
    if (req == NULL) {
        return OMPI_ERR_OUT_OF_RESOURCE;
    }
    status = mca_coll_loom_reduction_prepare(&loom_reduce_collective, &mpi, module,
                                             &req->reduce_ctx, &req->op, &sched, NULL);
    if (status == LOOM_ERR_UNSUPPORTED) {
        OBJ_RELEASE(req);
        return module->previous_ireduce.fn(sbuf, rbuf, count, dtype,
                                           mca_coll_loom_down_op(op), root, comm,
                                           request, module->previous_ireduce.module);
    }
    return mca_coll_loom_request_start(req, status, sched, request);
}
