/*
 * The step tracker: which step a filtered call belongs to and its
 * position in that step, found from the calls' counts alone (the
 * application says nothing), one tracker per communicator.
 *
 * A training loop issues the same sequence of filtered allreduces every
 * step.  The tracker learns that sequence as the shortest period of the
 * counts seen: it keeps the counts since it began learning and, with the
 * Knuth-Morris-Pratt failure function, the shortest p such that the
 * history repeats with period p.  It locks once the history is two or
 * more whole repetitions of the period (length a multiple of p, at least
 * 2p).  Locked, call j of a step has position j and must have the count
 * the pattern holds there; the position wraps to 0, and the step number
 * advances, after the pattern's last call.
 *
 *     calls   A B C A B C A B C ...      A B A B C | A B A B C ...
 *     learn   ------------> locked        learning (see 2. below)
 *     pos     . . . 0 1 2 0 1 2
 *
 * While learning (locked == 0) the call must run dense and touch no
 * residual: its position is not final.  Locking takes two steps.
 *
 * A locked call whose count differs from the pattern's is a pattern
 * change (another sequence mid-run, an evaluation pass, frozen layers):
 * the tracker counts a reset, starts a new step and learns again from
 * that call, so the next two steps run dense.
 *
 * Failure modes, all confined to learning:
 *  1. A history longer than max_calls without a period (no two steps
 *     alike, or steps of more than max_calls / 2 calls) never locks: the
 *     tracker drops the history and starts again, and the calls stay
 *     dense.  Counted as a reset.  Filtered calls of other counts before
 *     the training loop on the same communicator (a first pass, an
 *     evaluation) make such a history: learning starts at the first
 *     call, and the history is periodic only from the loop on.  Give
 *     filtering a communicator of its own for the gradients (as
 *     examples/train_mlp does), or mark steps (loom_filter_step in
 *     include/loom/filter.h, which calls loom_filter_steps_mark).
 *  2. A sequence that opens with a run that repeats (A A A B, or
 *     A B A B C) locks early on the run (A, or A B), and the calls after
 *     the lock, up to the first different count, are filtered in the
 *     wrong frame: two gradients of the same count share a slot for that
 *     one step, so one's delayed residual is applied to the other once.
 *     The lock then breaks at the different count, and learning from
 *     there finds the true period.  Slots are keyed by count as well as
 *     position, so gradients of different sizes never mix.
 *  3. Every call of the same count (one fusion buffer size) cannot show
 *     a step from counts: the tracker locks with period 1 and every call
 *     shares one slot.  An application that knows its steps calls
 *     loom_filter_step (loom_filter_steps_mark here), which switches the tracker
 *     to explicit steps for good: the position is the call's index since
 *     the last mark.
 */
#ifndef LOOM_FILTER_STEPS_H
#define LOOM_FILTER_STEPS_H

#include "loom/status.h"

#include <stddef.h>
#include <stdint.h>

#define LOOM_FILTER_STEPS_MAX_CALLS_DEFAULT ((size_t)1 << 16)

typedef struct loom_filter_steps loom_filter_steps_t;

/* What the tracker says of one call. */
typedef struct loom_filter_call {
    uint64_t    step;       /* the step it belongs to (warm-up counts these) */
    uint32_t    position;   /* its place in the step; final only if locked */
    int         locked;     /* 1: filter it with slot (position, count) */
    int         reset;      /* 1: this call broke the pattern (a reset) */
} loom_filter_call_t;

/* A tracker that learns over at most max_calls calls (>= 2). */
loom_status_t loom_filter_steps_create(size_t max_calls,
                                       loom_filter_steps_t **steps_p);

void loom_filter_steps_destroy(loom_filter_steps_t *steps);

/*
 * Records one filtered call of count elements and says where it falls.
 * LOOM_ERR_NO_MEMORY if the history cannot grow: then the call is dense
 * (*call_p says locked == 0) and the tracker learns again from the next
 * call.
 */
loom_status_t loom_filter_steps_next(loom_filter_steps_t *steps, size_t count,
                                     loom_filter_call_t *call_p);

/*
 * A step starts here, by the application's word (loom_filter_step,
 * include/loom/filter.h; failure mode 3 above).  The first mark switches
 * the tracker to explicit steps for good: it never learns again, every
 * call is locked, its position is its index since the last mark and its
 * step the number of marks so far minus one -- 0 for the first marked
 * step when no call came before it, else one more than the step of the
 * last call before it (the calls before the first mark were placed by
 * learning, and ran dense while it learned).  A call before any mark is
 * placed by learning, as if no mark would ever come.
 */
void loom_filter_steps_mark(loom_filter_steps_t *steps);

/* Whether a mark was ever made: positions come from marks. */
int loom_filter_steps_explicit(const loom_filter_steps_t *steps);

/* The step a call outside the tracker belongs to (a named slot's call,
 * which takes no position): the current marked step, or without marks
 * the step of the last call answered (0 before any). */
uint64_t loom_filter_steps_current(const loom_filter_steps_t *steps);

/* Pattern changes and histories given up on, since creation. */
uint64_t loom_filter_steps_resets(const loom_filter_steps_t *steps);

/* The period once locked, else 0. */
size_t loom_filter_steps_period(const loom_filter_steps_t *steps);

#endif
