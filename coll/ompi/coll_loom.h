/*
 * mca_coll_loom: Loom's Open MPI collective component.
 *
 * The only layer that includes Open MPI's internal headers.  It adapts
 * communicators to engine teams, collective calls to engine arguments,
 * and engine statuses to Open MPI error codes (in one place).
 */
#ifndef MCA_COLL_LOOM_H
#define MCA_COLL_LOOM_H

#include "ompi_config.h"

#include "ompi/communicator/communicator.h"
#include "ompi/datatype/ompi_datatype.h"
#include "ompi/mca/coll/coll.h"
#include "ompi/mca/coll/base/coll_base_util.h"
#include "ompi/request/request.h"
#include "opal/threads/thread_usage.h"

#include "coll/core/allreduce/allreduce.h"
#include "coll/core/select/coll_config.h"
#include "coll/core/select/collective.h"
#include "coll/core/select/handoff.h"
#include "coll/core/engine/sched.h"
#include "coll/core/shm/shm.h"
#include "coll/core/transport/transport_ucx.h"
#include "common/log.h"

#include <stdbool.h>

BEGIN_C_DECLS

/* Algorithms of any one collective, "auto" included. */
#define LOOM_COLL_MAX_ALGS 8
/* The counter slot of calls that ran through the node's shared segment
 * (coll_loom_shm.c), past every collective's own algorithms. */
#define LOOM_COLL_ALG_SHM (LOOM_COLL_MAX_ALGS - 1)

/* One collective's MPI_T counters (coll_loom_<collective>_<name>). */
typedef struct mca_coll_loom_counters {
    unsigned long long  calls;      /* executed by Loom */
    unsigned long long  bytes;      /* count x type size of those calls */
    unsigned long long  time_ns;    /* spent in those calls */
    unsigned long long  fallbacks;  /* handed down: type Loom cannot take */
    unsigned long long  handoffs;   /* handed down: small, one node */
    unsigned long long  disabled;   /* handed down: coll_loom_enable = 0 */
    unsigned long long  alg[LOOM_COLL_MAX_ALGS]; /* calls per algorithm */
} mca_coll_loom_counters_t;

typedef struct mca_coll_loom_component {
    mca_coll_base_component_2_0_0_t super;

    /* MCA parameters */
    int                 priority;
    bool                print_table;
    bool                progress_thread; /* coll_loom_progress_thread */
    loom_coll_config_t  config;

    /* The process's UCX transport; NULL when Loom is not usable (then no
     * communicator gets a Loom module). */
    loom_ucx_t          *ucx;
    uint64_t            *node_keys;     /* per world rank: equal on one host */
    uint64_t            *rack_keys;     /* per world rank: equal in one rack; NULL: no racks */
    struct loom_topo    *topo;          /* coll_loom_topology as read here; NULL: none */
    uint64_t            *rules_hashes;  /* per world rank: hash of its rules, 0 = none */
    char                *rules_text;    /* MCA coll_loom_rules */
    char                *rules_file;    /* MCA coll_loom_rules_file */
    struct loom_rules   *rules;         /* parsed; NULL = none or invalid */
    bool                calibrate;      /* MCA coll_loom_calibrate: adopt rank 0's measurement */
    int                 world_size;

    /* MPI_T: the control variable coll_loom_enable and the counters */
    int                         enable;
    /* Per collective id (the v and block forms count with theirs). */
    mca_coll_loom_counters_t    counters[LOOM_COLL_KIND_COUNT];
} mca_coll_loom_component_t;

OMPI_MODULE_DECLSPEC extern mca_coll_loom_component_t mca_coll_loom_component;

/* The module Open MPI selected below Loom for one function: where Loom
 * hands the calls it does not take. */
#define LOOM_PREVIOUS(fn_type) \
    struct {                        \
        fn_type                 fn; \
        mca_coll_base_module_t  *module; \
    }

typedef struct mca_coll_loom_module {
    mca_coll_base_module_t              super;
    ompi_communicator_t                 *comm;
    loom_team_t                         *team;
    /* Per collective: calls of fewer bytes go below (loom_handoff_limit,
     * 0 without a team). */
    size_t                              handoff_below[LOOM_COLL_KIND_COUNT];
    LOOM_PREVIOUS(mca_coll_base_module_allreduce_fn_t) previous_allreduce;
    LOOM_PREVIOUS(mca_coll_base_module_iallreduce_fn_t) previous_iallreduce;
    LOOM_PREVIOUS(mca_coll_base_module_allgather_fn_t) previous_allgather;
    LOOM_PREVIOUS(mca_coll_base_module_allgatherv_fn_t) previous_allgatherv;
    LOOM_PREVIOUS(mca_coll_base_module_iallgather_fn_t) previous_iallgather;
    LOOM_PREVIOUS(mca_coll_base_module_reduce_scatter_block_fn_t) previous_reduce_scatter_block;
    LOOM_PREVIOUS(mca_coll_base_module_reduce_scatter_fn_t) previous_reduce_scatter;
    LOOM_PREVIOUS(mca_coll_base_module_ireduce_scatter_block_fn_t) previous_ireduce_scatter_block;
    LOOM_PREVIOUS(mca_coll_base_module_bcast_fn_t) previous_bcast;
    LOOM_PREVIOUS(mca_coll_base_module_ibcast_fn_t) previous_ibcast;
    LOOM_PREVIOUS(mca_coll_base_module_reduce_fn_t) previous_reduce;
    LOOM_PREVIOUS(mca_coll_base_module_ireduce_fn_t) previous_ireduce;
    /* This communicator's unfinished nonblocking requests, oldest first
     * (under the active-list lock): the oldest bounds how far ahead a new
     * request's sequence number may be (coll_loom_request.c). */
    struct mca_coll_loom_request        *oldest, *newest;
    /* The node's shared segment, attached at the first call that wants
     * it; shm_failed: a rank could not map it, never try again. */
    loom_shm_t                          *shm;
    int                                 shm_failed;
    struct mca_coll_loom_op             *shm_op;    /* the call in the segment now */
    unsigned                            shm_idles;  /* waits that idled, for the hang watch */
} mca_coll_loom_module_t;

OBJ_CLASS_DECLARATION(mca_coll_loom_module_t);

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

/* A hang report of op (coll_loom_request.c): prints it at level warn and,
 * on the coll_loom_hang_abort-th report in a row, aborts the job with it. */
void mca_coll_loom_hang_report(mca_coll_loom_op_t *op, const char *report);

/* Loom's reduction context over Open MPI's op: dst = src op dst. */
typedef struct mca_coll_loom_reduce_ctx {
    struct ompi_op_t        *op;
    struct ompi_datatype_t  *dtype;  /* the predefined element type */
} mca_coll_loom_reduce_ctx_t;

/* A receive buffer whose datatype is not flat, staged through scratch
 * (coll_loom_stage.c): the schedule runs on scratch; when it finished,
 * each block's packed bytes at scratch + offset are unpacked into count
 * elements of dtype at user + displ extents. */
typedef struct mca_coll_loom_stage {
    char                    *scratch;
    void                    *user;
    struct ompi_datatype_t  *dtype;     /* retained */
    int                     nblocks;    /* 0: nothing to unpack on this rank */
    struct {
        size_t      count, offset;
        ptrdiff_t   displ;
    } block[];
} mca_coll_loom_stage_t;

/* A nonblocking collective in flight. */
typedef struct mca_coll_loom_request {
    /* Open MPI's nonblocking collective entry points (MPI_Iallgather and
     * the others) keep derived datatypes and user ops alive by writing
     * into the request as if it were this type: its fields must sit where
     * they expect them, not over Loom's. */
    ompi_coll_base_nbc_request_t    super;
    loom_sched_t                    *sched;
    mca_coll_loom_module_t          *module;        /* retained while running */
    struct ompi_op_t                *retained_op;   /* user ops, retained */
    struct ompi_datatype_t          *retained_type; /* derived types, retained */
    mca_coll_loom_op_t              op;
    mca_coll_loom_reduce_ctx_t      reduce_ctx;     /* the schedule points here */
    size_t                          *owned;         /* per-rank counts the schedule uses */
    mca_coll_loom_stage_t           *stage;         /* unpacked at completion, or NULL */
    loom_status_t                   status;         /* written by the progress walk */
    uint32_t                        seq;            /* the schedule's sequence number */
    int                             linked;         /* on the module's list */
    struct mca_coll_loom_request    *next;          /* on the active list */
    struct mca_coll_loom_request    *mod_prev, *mod_next; /* on the module's list */
} mca_coll_loom_request_t;

OBJ_CLASS_DECLARATION(mca_coll_loom_request_t);

/* Registers the component's MCA parameters (coll_loom_params.c). */
int mca_coll_loom_register(void);

/* MPI_T: registers coll_loom_enable and the performance variables. */
int mca_coll_loom_mpit_register(void);

/* libloom-ckpt's MCA parameters and MPI_T variables (coll_loom_ckpt.c). */
int mca_coll_loom_ckpt_register(void);

/* The topology file (coll_loom_topo.c): its parameter; reading it at open
 * (returns the hash this rank publishes); the racks of every world rank
 * after the fence, from every rank's hash and host; and freeing both. */
int mca_coll_loom_topo_register(void);
uint64_t mca_coll_loom_topo_open(mca_coll_loom_component_t *c);
void mca_coll_loom_topo_racks(mca_coll_loom_component_t *c, char *const *hosts,
                              const uint64_t *hashes);
void mca_coll_loom_topo_close(mca_coll_loom_component_t *c);

/* Component: the module a communicator gets, if any. */
int mca_coll_loom_init_query(bool enable_progress_threads, bool enable_mpi_threads);
mca_coll_base_module_t *mca_coll_loom_comm_query(ompi_communicator_t *comm,
                                                 int *priority);

/* A blocking call that runs through the node's shared segment.  Callers
 * set shm to NULL alone: args is read only once shm is set, and zeroing
 * the whole struct was most of the cost of a small handed-off call. */
typedef struct mca_coll_loom_shm_run {
    loom_shm_t          *shm;   /* NULL: the call runs a schedule */
    loom_coll_args_t    args;
} mca_coll_loom_shm_run_t;

/* Runs a call through the segment, reporting hangs as schedules do. */
typedef void (*mca_coll_loom_shm_fn_t)(loom_shm_t *shm, const loom_coll_args_t *args);
void mca_coll_loom_shm_run(mca_coll_loom_module_t *module, mca_coll_loom_op_t *op,
                           mca_coll_loom_shm_fn_t fn, const mca_coll_loom_shm_run_t *run);

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

/* The counters of collective id. */
static inline mca_coll_loom_counters_t *mca_coll_loom_counters(loom_coll_kind_t id)
{
    return &mca_coll_loom_component.counters[id];
}

/* Select once; through the segment when the selection chose it for a
 * blocking call (call->shm_run set), else the chosen schedule in
 * *sched_p.  Fills info.  LOOM_ERR_UNSUPPORTED: hand the call down
 * (counted). */
loom_status_t mca_coll_loom_take(mca_coll_loom_module_t *module, const mca_coll_loom_call_t *call,
                                 mca_coll_loom_op_t *info, loom_sched_t **sched_p);

/* Run a blocking call of collective id that mca_coll_loom_take prepared:
 * through the segment (shm_run->shm set) or by waiting for (and
 * destroying) sched. */
loom_status_t mca_coll_loom_run(mca_coll_loom_module_t *module, loom_coll_kind_t id,
                                mca_coll_loom_op_t *info, loom_sched_t *sched,
                                const mca_coll_loom_shm_run_t *shm_run);

/* A finished call: counted, and its status as Open MPI's error code. */
int mca_coll_loom_done(const mca_coll_loom_op_t *info, loom_status_t status);

/* The one conversion from Loom statuses to Open MPI error codes. */
int mca_coll_loom_status_to_ompi(loom_status_t status);

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
/* The reduction callback over Open MPI's ops (ctx: mca_coll_loom_reduce_ctx_t). */
void mca_coll_loom_ompi_reduce(const void *src, void *dst, size_t count, void *ctx);

int mca_coll_loom_allreduce(const void *sbuf, void *rbuf, int count,
                            struct ompi_datatype_t *dtype, struct ompi_op_t *op,
                            struct ompi_communicator_t *comm,
                            mca_coll_base_module_t *module);
int mca_coll_loom_iallreduce(const void *sbuf, void *rbuf, int count,
                             struct ompi_datatype_t *dtype, struct ompi_op_t *op,
                             struct ompi_communicator_t *comm, ompi_request_t **request,
                             mca_coll_base_module_t *module);
int mca_coll_loom_allgather(const void *sbuf, int scount, struct ompi_datatype_t *sdtype,
                            void *rbuf, int rcount, struct ompi_datatype_t *rdtype,
                            struct ompi_communicator_t *comm, mca_coll_base_module_t *module);
int mca_coll_loom_allgatherv(const void *sbuf, int scount, struct ompi_datatype_t *sdtype,
                             void *rbuf, const int *rcounts, const int *displs,
                             struct ompi_datatype_t *rdtype, struct ompi_communicator_t *comm,
                             mca_coll_base_module_t *module);
int mca_coll_loom_iallgather(const void *sbuf, int scount, struct ompi_datatype_t *sdtype,
                             void *rbuf, int rcount, struct ompi_datatype_t *rdtype,
                             struct ompi_communicator_t *comm, ompi_request_t **request,
                             mca_coll_base_module_t *module);
int mca_coll_loom_reduce_scatter_block(const void *sbuf, void *rbuf, int rcount,
                                       struct ompi_datatype_t *dtype, struct ompi_op_t *op,
                                       struct ompi_communicator_t *comm,
                                       mca_coll_base_module_t *module);
int mca_coll_loom_reduce_scatter(const void *sbuf, void *rbuf, const int *rcounts,
                                 struct ompi_datatype_t *dtype, struct ompi_op_t *op,
                                 struct ompi_communicator_t *comm, mca_coll_base_module_t *module);
int mca_coll_loom_bcast(void *buf, int count, struct ompi_datatype_t *dtype, int root,
                        struct ompi_communicator_t *comm, mca_coll_base_module_t *module);
int mca_coll_loom_ibcast(void *buf, int count, struct ompi_datatype_t *dtype, int root,
                         struct ompi_communicator_t *comm, ompi_request_t **request,
                         mca_coll_base_module_t *module);
int mca_coll_loom_reduce(const void *sbuf, void *rbuf, int count, struct ompi_datatype_t *dtype,
                         struct ompi_op_t *op, int root, struct ompi_communicator_t *comm,
                         mca_coll_base_module_t *module);
int mca_coll_loom_ireduce(const void *sbuf, void *rbuf, int count,
                          struct ompi_datatype_t *dtype, struct ompi_op_t *op, int root,
                          struct ompi_communicator_t *comm, ompi_request_t **request,
                          mca_coll_base_module_t *module);
int mca_coll_loom_ireduce_scatter_block(const void *sbuf, void *rbuf, int rcount,
                                        struct ompi_datatype_t *dtype, struct ompi_op_t *op,
                                        struct ompi_communicator_t *comm,
                                        ompi_request_t **request, mca_coll_base_module_t *module);

/* The element type Loom moves and reduces for count elements of dtype,
 * with the element count, or NULL when Loom cannot take the data as raw
 * bytes from the buffer address.  A contiguous derived type stays itself:
 * only user ops reach here with one (Open MPI refuses predefined ops on
 * derived types), and MPI gives a user function the caller's datatype and
 * whole elements of it.  Inline, as everything a small hand-off passes. */
static inline struct ompi_datatype_t *mca_coll_loom_element_type(struct ompi_datatype_t *dtype,
                                                                 size_t count, size_t *elems_p)
{
    ptrdiff_t true_lb, true_extent;

    ompi_datatype_get_true_extent(dtype, &true_lb, &true_extent);
    if (true_lb != 0 ||
        !ompi_datatype_is_contiguous_memory_layout(dtype, count > 1 ? 2 : 1)) {
        return NULL;
    }
    *elems_p = count;
    return dtype;
}

/* Bytes per element of dtype when Loom can move count elements of it as raw
 * bytes at the buffer address (contiguous, extent equal to size, lower
 * bounds 0), else 0. */
size_t mca_coll_loom_flat_size(struct ompi_datatype_t *dtype);

/* The reduction the engine runs for ctx: Loom's kernel where it has one,
 * Open MPI's op otherwise. */
loom_reduce_op_t mca_coll_loom_reduce_op(mca_coll_loom_reduce_ctx_t *ctx);

/* Whether data of dtype combines in the canonical order when
 * coll_loom_reproducible is set: anything but integer data (integer sums
 * are exact in any order, so they keep the fastest algorithm). */
int mca_coll_loom_reproducible_type(const struct ompi_datatype_t *dtype);

/* Whether a reduction of ctx's data must combine in the canonical order. */
static inline int mca_coll_loom_reproducible(const mca_coll_loom_reduce_ctx_t *ctx)
{
    return mca_coll_loom_component.config.reproducible &&
           mca_coll_loom_reproducible_type(ctx->dtype);
}

/* Adds n to one of the counters MPI_T reads.  Unless the job asked for
 * MPI_THREAD_MULTIPLE, one thread at a time calls into MPI (MPI_T
 * included), so a plain add is exact and spares the locked instruction
 * that otherwise costs a small hand-off call a few percent of its time. */
static inline void mca_coll_loom_count(unsigned long long *counter, unsigned long long n)
{
    if (opal_using_threads()) {
        __atomic_add_fetch(counter, n, __ATOMIC_RELAXED);
    } else {
        __atomic_store_n(counter, __atomic_load_n(counter, __ATOMIC_RELAXED) + n,
                         __ATOMIC_RELAXED);
    }
}

/* Whether Loom takes calls now (coll_loom_enable); a call it does not take
 * is counted as disabled.  Every rank reads the same value: the user writes
 * it on all ranks at one point between collectives (coll_loom_mpit.c). */
static inline int mca_coll_loom_enabled(mca_coll_loom_counters_t *counters)
{
    if (__atomic_load_n(&mca_coll_loom_component.enable, __ATOMIC_RELAXED)) {
        return 1;
    }
    mca_coll_loom_count(&counters->disabled, 1);
    return 0;
}

/* Count a call handed down because Loom cannot take its data. */
static inline loom_status_t mca_coll_loom_fallback(mca_coll_loom_counters_t *counters)
{
    mca_coll_loom_count(&counters->fallbacks, 1);
    return LOOM_ERR_UNSUPPORTED;
}

/* The small-message hand-off, one rule for every collective the adapters
 * take: on a communicator inside one node, a call below the collective's
 * coll_loom_<coll>_handoff goes to the module Open MPI selected before
 * Loom, whose shared-memory fast boxes have lower latency than UCX there.
 * Blocking and nonblocking forms follow the same rule, on bytes every rank
 * computes alike (loom_handoff_limit), so a rank never waits in Loom for a
 * peer whose call went below.  The limit was worked out when the module
 * joined the communicator and sits next to the functions below Loom: a
 * call handed down between barriers finds the caches cold, and each
 * further line the decision touched (the settings, the team) cost a miss
 * the module below does not pay. */
static inline int mca_coll_loom_small(const mca_coll_loom_module_t *module, loom_coll_kind_t id,
                                      size_t bytes)
{
    return bytes < module->handoff_below[id];
}

/* Count and explain a call of coll that mca_coll_loom_small sends below;
 * returns LOOM_ERR_UNSUPPORTED, which sends it. */
static inline loom_status_t mca_coll_loom_hand_off(const mca_coll_loom_module_t *module,
                                                   const loom_collective_t *coll, size_t bytes)
{
    mca_coll_loom_count(&mca_coll_loom_counters(coll->id)->handoffs, 1);
    if (loom_log_enabled(LOOM_LOG_INFO)) {
        loom_handoff_explain(module->team, &mca_coll_loom_component.config, coll->id, bytes);
    }
    return LOOM_ERR_UNSUPPORTED;
}

/* Staging (coll_loom_stage.c).  A stage for nblocks blocks (filled in by
 * the caller) over bytes of scratch, unpacking into user. */
loom_status_t mca_coll_loom_stage_create(void *user, struct ompi_datatype_t *dtype,
                                         int nblocks, size_t bytes,
                                         mca_coll_loom_stage_t **stage_p);
/* After the schedule: unpack when status is LOOM_OK, then destroy the
 * stage; returns status, or the unpacking's error. */
loom_status_t mca_coll_loom_stage_finish(mca_coll_loom_stage_t *stage, loom_status_t status);
/* Destroy without unpacking (NULL: nothing). */
void mca_coll_loom_stage_destroy(mca_coll_loom_stage_t *stage);
/* Pack count elements of dtype at buf into flat (count x type size bytes). */
loom_status_t mca_coll_loom_pack(const void *buf, size_t count, struct ompi_datatype_t *dtype,
                                 void *flat);

/* MPI_SUM with wrapping 8- and 16-bit integer functions (coll_loom_sum.c),
 * made in init_query; NULL: none, MPI_SUM goes down as it is. */
extern struct ompi_op_t *mca_coll_loom_wrapping_sum;
int mca_coll_loom_sum_create(void);
void mca_coll_loom_sum_destroy(void);

/* The op Open MPI's code gets for op, whether Loom hands the call down or
 * reduces through ompi_op_reduce itself: MPI_SUM becomes the wrapping
 * copy, any other op stays.  Inline: it is on every small hand-off. */
static inline struct ompi_op_t *mca_coll_loom_down_op(struct ompi_op_t *op)
{
    return op == MPI_SUM && mca_coll_loom_wrapping_sum != NULL ? mca_coll_loom_wrapping_sum
                                                               : op;
}

/* Loom's own kernel for (op, predefined dtype), or NULL: use ompi_op_reduce. */
loom_reduce_fn_t mca_coll_loom_kernel(struct ompi_op_t *op, struct ompi_datatype_t *dtype);

/* Print which component provides each collective on comm. */
void mca_coll_loom_print_table(ompi_communicator_t *comm,
                               const mca_coll_base_module_t *loom_module);

END_C_DECLS

#endif
