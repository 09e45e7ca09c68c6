/*
 * A program: every rank's schedule in one compact block (exec.h builds
 * and runs it).  Shared by the builder and the executor only.
 *
 * One 32-byte record per step holds all the executor touches when the
 * step starts or ends, its dependents included unless it has more than
 * two: at 4096 ranks the steps fill gigabytes and the run is bound by
 * cache misses, so a step must cost as few lines as possible.
 *
 * The steps are interleaved: step k of rank r is record k * p + r, so
 * step k of every rank sits together (ranks run the same step at about
 * the same time, and the executor walks memory nearly in order instead
 * of jumping between p schedules gigabytes apart).  Ranks with fewer
 * steps leave holes, never started.
 *
 * A send and the receive it meets are paired when the program is built
 * (link holds the partner), so running needs no search: each key
 * (source, target, tag) that one send and one receive carry is met the
 * way a tag-matching transport would meet it, whatever the order they
 * post in.  A key carried by several sends or receives (or by a send
 * without its receive) depends on posting order: those keep their tag
 * in link and meet at run time, first posted first matched.
 */
#ifndef LOOM_SIM_PROG_H
#define LOOM_SIM_PROG_H

#include "exec.h"

/* A hole in the interleaved layout, after the loom_step_type_t. */
#define LOOM_SIM_STEP_NONE 0xFF
/* A step the run does not do: of an arm the plan did not take, or of
 * run-time length 0 (exec.h).  Done the moment it starts, at no cost;
 * it keeps its place so that its dependents wait for it as they would. */
#define LOOM_SIM_STEP_SKIP 0xFE

/* loom_sim_step_t.flags */
#define LOOM_SIM_STEP_PAIRED     0x1    /* link is the partner's step, not the tag */
#define LOOM_SIM_STEP_POSTED     0x2    /* while running: posted, the partner not yet */
#define LOOM_SIM_STEP_NDEP_SHIFT 2      /* bits 2-3: dependents, 3 meaning more than 2 */
#define LOOM_SIM_STEP_CPU        0x10   /* while running: its next event ends its overhead */
#define LOOM_SIM_STEP_PAID       0x20   /* while running: its overhead is done */
#define LOOM_SIM_STEP_INLINE_DEPS 2

typedef struct loom_sim_step {
    uint64_t    bytes;
    int32_t     peer;
    int32_t     owner;          /* the rank whose schedule holds it */
    uint32_t    link;           /* PAIRED: the partner's step; else the tag */
    /* Its dependents: up to two here (most steps have one or two, and
     * the record is read anyway when the step ends: no miss in another
     * array); more: dependents[dep0 .. dep0 + dep1 - 1]. */
    uint32_t    dep0, dep1;
    uint8_t     type;           /* loom_step_type_t */
    uint8_t     ndeps;
    uint8_t     pending;        /* while running: deps not yet done */
    uint8_t     flags;
} loom_sim_step_t;

/* While building: the sends and receives of one key seen so far. */
typedef struct loom_sim_meet {
    int32_t     src, dst;       /* src -1: an empty slot */
    uint32_t    tag;
    int32_t     send, recv;     /* the first of each, -1: none yet */
    uint16_t    nsend, nrecv;   /* saturating */
} loom_sim_meet_t;

/* A key to settle once both its ranks are built. */
typedef struct loom_sim_key {
    int32_t     src, dst;
    uint32_t    tag;
} loom_sim_key_t;

struct loom_sim_prog {
    const loom_sim_layout_t *layout;
    int             p;              /* the ranks it runs: the layout's, or
                                     * when folded (fold.h) the first p */
    long            levels;         /* the most steps of one rank */
    long            nsteps;         /* levels * p, holes included */
    long            real_steps;     /* not counting holes */
    int             as_built;       /* no run since the build: every pending
                                     * is ndeps, no step is posted */
    int             arm;            /* the arm rank 0's plan took (exec.h) */
    uint64_t        sent0;          /* bytes rank 0's sends move (exec.h) */
    loom_sim_step_t *steps;
    long            cap_levels;
    int32_t         *dependents;    /* global step indices, of steps with more
                                     * than two, each rank's together */
    long            nedges, cap_edges;
    int32_t         *count;         /* per rank: its steps */
    /* Kept from one build to the next, so that a sweep allocates (and
     * the kernel faults in) the big arrays once. */
    int32_t         *tmp;           /* per step of one rank: dependents, filled,
                                     * the two in the record */
    long            cap_tmp;
    loom_sim_meet_t *meets;         /* open addressing by key */
    long            nmeets, cap_meets;
    loom_sim_key_t  *settle;        /* keys whose other rank is built */
    long            nsettle, cap_settle;
};

/* The rank that owns global step s. */
static inline int loom_sim_prog_rank_of(const loom_sim_prog_t *prog, long s)
{
    return prog->steps[s].owner;
}

/* The ranks each one that runs stands for: 1, or when folded (fold.h)
 * the number of racks a rotation visits. */
static inline int loom_sim_prog_orbit(const loom_sim_prog_t *prog)
{
    return prog->layout->p / prog->p;
}

/* The rank that stands for rank q of the layout in the run (fold.h). */
static inline int loom_sim_prog_rep(const loom_sim_prog_t *prog, int q)
{
    return q % prog->p;
}

/* A message's key (source, target) as the run meets it: when folded,
 * rotated so that the target is one of the ranks that run (a receive's
 * key is so already; a send's is rotated with its target). */
static inline void loom_sim_prog_key(const loom_sim_prog_t *prog, int32_t *src, int32_t *dst)
{
    int32_t n = prog->layout->p, shift = *dst - *dst % prog->p;

    *src = (*src - shift + n) % n;
    *dst -= shift;
}

/* The hash of a message's key (source, target, tag) that the build's
 * pairing table and the executor's matching buckets share: splitmix64's
 * finalizer, so that tags differing only in their high bits (round
 * numbers) still land apart. */
static inline uint64_t loom_sim_key_hash(int32_t src, int32_t dst, uint32_t tag)
{
    uint64_t h = ((uint64_t)(uint32_t)src << 32 | (uint32_t)dst) ^
                 (uint64_t)tag * UINT64_C(0x9E3779B97F4A7C15);

    h ^= h >> 30;
    h *= UINT64_C(0xBF58476D1CE4E5B9);
    h ^= h >> 27;
    h *= UINT64_C(0x94D049BB133111EB);
    h ^= h >> 31;
    return h;
}

#endif
