/*
 * Loom's count of the allreduce calls it executed in this process, read
 * through the MPI tools interface (the performance variable
 * coll_loom_allreduce_calls), so that a run can show whether Loom, and not
 * Open MPI's default, reduced its gradients.
 */
#ifndef MLP_LOOM_COUNTER_H
#define MLP_LOOM_COUNTER_H

#include <mpi.h>

typedef struct mlp_loom_counter {
    int                 mpit;       /* MPI_T initialized: finalize it */
    int                 found;      /* 0 when Loom is not loaded */
    MPI_T_pvar_session  session;
    MPI_T_pvar_handle   handle;
} mlp_loom_counter_t;

/* After MPI_Init: MPI_T_init_thread and a handle on the counter.  The
 * counter counts from here on.  Never fails: without MPI_T or Loom,
 * counter->found is 0. */
void mlp_loom_counter_start(mlp_loom_counter_t *counter);

/* The count so far into *calls_p; 0 when there is none to read. */
int mlp_loom_counter_read(const mlp_loom_counter_t *counter, unsigned long long *calls_p);

/* Free the handle and MPI_T_finalize; call before MPI_Finalize (Open MPI
 * 4.1 crashes when MPI_T_finalize comes after it). */
void mlp_loom_counter_stop(mlp_loom_counter_t *counter);

#endif
