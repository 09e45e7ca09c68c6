/*
 * A program: every rank's schedule in one compact block (exec.h builds
 * and runs it).  Shared by the builder and the executor only.
 *
 * One 32-byte record per step holds all the executor touches when the
 * step starts or ends, and its dependents sit in one array in step order:
 * at 4096 ranks the steps fill gigabytes and the run is bound by cache
 * misses, so a step must cost as few lines as possible.
 */
#ifndef LOOM_SIM_PROG_H
#define LOOM_SIM_PROG_H

#include "exec.h"

/* A hole in the interleaved layout (prog.c), after the loom_step_type_t. */
#define LOOM_SIM_STEP_NONE 0xFF

typedef struct loom_sim_step {
    uint64_t    bytes;
    int32_t     peer;
    uint32_t    tag;
    int32_t     owner;          /* the rank whose schedule holds it */
    uint32_t    dep_first;      /* its dependents: dependents[dep_first ..] */
    uint16_t    ndependents;
    uint8_t     type;           /* loom_step_type_t */
    uint8_t     ndeps;
    uint8_t     pending;        /* while running: deps not yet done */
} loom_sim_step_t;

struct loom_sim_prog {
    const loom_sim_layout_t *layout;
    int             p;
    long            nsteps;
    long            *base;          /* while building, p + 1: rank r's steps are
                                     * base[r] .. base[r+1]-1; then interleaved */
    long            real_steps;     /* not counting holes */
    loom_sim_step_t *steps;
    int32_t         *dependents;    /* global step indices */
    long            cap_steps, cap_edges;
    long            nedges;
};

/* The rank that owns global step s. */
static inline int loom_sim_prog_rank_of(const loom_sim_prog_t *prog, long s)
{
    return prog->steps[s].owner;
}

#endif
