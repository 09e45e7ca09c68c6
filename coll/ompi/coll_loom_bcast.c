/*
 * MPI_Bcast, MPI_Ibcast, MPI_Reduce and MPI_Ireduce through the engine.
 *
 * Bcast moves bytes: Loom takes any datatype, directly when it lays count
 * elements out contiguously from the buffer address with extent equal to
 * size, staged through packed scratch otherwise (coll_loom_stage.c).
 * Reduce follows allreduce's rules on the data; the receive buffer matters
 * at the root only (the engine never touches it elsewhere).  Anything else
 * goes to the module Open MPI selected before Loom, counted by reason, and
 * so do small messages on one node (coll_loom_bcast_handoff,
 * coll_loom_reduce_handoff: the size of the type signature, equal on
 * every rank, decides).  Open MPI runs ibcast and ireduce itself while
 * creating communicators: these paths only plan and post, they never
 * block.
 */
#include "coll_loom.h"

#include "coll/core/bcast.h"
#include "coll/core/reduce.h"
#include "ompi/datatype/ompi_datatype.h"
#include "ompi/op/op.h"

/* Decide and plan.  A datatype that is not flat is staged (*stage_p):
 * the root packs before the schedule, the others unpack after it.  A
 * blocking call (shm_run not NULL) may go through the node's shared
 * segment instead: then shm_run->shm is set and *sched_p is not. */
static loom_status_t loom_bcast_prepare(void *buf, int count, ompi_datatype_t *dtype, int root,
                                        mca_coll_loom_module_t *module, mca_coll_loom_op_t *info,
                                        mca_coll_loom_stage_t **stage_p, loom_sched_t **sched_p,
                                        mca_coll_loom_shm_run_t *shm_run)
{
    mca_coll_loom_component_t *c = &mca_coll_loom_component;
    mca_coll_loom_counters_t *n = &c->bcast;
    mca_coll_loom_stage_t *stage = NULL;
    loom_choice_t choice;
    loom_coll_args_t args;
    loom_status_t status;
    size_t size, bytes;
    void *data = buf;

    *stage_p = NULL;
    if (!mca_coll_loom_enabled(n)) {
        return LOOM_ERR_UNSUPPORTED;
    }
    if (module->team == NULL) {
        return mca_coll_loom_fallback(n);
    }
    /* The signature's bytes, equal on every rank whatever its layout. */
    ompi_datatype_type_size(dtype, &size);
    bytes = (size_t)count * size;
    if (mca_coll_loom_small(module, LOOM_COLL_BCAST, bytes)) {
        return mca_coll_loom_hand_off(module, &(mca_coll_loom_handoff_t){
            .coll = "bcast", .counters = n, .id = LOOM_COLL_BCAST }, bytes);
    }
    if (mca_coll_loom_flat_size(dtype) == 0) {
        int at_root = ompi_comm_rank(module->comm) == root;

        status = mca_coll_loom_stage_create(buf, dtype, at_root ? 0 : 1, bytes, &stage);
        if (status != LOOM_OK) {
            return status;
        }
        if (at_root) {
            status = mca_coll_loom_pack(buf, (size_t)count, dtype, stage->scratch);
        } else {
            stage->block[0].count = (size_t)count;
        }
        if (status != LOOM_OK) {
            mca_coll_loom_stage_destroy(stage);
            return status;
        }
        data = stage->scratch;
    }
    *info = (mca_coll_loom_op_t){
        .coll = "bcast", .bytes = bytes, .counters = n, .comm = module->comm,
        .start_ns = mca_coll_loom_now_ns(),
    };
    args = (loom_coll_args_t){
        .recvbuf = data, .count = bytes, .elem_size = 1, .root = root,
    };
    if (shm_run != NULL) {
        loom_bcast_select(&c->config, module->team->size, bytes, 1, &choice);
        if (mca_coll_loom_shm_take(module, LOOM_COLL_BCAST, choice.forced,
                                   &args, info, shm_run)) {
            *stage_p = stage;
            return LOOM_OK;
        }
    }
    status = loom_coll_plan(&loom_bcast_collective, &args, module->team, &c->config, sched_p,
                            &choice);
    if (status == LOOM_OK) {
        info->alg = loom_bcast_alg_names[choice.alg];
        info->alg_index = choice.alg;
        *stage_p = stage;
        return LOOM_OK;
    }
    mca_coll_loom_stage_destroy(stage);
    if (status == LOOM_ERR_UNSUPPORTED) {
        (void)mca_coll_loom_fallback(n);
    }
    return status;
}

/* Decide and plan; a blocking call (shm_run not NULL) may go through the
 * node's shared segment instead, as in loom_bcast_prepare. */
static loom_status_t loom_reduce_prepare(const void *sbuf, void *rbuf, int count,
                                         ompi_datatype_t *dtype, ompi_op_t *op, int root,
                                         mca_coll_loom_module_t *module,
                                         mca_coll_loom_reduce_ctx_t *reduce_ctx,
                                         mca_coll_loom_op_t *info, loom_sched_t **sched_p,
                                         mca_coll_loom_shm_run_t *shm_run)
{
    mca_coll_loom_component_t *c = &mca_coll_loom_component;
    mca_coll_loom_counters_t *n = &c->reduce;
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
    /* A reproducible call stays: the module below combines in its own
     * order (see coll_loom_allreduce.c). */
    if (mca_coll_loom_small(module, LOOM_COLL_REDUCE, elems * esize) &&
        !mca_coll_loom_reproducible(reduce_ctx)) {
        return mca_coll_loom_hand_off(module, &(mca_coll_loom_handoff_t){
            .coll = "reduce", .counters = n, .id = LOOM_COLL_REDUCE }, elems * esize);
    }
    *info = (mca_coll_loom_op_t){
        .coll = "reduce", .bytes = elems * esize, .counters = n, .comm = module->comm,
        .start_ns = mca_coll_loom_now_ns(),
    };
    args = (loom_coll_args_t){
        .sendbuf = sbuf, .recvbuf = rbuf, .count = elems, .elem_size = esize, .root = root,
        .in_place = (sbuf == MPI_IN_PLACE),
        .reproducible = mca_coll_loom_reproducible(reduce_ctx),
        .op = mca_coll_loom_reduce_op(reduce_ctx),
    };
    if (shm_run != NULL && !args.reproducible && args.op.commutative) {
        loom_reduce_select(&c->config, module->team->size, info->bytes, 1, &choice);
        if (mca_coll_loom_shm_take(module, LOOM_COLL_REDUCE, choice.forced,
                                   &args, info, shm_run)) {
            return LOOM_OK;
        }
    }
    status = loom_coll_plan(&loom_reduce_collective, &args, module->team, &c->config, sched_p,
                            &choice);
    if (status == LOOM_OK) {
        info->alg = loom_reduce_alg_names[choice.alg];
        info->alg_index = choice.alg;
    } else if (status == LOOM_ERR_UNSUPPORTED) {
        (void)mca_coll_loom_fallback(n);
    }
    return status;
}

static int loom_finish(mca_coll_loom_op_t *info, loom_status_t status,
                       mca_coll_loom_stage_t *stage)
{
    if (stage != NULL) {
        status = mca_coll_loom_stage_finish(stage, status);
    }
    mca_coll_loom_account(info, status);
    return mca_coll_loom_status_to_ompi(status);
}

static int loom_run(mca_coll_loom_op_t *info, loom_sched_t *sched,
                    mca_coll_loom_stage_t *stage)
{
    loom_status_t status = mca_coll_loom_wait(info, sched);

    loom_sched_destroy(sched);
    return loom_finish(info, status, stage);
}

int mca_coll_loom_bcast(void *buf, int count, struct ompi_datatype_t *dtype, int root,
                        struct ompi_communicator_t *comm, mca_coll_base_module_t *base)
{
    mca_coll_loom_module_t *module = (mca_coll_loom_module_t *)base;
    mca_coll_loom_shm_run_t shm_run;
    mca_coll_loom_stage_t *stage;
    mca_coll_loom_op_t info;
    loom_status_t status;
    loom_sched_t *sched;

    shm_run.shm = NULL;
    status = loom_bcast_prepare(buf, count, dtype, root, module, &info, &stage, &sched,
                                &shm_run);
    if (status == LOOM_ERR_UNSUPPORTED) {
        return module->previous_bcast.fn(buf, count, dtype, root, comm,
                                         module->previous_bcast.module);
    } else if (status != LOOM_OK) {
        return mca_coll_loom_status_to_ompi(status);
    }
    if (shm_run.shm != NULL) {
        mca_coll_loom_shm_run(module, &info, loom_shm_bcast, &shm_run);
        return loom_finish(&info, LOOM_OK, stage);
    }
    return loom_run(&info, sched, stage);
}

int mca_coll_loom_ibcast(void *buf, int count, struct ompi_datatype_t *dtype, int root,
                         struct ompi_communicator_t *comm, ompi_request_t **request,
                         mca_coll_base_module_t *base)
{
    mca_coll_loom_module_t *module = (mca_coll_loom_module_t *)base;
    mca_coll_loom_request_t *req;
    loom_status_t status;
    loom_sched_t *sched;

    req = mca_coll_loom_request_new(module, NULL, dtype);
    if (req == NULL) {
        return OMPI_ERR_OUT_OF_RESOURCE;
    }
    status = loom_bcast_prepare(buf, count, dtype, root, module, &req->op, &req->stage,
                                &sched, NULL);
    if (status != LOOM_OK) {
        OBJ_RELEASE(req);
        if (status == LOOM_ERR_UNSUPPORTED) {
            return module->previous_ibcast.fn(buf, count, dtype, root, comm, request,
                                              module->previous_ibcast.module);
        }
        return mca_coll_loom_status_to_ompi(status);
    }
    return mca_coll_loom_request_start(req, sched, request);
}

int mca_coll_loom_reduce(const void *sbuf, void *rbuf, int count, struct ompi_datatype_t *dtype,
                         struct ompi_op_t *op, int root, struct ompi_communicator_t *comm,
                         mca_coll_base_module_t *base)
{
    mca_coll_loom_module_t *module = (mca_coll_loom_module_t *)base;
    mca_coll_loom_shm_run_t shm_run;
    mca_coll_loom_reduce_ctx_t reduce_ctx;
    mca_coll_loom_op_t info;
    loom_status_t status;
    loom_sched_t *sched;

    shm_run.shm = NULL;
    status = loom_reduce_prepare(sbuf, rbuf, count, dtype, op, root, module, &reduce_ctx,
                                 &info, &sched, &shm_run);
    if (status == LOOM_ERR_UNSUPPORTED) {
        return module->previous_reduce.fn(sbuf, rbuf, count, dtype,
                                          mca_coll_loom_down_op(op), root, comm,
                                          module->previous_reduce.module);
    } else if (status != LOOM_OK) {
        return mca_coll_loom_status_to_ompi(status);
    }
    if (shm_run.shm != NULL) {
        mca_coll_loom_shm_run(module, &info, loom_shm_reduce, &shm_run);
        return loom_finish(&info, LOOM_OK, NULL);
    }
    return loom_run(&info, sched, NULL);
}

int mca_coll_loom_ireduce(const void *sbuf, void *rbuf, int count,
                          struct ompi_datatype_t *dtype, struct ompi_op_t *op, int root,
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
    status = loom_reduce_prepare(sbuf, rbuf, count, dtype, op, root, module, &req->reduce_ctx,
                                 &req->op, &sched, NULL);
    if (status != LOOM_OK) {
        OBJ_RELEASE(req);
        if (status == LOOM_ERR_UNSUPPORTED) {
            return module->previous_ireduce.fn(sbuf, rbuf, count, dtype,
                                               mca_coll_loom_down_op(op), root, comm,
                                               request, module->previous_ireduce.module);
        }
        return mca_coll_loom_status_to_ompi(status);
    }
    return mca_coll_loom_request_start(req, sched, request);
}
