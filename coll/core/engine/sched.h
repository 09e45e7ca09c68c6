/*
 * Schedules: one rank's part of a collective, as data.
 *
 * An algorithm appends steps (send, receive, reduce, copy, compute); a step
 * starts once every step it depends on is done.  Because a schedule is
 * data, the same algorithm runs on UCX, on the loopback transport, in the
 * simulator and in the verifier.
 *
 * Three things let a plan leave to run time what only the data can decide
 * (a sparse allreduce selects entries, exchanges how many each rank has,
 * then exchanges that many or switches to a dense algorithm):
 *   - a compute step calls a function on the rank's own memory;
 *   - a send, receive or copy may read its length when it starts, from
 *     memory a compute step (or a received count) filled: the length
 *     given when building is then only its bound;
 *   - arms: steps built after loom_sched_build_arm(sched, a) run only if a
 *     compute step took arm a (loom_sched_take_arm); the steps of another
 *     arm are done at once without running, so their dependents proceed.
 *     Every rank must take the same arm (they decide from the same data),
 *     and a plan makes each arm's first steps depend on the deciding step.
 * A plan may declare the memory a compute step reads and writes
 * (loom_sched_compute_reads/_writes), so that the verifier checks it as it
 * checks a copy's; the executor ignores the declarations.
 *
 * The executor is nonblocking and may be entered from a progress callback
 * while an outer call of it is running (Open MPI calls progress from inside
 * blocking waits): the inner call then returns at once.
 */
#ifndef LOOM_SCHED_H
#define LOOM_SCHED_H

#include "coll/core/engine/args.h"
#include "coll/core/engine/team.h"

#define LOOM_STEP_MAX_DEPS 4

typedef enum loom_step_type {
    LOOM_STEP_SEND,
    LOOM_STEP_RECV,
    LOOM_STEP_REDUCE,   /* dst = src (op) dst, bytes / elem_size elements */
    LOOM_STEP_COPY,     /* memcpy(dst, src, bytes) */
    LOOM_STEP_COMPUTE   /* fn(sched, dst): work only the data can decide (select, merge) */
} loom_step_type_t;

typedef struct loom_sched loom_sched_t;

/* A compute step's function: runs when the step starts, on the rank's own
 * memory; may set run-time lengths and take an arm.  An error it returns
 * fails the schedule. */
typedef loom_status_t (*loom_compute_fn_t)(loom_sched_t *sched, void *arg);

typedef struct loom_step_desc {
    loom_step_type_t    type;
    int                 peer;          /* team rank, for send and recv */
    uint32_t            tag_step;      /* tells messages of one collective apart */
    const void          *src;
    void                *dst;
    size_t              bytes;         /* with len_at: the bound; COMPUTE: memory it works through */
    int                 deps[LOOM_STEP_MAX_DEPS]; /* step indices; < 0 means none */
    int                 ndeps;
    unsigned char       arm;           /* 0: on every path; else runs only if the schedule takes it */
    loom_compute_fn_t   fn;            /* COMPUTE: called with dst as its arg */
    const size_t        *len_at;       /* SEND, RECV, COPY: NULL, or where the length is read
                                        * when the step starts (at most bytes) */
} loom_step_desc_t;

typedef enum loom_step_state {
    LOOM_STEP_WAITING = 0,
    LOOM_STEP_POSTED,
    LOOM_STEP_DONE
} loom_step_state_t;

/* What a compute step declares it reads or writes (loom_sched_compute_reads,
 * loom_sched_compute_writes): kept beside the steps for the verifier; the
 * executor never reads it. */
typedef struct loom_compute_access {
    int                 step;          /* the compute step's index */
    int                 writes;        /* 1: it writes the bytes, 0: it reads them */
    const void          *at;
    size_t              bytes;         /* with len_at: the bound */
    const size_t        *len_at;       /* reads only: NULL, or where the length is
                                        * read when the step starts (at most bytes) */
} loom_compute_access_t;

typedef struct loom_step {
    loom_step_desc_t    desc;
    loom_step_state_t   state;
    loom_completion_t   comp;
    size_t              len;           /* with desc.len_at: the length read at start */
} loom_step_t;

struct loom_sched {
    struct loom_sched   *next_spare;   /* on the team's list of reusable schedules */
    loom_team_t         *team;
    loom_coll_args_t    args;
    unsigned            alg_id;        /* goes into every tag */
    uint32_t            seq;
    loom_order_t        *order;        /* the team's rank order at seq (NULL: identity) */
    loom_step_t         *steps;
    int                 nsteps;
    int                 capacity;
    int                 ndone;
    /* Executor state, built at the first progress call: per step the deps
     * not yet done, the steps that wait on it (CSR), a FIFO of ready steps
     * and the list of posted ones.  Progress then costs O(posted + ready),
     * not O(steps). */
    int                 prepared;
    int                 *exec;          /* one block for the arrays below */
    int                 exec_capacity;
    int                 *pending_deps;
    int                 *dependents_at; /* nsteps + 1 offsets into dependents */
    int                 *dependents;
    int                 *ready;
    int                 ready_head, ready_tail;
    int                 *posted;
    int                 nposted;
    void                *scratch;      /* from the pool */
    size_t              scratch_bytes; /* as requested (the pool may give more) */
    int                 *ints;         /* algorithm bookkeeping, kept for reuse */
    int                 ints_capacity;
    loom_status_t       build_status;  /* first error while steps were added */
    loom_status_t       status;        /* LOOM_INPROGRESS until done or failed */
    int                 busy;          /* re-entrancy guard */
    int                 build_arm;     /* the arm steps appended now carry (0: every path) */
    int                 taken_arm;     /* the arm a compute step took (0: none yet) */
    loom_status_t       arm_status;    /* a second, different arm taken: the error */
    /* What compute steps declared they read and write, in the order
     * declared; kept for reuse like the steps.  Plans without compute
     * steps leave it empty. */
    loom_compute_access_t *access;
    int                 naccess;
    int                 access_capacity;
};

/* An empty schedule for one collective on team; takes the team's next
 * sequence number.  Reuses a schedule the team has kept, so the hot path
 * does not allocate. */
loom_status_t loom_sched_create(loom_team_t *team, const loom_coll_args_t *args,
                                unsigned alg_id, loom_sched_t **sched_p);

/* The rank order this call places ranks by (team.h): the team's order at
 * the schedule's sequence number, fixed for the schedule's life.  A
 * collective that does not reduce asks loom_sched_order; one that reduces
 * asks loom_sched_reduce_order, which is the identity (NULL) for a
 * non-commutative op (combined in rank order) and in the reproducible
 * mode (combined in the canonical order): there the order must not change
 * a bit of the result. */
static inline const loom_order_t *loom_sched_order(const loom_sched_t *sched)
{
    return sched->order;
}

static inline const loom_order_t *loom_sched_reduce_order(const loom_sched_t *sched)
{
    return sched->args.op.commutative && !sched->args.reproducible ? sched->order : NULL;
}

/* Releases the schedule (to the team for reuse).  One with operations still
 * posted (after a failure) is left allocated, because the transport will
 * still write to it. */
void loom_sched_destroy(loom_sched_t *sched);

/* Frees the schedules a team keeps for reuse (at team destruction). */
void loom_sched_free_spares(loom_team_t *team);

/* Appends a step; its index goes to *index_p. */
loom_status_t loom_sched_add(loom_sched_t *sched, const loom_step_desc_t *desc,
                             int *index_p);

/* Scratch memory owned by the schedule, from the pool, returned with it;
 * one area per schedule. */
loom_status_t loom_sched_alloc_scratch(loom_sched_t *sched, size_t bytes,
                                       void **scratch_p);

/* n ints of bookkeeping for the algorithm that builds the schedule
 * (for example the index of each round's send); valid until destroy. */
loom_status_t loom_sched_alloc_ints(loom_sched_t *sched, int n, int **ints_p);

/*
 * Builders.  Each appends one step and returns its index, or -1 when the
 * step is empty (a message or reduction of 0 bytes, a copy onto itself:
 * both ends of a message compute the same sizes, so both skip) or when
 * adding failed.  A failure is remembered: check loom_sched_build_status()
 * once after building.  Negative dependency indices mean "none".
 */
typedef struct loom_deps {
    int d[LOOM_STEP_MAX_DEPS];
    int n;
} loom_deps_t;

#define LOOM_DEPS(...) \
    ((loom_deps_t){ .d = { __VA_ARGS__ }, .n = sizeof((int[]){ __VA_ARGS__ }) / sizeof(int) })
#define LOOM_NO_DEPS ((loom_deps_t){ .n = 0 })

/* The one builder behind the four below: appends a step of any type.
 * The four are inline so that a plan's LOOM_DEPS(...) reaches it by
 * address, read back in the ints it was written in (a 20-byte struct
 * passed by value is copied in wider words, which stalls on the narrow
 * stores that built it: a fifth of a large plan's time). */
int loom_sched_step(loom_sched_t *sched, loom_step_type_t type, int peer, uint32_t tag_step,
                    const void *src, void *dst, size_t bytes, const loom_deps_t *deps);

static inline int loom_sched_send(loom_sched_t *sched, int peer, uint32_t tag_step,
                                  const void *buf, size_t bytes, loom_deps_t deps)
{
    return bytes == 0 ? -1
                      : loom_sched_step(sched, LOOM_STEP_SEND, peer, tag_step, buf, NULL, bytes,
                                        &deps);
}

static inline int loom_sched_recv(loom_sched_t *sched, int peer, uint32_t tag_step, void *buf,
                                  size_t bytes, loom_deps_t deps)
{
    return bytes == 0 ? -1
                      : loom_sched_step(sched, LOOM_STEP_RECV, peer, tag_step, NULL, buf, bytes,
                                        &deps);
}

/* dst = src (op) dst over bytes / elem_size elements. */
static inline int loom_sched_reduce(loom_sched_t *sched, const void *src, void *dst,
                                    size_t bytes, loom_deps_t deps)
{
    return bytes == 0 ? -1
                      : loom_sched_step(sched, LOOM_STEP_REDUCE, 0, 0, src, dst, bytes, &deps);
}

static inline int loom_sched_copy(loom_sched_t *sched, const void *src, void *dst,
                                  size_t bytes, loom_deps_t deps)
{
    return bytes == 0 || src == dst
               ? -1
               : loom_sched_step(sched, LOOM_STEP_COPY, 0, 0, src, dst, bytes, &deps);
}

/*
 * Steps whose work or length only the data decides.
 *
 * A compute step calls fn(sched, arg) when it starts, on this rank's own
 * memory; bytes is the memory it works through, what the simulator prices
 * it by (like a copy of bytes).  Returns the step's index (never -1 unless
 * adding failed).
 */
int loom_sched_compute(loom_sched_t *sched, loom_compute_fn_t fn, void *arg, size_t bytes,
                       loom_deps_t deps);

/*
 * What a compute step reads and writes, declared after adding it: a plan
 * tells, for the verifier, which of its memory a step's function works on
 * (the executor, UCX's and the loopback's, never looks).  The verifier
 * (test/unit/support/verifier_sim.c) then treats the step as it treats a
 * copy: what it reads and writes must not be owned by a message in flight
 * (a hazard), what it reads must have been written, and what it writes
 * counts as written once it returned.  Memory a compute step touches
 * without declaring it stays opaque there: unchecked, and still unwritten
 * for later steps.
 *
 * Declare whole regions the function may touch: a write declared is taken
 * as written in full (a selection of k pairs into room for kmax may declare
 * the room).  A read of run-time length (the part of a block a received
 * length says holds data) reads *len_at when the step starts; bytes is then
 * its bound (a write takes none).  step is the index loom_sched_compute returned (-1, a step
 * that failed to add, is ignored: the build status says why); another
 * step's index fails the build (LOOM_ERR_INVALID_PARAM).  Declaring costs a
 * table entry at build time and nothing when the schedule runs.
 */
void loom_sched_compute_access(loom_sched_t *sched, const loom_compute_access_t *access);

static inline void loom_sched_compute_reads(loom_sched_t *sched, int step, const void *at,
                                            size_t bytes)
{
    loom_compute_access_t a = { .step = step, .writes = 0, .at = at, .bytes = bytes };

    loom_sched_compute_access(sched, &a);
}

static inline void loom_sched_compute_reads_len(loom_sched_t *sched, int step,
                                                const void *at, size_t bound,
                                                const size_t *len_at)
{
    loom_compute_access_t a = { .step = step, .writes = 0, .at = at, .bytes = bound,
                                .len_at = len_at };

    loom_sched_compute_access(sched, &a);
}

static inline void loom_sched_compute_writes(loom_sched_t *sched, int step, void *at,
                                             size_t bytes)
{
    loom_compute_access_t a = { .step = step, .writes = 1, .at = at, .bytes = bytes };

    loom_sched_compute_access(sched, &a);
}

/* A send, receive or copy whose length is read from *len_at when the step
 * starts; bound is the most it may be (the buffer's room).  Bound 0 is an
 * empty step (-1).  At start: a length over the bound fails the schedule
 * (LOOM_ERR_TRUNCATED); 0 finishes the step at once with no message (both
 * ends compute their lengths from the same data, so both skip); otherwise
 * the step moves that many bytes, and a receive must get exactly that many. */
int loom_sched_send_len(loom_sched_t *sched, int peer, uint32_t tag_step, const void *buf,
                        size_t bound, const size_t *len_at, loom_deps_t deps);
int loom_sched_recv_len(loom_sched_t *sched, int peer, uint32_t tag_step, void *buf,
                        size_t bound, const size_t *len_at, loom_deps_t deps);
int loom_sched_copy_len(loom_sched_t *sched, const void *src, void *dst, size_t bound,
                        const size_t *len_at, loom_deps_t deps);

/* Steps appended after this carry arm (1 to 255; 0 again: every path).
 * Another value fails the build (LOOM_ERR_INVALID_PARAM). */
void loom_sched_build_arm(loom_sched_t *sched, int arm);

/* Called by a compute step, once: the schedule takes arm (1 to 255).
 * The steps of other arms are then done without running.  Taking a
 * second, different arm (or a value out of range) fails the schedule when
 * the compute step returns. */
void loom_sched_take_arm(loom_sched_t *sched, int arm);

/* The arm taken, 0 while none is. */
static inline int loom_sched_taken_arm(const loom_sched_t *sched)
{
    return sched->taken_arm;
}

/* Out of place, a first step copying the whole input into the receive
 * buffer; in place, nothing (-1). */
int loom_sched_copy_input(loom_sched_t *sched);

static inline loom_status_t loom_sched_build_status(const loom_sched_t *sched)
{
    return sched->build_status;
}

/* Ends a plan: hands the schedule out through *sched_p, or, when adding a
 * step or an allocation failed while building, destroys it and returns
 * that error. */
loom_status_t loom_sched_plan_done(loom_sched_t *sched, loom_sched_t **sched_p);

/* Starts every ready step, then progresses the transport once.
 * Returns LOOM_OK when all steps are done, LOOM_INPROGRESS, or an error. */
loom_status_t loom_sched_progress(loom_sched_t *sched);

/* Describe in buf (len > 0) what sched waits for: its sequence number,
 * steps done, and up to three posted steps not complete with their peers.
 * Returns the length written (truncated to fit). */
size_t loom_sched_describe_wait(const loom_sched_t *sched, char *buf, size_t len);

#endif
