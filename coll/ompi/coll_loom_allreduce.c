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
 * (the selection only picks those).
 */
#include "coll_loom.h"

#include "common/log.h"
#include "coll/core/allreduce.h"
#include "ompi/datatype/ompi_datatype.h"
#include "ompi/op/op.h"

/* Open MPI's own reduction: dst = src op dst. */
void mca_coll_loom_ompi_reduce(const void *src, void *dst, size_t count, void *ctx)
{
    mca_coll_loom_reduce_ctx_t *c = ctx;

    ompi_op_reduce(c->op, (void *)src, dst, count, c->dtype);
}

/*
 * Decide whether Loom takes this call and, if so, plan it.  LOOM_OK: *sched_p
 * is planned and op describes it, or (blocking calls only, shm_run not
 * NULL) shm_run->shm is set and the call goes through the shared segment
 * instead; LOOM_ERR_UNSUPPORTED: hand the call down (already counted by
 * reason); another error: fail the call.  reduce_ctx must live as long as
 * the schedule.
 */
static loom_status_t loom_allreduce_prepare(const void *sbuf, void *rbuf, int count,
                                            ompi_datatype_t *dtype, ompi_op_t *op,
                                            mca_coll_loom_module_t *module,
                                            mca_coll_loom_reduce_ctx_t *reduce_ctx,
                                            mca_coll_loom_op_t *info, loom_sched_t **sched_p,
                                            mca_coll_loom_shm_run_t *shm_run)
{
    mca_coll_loom_component_t *c = &mca_coll_loom_component;
    mca_coll_loom_counters_t *n = &c->allreduce;
    loom_choice_t choice;
    loom_coll_args_t args;
    loom_status_t status;
    size_t elems, esize;

    if (!mca_coll_loom_enabled(n)) {
        return LOOM_ERR_UNSUPPORTED;
    }
    reduce_ctx->op = op;
    reduce_ctx->dtype = mca_coll_loom_element_type(dtype, (size_t)count, &elems);
    if (reduce_ctx->dtype == NULL || module->team == NULL) {
        return mca_coll_loom_fallback(n);
    }
    ompi_datatype_type_size(reduce_ctx->dtype, &esize);
    /* The module below combines in its own order: a reproducible call
     * stays, or it would disagree with reduce and with larger sizes. */
    if (mca_coll_loom_small(module, LOOM_COLL_ALLREDUCE, elems * esize) &&
        !mca_coll_loom_reproducible(reduce_ctx)) {
        return mca_coll_loom_hand_off(module, &(mca_coll_loom_handoff_t){
            .coll = "allreduce", .counters = n, .id = LOOM_COLL_ALLREDUCE }, elems * esize);
    }
    *info = (mca_coll_loom_op_t){
        .coll = "allreduce", .bytes = elems * esize, .counters = n, .comm = module->comm,
        .start_ns = mca_coll_loom_now_ns(),
    };
    args = (loom_coll_args_t){
        .sendbuf = sbuf, .recvbuf = rbuf, .count = elems, .elem_size = esize,
        .in_place = (sbuf == MPI_IN_PLACE),
        .reproducible = mca_coll_loom_reproducible(reduce_ctx),
        .op = mca_coll_loom_reduce_op(reduce_ctx),
    };
    if (shm_run != NULL && !args.reproducible && args.op.commutative) {
        loom_allreduce_select(&c->config, module->team->size, info->bytes, 1, &choice);
        if (mca_coll_loom_shm_take(module, LOOM_COLL_ALLREDUCE, choice.forced, &args,
                                   info, shm_run)) {
            return LOOM_OK;
        }
    }
    status = loom_coll_plan(&loom_allreduce_collective, &args, module->team, &c->config, sched_p,
                            &choice);
    if (status == LOOM_ERR_UNSUPPORTED) {
        (void)mca_coll_loom_fallback(n);
    } else if (status == LOOM_OK) {
        info->alg = loom_allreduce_alg_names[choice.alg];
        info->alg_index = choice.alg;
    }
    return status;
}

int mca_coll_loom_allreduce(const void *sbuf, void *rbuf, int count,
                            struct ompi_datatype_t *dtype, struct ompi_op_t *op,
                            struct ompi_communicator_t *comm,
                            mca_coll_base_module_t *base)
{
    mca_coll_loom_module_t *module = (mca_coll_loom_module_t *)base;
    mca_coll_loom_reduce_ctx_t reduce_ctx;
    mca_coll_loom_op_t info;
    mca_coll_loom_shm_run_t shm_run;
    loom_status_t status;
    loom_sched_t *sched;

    shm_run.shm = NULL;
    status = loom_allreduce_prepare(sbuf, rbuf, count, dtype, op, module, &reduce_ctx, &info,
                                    &sched, &shm_run);
    if (status == LOOM_ERR_UNSUPPORTED) {
        return module->previous_allreduce.fn(sbuf, rbuf, count, dtype,
                                             mca_coll_loom_down_op(op), comm,
                                             module->previous_allreduce.module);
    } else if (status != LOOM_OK) {
        return mca_coll_loom_status_to_ompi(status);
    }
    if (shm_run.shm != NULL) {
        mca_coll_loom_shm_run(module, &info, loom_shm_allreduce, &shm_run);
    } else {
        status = mca_coll_loom_wait(&info, sched);
        loom_sched_destroy(sched);
    }
    mca_coll_loom_account(&info, status);
    return mca_coll_loom_status_to_ompi(status);
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
    status = loom_allreduce_prepare(sbuf, rbuf, count, dtype, op, module, &req->reduce_ctx,
                                    &req->op, &sched, NULL);
    if (status != LOOM_OK) {
        OBJ_RELEASE(req);
        if (status == LOOM_ERR_UNSUPPORTED) {
            return module->previous_iallreduce.fn(sbuf, rbuf, count, dtype,
                                                  mca_coll_loom_down_op(op), comm, request,
                                                  module->previous_iallreduce.module);
        }
        return mca_coll_loom_status_to_ompi(status);
    }
    return mca_coll_loom_request_start(req, sched, request);
}
