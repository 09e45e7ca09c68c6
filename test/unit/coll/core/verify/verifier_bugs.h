/* Deliberately broken schedules, for proving that the verifier catches
 * each kind of bug.  One plan function, with the bug chosen beforehand. */
#ifndef LOOM_TEST_VERIFIER_BUGS_H
#define LOOM_TEST_VERIFIER_BUGS_H

#include "coll/core/allreduce/allreduce.h"

typedef enum vbug {
    VBUG_NONE,            /* a correct algorithm, for any op */
    VBUG_SKIP_REDUCE,     /* one rank's contribution is received, never reduced */
    VBUG_DOUBLE_REDUCE,   /* one rank's contribution is reduced twice */
    VBUG_WRONG_ORDER,     /* higher rank on the src side: fine for sum only */
    VBUG_SIZE_MISMATCH,   /* one rank sends an element less than the root expects */
    VBUG_OVERWRITE,       /* result received into the buffer still being sent */
    VBUG_READ_TOO_EARLY,  /* a reduce does not wait for its receive */
    VBUG_DEADLOCK,        /* non-roots receive before they send */
    VBUG_WRONG_TAG,       /* one rank's send carries another tag_step */
    VBUG_AMBIGUOUS,       /* a message in two halves under one tag */
    VBUG_OUT_OF_BOUNDS,   /* the root sends one element past its buffer */
    VBUG_WRITE_SENDBUF,   /* a copy into the caller's send buffer */
    VBUG_NO_COPY,         /* out of place, the input is never copied in */
    VBUG_BAD_DEP,         /* a dependency on a step that does not exist */
    VBUG_DISAGREE,        /* the last rank refuses what the others accept */
    VBUG_ALG_MISMATCH,    /* the last rank tags its messages as another algorithm */
    VBUG_SCRIBBLE_INPUT,  /* the plan writes into the send buffer itself */
    VBUG_COUNT
} vbug_t;

/* The bug the next plans carry. */
void vbug_set(vbug_t bug);

/* Linear allreduce: every rank sends its input to rank 0, which reduces
 * them in rank order and sends the result back.  Correct for any op when
 * no bug is set. */
loom_status_t vbug_linear_plan(const loom_coll_args_t *args, loom_team_t *team,
                               loom_sched_t **sched_p);

#endif
