/*
 * Joining many steps into one.
 *
 * A step waits on at most LOOM_STEP_MAX_DEPS others.  When a step must
 * wait for many (an in-place result may overwrite its input only after
 * every step that read the input is done), a tree of empty copies, each
 * waiting on up to LOOM_STEP_MAX_DEPS steps, gathers them: about n / 3
 * extra local steps that cost nothing to run.
 */
#ifndef LOOM_SCHED_JOIN_H
#define LOOM_SCHED_JOIN_H

#include "coll/core/engine/sched.h"

/* A step that is done once every step in [from, to) is done; -1 when the
 * range is empty or building failed (remembered in the schedule's build
 * status).  With a single step in the range, that step. */
int loom_sched_join(loom_sched_t *sched, int from, int to);

/* The same for the n steps listed (not a range), skipping negative ones:
 * a chain of empty copies, each adding up to LOOM_STEP_MAX_DEPS - 1 steps
 * (for a few steps scattered through a schedule). */
int loom_sched_join_steps(loom_sched_t *sched, const int *steps, int n);

#endif
