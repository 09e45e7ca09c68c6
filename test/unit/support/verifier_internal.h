/*
 * The verifier's state, shared by its setup and result checks (verifier.c),
 * its simulation (verifier_sim.c) and its fingerprints (verifier_ops.c).
 *
 * Steps of all ranks are numbered globally (rank r's step s is base + s),
 * so per-step state lives in flat arrays: at 1024 ranks a ring has about
 * six million steps, and a struct per step would cost more than the
 * schedules themselves.
 */
#ifndef LOOM_TEST_VERIFIER_INTERNAL_H
#define LOOM_TEST_VERIFIER_INTERNAL_H

#include "verifier.h"

#include <stddef.h>
#include <stdint.h>

/* Per grain of a rank's memory (LOOM_VERIFY_ELEM_SIZE bytes, or the
 * collective's grain): whether an in-flight receive writes it,
 * whether it holds data (the input, or anything a step wrote), and how
 * many in-flight sends read it. */
#define VF_SHADOW_WRITER  0x8000u
#define VF_SHADOW_INIT    0x4000u
#define VF_SHADOW_READERS 0x3FFFu

/* How a step uses an operand. */
#define VF_READS  1
#define VF_WRITES 2

typedef enum vf_region_id {
    VF_REGION_RECV,
    VF_REGION_SEND,
    VF_REGION_SCRATCH,
    VF_REGION_COUNT
} vf_region_id_t;

typedef struct vf_region {
    const char      *name;
    unsigned char   *start;      /* NULL: the rank has no such region */
    size_t          bytes;
    int             writable;
    uint16_t        *shadow;     /* one entry per element */
} vf_region_t;

typedef struct vf_rank {
    loom_team_t         *team;
    loom_sched_t        *sched;
    loom_coll_args_t    args;
    unsigned char       *recvbuf;
    unsigned char       *sendbuf;
    loom_verify_layout_t lay;
    vf_region_t         regions[VF_REGION_COUNT];
    int64_t             base;    /* global number of step 0 */
    int                 ndone;
} vf_rank_t;

typedef enum vf_state {
    VF_WAITING = 0,   /* dependencies not done */
    VF_READY,         /* a start action is queued */
    VF_POSTED,        /* message posted, no partner yet */
    VF_MATCHED,       /* message matched, its completion action is queued */
    VF_DONE
} vf_state_t;

/* Start step (rank, step), or, with peer_rank >= 0, complete the matched
 * send (rank, step) and receive (peer_rank, peer_step). */
typedef struct vf_action {
    int32_t rank, step, peer_rank, peer_step;
} vf_action_t;

typedef struct vf_action_list {
    vf_action_t *a;
    size_t      n, cap;
} vf_action_list_t;

/* A posted message in the match table.  Kept until completion, so that a
 * second message with the same key while the first is in flight is seen. */
typedef struct vf_msg {
    uint64_t    tag;
    int32_t     src, dst;    /* the key, with tag */
    int32_t     rank, step;  /* who posted it; rank < 0 marks a free slot */
    uint32_t    home;        /* the slot the key hashes to */
    uint8_t     is_recv;
    uint8_t     matched;
} vf_msg_t;

/* Per global step; the flat array has one more entry, whose rdep_off ends
 * the last step's dependents.  One struct, so that finishing a step costs
 * one cache miss, not three. */
typedef struct vf_step {
    uint32_t    rdep_off;   /* dependents: rdep[rdep_off .. next step's rdep_off) */
    int32_t     pending;    /* dependencies not done yet */
    int32_t     msg;        /* its entry in the match table while in flight */
    uint8_t     state;      /* vf_state_t */
} vf_step_t;

typedef struct vf {
    const loom_verify_params_t *params;
    const loom_verify_coll_t *coll;     /* params->coll, or allreduce */
    loom_verify_report_t    *report;
    int                     p;
    size_t                  esize;      /* bytes of an element of the buffers */
    size_t                  grain;      /* bytes of a shadow entry: the unit steps
                                         * touch memory in (divides esize) */
    vf_rank_t               *ranks;
    int                     *rank_order;  /* the teams' order; NULL: rank order */
    int64_t                 nsteps;
    int64_t                 ndone;
    vf_step_t               *steps;     /* nsteps + 1 */
    int32_t                 *rdep;      /* local step numbers of dependents */
    /* what can happen next */
    vf_action_list_t        starts;     /* steps that may start */
    vf_action_list_t        deliveries; /* matched pairs that may complete */
    /* the match table: open addressing, linear probing, at most half
     * full, so that a lookup usually costs one cache line */
    vf_msg_t                *table;
    size_t                  table_size, msgs_live;
    uint64_t                rng;
    int                     no_memory;  /* the verifier itself ran out */
    /* expected results of a replicated collective, computed once */
    unsigned char           *want_cache;
    unsigned char           *want_known;
} vf_t;

/* The bytes step (rank, step) moves: its run-time length once it started
 * (sched.h: read from len_at at start, kept in the step's len), else the
 * length it was built with. */
static inline size_t vf_bytes(const vf_t *vf, int rank, int step)
{
    const loom_step_t *st = &vf->ranks[rank].sched->steps[step];

    return st->desc.len_at != NULL ? st->len : st->desc.bytes;
}

/* Records the first failure (later ones are consequences) and returns -1. */
int vf_fail(vf_t *vf, loom_verify_verdict_t verdict, const char *fmt, ...)
    __attribute__((format(printf, 3, 4)));

/* The verifier cannot go on (no verdict): returns -1. */
int vf_no_memory(vf_t *vf);

/* "step 7 (recv from 2, tag_step 5, 256 bytes)" into buf. */
const char *vf_describe(const vf_t *vf, int rank, int step, char *buf, size_t len);

/* Which region of rank holds [ptr, ptr+bytes): its id, or -1. */
int vf_locate(const vf_rank_t *rk, const void *ptr, size_t bytes);

/* Runs the steps of every rank to the end, or to the first failure
 * (0 or -1; a failure is in the report). */
int vf_simulate(vf_t *vf);

uint64_t vf_mix64(uint64_t x);
uint64_t vf_hash(uint64_t seed, int rank, size_t i, unsigned lane);
int vf_sum_explain(const loom_verify_params_t *params, size_t i, const void *got,
                   const void *want, int *sign_p);

#endif
