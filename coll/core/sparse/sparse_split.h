/*
 * Split-and-reduce's pieces (sparse_split.c draws the algorithm): the
 * state a slot keeps from call to call, the schedule's context, and the
 * compute steps (sparse_split_steps.c) the plan strings together.  Inside
 * coll/core/sparse only.
 */
#ifndef LOOM_SPARSE_SPLIT_H
#define LOOM_SPARSE_SPLIT_H

#include "coll/core/sparse/sparse.h"
#include "coll/core/filter/filter_type.h"

#include <stddef.h>
#include <stdint.h>

struct loom_sparse_state {
    int         p;          /* the team size it was made for */
    size_t      n;          /* the vector it holds bounds for; 0: none yet */
    size_t      *b;         /* p + 1 region bounds */
    double      theta;
    int         theta_set;
    uint64_t    calls;
    unsigned    every;
};

/* What each owner reports after its reduce; gathered by every rank. */
typedef struct loom_split_report {
    uint32_t    kept;       /* at most B, and B < 2^32 (a count is uint32_t) */
    float       t;          /* smallest |sum| kept (estimate calls), else 0,
                               rounded toward 0: theta is a cut, and a float
                               one keeps the report to 8 bytes */
} loom_split_report_t;

/* The schedule's own state, at the start of its scratch.  Per position
 * arrays (by the rank order, as the regions are). */
typedef struct loom_split_ctx {
    loom_sparse_head_t      h;          /* first: sparse.h */
    int                     p, me, mepos;
    const int               *ranks;     /* position -> team rank */
    const int               *posof;     /* team rank -> position */
    char                    *recvbuf;
    size_t                  count, esize, w;
    loom_filter_type_t      type;
    loom_sparse_state_t     *state;     /* NULL, or the slot's (never when modeled) */
    int                     estimate;
    double                  theta;
    size_t                  k_call;     /* K, set by tally */
    size_t                  *b;         /* p + 1 bounds of this call */
    char                    *sel;       /* this rank's selection, kmax pairs */
    char                    *out;       /* outgoing blocks at out_at[j] pairs */
    size_t                  *out_at;    /* p + 1 */
    char                    *in;        /* incoming blocks, in_cap pairs each */
    size_t                  in_cap;
    char                    *kb;        /* the kept slots, Bruck: positions mepos, ... */
    size_t                  bcap;       /* B: the pairs a slot holds */
    size_t                  slot;       /* a slot's bytes: loom_split_slot_bytes */
    uint64_t                *cnt_out, *cnt_in;
    size_t                  *send_len, *recv_len;
    loom_split_report_t     *rep;       /* Bruck: positions mepos, mepos + 1, ... */
    double                  *mag;       /* the own region's magnitudes */
    loom_status_t           fail;       /* a selection failed, here or elsewhere */
} loom_split_ctx_t;

/* A count word that says the sender's selection failed: every rank reads
 * every count, so all learn it at the tally, carry the schedule to its end
 * with nothing in it (a rank that stopped would leave its peers waiting),
 * and fail the call together. */
#define LOOM_SPLIT_BAD ((uint64_t)UINT32_MAX << 32)

/* The state made ready for p ranks and n elements: one made for others
 * starts over (uniform regions, no theta).  sparse_state.c. */
loom_status_t loom_split_state_fit(loom_sparse_state_t *s, int p, size_t n);

/* Where region j's blocks lie: outgoing, incoming (from position j). */
static inline char *loom_split_out_block(const loom_split_ctx_t *c, int j)
{
    return c->out + c->out_at[j] * c->w;
}

static inline char *loom_split_in_block(const loom_split_ctx_t *c, int j)
{
    return c->in + (size_t)j * c->in_cap * c->w;
}

/* Slot i of the kept gather, owner position mepos + i (mod p): a pairs.h
 * block of rep[i].kept pairs (the report says how many; the slot carries
 * no count of its own), then padding to B pairs, so that every slot has
 * the length the plan knows. */
static inline char *loom_split_slot(const loom_split_ctx_t *c, int i)
{
    return c->kb + (size_t)i * c->slot;
}

static inline size_t loom_split_slot_bytes(size_t bcap, size_t w)
{
    return bcap * w;
}

/* The compute steps, in schedule order (arg: the context).  select: this
 * rank's pairs, checked and cut by region; tally: the incoming lengths and
 * K; reduce: the own region summed and kept (at most B); decide: the
 * arm, theta; merge: the sparse arm's result; finish: new bounds and
 * the putback. */
loom_status_t loom_split_select_step(loom_sched_t *sched, void *arg);
loom_status_t loom_split_tally_step(loom_sched_t *sched, void *arg);
loom_status_t loom_split_reduce_step(loom_sched_t *sched, void *arg);
loom_status_t loom_split_decide_step(loom_sched_t *sched, void *arg);
loom_status_t loom_split_merge_step(loom_sched_t *sched, void *arg);
loom_status_t loom_split_finish_step(loom_sched_t *sched, void *arg);

/* Bytes one rank sends in a Bruck gather of p blocks of unit bytes
 * (phase.h). */
size_t loom_split_bruck_sent(int p, size_t unit);

/* B, the pairs an owner's slot holds: twice its share of kmax, at least
 * 1, at most the largest region.  sparse_split.c. */
size_t loom_split_cap(int p, size_t kmax, size_t region_max);

/* Whether the dense arm (a ring of the regions) costs less under m than
 * the sparse arm (a Bruck gather of slots of slot bytes), for p ranks and
 * n elements of esize; plan-time values only, so decide and the model
 * agree.  sparse_split.c. */
int loom_split_dense_wins(const loom_cost_t *m, int p, size_t n, size_t esize, size_t slot);

#endif
