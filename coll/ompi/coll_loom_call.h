/*
 * The one path of a call Loom takes (coll_loom_take.c): the record of the
 * call, what an entry point hands the engine, the node's shared segment
 * (coll_loom_shm.c), and running and ending a blocking call.
 */
#ifndef MCA_COLL_LOOM_CALL_H
#define MCA_COLL_LOOM_CALL_H

#include "coll_loom.h"
#include "coll_loom_data.h"

BEGIN_C_DECLS

/* One collective call Loom runs: what the counters, the verbose line and
 * the hang report need. */
typedef struct mca_coll_loom_op {
    const char                  *coll;        /* "allreduce" */
    const char                  *alg;         /* the algorithm's name */
    int                         alg_index;    /* into counters->alg */
    size_t                      bytes;        /* count x type size */
    mca_coll_loom_counters_t    *counters;
    ompi_communicator_t         *comm;
    uint64_t                    start_ns;
    int                         watch_ndone;  /* hang watch: steps done when last seen */
    uint64_t                    watch_waits;  /* or, in the shared segment, its waits */
    uint64_t                    watch_since_ns;
    int                         watch_reports;  /* reports in a row without progress */
} mca_coll_loom_op_t;

/* A blocking call that runs through the node's shared segment.  Callers
 * set shm to NULL alone: args is read only once shm is set, and zeroing
 * the whole struct was most of the cost of a small handed-off call. */
typedef struct mca_coll_loom_shm_run {
    loom_shm_t          *shm;   /* NULL: the call runs a schedule */
    loom_coll_args_t    args;
} mca_coll_loom_shm_run_t;

/* Runs a call through the segment with fn (a descriptor's segment run),
 * reporting hangs as schedules do. */
void mca_coll_loom_shm_run(mca_coll_loom_module_t *module, mca_coll_loom_op_t *op,
                           loom_segment_run_fn_t fn, const mca_coll_loom_shm_run_t *run);

/* A blocking call of collective id that the selection sent through the
 * node's shared segment (loom_choice_t.segment), attaching the segment at
 * the first such call.  1: run->shm and run->args are set and info names
 * "shm"; 0: the segment cannot be mapped on this communicator (every rank
 * agreed), use the chosen schedule.  Says so once per size class at
 * verbose level info. */
int mca_coll_loom_shm_take(mca_coll_loom_module_t *module, loom_coll_kind_t id,
                           const loom_coll_args_t *args, mca_coll_loom_op_t *info,
                           mca_coll_loom_shm_run_t *run);

/* A call an entry point has decided Loom takes, in the engine's terms
 * (coll_loom_take.c): the one path of every collective from here on. */
typedef struct mca_coll_loom_call {
    const loom_collective_t     *coll;      /* the engine's descriptor */
    loom_coll_args_t            args;       /* buffers the engine may use as they are */
    /* A blocking call may run through the node's shared segment: its run
     * (NULL: nonblocking, never the segment). */
    mca_coll_loom_shm_run_t     *shm_run;
} mca_coll_loom_call_t;

/* The data rules of the collectives that reduce, before anything is
 * allocated: Loom enabled, contiguous data of one predefined type
 * (ctx->op and ctx->dtype, the user's, on entry; ctx->dtype the element
 * type on return), a team, and count elements in all, handed down when
 * small unless the call must be reproducible.  *esize_p: the element's
 * size.  LOOM_ERR_UNSUPPORTED: hand the call down (counted by reason). */
loom_status_t mca_coll_loom_admit_reduction(mca_coll_loom_module_t *module,
                                           const loom_collective_t *coll,
                                           mca_coll_loom_reduce_ctx_t *ctx, size_t count,
                                           size_t *esize_p);

/* An allreduce's or a reduce's MPI arguments (root: reduce's only). */
typedef struct mca_coll_loom_reduction_mpi {
    const void              *sbuf;
    void                    *rbuf;
    int                     count;
    struct ompi_datatype_t  *dtype;
    struct ompi_op_t        *op;
    int                     root;
} mca_coll_loom_reduction_mpi_t;

/* Decide whether Loom takes an allreduce or a reduce (coll) and, if so,
 * prepare it (mca_coll_loom_take; coll_loom_allreduce.c).
 * LOOM_ERR_UNSUPPORTED: hand the call down (already counted by reason);
 * another error: fail the call.  reduce_ctx must live as long as the
 * schedule; shm_run NULL: a nonblocking call. */
loom_status_t mca_coll_loom_reduction_prepare(const loom_collective_t *coll,
                                             const mca_coll_loom_reduction_mpi_t *mpi,
                                             mca_coll_loom_module_t *module,
                                             mca_coll_loom_reduce_ctx_t *reduce_ctx,
                                             mca_coll_loom_op_t *info, loom_sched_t **sched_p,
                                             mca_coll_loom_shm_run_t *shm_run);

/* Select once; through the segment when the selection chose it for a
 * blocking call (call->shm_run set), else the chosen schedule in
 * *sched_p.  Fills info.  LOOM_ERR_UNSUPPORTED: hand the call down
 * (counted). */
loom_status_t mca_coll_loom_take(mca_coll_loom_module_t *module, const mca_coll_loom_call_t *call,
                                 mca_coll_loom_op_t *info, loom_sched_t **sched_p);

/* The end of a blocking call of collective id whose preparation returned
 * prepared (not LOOM_ERR_UNSUPPORTED: the caller hands that down): an
 * error as Open MPI's code; else the call runs, through the segment
 * (shm_run->shm set, its run from the descriptor) or by waiting for (and
 * destroying) sched, then stage (NULL: none) is unpacked, owned freed,
 * the call counted and its status returned as Open MPI's code
 * (coll_loom_take.c). */
int mca_coll_loom_blocking_end(mca_coll_loom_module_t *module, loom_coll_kind_t id,
                               loom_status_t prepared, mca_coll_loom_op_t *info,
                               loom_sched_t *sched, const mca_coll_loom_shm_run_t *shm_run,
                               mca_coll_loom_stage_t *stage, size_t *owned);

END_C_DECLS

#endif
