/*
 * Loom's counters, read through the MPI tools interface (performance
 * variables), so that a run can show whether Loom, and not Open MPI's
 * default, reduced its gradients, and what gradient filtering saved:
 *
 *   coll_loom_allreduce_calls        allreduces mca_coll_loom executed
 *   coll_loomfilter_calls            allreduces mca_coll_loomfilter saw
 *   coll_loomfilter_dense_bytes      bytes a dense allreduce would have sent
 *   coll_loomfilter_sent_bytes       bytes the filter sent instead
 *   coll_loomfilter_dense_switches   calls it ran dense after all
 *   coll_loomfilter_residual_bytes   error-feedback memory held now
 *
 * All are this process's, bound to no object.  A variable that is not
 * there (its component not loaded, or named otherwise) reads as absent;
 * nothing here ever stops training.
 */
#ifndef MLP_LOOM_COUNTER_H
#define MLP_LOOM_COUNTER_H

#include <mpi.h>

typedef enum mlp_counter_id {
    MLP_COUNTER_LOOM_CALLS,
    MLP_COUNTER_FILTER_CALLS,
    MLP_COUNTER_FILTER_DENSE_BYTES,
    MLP_COUNTER_FILTER_SENT_BYTES,
    MLP_COUNTER_FILTER_DENSE_SWITCHES,
    MLP_COUNTER_FILTER_RESIDUAL_BYTES,
    MLP_COUNTER_COUNT
} mlp_counter_id_t;

typedef struct mlp_loom_counter {
    int                 mpit;       /* MPI_T initialized: finalize it */
    int                 session_open;
    MPI_T_pvar_session  session;
    struct {
        int                 found;  /* 0: absent, read as absent */
        int                 wide;   /* 1: unsigned long long, 0: unsigned long */
        MPI_T_pvar_handle   handle;
    } var[MLP_COUNTER_COUNT];
} mlp_loom_counter_t;

/* After MPI_Init: MPI_T_init_thread and a handle on each variable found.
 * Counters count from here on.  Never fails: without MPI_T or Loom,
 * every variable is absent. */
void mlp_loom_counter_start(mlp_loom_counter_t *counter);

/* Variable `id` so far into *value_p and 1; 0 (and *value_p untouched)
 * when it is absent or cannot be read. */
int mlp_loom_counter_get(const mlp_loom_counter_t *counter, mlp_counter_id_t id,
                         unsigned long long *value_p);

/* Loom's allreduce count (coll_loom_allreduce_calls) into *calls_p; 0
 * when there is none to read. */
int mlp_loom_counter_read(const mlp_loom_counter_t *counter, unsigned long long *calls_p);

/* Free the handles and MPI_T_finalize; call before MPI_Finalize (Open MPI
 * 4.1 crashes when MPI_T_finalize comes after it). */
void mlp_loom_counter_stop(mlp_loom_counter_t *counter);

#endif
