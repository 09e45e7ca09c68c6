/*
 * The UCX progress thread: poll while something is in flight, sleep
 * otherwise.
 *
 * How it waits, and why not UCX's own wait:
 *   - Nothing in flight: it blocks on a condition variable, so an idle
 *     process has one sleeping thread and no wakeups at all.  The transport
 *     wakes it when its in-flight count leaves zero (one uncontended
 *     mutex/signal per burst of posts, nothing per completion).
 *   - Something in flight but UCX reports no event: a few polls back to
 *     back (the next TCP chunk or shared-memory fragment is usually there
 *     within a microsecond or two), then nanosleep with a doubling delay
 *     from 1 us up to 128 us.  On a machine with as many busy application
 *     threads as cores, a spinning thread would take the core from the
 *     computation it is meant to overlap with; the cap bounds the latency
 *     the thread adds when the application does not call MPI, and an MPI
 *     call still progresses the worker itself at once.
 *   - ucp_worker_wait and the worker's event fd would sleep exactly until
 *     the network has something, but they need UCP_FEATURE_WAKEUP on the
 *     context, with which UCX may leave out transports that cannot raise
 *     events, so turning the thread on would change which transports carry
 *     Loom's data; and a send posted by an MPI thread does not interrupt a
 *     thread blocked in the worker's epoll, so every post would need a
 *     ucp_worker_signal (a system call).
 */
#define _GNU_SOURCE  /* pthread_setname_np */

#include "coll/core/transport/transport_ucx_thread.h"
#include "common/log.h"

#include <pthread.h>
#include <signal.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

/* Empty polls in a row before the thread starts to sleep, and the longest
 * sleep while operations are in flight. */
#define LOOM_UCX_THREAD_SPINS        8
#define LOOM_UCX_THREAD_MAX_SLEEP_NS 128000L

struct loom_ucx_thread {
    ucp_worker_h            worker;
    const unsigned long     *inflight;  /* the transport's count, atomics */
    const unsigned long     *mpi_polls; /* [0] started by MPI threads, [1] running */
    pthread_t               tid;
    pthread_mutex_t         lock;       /* with cond: the idle sleep */
    pthread_cond_t          cond;
    int                     stop;       /* atomics; set under lock to wake */
    unsigned long long      polls;      /* written by the thread, atomics */
    unsigned long long      events;
};

static int loom_ucx_thread_busy(const loom_ucx_thread_t *thread)
{
    return __atomic_load_n(thread->inflight, __ATOMIC_ACQUIRE) != 0 &&
           !__atomic_load_n(&thread->stop, __ATOMIC_ACQUIRE);
}

/* Poll until nothing is in flight or the thread is told to stop.  While
 * an MPI thread is progressing the worker itself (inside MPI_Wait, say),
 * the thread stands back instead of polling alongside: in multi-thread
 * mode every poll takes the worker's spinlock, and on a machine with no
 * spare core a lock holder that the scheduler preempts leaves the other
 * spinning for a whole time slice.  An MPI thread is polling when it is
 * inside a poll now (a TCP poll that copies a large fragment lasts long)
 * or has started one since the last look. */
static void loom_ucx_thread_poll(loom_ucx_thread_t *thread)
{
    struct timespec nap = { 0, 0 };
    unsigned long mpi_seen = __atomic_load_n(&thread->mpi_polls[0], __ATOMIC_RELAXED);
    unsigned long mpi_now;
    unsigned idle = 0;
    unsigned n;

    while (loom_ucx_thread_busy(thread)) {
        mpi_now = __atomic_load_n(&thread->mpi_polls[0], __ATOMIC_RELAXED);
        if (mpi_now != mpi_seen ||
            __atomic_load_n(&thread->mpi_polls[1], __ATOMIC_RELAXED) != 0) {
            mpi_seen = mpi_now;
            n = 0;  /* an MPI thread polls: back off as if idle */
        } else {
            n = ucp_worker_progress(thread->worker);
            __atomic_add_fetch(&thread->polls, 1, __ATOMIC_RELAXED);
        }
        if (n > 0) {
            __atomic_add_fetch(&thread->events, n, __ATOMIC_RELAXED);
            idle = 0;
            continue;
        }
        if (++idle <= LOOM_UCX_THREAD_SPINS) {
            continue;
        }
        nap.tv_nsec = idle - LOOM_UCX_THREAD_SPINS >= 8
                          ? LOOM_UCX_THREAD_MAX_SLEEP_NS
                          : 1000L << (idle - LOOM_UCX_THREAD_SPINS - 1);
        nanosleep(&nap, NULL);
    }
}

static void *loom_ucx_thread_main(void *arg)
{
    loom_ucx_thread_t *thread = arg;

    pthread_mutex_lock(&thread->lock);
    while (!__atomic_load_n(&thread->stop, __ATOMIC_ACQUIRE)) {
        /* Checked under the lock that loom_ucx_thread_wake takes after
         * raising the count: a wake cannot fall between check and wait. */
        if (__atomic_load_n(thread->inflight, __ATOMIC_ACQUIRE) == 0) {
            pthread_cond_wait(&thread->cond, &thread->lock);
            continue;
        }
        pthread_mutex_unlock(&thread->lock);
        loom_ucx_thread_poll(thread);
        pthread_mutex_lock(&thread->lock);
    }
    pthread_mutex_unlock(&thread->lock);
    return NULL;
}

loom_status_t loom_ucx_thread_start(ucp_worker_h worker, const unsigned long *inflight,
                                    const unsigned long *mpi_polls,
                                    loom_ucx_thread_t **thread_p)
{
    loom_ucx_thread_t *thread;
    sigset_t all, saved;
    int ret;

    thread = calloc(1, sizeof(*thread));
    if (thread == NULL) {
        return LOOM_ERR_NO_MEMORY;
    }
    thread->worker   = worker;
    thread->inflight = inflight;
    thread->mpi_polls = mpi_polls;
    pthread_mutex_init(&thread->lock, NULL);
    pthread_cond_init(&thread->cond, NULL);
    /* The application's signal handlers (timers, SIGINT) must run on its
     * own threads: the new thread starts with every signal blocked. */
    sigfillset(&all);
    pthread_sigmask(SIG_SETMASK, &all, &saved);
    ret = pthread_create(&thread->tid, NULL, loom_ucx_thread_main, thread);
    pthread_sigmask(SIG_SETMASK, &saved, NULL);
    if (ret != 0) {
        loom_error("coll", "cannot start the ucx progress thread: %s", strerror(ret));
        pthread_cond_destroy(&thread->cond);
        pthread_mutex_destroy(&thread->lock);
        free(thread);
        return LOOM_ERR_NO_MEMORY;
    }
    /* Seen in top -H and gdb; a name that does not fit is only cosmetic. */
    (void)pthread_setname_np(thread->tid, "loom-progress");
    loom_info("coll", "ucx progress thread started");
    *thread_p = thread;
    return LOOM_OK;
}

void loom_ucx_thread_wake(loom_ucx_thread_t *thread)
{
    pthread_mutex_lock(&thread->lock);
    pthread_cond_signal(&thread->cond);
    pthread_mutex_unlock(&thread->lock);
}

void loom_ucx_thread_stop(loom_ucx_thread_t *thread)
{
    loom_ucx_thread_stats_t stats;

    if (thread == NULL) {
        return;
    }
    pthread_mutex_lock(&thread->lock);
    __atomic_store_n(&thread->stop, 1, __ATOMIC_RELEASE);
    pthread_cond_signal(&thread->cond);
    pthread_mutex_unlock(&thread->lock);
    pthread_join(thread->tid, NULL);
    loom_ucx_thread_stats(thread, &stats);
    loom_debug("coll", "ucx progress thread stopped after %llu polls, %llu events",
               stats.polls, stats.events);
    pthread_cond_destroy(&thread->cond);
    pthread_mutex_destroy(&thread->lock);
    free(thread);
}

void loom_ucx_thread_stats(const loom_ucx_thread_t *thread,
                           loom_ucx_thread_stats_t *stats_p)
{
    stats_p->polls  = __atomic_load_n(&thread->polls, __ATOMIC_RELAXED);
    stats_p->events = __atomic_load_n(&thread->events, __ATOMIC_RELAXED);
}
