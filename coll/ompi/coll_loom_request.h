/*
 * Nonblocking collectives and waiting (coll_loom_request.c): the request,
 * starting it, Open MPI's progress callback, a blocking call's wait, its
 * accounting, and the hang reports both print.
 */
#ifndef MCA_COLL_LOOM_REQUEST_H
#define MCA_COLL_LOOM_REQUEST_H

#include "coll_loom.h"
#include "coll_loom_call.h"
#include "coll_loom_data.h"

#include "coll/ompi/shared/active.h"

BEGIN_C_DECLS

/* A nonblocking collective in flight. */
typedef struct mca_coll_loom_request {
    /* Open MPI's nonblocking collective entry points (MPI_Iallgather and
     * the others) keep derived datatypes and user ops alive by writing
     * into the request as if it were this type: its fields must sit where
     * they expect them, not over Loom's. */
    ompi_coll_base_nbc_request_t    super;
    loom_ompi_active_t              active;         /* its schedule, on the active list */
    mca_coll_loom_module_t          *module;        /* retained while running */
    struct ompi_op_t                *retained_op;   /* user ops, retained */
    struct ompi_datatype_t          *retained_type; /* derived types, retained */
    mca_coll_loom_op_t              op;
    mca_coll_loom_reduce_ctx_t      reduce_ctx;     /* the schedule points here */
    size_t                          *owned;         /* per-rank counts the schedule uses */
    mca_coll_loom_stage_t           *stage;         /* unpacked at completion, or NULL */
    uint32_t                        seq;            /* the schedule's sequence number */
    int                             linked;         /* on the module's list */
    struct mca_coll_loom_request    *mod_prev, *mod_next; /* on the module's list */
} mca_coll_loom_request_t;

OBJ_CLASS_DECLARATION(mca_coll_loom_request_t);

/* A hang report of op (coll_loom_request.c): prints it at level warn and,
 * on the coll_loom_hang_abort-th report in a row, aborts the job with it. */
void mca_coll_loom_hang_report(mca_coll_loom_op_t *op, const char *report);

/* Requests and progress (coll_loom_request.c). */
uint64_t mca_coll_loom_now_ns(void);
/* Wait for a blocking call's schedule, progressing Open MPI (and so Loom's
 * UCX worker and its nonblocking requests); reports hangs. */
loom_status_t mca_coll_loom_wait(mca_coll_loom_op_t *op, loom_sched_t *sched);
/* Count a finished call in op->counters (only when it succeeded). */
void mca_coll_loom_account(const mca_coll_loom_op_t *op, loom_status_t status);
/* A request for module's communicator; retains module, and op and dtype
 * when they are user objects (either may be NULL). */
mca_coll_loom_request_t *mca_coll_loom_request_new(mca_coll_loom_module_t *module,
                                                   struct ompi_op_t *op,
                                                   struct ompi_datatype_t *dtype);
/* After req's call was prepared with status prepared: start it with its
 * planned schedule (*request_p set) when that is LOOM_OK, else release req
 * and return the error as Open MPI's code.  A call to hand down is the
 * caller's to send below. */
int mca_coll_loom_request_start(mca_coll_loom_request_t *req, loom_status_t prepared,
                                loom_sched_t *sched, ompi_request_t **request_p);
/* Advance every active request (from Open MPI's progress callback). */
int mca_coll_loom_progress_requests(void);

END_C_DECLS

#endif
