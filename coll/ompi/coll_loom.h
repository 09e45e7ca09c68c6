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
#include "ompi/mca/coll/coll.h"

#include "coll/core/allreduce.h"
#include "coll/core/coll_config.h"
#include "coll/core/sched.h"
#include "coll/core/transport_ucx.h"

#include <stdbool.h>

BEGIN_C_DECLS

/* One collective's MPI_T counters (coll_loom_<collective>_<name>). */
typedef struct mca_coll_loom_counters {
    unsigned long long  calls;      /* executed by Loom */
    unsigned long long  bytes;      /* count x type size of those calls */
    unsigned long long  time_ns;    /* spent in those calls */
    unsigned long long  fallbacks;  /* handed down: type Loom cannot take */
    unsigned long long  handoffs;   /* handed down: small, one node */
    unsigned long long  disabled;   /* handed down: coll_loom_enable = 0 */
    unsigned long long  alg[LOOM_ALLREDUCE_ALG_COUNT]; /* calls per algorithm */
} mca_coll_loom_counters_t;

typedef struct mca_coll_loom_component {
    mca_coll_base_component_2_0_0_t super;

    /* MCA parameters */
    int                 priority;
    bool                print_table;
    loom_coll_config_t  config;

    /* The process's UCX transport; NULL when Loom is not usable (then no
     * communicator gets a Loom module). */
    loom_ucx_t          *ucx;
    uint64_t            *node_keys;     /* per world rank: equal on one host */
    int                 world_size;

    /* MPI_T: the control variable coll_loom_enable and the counters */
    int                         enable;
    mca_coll_loom_counters_t    allreduce;
} mca_coll_loom_component_t;

OMPI_MODULE_DECLSPEC extern mca_coll_loom_component_t mca_coll_loom_component;

typedef struct mca_coll_loom_module {
    mca_coll_base_module_t              super;
    ompi_communicator_t                 *comm;
    loom_team_t                         *team;
    mca_coll_base_module_allreduce_fn_t previous_allreduce;
    mca_coll_base_module_t              *previous_allreduce_module;
} mca_coll_loom_module_t;

OBJ_CLASS_DECLARATION(mca_coll_loom_module_t);

/* MPI_T: registers coll_loom_enable and the performance variables. */
int mca_coll_loom_mpit_register(void);

/* Component: the module a communicator gets, if any. */
int mca_coll_loom_init_query(bool enable_progress_threads, bool enable_mpi_threads);
mca_coll_base_module_t *mca_coll_loom_comm_query(ompi_communicator_t *comm,
                                                 int *priority);

/* The one conversion from Loom statuses to Open MPI error codes. */
int mca_coll_loom_status_to_ompi(loom_status_t status);

/* Wait for a schedule, progressing Open MPI (and so Loom's UCX worker). */
loom_status_t mca_coll_loom_wait(loom_sched_t *sched);

int mca_coll_loom_allreduce(const void *sbuf, void *rbuf, int count,
                            struct ompi_datatype_t *dtype, struct ompi_op_t *op,
                            struct ompi_communicator_t *comm,
                            mca_coll_base_module_t *module);

/* Loom's own kernel for (op, predefined dtype), or NULL: use ompi_op_reduce. */
loom_reduce_fn_t mca_coll_loom_kernel(struct ompi_op_t *op, struct ompi_datatype_t *dtype);

/* Print which component provides each collective on comm. */
void mca_coll_loom_print_table(ompi_communicator_t *comm,
                               const mca_coll_base_module_t *loom_module);

END_C_DECLS

#endif
