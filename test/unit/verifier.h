/*
 * A schedule verifier that runs without MPI and without a transport.
 *
 * It plans one allreduce schedule per rank for p ranks in this process and
 * executes the steps itself, in a random (seeded) order chosen among every
 * action possible at each moment: start a step whose dependencies are done,
 * or complete a matched send/receive pair.  Messages are rendezvous (a send
 * stays in flight until its receive completes), the strictest behaviour a
 * transport may show.  Along the way it checks what a real run cannot see:
 * that every send meets a receive of the same size and tag, that no step
 * touches memory an in-flight message still owns or reads memory nothing
 * has written, that nothing deadlocks or stays unmatched; at the end, that
 * every rank holds exactly the combination of every rank's input, bitwise
 * identical everywhere.
 *
 * Inputs are fingerprints of (rank, element), so a missing, duplicated or
 * (with the non-commutative op) misordered contribution changes the result.
 */
#ifndef LOOM_TEST_VERIFIER_H
#define LOOM_TEST_VERIFIER_H

#include "coll/core/allreduce.h"

#include <stddef.h>
#include <stdint.h>

/* Both ops use 16-byte elements, so seg_bytes means the same for both. */
#define LOOM_VERIFY_ELEM_SIZE 16

typedef enum loom_verify_op {
    /* Commutative: two lanes of wrapping uint64 sums of independent 64-bit
     * hashes of (rank, element).  A missing or extra contribution shifts a
     * lane by a pseudo-random 64-bit value, so two such errors cancel only
     * if two hashes collide in both lanes. */
    LOOM_VERIFY_OP_SUM,
    /* Non-commutative: 2x2 matrices over the integers mod 2^31-1, multiplied
     * in rank order (src, the lower ranks, on the left).  Catches every
     * misordering as well. */
    LOOM_VERIFY_OP_MATRIX
} loom_verify_op_t;

typedef enum loom_verify_verdict {
    LOOM_VERIFY_PASS = 0,
    LOOM_VERIFY_REFUSED,          /* every rank's plan said LOOM_ERR_UNSUPPORTED */
    LOOM_VERIFY_PLAN_FAILED,      /* a plan failed, or ranks disagreed on refusing */
    LOOM_VERIFY_BAD_STEP,         /* bad type, peer, dependency, or partial element */
    LOOM_VERIFY_BAD_BUFFER,       /* memory not the rank's own, or a write to its input */
    LOOM_VERIFY_SIZE_MISMATCH,    /* a send met a receive of another size */
    LOOM_VERIFY_AMBIGUOUS_TAG,    /* two unordered messages share source, target and tag */
    LOOM_VERIFY_UNMATCHED,        /* a message no step of the peer will ever match */
    LOOM_VERIFY_DEADLOCK,         /* nothing can move, ranks are not done */
    LOOM_VERIFY_HAZARD,           /* a step touched memory owned by an in-flight message */
    LOOM_VERIFY_UNINITIALIZED,    /* a step read memory nothing had written */
    LOOM_VERIFY_WRONG_RESULT,
    LOOM_VERIFY_REPLICA_MISMATCH, /* ranks disagree bitwise */
    LOOM_VERIFY_SENDBUF_CHANGED,
    LOOM_VERIFY_VERDICT_COUNT
} loom_verify_verdict_t;

/* Which action the simulation picks next. */
typedef enum loom_verify_order {
    /* Uniformly among all possible actions: every interleaving can occur. */
    LOOM_VERIFY_ORDER_UNIFORM,
    /* Uniformly among step starts; a matched message is delivered only when
     * no step can start.  Messages stay in flight as long as possible, so
     * a step that lacks a dependency on one meets it in flight (a hazard)
     * or before it arrived (an uninitialized read) instead of by luck
     * after it. */
    LOOM_VERIFY_ORDER_LATE_DELIVERY
} loom_verify_order_t;

typedef struct loom_verify_params {
    const char          *name;           /* names the algorithm in messages */
    loom_plan_fn_t      plan;
    int                 nranks;
    size_t              count;           /* elements of LOOM_VERIFY_ELEM_SIZE bytes */
    int                 in_place;
    loom_verify_op_t    op;
    size_t              seg_bytes;       /* passed to the plan as is */
    int                 depth;
    int                 ranks_per_node;  /* 0: every rank on a node of its own */
    uint64_t            seed;            /* inputs, context id, sequence number, order */
    loom_verify_order_t order;
} loom_verify_params_t;

typedef struct loom_verify_report {
    loom_verify_verdict_t verdict;
    char                message[1024];   /* empty on PASS */
    long long           nsteps;          /* steps of all ranks' schedules */
    long long           nactions;        /* actions the simulation took */
} loom_verify_report_t;

/* Plans and simulates one allreduce.  Returns LOOM_OK when it reached a
 * verdict (in *report_p, PASS or the first failure found), or the error
 * that kept it from verifying (out of memory, bad parameters). */
loom_status_t loom_verify_run(const loom_verify_params_t *params,
                              loom_verify_report_t *report_p);

/* "pass", "hazard", ...: never NULL. */
const char *loom_verify_verdict_name(loom_verify_verdict_t verdict);

/* Rank rank's input element i, and the expected result element i, as the
 * verifier computes them (for tests of the verifier itself). */
void loom_verify_input(loom_verify_op_t op, uint64_t seed, int rank, size_t i,
                       void *elem);
loom_reduce_fn_t loom_verify_reduce_fn(loom_verify_op_t op);

#endif
