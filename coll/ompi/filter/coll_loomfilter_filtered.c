/*
 * The filtered allreduce: the one place where filtering happens.
 *
 *   1. The communicator's step tracker (coll/core/filter/steps.h) places
 *      the call in the training step: its step number and its position
 *      among the step's filtered calls.  Until the tracker has seen the
 *      sequence of calls repeat, it cannot name positions, and the call
 *      runs dense below (a dense switch): no residual is kept for a slot
 *      that may be another tensor's next time.
 *   2. The residual of (communicator, position, type, count) comes from
 *      the process's store (residual.h); a call the application named
 *      (loom_filter_name) takes the slot of its name instead, from its
 *      first call.  When the store is full the
 *      call runs dense below: a residual is never evicted, since that
 *      would drop delayed gradients.
 *   3. The sparse allreduce (coll/core/sparse) runs on the filter's
 *      team: its first step adds the input into the residual and selects
 *      the top k (feedback.h, k from the warm-up's density at this step),
 *      then every rank's pairs are summed on every rank, or the exchange
 *      goes dense where the sizes say that costs less.
 *
 * Every rank takes the same branch at every point: the tracker, the store
 * and the warm-up see the same calls in the same order on every rank, and
 * the sparse allreduce decides from sizes every rank has.
 *
 * A call is started (its selection made at the schedule's first step, its
 * schedule planned) and ended (counted, freed) the same way for both
 * forms: the blocking one waits in between, the nonblocking one hands the
 * call to a request (coll_loomfilter_request.c).
 */
#include "coll_loomfilter.h"

#include "coll/core/filter/feedback.h"
#include "coll/core/filter/pairs.h"
#include "coll/core/filter/residual.h"
#include "coll/core/filter/steps.h"
#include "coll/core/filter/topk.h"
#include "coll/core/parts/reduce_kernels.h"
#include "coll/core/sparse/sparse.h"
#include "coll/ompi/shared/loom_ompi.h"
#include "common/log.h"
#include "opal/runtime/opal_progress.h"

#include <pthread.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

/* The spec names the sparse allreduce's algorithms by their values. */
_Static_assert((int)LOOM_FILTER_EXCHANGE_ALLGATHER == (int)LOOM_SPARSE_ALLGATHER &&
                   (int)LOOM_FILTER_EXCHANGE_MERGE == (int)LOOM_SPARSE_MERGE &&
                   (int)LOOM_FILTER_EXCHANGE_SPLIT == (int)LOOM_SPARSE_SPLIT &&
                   (int)LOOM_FILTER_EXCHANGE_COUNT == (int)LOOM_SPARSE_ALG_COUNT,
               "filter_spec.h's exchanges are sparse.h's algorithms");

/* The process's residuals, made at the first filtered call with its
 * spec's bound, and what serializes the store (residual.h). */
static loom_residual_store_t *loomfilter_residuals;
static pthread_mutex_t loomfilter_residuals_lock = PTHREAD_MUTEX_INITIALIZER;

/* The sparse allreduce's first step: error feedback and top-k, the pairs
 * into this rank's block. */
static loom_status_t loomfilter_select(void *ctx, void *block, size_t *k_p)
{
    const loom_feedback_args_t *fb = ctx;
    size_t n = 0;
    loom_status_t status = loom_feedback_run(fb, &n);

    if (status == LOOM_ERR_NO_MEMORY) {
        /* The input is in the residual already: send nothing this time,
         * lose nothing (feedback.h). */
        n = 0;
    } else if (status != LOOM_OK) {
        return status;
    }
    loom_pairs_encode(fb->index_out, fb->value_out, n, fb->type, block);
    *k_p = n;
    return LOOM_OK;
}

/* Split-and-reduce's putback (sparse.h): pairs this rank selected that
 * the global threshold did not keep go back into the residual, so error
 * feedback sends them later.  With momentum correction that is v; u
 * stays zero at them (feedback.h masks it at every selected entry), which
 * restarts their momentum as if they had been sent, and loses no
 * gradient: the whole value is back in v. */
static void loomfilter_putback(void *ctx, const void *block, size_t k)
{
    const loom_feedback_args_t *fb = ctx;

    if (loom_pairs_accumulate(fb->residual, fb->count, fb->type, block, k) != LOOM_OK) {
        loom_error("coll", "loomfilter: the pairs handed back are not ascending indices "
                   "below %zu; %zu dropped", fb->count, k);
    }
}

/* What a dense allreduce sends from each rank: the reduce-scatter and
 * allgather lower bound 2(p-1)/p of the vector. */
static unsigned long long loomfilter_dense_bytes(const mca_coll_loomfilter_module_t *module,
                                                 size_t bytes)
{
    unsigned long long p = (unsigned long long)ompi_comm_size(module->comm);

    return 2 * (p - 1) * (unsigned long long)bytes / p;
}

/* A call the filter runs dense below: taken, and switched. */
static void loomfilter_count_dense(mca_coll_loomfilter_module_t *module, size_t bytes)
{
    unsigned long long dense = loomfilter_dense_bytes(module, bytes);

    mca_coll_loomfilter_count(&module->counters->calls, 1);
    mca_coll_loomfilter_count(&module->counters->dense_switches, 1);
    mca_coll_loomfilter_count(&module->counters->dense_bytes, dense);
    mca_coll_loomfilter_count(&module->counters->sent_bytes, dense);
}

/* The slot of key from the process's store, made at the first use with
 * module's bound; the MPI_T level follows.  Under the store's lock. */
static loom_status_t loomfilter_store_get(mca_coll_loomfilter_module_t *module,
                                          const loom_residual_key_t *key,
                                          loom_residual_slot_t **slot_p)
{
    loom_status_t status = LOOM_OK;

    if (loomfilter_residuals == NULL) {
        status = loom_residual_store_create(module->spec.residual_max, &loomfilter_residuals);
    }
    if (status == LOOM_OK) {
        status = loom_residual_store_get(loomfilter_residuals, key,
                                         module->spec.momentum > 0 ? LOOM_RESIDUAL_MOMENTUM : 0,
                                         slot_p);
        __atomic_store_n(&module->counters->residual_bytes,
                         (unsigned long long)loom_residual_store_bytes(loomfilter_residuals),
                         __ATOMIC_RELAXED);
    }
    return status;
}

/* The residual slot of this call, or LOOM_ERR_UNSUPPORTED: run it dense
 * (the tracker is still learning the step, or the store is full).  A
 * call the application named (loom_filter_name) takes its name's slot and
 * no position: it never waits for the tracker. */
static loom_status_t loomfilter_slot(mca_coll_loomfilter_module_t *module, size_t count,
                                     loom_filter_type_t type, uint64_t *step_p,
                                     loom_residual_slot_t **slot_p)
{
    loom_filter_call_t call = { 0, 0, 0, 0 };
    loom_residual_key_t key = { .comm = module->comm->c_contextid, .type = type,
                                .count = count };
    loom_status_t status = LOOM_OK;

    pthread_mutex_lock(&loomfilter_residuals_lock);
    memcpy(key.name, module->next_name, sizeof(key.name));
    module->next_name[0] = '\0';
    pthread_mutex_unlock(&loomfilter_residuals_lock);
    if (key.name[0] != '\0') {
        call.step = loom_filter_steps_current(module->steps);
    } else {
        status = loom_filter_steps_next(module->steps, count, &call);
        if (status != LOOM_OK || !call.locked) {
            return status != LOOM_OK ? status : LOOM_ERR_UNSUPPORTED;
        }
        key.position = call.position;
    }
    pthread_mutex_lock(&loomfilter_residuals_lock);
    status = loomfilter_store_get(module, &key, slot_p);
    pthread_mutex_unlock(&loomfilter_residuals_lock);
    *step_p = call.step;
    return status;
}

loom_status_t mca_coll_loomfilter_call_start(const void *sbuf, void *rbuf, size_t count,
                                             loom_filter_type_t type,
                                             mca_coll_loomfilter_module_t *module,
                                             mca_coll_loomfilter_call_t **call_p)
{
    size_t esize = loom_filter_type_size(type), k, capacity;
    mca_coll_loomfilter_call_t *call;
    loom_residual_slot_t *slot;
    loom_sparse_state_t *state;
    loom_sparse_args_t sp;
    loom_coll_args_t args;
    loom_status_t status;
    uint64_t step = 0;

    status = loomfilter_slot(module, count, type, &step, &slot);
    if (status != LOOM_OK) {
        return status;
    }
    k = loom_filter_k(loom_filter_density(&module->spec, step), count);
    capacity = loom_topk_capacity(count, k, module->spec.exact_max);
    call = calloc(1, sizeof(*call));
    if (call == NULL) {
        return LOOM_ERR_NO_MEMORY;
    }
    call->module = module;
    call->bytes = count * esize;
    call->fb = (loom_feedback_args_t){
        .type = type, .count = count, .input = sbuf == MPI_IN_PLACE ? rbuf : sbuf,
        .residual = slot->residual, .momentum = slot->momentum,
        .momentum_factor = module->spec.momentum, .k = k,
        .exact_max = module->spec.exact_max,
        .index_out = malloc(capacity * sizeof(uint32_t)),
        .value_out = malloc(capacity * esize),
    };
    if (call->fb.index_out == NULL || call->fb.value_out == NULL) {
        mca_coll_loomfilter_call_end(call, LOOM_ERR_NO_MEMORY);
        return LOOM_ERR_NO_MEMORY;
    }
    if (slot->state == NULL &&
        loom_sparse_state_create(ompi_comm_size(module->comm), module->spec.every, &state) ==
            LOOM_OK) {
        slot->state = state;
        slot->state_free = loom_sparse_state_free;
    }
    /* The slot's threshold and regions, for split-and-reduce (without one,
     * a NULL state, it estimates at every call); other algorithms ignore
     * both. */
    sp = (loom_sparse_args_t){
        .select = loomfilter_select, .ctx = &call->fb, .kmax = capacity, .k = k,
        .cost = loom_cost_from_config(&module->config), .path = LOOM_SPARSE_PATH_MODEL,
        .putback = loomfilter_putback, .state = slot->state,
    };
    args = (loom_coll_args_t){
        .recvbuf = rbuf, .count = count, .elem_size = esize, .in_place = 1,
        .op = { .fn = loom_reduce_kernel(LOOM_OP_SUM, type == LOOM_FILTER_FLOAT
                                                          ? LOOM_DTYPE_FLOAT
                                                          : LOOM_DTYPE_DOUBLE),
                .commutative = 1 },
        .sparse = &sp,
    };
    status = loom_coll_plan(&loom_sparse_allreduce_collective, &args, module->team,
                            &module->config, &call->sched, NULL);
    if (status != LOOM_OK) {
        call->sched = NULL;
        mca_coll_loomfilter_call_end(call, status);
        return status;
    }
    *call_p = call;
    return LOOM_OK;
}

void mca_coll_loomfilter_call_end(mca_coll_loomfilter_call_t *call, loom_status_t status)
{
    mca_coll_loomfilter_counters_t *n = call->module->counters;
    loom_sparse_outcome_t out;

    if (status == LOOM_OK && loom_sparse_outcome(call->sched, &out) == LOOM_OK) {
        mca_coll_loomfilter_count(&n->calls, 1);
        mca_coll_loomfilter_count(&n->dense_bytes,
                                  loomfilter_dense_bytes(call->module, call->bytes));
        mca_coll_loomfilter_count(&n->sent_bytes, out.bytes_sent);
        mca_coll_loomfilter_count(&n->dense_switches, (unsigned)out.dense);
    }
    if (call->sched != NULL) {
        loom_sched_destroy(call->sched);
    }
    free(call->fb.index_out);
    free(call->fb.value_out);
    free(call);
}

static loom_filter_type_t loomfilter_type(struct ompi_datatype_t *dtype)
{
    return dtype == &ompi_mpi_float.dt ? LOOM_FILTER_FLOAT : LOOM_FILTER_DOUBLE;
}

int mca_coll_loomfilter_filtered_allreduce(const void *sbuf, void *rbuf, int count,
                                           struct ompi_datatype_t *dtype,
                                           struct ompi_op_t *op,
                                           mca_coll_loomfilter_module_t *module)
{
    loom_filter_type_t type = loomfilter_type(dtype);
    mca_coll_loomfilter_call_t *call;
    loom_status_t status;

    status = mca_coll_loomfilter_call_start(sbuf, rbuf, (size_t)count, type, module, &call);
    if (status == LOOM_ERR_UNSUPPORTED) {
        loomfilter_count_dense(module, (size_t)count * loom_filter_type_size(type));
        return module->previous_allreduce(sbuf, rbuf, count, dtype, op, module->comm,
                                          module->previous_allreduce_module);
    }
    if (status != LOOM_OK) {
        return loom_ompi_status_to_ompi(status);
    }
    while ((status = loom_sched_progress(call->sched)) == LOOM_INPROGRESS) {
        opal_progress();
    }
    mca_coll_loomfilter_call_end(call, status);
    return loom_ompi_status_to_ompi(status);
}

int mca_coll_loomfilter_filtered_iallreduce(const void *sbuf, void *rbuf, int count,
                                            struct ompi_datatype_t *dtype,
                                            struct ompi_op_t *op, ompi_request_t **request,
                                            mca_coll_loomfilter_module_t *module)
{
    loom_filter_type_t type = loomfilter_type(dtype);
    mca_coll_loomfilter_call_t *call;
    loom_status_t status;

    mca_coll_loomfilter_request_room(module);
    status = mca_coll_loomfilter_call_start(sbuf, rbuf, (size_t)count, type, module, &call);
    if (status == LOOM_ERR_UNSUPPORTED) {
        loomfilter_count_dense(module, (size_t)count * loom_filter_type_size(type));
        return module->previous_iallreduce(sbuf, rbuf, count, dtype, op, module->comm,
                                           request, module->previous_iallreduce_module);
    }
    if (status != LOOM_OK) {
        return loom_ompi_status_to_ompi(status);
    }
    return mca_coll_loomfilter_request_start(call, request);
}

void mca_coll_loomfilter_residuals_release(uint64_t comm)
{
    pthread_mutex_lock(&loomfilter_residuals_lock);
    if (loomfilter_residuals != NULL) {
        loom_residual_store_release_comm(loomfilter_residuals, comm);
        __atomic_store_n(&mca_coll_loomfilter_component.counters.residual_bytes,
                         (unsigned long long)loom_residual_store_bytes(loomfilter_residuals),
                         __ATOMIC_RELAXED);
    }
    pthread_mutex_unlock(&loomfilter_residuals_lock);
}

void mca_coll_loomfilter_residuals_fini(void)
{
    pthread_mutex_lock(&loomfilter_residuals_lock);
    loom_residual_store_destroy(loomfilter_residuals);
    loomfilter_residuals = NULL;
    pthread_mutex_unlock(&loomfilter_residuals_lock);
}

void mca_coll_loomfilter_name_next(mca_coll_loomfilter_module_t *module, const char *name)
{
    pthread_mutex_lock(&loomfilter_residuals_lock);
    snprintf(module->next_name, sizeof(module->next_name), "%s", name);
    pthread_mutex_unlock(&loomfilter_residuals_lock);
}

loom_status_t mca_coll_loomfilter_residuals_each(mca_coll_loomfilter_module_t *module,
                                                 int (*fn)(loom_residual_slot_t *slot, void *ctx),
                                                 void *ctx)
{
    int rc = 0;

    pthread_mutex_lock(&loomfilter_residuals_lock);
    if (loomfilter_residuals != NULL) {
        rc = loom_residual_store_each(loomfilter_residuals, module->comm->c_contextid, fn, ctx);
    }
    pthread_mutex_unlock(&loomfilter_residuals_lock);
    return rc == 0 ? LOOM_OK : LOOM_ERR_IO;
}

loom_status_t mca_coll_loomfilter_residual_load(mca_coll_loomfilter_module_t *module,
                                                loom_residual_key_t *key, const void *data)
{
    loom_residual_slot_t *slot;
    loom_status_t status;

    key->comm = module->comm->c_contextid;
    pthread_mutex_lock(&loomfilter_residuals_lock);
    status = loomfilter_store_get(module, key, &slot);
    if (status == LOOM_OK) {
        memcpy(slot->residual, data, key->count * loom_filter_type_size(key->type));
    }
    pthread_mutex_unlock(&loomfilter_residuals_lock);
    return status;
}

loom_status_t mca_coll_loomfilter_residual_read(mca_coll_loomfilter_module_t *module,
                                                loom_residual_key_t *key, void *out)
{
    loom_residual_slot_t *slot = NULL;

    key->comm = module->comm->c_contextid;
    pthread_mutex_lock(&loomfilter_residuals_lock);
    if (loomfilter_residuals != NULL) {
        slot = loom_residual_store_find(loomfilter_residuals, key);
    }
    if (slot != NULL) {
        memcpy(out, slot->residual, key->count * loom_filter_type_size(key->type));
    }
    pthread_mutex_unlock(&loomfilter_residuals_lock);
    return slot != NULL ? LOOM_OK : LOOM_ERR_NOT_FOUND;
}

size_t mca_coll_loomfilter_residuals_bytes(void)
{
    size_t bytes;

    pthread_mutex_lock(&loomfilter_residuals_lock);
    bytes = loomfilter_residuals != NULL ? loom_residual_store_bytes(loomfilter_residuals) : 0;
    pthread_mutex_unlock(&loomfilter_residuals_lock);
    return bytes;
}
