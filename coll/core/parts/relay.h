/*
 * The pipelined relay that chain bcasts are made of (bcast_chain.c: one
 * chain; bcast_hier.c: a chain per level).
 *
 * The message is cut into segments; a rank receives each segment from the
 * rank above it straight into its place in the receive buffer, and sends
 * it on to every rank below it as soon as it is in.  So every link of a
 * chain carries a different segment at the same time.  Every receive is
 * posted at once: segments go to distinct places, no scratch, no depth.
 *
 *   up -> this rank -> down[0], down[1], ...   segment j+1 follows j
 *
 * Segment j is tag step j; with more segments than tag steps the
 * segments get larger (loom_seg_elems), alike on every rank.
 */
#ifndef LOOM_RELAY_H
#define LOOM_RELAY_H

#include "coll/core/engine/sched.h"

#include <stddef.h>

/* Adds the relay of args->recvbuf (args->count elements in segments of
 * args->seg_bytes, def_seg_bytes where that is 0) to sched: received from
 * up (-1: this rank holds the data, the root), sent to each of down[0 ..
 * ndown-1] that is not -1, in that order (post the slowest link first).
 * Errors stay in the schedule's build status. */
void loom_relay_add(loom_sched_t *sched, const loom_coll_args_t *args, size_t def_seg_bytes,
                    int up, const int *down, int ndown);

#endif
