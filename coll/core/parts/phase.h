/*
 * Phases: the patterns collective schedules are made of.
 *
 * A phase appends the steps of one pattern to a schedule that already
 * holds whatever came before it; an algorithm is its phases in order:
 *
 *   allreduce ring          = reduce-scatter ring, allgather ring
 *   reduce_scatter ring     = reduce-scatter ring
 *   allgather ring          = allgather ring
 *   bcast scatter-allgather = binomial scatter, allgather ring
 *   allreduce Rabenseifner  = (fold), halving, doubling, (fold)
 *   reduce_scatter halving  = (fold), halving, (fold)
 *   reduce scatter-gather   = (fold), halving, gather
 *   allreduce hierarchical  = per level: its own exchanges, and across
 *                             the top level a ring pair per shard
 *
 * A phase knows nothing of the collective.  It is given
 *   - who takes part: ranks[0 .. n-1], team ranks in the phase's logical
 *     order, and me, this rank's position among them.  A position is not
 *     a team rank: a hierarchical level passes its own ranks, a fold the
 *     ranks left after it, and a rank order may permute them;
 *   - the blocks it works on, by their index in the logical order: each
 *     block's address and length come from the caller's cut, so block j
 *     may live anywhere, not only at j times a block's size;
 *   - the tag steps it may use: its own from tag_base on (each phase says
 *     how many), so that phases of one schedule never share a tag;
 *   - what its first steps wait for, and it leaves what the next phase
 *     must wait for: per block and segment (ring phases: last[]) or for
 *     the whole (halving phases: last).
 */
#ifndef LOOM_PHASE_H
#define LOOM_PHASE_H

#include "coll/core/engine/sched.h"
#include "coll/core/parts/segs.h"

#include <stddef.h>
#include <stdint.h>

/* Block j of a phase: where it is worked on (reduced into, received into,
 * forwarded from), where this rank's own data of it lies (what a
 * reduce-scatter adds in, what an allgather sends first: the same
 * address where it is already in place), and its elements. */
typedef struct loom_phase_block {
    char        *at;
    const char  *in;
    size_t      n;
} loom_phase_block_t;

typedef struct loom_phase_cut loom_phase_cut_t;

struct loom_phase_cut {
    /* Block j of the logical order, 0 <= j < n. */
    loom_phase_block_t  (*block)(const loom_phase_cut_t *cut, int j);
    char                *at;    /* the cut's buffers and layout, as block() reads them */
    const char          *in;
    size_t              esize;
    const void          *ctx;
};

/*
 * Rings.  Position i sends to i+1 and receives from i-1 (mod n), n-1
 * rounds, every block in segments (segs.h):
 *
 *   reduce-scatter, round k: send block i-k-1 (round 0: the own data of
 *     it, later: the partial sum of the round before); receive block
 *     i-k-2 into a slot, add the own data of it and reduce the slot in.
 *     Position i ends with block i reduced over all positions, in ring
 *     order (i+1, ..., i): commutative ops only.
 *   allgather, round k: send block i-k (round 0: from where the own data
 *     of it is); receive block i-k-1 in place.  Position i starts with
 *     block i (and whatever held says) and ends with all.
 *
 *     ranks[0] --> ranks[1] --> ... --> ranks[n-1] --+
 *        ^-------------------------------------------+
 *
 * Segment s of round k is tag step tag_base + k * segs.nseg_max + s:
 * (n-1) segs.nseg_max steps (loom_ring_phase_tags).  Segment s of round
 * k leaves as soon as segment s of round k-1 is in (and reduced), so the
 * segments of one block follow each other around the ring.
 *
 * last[j * segs.nseg_max + s]: for segment s of block j, on entry the
 * step the phase's first touch of it waits for (-1: none), on return the
 * phase's last step on it (a send, which read it, or the receive or
 * reduce that wrote it): what a following phase waits for.
 */
typedef struct loom_ring_phase {
    loom_sched_t        *sched;
    const int           *ranks;
    int                 n;
    int                 me;
    loom_phase_cut_t    cut;
    loom_segs_t         segs;
    uint32_t            tag_base;
    int                 *last;      /* n * segs.nseg_max */
    loom_slots_t        *slots;     /* reduce-scatter: where segments arrive */
    /* Allgather: whether position pos holds block j before the phase
     * (NULL: its own only).  Such a block is neither sent to it nor
     * received by it: a scatter before the ring gave it already. */
    int                 (*held)(const struct loom_ring_phase *ph, int pos, int j);
    /* Allgather: NULL, or the bytes of block j are len_at[j], known only
     * when its steps start (sched.h, run-time lengths); the cut's block
     * is then their bound, and a block is one segment. */
    const size_t        *len_at;
} loom_ring_phase_t;

/* Tag steps a ring phase on n positions uses. */
static inline uint64_t loom_ring_phase_tags(int n, const loom_segs_t *segs)
{
    return (uint64_t)(n - 1) * (uint64_t)segs->nseg_max;
}

/* Append a reduce-scatter ring, or an allgather ring, to ph->sched.
 * Errors stay in the schedule's build status. */
void loom_phase_rs_ring(const loom_ring_phase_t *ph);
void loom_phase_ag_ring(const loom_ring_phase_t *ph);

/*
 * Recursive halving over n = 2^m positions, and the way back.
 *
 *   halving, round k = 0 .. m-1, partner me ^ 2^k: of the blocks held,
 *     [lo, hi), keep the lower half when bit k of me is 0, the upper
 *     half otherwise; send the other half, receive the partner's data of
 *     the kept half into tmp and reduce it in.  Position i ends with
 *     block bitrev(i) (its bits read from the lowest up) reduced over all.
 *   doubling, round k = m-1 .. 0: send the blocks held, receive the half
 *     sent away in round k; every position ends with every block.
 *   gather, the same rounds: the partner with bit k set sends and is
 *     done, the other receives; position 0 ends with every block.
 *
 *   blocks held by position 0 (n = 4):  [0,4) -> [0,2) -> [0,1) -> [0,2) -> [0,4)
 *
 * Partners are 1, 2, 4, ... positions apart, so every round joins two
 * groups of adjacent positions; with ordered the lower group's data is
 * always src, so a non-commutative op combines in position order
 * (costing a copy back when the partner is the upper group).  The halves
 * go as one message each, so the cut gives ranges of blocks: range()
 * returns the address of blocks [lo, hi), which lie back to back, and
 * their bytes.
 *
 * Tag steps: round k is tag_base + k; each of the three uses m.
 */
typedef struct loom_halving_phase loom_halving_phase_t;

/* Rounds of n <= 2^31 positions. */
#define LOOM_HALVING_MAX_ROUNDS 31

struct loom_halving_phase {
    loom_sched_t    *sched;
    const int       *ranks;
    int             n;          /* a power of two */
    int             me;
    char            *(*range)(const loom_halving_phase_t *ph, int lo, int hi,
                              size_t *bytes_p);
    const void      *ctx;       /* for range() */
    uint32_t        tag_base;
    int             ordered;
    char            *tmp;       /* a half arrives here: as large as the largest */
    int             tmp_free;   /* the step after which tmp may be written */
    int             last;       /* in: the step the data is ready after; out: the
                                 * phase's last step on it (-1: none) */
    /* Left by the halving for the way back: the rounds, each round's
     * range and send, and the blocks held now. */
    int             rounds;
    int             lo, hi;
    int             lo_at[LOOM_HALVING_MAX_ROUNDS], hi_at[LOOM_HALVING_MAX_ROUNDS];
    int             sent[LOOM_HALVING_MAX_ROUNDS];
};

/* Rounds of n positions (n a power of two). */
static inline int loom_halving_rounds(int n)
{
    int m = 0;

    while ((1 << m) < n) {
        ++m;
    }
    return m;
}

void loom_phase_halving(loom_halving_phase_t *ph);
void loom_phase_doubling(loom_halving_phase_t *ph);
void loom_phase_gather(loom_halving_phase_t *ph);

/*
 * Bruck's allgather over any n positions: ceil(log2 n) rounds.  Position
 * i gathers into tmp in rotated order, the blocks of positions i, i+1,
 * ... (mod n) back to back.  In round k (d = 2^k) it sends the first
 * min(d, n-d) blocks it holds to position i-d and appends as many from
 * position i+d, whose first blocks are the ones that follow its own.
 *
 *   n = 5, blocks held by position 0:  [0] [0 1] [0 1 2 3] [0 1 2 3 4]
 *
 * run(ph, i, m): bytes of the blocks of positions i .. i+m-1 (mod n),
 * the same on every position.  Round k is tag step tag_base + k.  Each
 * round's receive waits for the one before, so that one step stands for
 * everything gathered so far (the messages are small where Bruck is
 * chosen).
 */
typedef struct loom_bruck_phase loom_bruck_phase_t;

struct loom_bruck_phase {
    loom_sched_t    *sched;
    const int       *ranks;
    int             n;
    int             me;
    size_t          (*run)(const loom_bruck_phase_t *ph, int i, int m);
    const void      *ctx;       /* for run() */
    uint32_t        tag_base;
    char            *tmp;
    int             last;       /* in: the own block is in tmp after it; out: all are */
};

void loom_phase_bruck(loom_bruck_phase_t *ph);

#endif
