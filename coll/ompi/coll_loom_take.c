/*
 * The one path a call takes once an entry point has decided Loom runs it
 * (coll_loom_call.h, mca_coll_loom_call_t): one selection through the
 * collective's descriptor, which may choose the node's shared segment
 * (one more algorithm of every collective), else the chosen algorithm's
 * schedule; and for a blocking call, running what was prepared, unstaging,
 * freeing and counting it: the end every blocking entry point shares.
 */
#include "coll_loom.h"
#include "coll_loom_call.h"
#include "coll_loom_count.h"
#include "coll_loom_data.h"
#include "coll_loom_request.h"

#include "ompi/datatype/ompi_datatype.h"

#include <stdlib.h>

loom_status_t mca_coll_loom_admit_reduction(mca_coll_loom_module_t *module,
                                           const loom_collective_t *coll,
                                           mca_coll_loom_reduce_ctx_t *ctx, size_t count,
                                           size_t *esize_p)
{
    mca_coll_loom_counters_t *counters = mca_coll_loom_counters(coll->id);
    size_t elems;

    if (!mca_coll_loom_enabled(counters)) {
        return LOOM_ERR_UNSUPPORTED;
    }
    ctx->dtype = mca_coll_loom_element_type(ctx->dtype, count, &elems);
    if (ctx->dtype == NULL || module->team == NULL) {
        return mca_coll_loom_fallback(counters);
    }
    ompi_datatype_type_size(ctx->dtype, esize_p);
    /* The module below combines in its own order: a reproducible call
     * stays, or it would disagree with larger sizes and the other
     * reductions. */
    if (mca_coll_loom_small(module, coll->id, elems * *esize_p) &&
        !mca_coll_loom_reproducible(ctx)) {
        return mca_coll_loom_hand_off(module, coll, elems * *esize_p);
    }
    return LOOM_OK;
}

loom_status_t mca_coll_loom_take(mca_coll_loom_module_t *module, const mca_coll_loom_call_t *call,
                                 mca_coll_loom_op_t *info, loom_sched_t **sched_p)
{
    const loom_coll_config_t *cfg = &mca_coll_loom_component.config;
    const loom_collective_t *coll = call->coll;
    mca_coll_loom_counters_t *counters = mca_coll_loom_counters(coll->id);
    loom_coll_args_t args = call->args;
    loom_choice_t choice;
    loom_status_t status;

    /* A rank order written through MPI_T reaches the team before this
     * call takes its sequence number. */
    mca_coll_loom_order_check(module);
    *info = (mca_coll_loom_op_t){
        .coll = coll->call_names[args.counts != NULL],
        .bytes = loom_coll_bytes(coll, &args, module->team->size), .counters = counters,
        .comm = module->comm, .start_ns = mca_coll_loom_now_ns(),
    };
    args.blocking = call->shm_run != NULL;
    status = loom_coll_select(coll, &args, module->team, cfg, &choice);
    if (status != LOOM_OK) {
        return status;
    }
    /* Where the segment cannot be mapped, the chosen schedule runs. */
    if (choice.segment && mca_coll_loom_shm_take(module, coll->id, &args, info, call->shm_run)) {
        return LOOM_OK;
    }
    status = loom_coll_build(coll, &args, module->team, cfg, &choice, sched_p);
    if (status == LOOM_OK) {
        info->alg = coll->alg_names[choice.alg];
        info->alg_index = choice.alg;
    } else if (status == LOOM_ERR_UNSUPPORTED) {
        (void)mca_coll_loom_fallback(counters);
    }
    return status;
}

int mca_coll_loom_blocking_end(mca_coll_loom_module_t *module, loom_coll_kind_t id,
                               loom_status_t prepared, mca_coll_loom_op_t *info,
                               loom_sched_t *sched, const mca_coll_loom_shm_run_t *shm_run,
                               mca_coll_loom_stage_t *stage, size_t *owned)
{
    loom_status_t status;

    if (prepared != LOOM_OK) {
        return loom_ompi_status_to_ompi(prepared);
    }
    if (shm_run->shm != NULL) {
        mca_coll_loom_shm_run(module, info, loom_collectives[id]->segment.run, shm_run);
        status = LOOM_OK;
    } else {
        status = mca_coll_loom_wait(info, sched);
        loom_sched_destroy(sched);
    }
    if (stage != NULL) {
        status = mca_coll_loom_stage_finish(stage, status);
    }
    free(owned);
    mca_coll_loom_account(info, status);
    return loom_ompi_status_to_ompi(status);
}
