/*
 * MPI_Allreduce through the engine.
 *
 * Loom takes a call when the data is contiguous and made of one predefined
 * type.  It hands a call to the module Open MPI selected before it, counted
 * by reason, when the data is anything else, when the message is small and
 * the communicator lives on one node (Open MPI's shared-memory fast path
 * beats UCX's latency there), or while coll_loom_enable is 0.  Large
 * blocking calls on one node run through the node's shared segment.
 * Non-commutative ops are reduced in rank order by the algorithms that can
 * (the selection only picks those).  Reduce prepares its calls here too:
 * the same rules on one vector, with a root.
 */
#include "coll_loom.h"
#include "coll_loom_call.h"
#include "coll_loom_data.h"
#include "coll_loom_request.h"

#include "common/log.h"
#include "coll/core/allreduce/allreduce.h"
#include "ompi/datatype/ompi_datatype.h"
#include "ompi/op/op.h"

loom_status_t mca_coll_loom_reduction_prepare(const loom_collective_t *coll,
                                             const mca_coll_loom_reduction_mpi_t *mpi,
                                             mca_coll_loom_module_t *module,
                                             mca_coll_loom_reduce_ctx_t *reduce_ctx,
                                             mca_coll_loom_op_t *info, loom_sched_t **sched_p,
                                             mca_coll_loom_shm_run_t *shm_run)
{
    loom_status_t status;
    size_t esize;

    *reduce_ctx = (mca_coll_loom_reduce_ctx_t){ .op = mpi->op, .dtype = mpi->dtype };
    status = mca_coll_loom_admit_reduction(module, coll, reduce_ctx, (size_t)mpi->count, &esize);
    if (status != LOOM_OK) {
        return status;
    }
    return mca_coll_loom_take(module, &(mca_coll_loom_call_t){
        .coll = coll,
        .args = {
            .sendbuf = mpi->sbuf, .recvbuf = mpi->rbuf, .count = (size_t)mpi->count,
            .elem_size = esize, .root = mpi->root, .in_place = (mpi->sbuf == MPI_IN_PLACE),
            .reproducible = mca_coll_loom_reproducible(reduce_ctx),
            .op = mca_coll_loom_reduce_op(reduce_ctx),
        },
        .shm_run = shm_run }, info, sched_p);
}

int mca_coll_loom_allreduce(const void *sbuf, void *rbuf, int count,
                            struct ompi_datatype_t *dtype, struct ompi_op_t *op,
                            struct ompi_communicator_t *comm,
                            mca_coll_base_module_t *base)
{
    mca_coll_loom_module_t *module = (mca_coll_loom_module_t *)base;
    mca_coll_loom_reduction_mpi_t mpi = { sbuf, rbuf, count, dtype, op, 0 };
    mca_coll_loom_reduce_ctx_t reduce_ctx;
    mca_coll_loom_op_t info;
    mca_coll_loom_shm_run_t shm_run;
    loom_status_t status;
    loom_sched_t *sched;

    shm_run.shm = NULL;
    status = mca_coll_loom_reduction_prepare(&loom_allreduce_collective, &mpi, module,
                                             &reduce_ctx, &info, &sched, &shm_run);
    if (status == LOOM_ERR_UNSUPPORTED) {
        return module->previous_allreduce.fn(sbuf, rbuf, count, dtype,
                                             mca_coll_loom_down_op(op), comm,
                                             module->previous_allreduce.module);
    }
    return mca_coll_loom_blocking_end(module, LOOM_COLL_ALLREDUCE, status, &info, sched,
                                      &shm_run, NULL, NULL);
}

int mca_coll_loom_iallreduce(const void *sbuf, void *rbuf, int count,
                             struct ompi_datatype_t *dtype, struct ompi_op_t *op,
                             struct ompi_communicator_t *comm, ompi_request_t **request,
                             mca_coll_base_module_t *base)
{
    mca_coll_loom_module_t *module = (mca_coll_loom_module_t *)base;
    mca_coll_loom_request_t *req;
    loom_status_t status;
    loom_sched_t *sched;

    req = mca_coll_loom_request_new(module, op, dtype);
    if (req == NULL) {
        return OMPI_ERR_OUT_OF_RESOURCE;
    }
    status = mca_coll_loom_reduction_prepare(
        &loom_allreduce_collective,
        &(mca_coll_loom_reduction_mpi_t){ sbuf, rbuf, count, dtype, op, 0 }, module,
        &req->reduce_ctx, &req->op, &sched, NULL);
    if (status == LOOM_ERR_UNSUPPORTED) {
        OBJ_RELEASE(req);
        return module->previous_iallreduce.fn(sbuf, rbuf, count, dtype,
                                              mca_coll_loom_down_op(op), comm, request,
                                              module->previous_iallreduce.module);
    }
    return mca_coll_loom_request_start(req, status, sched, request);
}
