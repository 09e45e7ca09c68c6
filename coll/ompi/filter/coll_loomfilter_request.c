/*
 * Nonblocking filtered calls: MPI_Iallreduce hands back a request whose
 * schedule runs from Open MPI's progress (mca_coll_loomfilter_progress,
 * registered at open), so the exchange overlaps what the program does
 * until it waits: the training example's buckets go out while backward
 * still runs.
 *
 * The requests are on a list of libloom_ompi's (coll/ompi/shared/active.h),
 * as mca_coll_loom's are on one of their own.
 *
 * Only intrinsic ops and predefined types reach here (MPI_SUM of float
 * or double), so there is nothing to retain but the module.
 */
#include "coll_loomfilter.h"

#include "coll/core/engine/tag.h"
#include "coll/ompi/shared/active.h"
#include "coll/ompi/shared/loom_ompi.h"
#include "opal/runtime/opal_progress.h"

#include <pthread.h>
#include <stddef.h>

typedef struct mca_coll_loomfilter_request {
    ompi_request_t                          super;
    mca_coll_loomfilter_call_t              *call;
    loom_ompi_active_t                      active;     /* the call's schedule, listed */
} mca_coll_loomfilter_request_t;

static loom_ompi_actives_t loomfilter_requests = LOOM_OMPI_ACTIVES_INITIALIZER;

static int loomfilter_request_free(ompi_request_t **req_p)
{
    mca_coll_loomfilter_request_t *req = (mca_coll_loomfilter_request_t *)*req_p;

    /* MPI-3.1 5.12: freeing an active nonblocking collective is erroneous. */
    if (!REQUEST_COMPLETE(&req->super)) {
        return MPI_ERR_REQUEST;
    }
    OMPI_REQUEST_FINI(&req->super);
    OBJ_RELEASE(req);
    *req_p = MPI_REQUEST_NULL;
    return OMPI_SUCCESS;
}

static int loomfilter_request_cancel(ompi_request_t *req, int complete)
{
    (void)req;
    (void)complete;
    return MPI_ERR_REQUEST;  /* collectives cannot be cancelled */
}

static void loomfilter_request_construct(mca_coll_loomfilter_request_t *req)
{
    req->super.req_type = OMPI_REQUEST_COLL;
    req->super.req_free = loomfilter_request_free;
    req->super.req_cancel = loomfilter_request_cancel;
    req->call = NULL;
    req->active.next = NULL;
    req->active.sched = NULL;
}

OBJ_CLASS_INSTANCE(mca_coll_loomfilter_request_t, ompi_request_t,
                   loomfilter_request_construct, NULL);

static mca_coll_loomfilter_request_t *loomfilter_request_of(loom_ompi_active_t *item)
{
    return (mca_coll_loomfilter_request_t *)(void *)((char *)item -
                                                     offsetof(mca_coll_loomfilter_request_t,
                                                              active));
}

/* The call is over: count it, free it, let the module go, complete. */
static void loomfilter_request_finish(mca_coll_loomfilter_request_t *req, loom_status_t status)
{
    mca_coll_loomfilter_module_t *module = req->call->module;

    mca_coll_loomfilter_call_end(req->call, status);
    req->call = NULL;
    req->active.sched = NULL;
    OBJ_RELEASE(module);
    req->super.req_status.MPI_ERROR = loom_ompi_status_to_ompi(status);
    ompi_request_complete(&req->super, true);
}

/* Whether a call started now on module stays within the sequence numbers
 * a tag tells apart from every one of its calls still in flight (a count
 * would not do: calls finish out of order).  The filter's team carries
 * only filtered calls, all listed here while they run. */
static int loomfilter_request_fits(mca_coll_loomfilter_module_t *module)
{
    uint32_t next = module->team->next_seq;
    loom_ompi_active_t *item;
    int fits = 1;

    pthread_mutex_lock(&loomfilter_requests.lock);
    for (item = loomfilter_requests.head; item != NULL && fits; item = item->next) {
        mca_coll_loomfilter_request_t *req = loomfilter_request_of(item);

        fits = req->call == NULL || req->call->module != module ||
               next - item->sched->seq < (uint32_t)LOOM_TAG_MAX_INFLIGHT;
    }
    pthread_mutex_unlock(&loomfilter_requests.lock);
    return fits;
}

void mca_coll_loomfilter_request_room(mca_coll_loomfilter_module_t *module)
{
    while (!loomfilter_request_fits(module)) {
        opal_progress();
    }
}

int mca_coll_loomfilter_request_start(mca_coll_loomfilter_call_t *call,
                                      ompi_request_t **request_p)
{
    mca_coll_loomfilter_request_t *req = OBJ_NEW(mca_coll_loomfilter_request_t);
    mca_coll_loomfilter_module_t *module = call->module;
    loom_status_t status;

    if (req == NULL) {
        mca_coll_loomfilter_call_end(call, LOOM_ERR_NO_MEMORY);
        return OMPI_ERR_OUT_OF_RESOURCE;
    }
    OMPI_REQUEST_INIT(&req->super, false);
    req->super.req_state = OMPI_REQUEST_ACTIVE;
    req->super.req_mpi_object.comm = module->comm;
    req->super.req_status.MPI_ERROR = MPI_SUCCESS;
    req->super.req_status._cancelled = 0;
    req->super.req_status._ucount = 0;
    req->call = call;
    req->active.sched = call->sched;
    OBJ_RETAIN(module);
    *request_p = &req->super;
    /* The selection now, while the input is what the program passed, and
     * the first messages, so that peers can match them at once. */
    status = loom_sched_progress(call->sched);
    if (status != LOOM_INPROGRESS) {
        loomfilter_request_finish(req, status);
        return OMPI_SUCCESS;
    }
    loom_ompi_actives_push(&loomfilter_requests, &req->active);
    return OMPI_SUCCESS;
}

static void loomfilter_request_done(loom_ompi_active_t *item, void *arg)
{
    (void)arg;
    loomfilter_request_finish(loomfilter_request_of(item), item->status);
}

int mca_coll_loomfilter_progress(void)
{
    static const loom_ompi_walk_t walk = { .done = loomfilter_request_done };

    return loom_ompi_actives_progress(&loomfilter_requests, &walk);
}
