/*
 * mca_coll_loom: Loom's Open MPI collective component.
 *
 * The only layer that includes Open MPI's internal headers.  It adapts
 * communicators to engine teams, collective calls to engine arguments,
 * and engine statuses to Open MPI error codes (in one place).
 *
 * This header holds the component's and the module's types and the entry
 * points Open MPI calls; the rest is split by concept:
 * coll_loom_count.h (the counters and the inline checks every call
 * passes first), coll_loom_data.h (the data: reduction context, element
 * types, staging, kernels), coll_loom_call.h (the one path of a call Loom
 * takes), coll_loom_request.h (nonblocking requests and waiting), and
 * coll_loom_wireup.h (what MPI_Init publishes and reads back).
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

#include "coll/ompi/shared/loom_ompi.h"
#include "coll/core/allreduce/allreduce.h"
#include "coll/core/select/coll_config.h"
#include "coll/core/select/collective.h"
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

    /* The process's UCX transport, shared through libloom_ompi
     * (coll/ompi/shared/loom_ompi.h); NULL when Loom is not usable (then
     * no communicator gets a Loom module).  proc_opened: this component
     * holds a reference on it; progress_registered: Loom's requests are
     * advanced by opal_progress. */
    loom_ucx_t          *ucx;
    bool                proc_opened;
    bool                progress_registered;
    const uint64_t      *node_keys;     /* per world rank: equal on one host (libloom_ompi's) */
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
    /* The control variable coll_loom_rank_order (coll_loom_order.c): a
     * value written and not yet taken (NULL or empty: none); whether an
     * order taken waits for a call on its communicator; orders handed to
     * teams and values refused. */
    char                        *rank_order;
    int                         order_waiting;
    unsigned long long          order_accepted;
    unsigned long long          order_rejected;
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

/* Registers the component's MCA parameters (coll_loom_params.c). */
int mca_coll_loom_register(void);

/* MPI_T: registers coll_loom_enable and the performance variables. */
int mca_coll_loom_mpit_register(void);

/* The rank order through MPI_T (coll_loom_order.c): registers
 * coll_loom_rank_order and its performance variables; takes a value
 * written and hands waiting orders to module's team (call it before the
 * call takes a sequence number, mca_coll_loom_order_check); drops the
 * orders waiting for context id cid (its communicator is gone); frees
 * what waits at close. */
int mca_coll_loom_order_register(void);
void mca_coll_loom_order_poll(mca_coll_loom_module_t *module);
void mca_coll_loom_order_forget(uint32_t cid);
void mca_coll_loom_order_close(void);

/* The cheap test every call Loom runs passes first: only a value written
 * or an order waiting leads to mca_coll_loom_order_poll. */
static inline void mca_coll_loom_order_check(mca_coll_loom_module_t *module)
{
    mca_coll_loom_component_t *c = &mca_coll_loom_component;
    const char *text = __atomic_load_n(&c->rank_order, __ATOMIC_RELAXED);

    if (OPAL_UNLIKELY((text != NULL && text[0] != '\0') ||
                      __atomic_load_n(&c->order_waiting, __ATOMIC_RELAXED))) {
        mca_coll_loom_order_poll(module);
    }
}

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

/* Print which component provides each collective on comm. */
void mca_coll_loom_print_table(ompi_communicator_t *comm,
                               const mca_coll_base_module_t *loom_module);

END_C_DECLS

#endif
