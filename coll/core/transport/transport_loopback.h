/*
 * In-process loopback transport: N ranks in one process, for tests that run
 * the engine's schedules without mpirun.
 *
 * Sends are rendezvous: a send completes only when the matching receive is
 * posted (then the data is copied).  That is the strictest behaviour a real
 * transport may show, so a schedule that relies on eager buffering
 * deadlocks here instead of in production.
 */
#ifndef LOOM_TRANSPORT_LOOPBACK_H
#define LOOM_TRANSPORT_LOOPBACK_H

#include "coll/core/transport/transport.h"

typedef struct loom_loopback loom_loopback_t;

loom_status_t loom_loopback_create(int nranks, loom_loopback_t **lb_p);
void loom_loopback_destroy(loom_loopback_t *lb);

/* Rank rank's view; peer ids are ranks 0..nranks-1. */
loom_transport_t *loom_loopback_transport(loom_loopback_t *lb, int rank);

/* Bytes rank has sent and received so far (for checking algorithm costs). */
size_t loom_loopback_bytes_sent(const loom_loopback_t *lb, int rank);
size_t loom_loopback_bytes_received(const loom_loopback_t *lb, int rank);

/* Messages posted and not yet matched, over all ranks. */
int loom_loopback_pending(const loom_loopback_t *lb);

/* Cancel every posted and unmatched operation, as a real transport's
 * cancel would: each one completes with LOOM_ERR_TRANSPORT and the
 * transport forgets it.  For a test that gives up on a run (a deadlock, an
 * error), so that the schedules it destroys have nothing outstanding and
 * are freed instead of leaked.  Returns how many operations it cancelled. */
int loom_loopback_cancel_all(loom_loopback_t *lb);

#endif
