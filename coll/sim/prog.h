/*
 * A program: every rank's schedule in one compact block (exec.h builds
 * and runs it).  Shared by the builder and the executor only.
 */
#ifndef LOOM_SIM_PROG_H
#define LOOM_SIM_PROG_H

#include "exec.h"

typedef struct loom_sim_step {
    uint64_t    bytes;
    int32_t     peer;
    uint32_t    tag;
} loom_sim_step_t;

struct loom_sim_prog {
    const loom_sim_layout_t *layout;
    int             p;
    long            nsteps;
    long            *base;          /* p + 1: rank r's steps are base[r] .. base[r+1]-1 */
    loom_sim_step_t *steps;
    uint8_t         *type;          /* loom_step_type_t */
    uint8_t         *ndeps;
    int32_t         *owner;         /* the rank of each step (a search per lookup was
                                     * a third of the run time at 1024 ranks) */
    long            *dep_at;        /* nsteps + 1 offsets into dependents */
    int32_t         *dependents;    /* global step indices */
    long            cap_steps, cap_edges;
    long            nedges;
};

/* The rank that owns global step s. */
static inline int loom_sim_prog_rank_of(const loom_sim_prog_t *prog, long s)
{
    return prog->owner[s];
}

#endif
