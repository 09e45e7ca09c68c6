/*
 * MPI_Reduce_scatter_block, MPI_Reduce_scatter and
 * MPI_Ireduce_scatter_block through the engine (Open MPI 4.1's han and ucc
 * provide neither).  The data rules are allreduce's: contiguous data of one
 * type, Loom's kernels where it has them and Open MPI's op otherwise;
 * anything else goes to the module Open MPI selected before Loom, counted,
 * and so do calls reducing fewer than coll_loom_reduce_scatter_handoff
 * bytes in all (every block: the counts every rank passes alike) on one
 * node.
 */
#include "coll_loom.h"
#include "coll_loom_call.h"
#include "coll_loom_data.h"
#include "coll_loom_request.h"

#include "coll/core/reduce_scatter/reduce_scatter.h"
#include "ompi/datatype/ompi_datatype.h"
#include "ompi/op/op.h"

#include <stdlib.h>

/* The call's MPI arguments; rcounts NULL: the block form with rcount each. */
typedef struct loom_reduce_scatter_mpi {
    const void          *sbuf;
    void                *rbuf;
    int                 rcount;
    const int           *rcounts;
    ompi_datatype_t     *dtype;
    ompi_op_t           *op;
} loom_reduce_scatter_mpi_t;

/* Decide and prepare (mca_coll_loom_take); *owned_p gets the per-rank
 * counts the schedule uses, reduce_ctx must live as long as the schedule.
 * shm_run NULL: a nonblocking call. */
static loom_status_t loom_reduce_scatter_prepare(const loom_reduce_scatter_mpi_t *mpi,
                                                 mca_coll_loom_module_t *module,
                                                 mca_coll_loom_reduce_ctx_t *reduce_ctx,
                                                 mca_coll_loom_op_t *info, size_t **owned_p,
                                                 loom_sched_t **sched_p,
                                                 mca_coll_loom_shm_run_t *shm_run)
{
    int p = ompi_comm_size(module->comm), i;
    size_t *counts = NULL, total = 0, esize;
    loom_status_t status;
    int in_place = (mpi->sbuf == MPI_IN_PLACE);

    *owned_p = NULL;
    if (mpi->rcounts != NULL) {
        for (i = 0; i < p; ++i) {
            total += (size_t)mpi->rcounts[i];
        }
    } else {
        total = (size_t)mpi->rcount * (size_t)p;
    }
    *reduce_ctx = (mca_coll_loom_reduce_ctx_t){ .op = mpi->op, .dtype = mpi->dtype };
    status = mca_coll_loom_admit_reduction(module, &loom_reduce_scatter_collective,
                                           reduce_ctx, total, &esize);
    if (status != LOOM_OK) {
        return status;
    }
    if (mpi->rcounts != NULL) {
        counts = malloc(sizeof(size_t) * (size_t)p);
        if (counts == NULL) {
            return LOOM_ERR_NO_MEMORY;
        }
        for (i = 0; i < p; ++i) {
            counts[i] = (size_t)mpi->rcounts[i];
        }
    }
    status = mca_coll_loom_take(module, &(mca_coll_loom_call_t){
        .coll = &loom_reduce_scatter_collective,
        .args = {
            .sendbuf = mpi->sbuf, .recvbuf = mpi->rbuf, .count = (size_t)mpi->rcount,
            .elem_size = esize, .in_place = in_place, .counts = counts,
            .reproducible = mca_coll_loom_reproducible(reduce_ctx),
            .op = mca_coll_loom_reduce_op(reduce_ctx),
        },
        .shm_run = shm_run,
    }, info, sched_p);
    if (status != LOOM_OK) {
        free(counts);
        return status;
    }
    *owned_p = counts;
    return LOOM_OK;
}

int mca_coll_loom_reduce_scatter_block(const void *sbuf, void *rbuf, int rcount,
                                       struct ompi_datatype_t *dtype, struct ompi_op_t *op,
                                       struct ompi_communicator_t *comm,
                                       mca_coll_base_module_t *base)
{
    mca_coll_loom_module_t *module = (mca_coll_loom_module_t *)base;
    mca_coll_loom_shm_run_t shm_run;
    mca_coll_loom_reduce_ctx_t reduce_ctx;
    mca_coll_loom_op_t info;
    loom_status_t status;
    loom_sched_t *sched;
    size_t *owned;

    shm_run.shm = NULL;
    status = loom_reduce_scatter_prepare(
        &(loom_reduce_scatter_mpi_t){ sbuf, rbuf, rcount, NULL, dtype, op }, module,
        &reduce_ctx, &info, &owned, &sched, &shm_run);
    if (status == LOOM_ERR_UNSUPPORTED) {
        return module->previous_reduce_scatter_block.fn(
            sbuf, rbuf, rcount, dtype, mca_coll_loom_down_op(op), comm,
            module->previous_reduce_scatter_block.module);
    }
    return mca_coll_loom_blocking_end(module, LOOM_COLL_REDUCE_SCATTER, status, &info, sched,
                                      &shm_run, NULL, owned);
}

int mca_coll_loom_reduce_scatter(const void *sbuf, void *rbuf, const int *rcounts,
                                 struct ompi_datatype_t *dtype, struct ompi_op_t *op,
                                 struct ompi_communicator_t *comm, mca_coll_base_module_t *base)
{
    mca_coll_loom_module_t *module = (mca_coll_loom_module_t *)base;
    mca_coll_loom_shm_run_t shm_run;
    mca_coll_loom_reduce_ctx_t reduce_ctx;
    mca_coll_loom_op_t info;
    loom_status_t status;
    loom_sched_t *sched;
    size_t *owned;

    shm_run.shm = NULL;
    status = loom_reduce_scatter_prepare(
        &(loom_reduce_scatter_mpi_t){ sbuf, rbuf, 0, rcounts, dtype, op }, module,
        &reduce_ctx, &info, &owned, &sched, &shm_run);
    if (status == LOOM_ERR_UNSUPPORTED) {
        return module->previous_reduce_scatter.fn(sbuf, rbuf, rcounts, dtype,
                                                  mca_coll_loom_down_op(op), comm,
                                                  module->previous_reduce_scatter.module);
    }
    return mca_coll_loom_blocking_end(module, LOOM_COLL_REDUCE_SCATTER, status, &info, sched,
                                      &shm_run, NULL, owned);
}

int mca_coll_loom_ireduce_scatter_block(const void *sbuf, void *rbuf, int rcount,
                                        struct ompi_datatype_t *dtype, struct ompi_op_t *op,
                                        struct ompi_communicator_t *comm,
                                        ompi_request_t **request, mca_coll_base_module_t *base)
{
    mca_coll_loom_module_t *module = (mca_coll_loom_module_t *)base;
    mca_coll_loom_request_t *req;
    loom_status_t status;
    loom_sched_t *sched;

    req = mca_coll_loom_request_new(module, op, dtype);
    if (req == NULL) {
        return OMPI_ERR_OUT_OF_RESOURCE;
    }
    status = loom_reduce_scatter_prepare(
        &(loom_reduce_scatter_mpi_t){ sbuf, rbuf, rcount, NULL, dtype, op }, module,
        &req->reduce_ctx, &req->op, &req->owned, &sched, NULL);
    if (status == LOOM_ERR_UNSUPPORTED) {
        OBJ_RELEASE(req);
        return module->previous_ireduce_scatter_block.fn(
            sbuf, rbuf, rcount, dtype, mca_coll_loom_down_op(op), comm, request,
            module->previous_ireduce_scatter_block.module);
    }
    return mca_coll_loom_request_start(req, status, sched, request);
}
