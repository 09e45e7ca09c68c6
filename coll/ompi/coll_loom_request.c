/*
 * Nonblocking collectives: MPI requests that carry a Loom schedule.
 *
 * A started request goes on one process-wide list of active requests.
 * Open MPI's progress engine calls Loom's progress callback inside every
 * MPI_Test, MPI_Wait and blocking call, and that callback advances every
 * active schedule, so collectives move while the application waits on
 * anything.  Rules that keep this safe:
 *   - one thread walks the list at a time (a flag, not a lock held across
 *     the walk); a thread that finds the walk taken returns at once, and so
 *     does a re-entrant call from inside the walk;
 *   - starting a request only pushes on the list under a short lock, so a
 *     start may come from inside progress (Open MPI starts collectives from
 *     its progress engine while creating communicators);
 *   - a finished request is completed after the walk, outside every lock,
 *     because completing may run callbacks that start new collectives.
 * The blocking wait reports hangs the same way as the walk.
 */
#include "coll_loom.h"
#include "coll_loom_call.h"
#include "coll_loom_count.h"
#include "coll_loom_data.h"
#include "coll_loom_request.h"

#include "common/log.h"
#include "coll/core/engine/tag.h"
#include "ompi/datatype/ompi_datatype.h"
#include "ompi/op/op.h"
#include "ompi/runtime/mpiruntime.h"

#include <pthread.h>
#include <stddef.h>
#include <stdlib.h>
#include <stdio.h>
#include <time.h>

/* The active requests; its lock also guards the modules' lists. */
static loom_ompi_actives_t loom_requests = LOOM_OMPI_ACTIVES_INITIALIZER;

uint64_t mca_coll_loom_now_ns(void)
{
    struct timespec ts;

    clock_gettime(CLOCK_MONOTONIC, &ts);
    return (uint64_t)ts.tv_sec * 1000000000u + (uint64_t)ts.tv_nsec;
}

void mca_coll_loom_account(const mca_coll_loom_op_t *op, loom_status_t status)
{
    mca_coll_loom_counters_t *n;

    if (status != LOOM_OK) {
        return;
    }
    n = op->counters;
    mca_coll_loom_count(&n->calls, 1);
    mca_coll_loom_count(&n->bytes, op->bytes);
    mca_coll_loom_count(&n->alg[op->alg_index], 1);
    mca_coll_loom_count(&n->time_ns, mca_coll_loom_now_ns() - op->start_ns);
}

void mca_coll_loom_hang_report(mca_coll_loom_op_t *op, const char *report)
{
    int limit = mca_coll_loom_component.config.hang_abort;

    loom_warn("coll", "%s", report);
    if (limit == 0 || ++op->watch_reports < limit) {
        return;
    }
    /* The ranks' calls no longer match (or a peer is gone): nothing will
     * complete this call, and a batch job should end rather than wait. */
    loom_error("coll", "aborting the job after %d reports in a row (coll_loom_hang_abort): %s",
               op->watch_reports, report);
    ompi_mpi_abort(op->comm, MPI_ERR_OTHER);
}

/* Report once per timeout period without progress; 1 when it reported. */
int mca_coll_loom_watch(mca_coll_loom_op_t *op, loom_sched_t *sched, uint64_t now_ns)
{
    uint64_t timeout = (uint64_t)mca_coll_loom_component.config.hang_timeout * 1000000000u;
    char what[320], report[512];

    if (timeout == 0) {
        return 0;
    }
    if (sched->ndone != op->watch_ndone) {
        op->watch_ndone = sched->ndone;
        op->watch_since_ns = now_ns;
        op->watch_reports = 0;
        return 0;
    }
    if (now_ns - op->watch_since_ns < timeout) {
        return 0;
    }
    loom_sched_describe_wait(sched, what, sizeof(what));
    snprintf(report, sizeof(report), "%s (%s) on communicator %s (cid %u, %d ranks) has made "
             "no progress for %.1f s: %s", op->coll, op->alg, op->comm->c_name,
             op->comm->c_contextid, ompi_comm_size(op->comm),
             (double)(now_ns - op->watch_since_ns) * 1e-9, what);
    op->watch_since_ns = now_ns;  /* again after another period */
    mca_coll_loom_hang_report(op, report);
    return 1;
}

loom_status_t mca_coll_loom_wait(mca_coll_loom_op_t *op, loom_sched_t *sched)
{
    loom_status_t status;
    unsigned spins = 0;

    op->watch_ndone = -1;
    op->watch_reports = 0;
    /* opal_progress drives Loom's UCX worker through the registered hook,
     * other Open MPI transports, and yields when idle if asked to. */
    while ((status = loom_sched_progress(sched)) == LOOM_INPROGRESS) {
        opal_progress();
        /* The clock every 64 turns: a turn that yields (more ranks than
         * cores) can last a time slice, and 1024 of them outlasted a short
         * coll_loom_hang_timeout's margin; a clock read is a few
         * nanoseconds beside a turn of opal_progress. */
        if ((++spins & 63) == 0) {
            mca_coll_loom_watch(op, sched, mca_coll_loom_now_ns());
        }
    }
    return status;
}

/* ------------------------------------------------------------- requests */

static int loom_request_free(ompi_request_t **req_p)
{
    mca_coll_loom_request_t *req = (mca_coll_loom_request_t *)*req_p;

    /* MPI-3.1 5.12: freeing an active nonblocking collective is erroneous. */
    if (!REQUEST_COMPLETE(&req->super.super)) {
        return MPI_ERR_REQUEST;
    }
    OMPI_REQUEST_FINI(&req->super.super);
    OBJ_RELEASE(req);
    *req_p = MPI_REQUEST_NULL;
    return OMPI_SUCCESS;
}

static int loom_request_cancel(ompi_request_t *req, int complete)
{
    (void)req;
    (void)complete;
    return MPI_ERR_REQUEST;  /* collectives cannot be cancelled */
}

static void loom_request_construct(mca_coll_loom_request_t *req)
{
    req->super.super.req_type = OMPI_REQUEST_COLL;
    req->super.super.req_free = loom_request_free;
    req->super.super.req_cancel = loom_request_cancel;
    req->active.sched = NULL;
    req->module = NULL;
    req->retained_op = NULL;
    req->retained_type = NULL;
    req->owned = NULL;
    req->stage = NULL;
    req->linked = 0;
    req->mod_prev = req->mod_next = NULL;
    req->active.next = NULL;
}

/* The module's list of unfinished requests, in sequence order. */
static void loom_request_link(mca_coll_loom_request_t *req)
{
    mca_coll_loom_module_t *module = req->module;

    pthread_mutex_lock(&loom_requests.lock);
    req->mod_next = NULL;
    req->mod_prev = module->newest;
    if (module->newest != NULL) {
        module->newest->mod_next = req;
    } else {
        module->oldest = req;
    }
    module->newest = req;
    req->linked = 1;
    pthread_mutex_unlock(&loom_requests.lock);
}

static void loom_request_unlink(mca_coll_loom_request_t *req)
{
    mca_coll_loom_module_t *module = req->module;

    pthread_mutex_lock(&loom_requests.lock);
    if (req->linked) {
        if (req->mod_prev != NULL) {
            req->mod_prev->mod_next = req->mod_next;
        } else {
            module->oldest = req->mod_next;
        }
        if (req->mod_next != NULL) {
            req->mod_next->mod_prev = req->mod_prev;
        } else {
            module->newest = req->mod_prev;
        }
        req->linked = 0;
    }
    pthread_mutex_unlock(&loom_requests.lock);
}

/* Whether a collective started now on module stays within the sequence
 * numbers a tag tells apart from every unfinished one.  A count of
 * unfinished requests would not do: requests finish out of order, and a
 * peer's message for an old request could match a new one's receive. */
static int loom_request_seq_fits(mca_coll_loom_module_t *module)
{
    int fits;

    pthread_mutex_lock(&loom_requests.lock);
    fits = module->oldest == NULL ||
           module->team->next_seq - module->oldest->seq < (uint32_t)LOOM_TAG_MAX_INFLIGHT;
    pthread_mutex_unlock(&loom_requests.lock);
    return fits;
}

/* What the request holds on to while it runs, let go when it finishes. */
static void loom_request_release_refs(mca_coll_loom_request_t *req)
{
    if (req->active.sched != NULL) {
        loom_sched_destroy(req->active.sched);
        req->active.sched = NULL;
    }
    free(req->owned);
    req->owned = NULL;
    mca_coll_loom_stage_destroy(req->stage);
    req->stage = NULL;
    if (req->retained_op != NULL) {
        OBJ_RELEASE(req->retained_op);
        req->retained_op = NULL;
    }
    if (req->retained_type != NULL) {
        OBJ_RELEASE(req->retained_type);
        req->retained_type = NULL;
    }
    if (req->module != NULL) {
        loom_request_unlink(req);
        OBJ_RELEASE(req->module);
        req->module = NULL;
    }
}

static void loom_request_destruct(mca_coll_loom_request_t *req)
{
    loom_request_release_refs(req);
}

OBJ_CLASS_INSTANCE(mca_coll_loom_request_t, ompi_coll_base_nbc_request_t,
                   loom_request_construct,
                   loom_request_destruct);

mca_coll_loom_request_t *mca_coll_loom_request_new(mca_coll_loom_module_t *module,
                                                   ompi_op_t *op, ompi_datatype_t *dtype)
{
    mca_coll_loom_request_t *req;

    /* Tags tell apart a limited range of sequence numbers: finish the
     * oldest requests first when the new one would reach past it. */
    while (module->team != NULL && !loom_request_seq_fits(module)) {
        opal_progress();
    }
    req = OBJ_NEW(mca_coll_loom_request_t);
    if (req == NULL) {
        return NULL;
    }
    OMPI_REQUEST_INIT(&req->super.super, false);
    req->super.super.req_state = OMPI_REQUEST_ACTIVE;
    req->super.super.req_mpi_object.comm = module->comm;
    req->super.super.req_status.MPI_ERROR = MPI_SUCCESS;
    req->super.super.req_status._cancelled = 0;
    req->super.super.req_status._ucount = 0;
    /* The application may free its op, datatype or communicator handle
     * while the collective runs (MPI allows it); keep the objects alive. */
    OBJ_RETAIN(module);
    req->module = module;
    if (op != NULL && !ompi_op_is_intrinsic(op)) {
        OBJ_RETAIN(op);
        req->retained_op = op;
    }
    if (dtype != NULL && !ompi_datatype_is_predefined(dtype)) {
        OBJ_RETAIN(dtype);
        req->retained_type = dtype;
    }
    return req;
}

static void loom_request_finish(mca_coll_loom_request_t *req, loom_status_t status)
{
    if (req->stage != NULL) {
        status = mca_coll_loom_stage_finish(req->stage, status);
        req->stage = NULL;
    }
    mca_coll_loom_account(&req->op, status);
    loom_request_release_refs(req);
    req->super.super.req_status.MPI_ERROR = loom_ompi_status_to_ompi(status);
    ompi_request_complete(&req->super.super, true);
}

int mca_coll_loom_request_start(mca_coll_loom_request_t *req, loom_status_t prepared,
                                loom_sched_t *sched, ompi_request_t **request_p)
{
    loom_status_t status;

    if (prepared != LOOM_OK) {
        OBJ_RELEASE(req);
        return loom_ompi_status_to_ompi(prepared);
    }
    req->active.sched = sched;
    req->seq = sched->seq;
    req->op.watch_ndone = -1;
    req->op.watch_reports = 0;
    *request_p = &req->super.super;
    loom_request_link(req);
    /* Post the first steps now: the peers can start matching at once. */
    status = loom_sched_progress(sched);
    if (status != LOOM_INPROGRESS) {
        loom_request_finish(req, status);
        return OMPI_SUCCESS;
    }
    loom_ompi_actives_push(&loom_requests, &req->active);
    return OMPI_SUCCESS;
}

static mca_coll_loom_request_t *loom_request_of(loom_ompi_active_t *item)
{
    return (mca_coll_loom_request_t *)(void *)((char *)item -
                                               offsetof(mca_coll_loom_request_t, active));
}

/* A request still running: report it if it hangs.  The clock is read
 * once per walk, at the first request that needs it. */
static void loom_request_running(loom_ompi_active_t *item, void *arg)
{
    uint64_t *now = arg;
    mca_coll_loom_request_t *req = loom_request_of(item);

    if (*now == 0) {
        *now = mca_coll_loom_now_ns();
    }
    mca_coll_loom_watch(&req->op, item->sched, *now);
}

static void loom_request_done(loom_ompi_active_t *item, void *arg)
{
    (void)arg;
    loom_request_finish(loom_request_of(item), item->status);
}

int mca_coll_loom_progress_requests(void)
{
    uint64_t now = 0;
    loom_ompi_walk_t walk = { .running = loom_request_running, .done = loom_request_done,
                              .arg = &now };

    return loom_ompi_actives_progress(&loom_requests, &walk);
}
