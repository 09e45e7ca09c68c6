/*
 * Nonblocking filtered calls: MPI_Iallreduce hands back a request whose
 * schedule runs from Open MPI's progress (mca_coll_loomfilter_progress,
 * registered at open), so the exchange overlaps what the program does
 * until it waits: the training example's buckets go out while backward
 * still runs.
 *
 * The walk follows mca_coll_loom's: requests are pushed in front of a
 * list under a lock, one walk at a time advances them (a progress call
 * from inside a schedule's progress returns at once), and finished ones
 * are unlinked, then ended and completed outside the lock.
 *
 * Only intrinsic ops and predefined types reach here (MPI_SUM of float
 * or double), so there is nothing to retain but the module.
 */
#include "coll_loomfilter.h"

#include "coll/core/engine/tag.h"
#include "coll/ompi/shared/loom_ompi.h"
#include "opal/runtime/opal_progress.h"

#include <pthread.h>

typedef struct mca_coll_loomfilter_request {
    ompi_request_t                          super;
    mca_coll_loomfilter_call_t              *call;
    loom_status_t                           status;     /* written by the walk */
    struct mca_coll_loomfilter_request      *next;
} mca_coll_loomfilter_request_t;

static pthread_mutex_t loomfilter_active_lock = PTHREAD_MUTEX_INITIALIZER;
static mca_coll_loomfilter_request_t *loomfilter_active;
static int loomfilter_walking;

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
    req->next = NULL;
}

OBJ_CLASS_INSTANCE(mca_coll_loomfilter_request_t, ompi_request_t,
                   loomfilter_request_construct, NULL);

/* The call is over: count it, free it, let the module go, complete. */
static void loomfilter_request_finish(mca_coll_loomfilter_request_t *req, loom_status_t status)
{
    mca_coll_loomfilter_module_t *module = req->call->module;

    mca_coll_loomfilter_call_end(req->call, status);
    req->call = NULL;
    __atomic_sub_fetch(&module->inflight, 1, __ATOMIC_RELAXED);
    OBJ_RELEASE(module);
    req->super.req_status.MPI_ERROR = loom_ompi_status_to_ompi(status);
    ompi_request_complete(&req->super, true);
}

/* Tags tell apart LOOM_TAG_MAX_INFLIGHT sequence numbers from the oldest
 * call in flight; every call of the communicator takes one, so keeping
 * the filter's own calls in flight well below that leaves room. */
void mca_coll_loomfilter_request_room(mca_coll_loomfilter_module_t *module)
{
    while (__atomic_load_n(&module->inflight, __ATOMIC_RELAXED) >= LOOM_TAG_MAX_INFLIGHT / 4) {
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
    OBJ_RETAIN(module);
    __atomic_add_fetch(&module->inflight, 1, __ATOMIC_RELAXED);
    *request_p = &req->super;
    /* The selection now, while the input is what the program passed, and
     * the first messages, so that peers can match them at once. */
    status = loom_sched_progress(call->sched);
    if (status != LOOM_INPROGRESS) {
        loomfilter_request_finish(req, status);
        return OMPI_SUCCESS;
    }
    req->status = LOOM_INPROGRESS;  /* only the walk changes it from now on */
    pthread_mutex_lock(&loomfilter_active_lock);
    req->next = loomfilter_active;
    loomfilter_active = req;
    pthread_mutex_unlock(&loomfilter_active_lock);
    return OMPI_SUCCESS;
}

int mca_coll_loomfilter_progress(void)
{
    mca_coll_loomfilter_request_t *req, *first, **link, *done = NULL;
    int events = 0;

    if (__atomic_load_n(&loomfilter_active, __ATOMIC_RELAXED) == NULL ||
        __atomic_exchange_n(&loomfilter_walking, 1, __ATOMIC_ACQUIRE)) {
        return 0;
    }
    pthread_mutex_lock(&loomfilter_active_lock);
    first = loomfilter_active;
    pthread_mutex_unlock(&loomfilter_active_lock);
    /* Starts push in front of first; only this walk unlinks, so the chain
     * from first on is stable while it is walked. */
    for (req = first; req != NULL; req = req->next) {
        req->status = loom_sched_progress(req->call->sched);
    }
    pthread_mutex_lock(&loomfilter_active_lock);
    for (link = &loomfilter_active; *link != NULL;) {
        req = *link;
        if (req->status != LOOM_INPROGRESS) {
            *link = req->next;
            req->next = done;
            done = req;
        } else {
            link = &req->next;
        }
    }
    pthread_mutex_unlock(&loomfilter_active_lock);
    __atomic_store_n(&loomfilter_walking, 0, __ATOMIC_RELEASE);
    while (done != NULL) {
        req = done;
        done = req->next;
        req->next = NULL;
        loomfilter_request_finish(req, req->status);
        ++events;
    }
    return events;
}
