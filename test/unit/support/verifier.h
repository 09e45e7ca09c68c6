/*
 * A schedule verifier that runs without MPI and without a transport.
 *
 * It plans one collective's schedule per rank (which collective, and what
 * each rank must end with, is a loom_verify_coll_t: allreduce, bcast,
 * reduce, reduce_scatter(_block) and allgather(v) are below;
 * verifier_colls.c shows how to add one) for p ranks in this process and
 * executes the steps itself, in a random (seeded) order chosen among every
 * action possible at each moment: start a step whose dependencies are done,
 * or complete a matched send/receive pair.  Messages are rendezvous (a send
 * stays in flight until its receive completes), the strictest behaviour a
 * transport may show.  Along the way it checks what a real run cannot see:
 * that every send meets a receive of the same size and tag, that no step
 * touches memory an in-flight message still owns or reads memory nothing
 * has written, that nothing deadlocks or stays unmatched; at the end, that
 * every rank holds exactly the combination of every rank's input, bitwise
 * identical everywhere.  A compute step is checked as far as its plan
 * declared what it reads and writes (sched.h, loom_sched_compute_reads
 * and _writes); what it touches undeclared is opaque (verifier_sim.c).
 *
 * Inputs are fingerprints of (rank, element), so a missing, duplicated or
 * (with the non-commutative op) misordered contribution changes the result.
 * The teams may carry a rank order (rank_order, rank_permute): every
 * result must stay what it is without one.
 */
#ifndef LOOM_TEST_VERIFIER_H
#define LOOM_TEST_VERIFIER_H

#include "coll/core/allgather/allgather.h"
#include "coll/core/allreduce/allreduce.h"
#include "coll/core/bcast/bcast.h"
#include "coll/core/reduce/reduce.h"
#include "coll/core/reduce_scatter/reduce_scatter.h"
#include "coll/core/sparse/sparse.h"

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

typedef struct loom_verify_coll loom_verify_coll_t;

/* What the ranks of a sparse allreduce (loom_verify_sparse_allreduce)
 * select. */
typedef enum loom_verify_support {
    LOOM_VERIFY_SUPPORT_RANDOM,   /* each rank: random indices, a random number
                                   * of them up to kmax */
    LOOM_VERIFY_SUPPORT_EMPTY,    /* no rank selects anything */
    LOOM_VERIFY_SUPPORT_FULL      /* every rank selects kmax: with kmax 0, all */
} loom_verify_support_t;

typedef struct loom_verify_sparse {
    loom_verify_support_t support;
    size_t              kmax;     /* pairs a rank may select; 0: the vector's length */
    loom_sparse_path_t  path;     /* passed to the plan as is */
} loom_verify_sparse_t;

typedef struct loom_verify_params {
    const char          *name;           /* names the algorithm in messages */
    const loom_verify_coll_t *coll;      /* NULL: allreduce */
    loom_plan_fn_t      plan;
    int                 root;            /* for rooted collectives */
    int                 nranks;
    size_t              count;           /* elements of LOOM_VERIFY_ELEM_SIZE bytes */
    int                 in_place;
    loom_verify_op_t    op;
    size_t              seg_bytes;       /* passed to the plan as is */
    int                 depth;
    int                 ranks_per_node;  /* 0: every rank on a node of its own */
    const int           *node_of;        /* nranks entries: node of each rank (any
                                          * layout); NULL: ranks_per_node decides */
    const int           *rack_of;        /* nranks entries: rack of each rank (a node's
                                          * ranks share one); NULL: one rack */
    uint64_t            seed;            /* inputs, context id, sequence number, order */
    loom_verify_order_t order;
    /* The teams' rank order (engine/team.h), set on every rank's team to
     * take effect at the planned collective: the rank at each position,
     * nranks entries; NULL: rank_permute says.  The expected results do
     * not change with it: a sum is the same sum in any order (the SUM
     * fingerprints are exact), the non-commutative op and the
     * reproducible mode must keep rank order (the same bits as without an
     * order), and blocks and roots' data stay their ranks'. */
    const int           *rank_order;
    /* With rank_order NULL: 1 for a random order drawn from seed, 0 for
     * rank order. */
    int                 rank_permute;
    /* The sparse allreduce's selections; NULL: random supports, kmax the
     * vector's length, the model's path. */
    const loom_verify_sparse_t *sparse;
} loom_verify_params_t;

/* A rank's buffers for one call, in elements of LOOM_VERIFY_ELEM_SIZE. */
typedef struct loom_verify_layout {
    int     has_recv;       /* 0: recvbuf is NULL (reduce's non-roots) */
    size_t  recv_elems;
    int     has_send;       /* 0: sendbuf is NULL (in place, bcast) */
    size_t  send_elems;
    int     in_place;       /* what args.in_place says on this rank */
} loom_verify_layout_t;

/*
 * What the verifier needs to know about a collective.  The generic part
 * (verifier.c, verifier_sim.c) allocates each rank's buffers as layout
 * says, fills them as initial says (elements without data are poisoned
 * and marked unwritten, so reading them before a step writes them is
 * reported), builds each rank's loom_coll_args_t (buffers, count, op,
 * in_place, root, seg_bytes, depth from the params; args may adjust it,
 * e.g. counts and displacements), plans, runs, and then compares every
 * element expected names.  Elements are fingerprints: loom_verify_input
 * (op, seed, rank, i) is rank's i-th input element, and
 * loom_verify_fold(params, i, elem) the rank-order reduction of element
 * i over all ranks.
 *
 * To add a collective: write the five functions in verifier_colls.c
 * (each a few lines), declare the spec here, and sweep it in
 * test/unit/coll/core/verify/check_verifier.c.
 */
struct loom_verify_coll {
    const char  *name;      /* "allreduce", "bcast", ... */
    int         rooted;     /* params->root must be a rank */
    void        (*layout)(const loom_verify_params_t *pa, int rank,
                          loom_verify_layout_t *lay_p);
    /* Element i of rank's send buffer (in_send) or receive buffer before
     * the call: 1 and *elem (may be NULL: only asking) when it holds
     * data, 0 when it holds garbage nobody may read. */
    int         (*initial)(const loom_verify_params_t *pa, int rank, int in_send,
                           size_t i, void *elem);
    /* Element i of rank's receive buffer after the call: 1 and *elem when
     * it is checked, 0 when its value does not matter. */
    int         (*expected)(const loom_verify_params_t *pa, int rank, size_t i,
                            void *elem);
    /* Optional (NULL: none): adjust rank's arguments after the generic
     * part filled them. */
    void        (*args)(const loom_verify_params_t *pa, int rank, loom_coll_args_t *args);
    /* Every rank's receive buffer ends bitwise identical. */
    int         replicated;
    /* The receive buffer's element i is loom_verify_fold of element i:
     * a wrong sum is then explained by the rank whose contribution is
     * missing or doubled. */
    int         folds_elementwise;
    /* Bytes in which steps may touch memory, a divisor of
     * LOOM_VERIFY_ELEM_SIZE (0: whole elements).  A collective whose
     * plans cut finer (the sparse allreduce treats an element as two
     * doubles and sends 12-byte pairs) tracks memory in finer grains;
     * a step must then touch whole grains. */
    size_t      grain;
};

extern const loom_verify_coll_t loom_verify_allreduce;
extern const loom_verify_coll_t loom_verify_bcast;
extern const loom_verify_coll_t loom_verify_reduce;
extern const loom_verify_coll_t loom_verify_reduce_scatter_block;
/* Uniform blocks; uneven ones (some empty, packed, at most 1024 ranks);
 * reduce_scatter with the same uneven blocks. */
extern const loom_verify_coll_t loom_verify_allgather;
extern const loom_verify_coll_t loom_verify_allgatherv;
extern const loom_verify_coll_t loom_verify_reduce_scatter;
/* The sparse allreduce (coll/core/sparse/sparse.h) of doubles: each
 * 16-byte element is two doubles (the plan sees count * 2 of 8 bytes,
 * summed with the double kernel), and each rank's select writes pairs
 * drawn from (seed, rank) as params->sparse says: small integers, so the
 * sum is exact in any order.  Every rank must end with that dense sum of
 * every rank's selection, the same bits.  The plan's steps cut memory at
 * any byte (encoded blocks, filter/encode.h).  At most 64 ranks (the plan fails
 * beyond). */
extern const loom_verify_coll_t loom_verify_sparse_allreduce;

typedef struct loom_verify_report {
    loom_verify_verdict_t verdict;
    char                message[1024];   /* empty on PASS */
    long long           nsteps;          /* steps of all ranks' schedules */
    long long           nactions;        /* actions the simulation took */
} loom_verify_report_t;

/* Plans and simulates one collective.  Returns LOOM_OK when it reached a
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
void loom_verify_fold(const loom_verify_params_t *params, size_t i, void *elem);

#endif
