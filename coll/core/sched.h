/*
 * Schedules: one rank's part of a collective, as data.
 *
 * An algorithm appends steps (send, receive, reduce, copy); a step starts
 * once every step it depends on is done.  Because a schedule is data, the
 * same algorithm runs on UCX, on the loopback transport and, later, in the
 * simulator and the verifier.
 *
 * The executor is nonblocking and may be entered from a progress callback
 * while an outer call of it is running (Open MPI calls progress from inside
 * blocking waits): the inner call then returns at once.
 */
#ifndef LOOM_SCHED_H
#define LOOM_SCHED_H

#include "args.h"
#include "team.h"

#define LOOM_STEP_MAX_DEPS 4

typedef enum loom_step_type {
    LOOM_STEP_SEND,
    LOOM_STEP_RECV,
    LOOM_STEP_REDUCE,   /* dst = src (op) dst, bytes / elem_size elements */
    LOOM_STEP_COPY      /* memcpy(dst, src, bytes) */
} loom_step_type_t;

typedef struct loom_step_desc {
    loom_step_type_t    type;
    int                 peer;          /* team rank, for send and recv */
    uint32_t            tag_step;      /* tells messages of one collective apart */
    const void          *src;
    void                *dst;
    size_t              bytes;
    int                 deps[LOOM_STEP_MAX_DEPS]; /* step indices; < 0 means none */
    int                 ndeps;
} loom_step_desc_t;

typedef enum loom_step_state {
    LOOM_STEP_WAITING = 0,
    LOOM_STEP_POSTED,
    LOOM_STEP_DONE
} loom_step_state_t;

typedef struct loom_step {
    loom_step_desc_t    desc;
    loom_step_state_t   state;
    loom_completion_t   comp;
} loom_step_t;

typedef struct loom_sched {
    loom_team_t         *team;
    loom_coll_args_t    args;
    unsigned            alg_id;        /* goes into every tag */
    uint32_t            seq;
    loom_step_t         *steps;
    int                 nsteps;
    int                 capacity;
    int                 ndone;
    int                 first_pending; /* every step before it is done */
    void                *scratch;
    loom_status_t       status;        /* LOOM_INPROGRESS until done or failed */
    int                 busy;          /* re-entrancy guard */
} loom_sched_t;

/* An empty schedule for one collective on team; takes the team's next
 * sequence number. */
loom_status_t loom_sched_create(loom_team_t *team, const loom_coll_args_t *args,
                                unsigned alg_id, loom_sched_t **sched_p);

/* Frees the schedule.  One with operations still posted (after a failure)
 * is left allocated, because the transport will still write to it. */
void loom_sched_destroy(loom_sched_t *sched);

/* Appends a step; its index goes to *index_p. */
loom_status_t loom_sched_add(loom_sched_t *sched, const loom_step_desc_t *desc,
                             int *index_p);

/* Scratch memory owned by the schedule, freed with it; one area per schedule. */
loom_status_t loom_sched_alloc_scratch(loom_sched_t *sched, size_t bytes,
                                       void **scratch_p);

/* Starts every ready step, then progresses the transport once.
 * Returns LOOM_OK when all steps are done, LOOM_INPROGRESS, or an error. */
loom_status_t loom_sched_progress(loom_sched_t *sched);

#endif
