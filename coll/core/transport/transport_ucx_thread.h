/*
 * The optional UCX progress thread (coll_loom_progress_thread).
 *
 * One thread per UCX worker that only calls ucp_worker_progress, so that
 * bytes keep moving while the application computes between posting a
 * nonblocking collective and waiting for it.  It never touches a schedule:
 * steps still start and finish on MPI threads, from Open MPI's progress
 * hook.  What it runs are UCX's completion callbacks, which only set a
 * loom_completion_t (atomics) and count down the operations in flight.
 *
 * The thread polls only while operations are in flight (the counter the
 * transport keeps) and no MPI thread is polling, and sleeps on a condition
 * variable when nothing is in flight; the transport wakes it when the
 * count leaves zero.
 */
#ifndef LOOM_TRANSPORT_UCX_THREAD_H
#define LOOM_TRANSPORT_UCX_THREAD_H

#include "loom/status.h"

#include <ucp/api/ucp.h>

typedef struct loom_ucx_thread loom_ucx_thread_t;

/* What the thread did, for MPI_T. */
typedef struct loom_ucx_thread_stats {
    unsigned long long  polls;   /* ucp_worker_progress calls made by the thread */
    unsigned long long  events;  /* events those calls reported */
} loom_ucx_thread_stats_t;

/* Start the thread on worker, which must be in UCS_THREAD_MODE_MULTI.
 * *inflight is the number of posted, unfinished operations; mpi_polls[0]
 * counts the worker polls MPI threads started, mpi_polls[1] those still
 * running (the thread stands back while MPI threads poll).  All are
 * changed with atomics by the transport and must outlive the thread. */
loom_status_t loom_ucx_thread_start(ucp_worker_h worker, const unsigned long *inflight,
                                    const unsigned long *mpi_polls,
                                    loom_ucx_thread_t **thread_p);

/* The in-flight count went from 0 to 1: let a sleeping thread poll. */
void loom_ucx_thread_wake(loom_ucx_thread_t *thread);

/* Stop and join the thread; the worker is not touched afterwards. */
void loom_ucx_thread_stop(loom_ucx_thread_t *thread);

void loom_ucx_thread_stats(const loom_ucx_thread_t *thread,
                           loom_ucx_thread_stats_t *stats_p);

#endif
