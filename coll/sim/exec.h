/*
 * Running a collective's real schedules on the modeled cluster.
 *
 * A program is every rank's schedule, built by the very plan function the
 * engine runs (one team, its rank set in turn, so building costs O(steps)
 * and not a team per rank) and kept compact: 4096 ranks of a ring are
 * some 80 million steps.  Running it is event-driven: a step starts when
 * its dependencies are done; a send and its receive, once both posted
 * (rendezvous), become a flow (flow.h) and complete alpha after its last
 * byte; reductions and copies take a rank's compute engine in turn.
 *
 * Steps the data decides (sched.h) meet fake buffers here, so nothing the
 * data decides can run: a compute step is priced like a copy of the
 * bytes it says it works through, and its function is never called.  A
 * plan made for the simulator fills its run-time lengths (from what it
 * expects) and takes its arm before it returns: the build reads each
 * length then (over its bound: LOOM_ERR_TRUNCATED), and the arm
 * loom_sched_taken_arm says then.  A step of another arm, or of length 0,
 * stays in the program as a step done at once at no cost (no message), so
 * that its dependents are released as the executor would release them.
 */
#ifndef LOOM_SIM_EXEC_H
#define LOOM_SIM_EXEC_H

#include "model.h"
#include "coll/core/allreduce/allreduce.h"

#include <stddef.h>
#include <stdint.h>

typedef struct loom_sim_prog loom_sim_prog_t;

typedef struct loom_sim_build_params {
    const loom_sim_layout_t *layout;
    loom_plan_fn_t          plan;
    size_t                  bytes;      /* the collective's message size */
    int                     total;      /* bytes is the sum over ranks (allgather,
                                         * reduce_scatter): each rank's count is
                                         * bytes / p / elem_size */
    size_t                  elem_size;  /* 4 unless set */
    size_t                  seg_bytes;
    int                     depth;
    int                     in_place;
    int                     fold;       /* run one rack for all when the run
                                         * is symmetric (fold.h) */
    /* The sparse allreduce's (sparse.h), with modeled set: every rank's
     * plan takes its selection from it; NULL for every other collective. */
    const struct loom_sparse_args *sparse;
} loom_sim_build_params_t;

/* A team of the layout's ranks (rank 0's view) with its nodes and racks,
 * as the engine's adapter would create it, in the layout's rank order. */
loom_status_t loom_sim_layout_team(const loom_sim_layout_t *lay, loom_team_t **team_p);

/* An empty program for layout's ranks (layout must outlive it). */
loom_status_t loom_sim_prog_create(const loom_sim_layout_t *layout, loom_sim_prog_t **prog_p);

/* Builds every rank's schedule into prog, replacing what it held and
 * reusing its memory: a sweep keeps one program across sizes and
 * algorithms, so the gigabytes of a 4096-rank one are allocated and
 * faulted in once.  params->layout must be prog's.  A plan that refuses
 * (LOOM_ERR_UNSUPPORTED for a size or layout it does not handle) returns
 * its status and leaves prog empty. */
loom_status_t loom_sim_prog_plan(loom_sim_prog_t *prog, const loom_sim_build_params_t *params);

/* The arm (sched.h) the plans took, as rank 0's plan took it before it
 * returned: 0 when none did (a plan without arms). */
int loom_sim_prog_arm(const loom_sim_prog_t *prog);

/* The bytes rank 0's plan sends, steps of arms not taken and empty
 * run-time lengths left out: what one rank puts on the wire. */
uint64_t loom_sim_prog_sent0(const loom_sim_prog_t *prog);

/* loom_sim_prog_create, then loom_sim_prog_plan; nothing is handed out
 * when planning fails. */
loom_status_t loom_sim_prog_build(const loom_sim_build_params_t *params,
                                  loom_sim_prog_t **prog_p);
void loom_sim_prog_destroy(loom_sim_prog_t *prog);

typedef struct loom_sim_result {
    double  time_s;         /* from the start of every rank to the last step done */
    long    steps;
    long    messages;
    double  bytes_sent;     /* over all ranks */
} loom_sim_result_t;

/* Executes prog on the model (its steps keep the run's counters, so one
 * program runs once at a time); LOOM_ERR_DEADLOCK when steps are left
 * that nothing can start (a schedule bug). */
loom_status_t loom_sim_prog_run(loom_sim_prog_t *prog, const loom_sim_model_t *model,
                                loom_sim_result_t *result_p);

#endif
