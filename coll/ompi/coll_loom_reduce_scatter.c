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

#include "coll/core/reduce_scatter.h"
#include "ompi/datatype/ompi_datatype.h"
#include "ompi/op/op.h"

#include <stdlib.h>

/* Decide and plan.  rcounts NULL: the block form with rcount each;
 * *owned_p gets the per-rank counts the schedule uses.  A blocking call
 * (shm_run not NULL) may go through the node's shared segment instead:
 * then shm_run->shm is set and *sched_p is not. */
static loom_status_t loom_reduce_scatter_prepare(const void *sbuf, void *rbuf, int rcount,
                                                 const int *rcounts, ompi_datatype_t *dtype,
                                                 ompi_op_t *op, mca_coll_loom_module_t *module,
                                                 mca_coll_loom_reduce_ctx_t *reduce_ctx,
                                                 mca_coll_loom_op_t *info, size_t **owned_p,
                                                 loom_sched_t **sched_p,
                                                 mca_coll_loom_shm_run_t *shm_run)
{
    mca_coll_loom_component_t *c = &mca_coll_loom_component;
    mca_coll_loom_counters_t *n = &c->reduce_scatter;
    int p = ompi_comm_size(module->comm), i;
    loom_choice_t choice;
    size_t *counts = NULL, total = 0, elems, esize;
    loom_coll_args_t args;
    loom_status_t status;

    *owned_p = NULL;
    if (!mca_coll_loom_enabled(n)) {
        return LOOM_ERR_UNSUPPORTED;
    }
    if (rcounts != NULL) {
        for (i = 0; i < p; ++i) {
            total += (size_t)rcounts[i];
        }
    } else {
        total = (size_t)rcount * (size_t)p;
    }
    reduce_ctx->op = op;
    reduce_ctx->dtype = mca_coll_loom_element_type(dtype, total, &elems);
    if (reduce_ctx->dtype == NULL || module->team == NULL) {
        return mca_coll_loom_fallback(n);
    }
    ompi_datatype_type_size(reduce_ctx->dtype, &esize);
    /* A reproducible call stays: the module below combines in its own
     * order (see coll_loom_allreduce.c). */
    if (mca_coll_loom_small(module, LOOM_COLL_REDUCE_SCATTER, elems * esize) &&
        !mca_coll_loom_reproducible(reduce_ctx)) {
        return mca_coll_loom_hand_off(module, &(mca_coll_loom_handoff_t){
            .coll = "reduce_scatter", .counters = n, .id = LOOM_COLL_REDUCE_SCATTER },
            elems * esize);
    }
    if (rcounts != NULL) {
        counts = malloc(sizeof(size_t) * (size_t)p);
        if (counts == NULL) {
            return LOOM_ERR_NO_MEMORY;
        }
        for (i = 0; i < p; ++i) {
            counts[i] = (size_t)rcounts[i];
        }
    }
    *info = (mca_coll_loom_op_t){
        .coll = rcounts != NULL ? "reduce_scatter" : "reduce_scatter_block",
        .bytes = total * esize, .counters = n, .comm = module->comm,
        .start_ns = mca_coll_loom_now_ns(),
    };
    args = (loom_coll_args_t){
        .sendbuf = sbuf, .recvbuf = rbuf, .count = (size_t)rcount, .elem_size = esize,
        .in_place = (sbuf == MPI_IN_PLACE), .counts = counts,
        .reproducible = mca_coll_loom_reproducible(reduce_ctx),
        .op = mca_coll_loom_reduce_op(reduce_ctx),
    };
    /* The segment needs a whole element per block in a slot, and in place
     * only the block form (shm.h). */
    if (shm_run != NULL && !args.reproducible && args.op.commutative &&
        c->config.shm_slot / (size_t)p >= esize && !(args.in_place && counts != NULL)) {
        loom_reduce_scatter_select(&c->config, p, info->bytes, 1, &choice);
        if (mca_coll_loom_shm_take(module, LOOM_COLL_REDUCE_SCATTER,
                                   choice.forced, &args, info, shm_run)) {
            *owned_p = counts;
            return LOOM_OK;
        }
    }
    status = loom_coll_plan(&loom_reduce_scatter_collective, &args, module->team, &c->config,
                            sched_p, &choice);
    if (status == LOOM_OK) {
        info->alg = loom_reduce_scatter_alg_names[choice.alg];
        info->alg_index = choice.alg;
        *owned_p = counts;
        return LOOM_OK;
    }
    free(counts);
    if (status == LOOM_ERR_UNSUPPORTED) {
        (void)mca_coll_loom_fallback(n);
    }
    return status;
}

/* Runs the call prepared: through the shared segment or the schedule. */
static int loom_reduce_scatter_run(mca_coll_loom_module_t *module, mca_coll_loom_op_t *info,
                                   loom_sched_t *sched, size_t *owned,
                                   mca_coll_loom_shm_run_t *shm_run)
{
    loom_status_t status = LOOM_OK;

    if (shm_run->shm != NULL) {
        mca_coll_loom_shm_run(module, info, loom_shm_reduce_scatter, shm_run);
    } else {
        status = mca_coll_loom_wait(info, sched);
        loom_sched_destroy(sched);
    }
    free(owned);
    mca_coll_loom_account(info, status);
    return mca_coll_loom_status_to_ompi(status);
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
    status = loom_reduce_scatter_prepare(sbuf, rbuf, rcount, NULL, dtype, op, module,
                                         &reduce_ctx, &info, &owned, &sched, &shm_run);
    if (status == LOOM_ERR_UNSUPPORTED) {
        return module->previous_reduce_scatter_block.fn(
            sbuf, rbuf, rcount, dtype, mca_coll_loom_down_op(op), comm,
            module->previous_reduce_scatter_block.module);
    } else if (status != LOOM_OK) {
        return mca_coll_loom_status_to_ompi(status);
    }
    return loom_reduce_scatter_run(module, &info, sched, owned, &shm_run);
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
    status = loom_reduce_scatter_prepare(sbuf, rbuf, 0, rcounts, dtype, op, module,
                                         &reduce_ctx, &info, &owned, &sched, &shm_run);
    if (status == LOOM_ERR_UNSUPPORTED) {
        return module->previous_reduce_scatter.fn(sbuf, rbuf, rcounts, dtype,
                                                  mca_coll_loom_down_op(op), comm,
                                                  module->previous_reduce_scatter.module);
    } else if (status != LOOM_OK) {
        return mca_coll_loom_status_to_ompi(status);
    }
    return loom_reduce_scatter_run(module, &info, sched, owned, &shm_run);
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
    status = loom_reduce_scatter_prepare(sbuf, rbuf, rcount, NULL, dtype, op, module,
                                         &req->reduce_ctx, &req->op, &req->owned, &sched,
                                         NULL);
    if (status != LOOM_OK) {
        OBJ_RELEASE(req);
        if (status == LOOM_ERR_UNSUPPORTED) {
            return module->previous_ireduce_scatter_block.fn(
                sbuf, rbuf, rcount, dtype, mca_coll_loom_down_op(op), comm, request,
                module->previous_ireduce_scatter_block.module);
        }
        return mca_coll_loom_status_to_ompi(status);
    }
    return mca_coll_loom_request_start(req, sched, request);
}
