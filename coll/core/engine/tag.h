/*
 * Message tags.  A tag names the communicator (context id), the sending
 * team rank, the collective's sequence number on that communicator, the
 * algorithm and the step within it.  Because the algorithm is part of the
 * tag, ranks that disagreed on the algorithm never match each other's
 * messages: they wait (and the hang report names the step) instead of
 * summing the wrong blocks.
 *
 *   63            48 47           32 31      22 21  18 17            0
 *  +----------------+---------------+----------+------+---------------+
 *  |   context id   |  source rank  |   seq    | alg  |     step      |
 *  +----------------+---------------+----------+------+---------------+
 *
 * The alg field holds the collective's own algorithm id (loom_allreduce_alg_t,
 * loom_bcast_alg_t, loom_reduce_alg_t, ...): ids of different collectives
 * may share values, because the sequence number already tells consecutive
 * collectives on a communicator apart, and ranks that disagree on which
 * collective comes next are an application error MPI does not diagnose.
 *
 * Steps get the most bits: a ring on p ranks with s segments per block
 * uses 2(p-1)s distinct steps, and two messages of one pair in flight
 * with the same tag would be matched in either order.  Plans keep their
 * step count within LOOM_TAG_MAX_STEPS (loom_tag_steps_fit) or decline.
 * Sequence numbers wrap after 1024: nonblocking collectives may be in
 * flight in any number, so before it starts one the adapter progresses
 * until the communicator's oldest unfinished collective is fewer than
 * LOOM_TAG_MAX_INFLIGHT sequence numbers behind (the oldest, not a count:
 * collectives finish out of order).  Teams have at most 65536 ranks.
 */
#ifndef LOOM_TAG_H
#define LOOM_TAG_H

#include <stdint.h>

#define LOOM_TAG_CONTEXT_BITS 16
#define LOOM_TAG_RANK_BITS    16
#define LOOM_TAG_SEQ_BITS     10
#define LOOM_TAG_ALG_BITS     4
#define LOOM_TAG_STEP_BITS    18

#define LOOM_TAG_STEP_SHIFT    0
#define LOOM_TAG_ALG_SHIFT     (LOOM_TAG_STEP_SHIFT + LOOM_TAG_STEP_BITS)
#define LOOM_TAG_SEQ_SHIFT     (LOOM_TAG_ALG_SHIFT + LOOM_TAG_ALG_BITS)
#define LOOM_TAG_RANK_SHIFT    (LOOM_TAG_SEQ_SHIFT + LOOM_TAG_SEQ_BITS)
#define LOOM_TAG_CONTEXT_SHIFT (LOOM_TAG_RANK_SHIFT + LOOM_TAG_RANK_BITS)

#define LOOM_TAG_MASK(_bits) ((UINT64_C(1) << (_bits)) - 1)

/* The largest context id and team size a tag can carry; larger ones are
 * handed to the previous collective module. */
#define LOOM_TAG_MAX_CONTEXT ((uint32_t)LOOM_TAG_MASK(LOOM_TAG_CONTEXT_BITS))
#define LOOM_TAG_MAX_RANKS   ((int)LOOM_TAG_MASK(LOOM_TAG_RANK_BITS) + 1)

/* Collectives of one team that may be in flight at once: well below the
 * sequence numbers a tag tells apart. */
#define LOOM_TAG_MAX_INFLIGHT 512

/* Distinct steps a schedule may use, the last one kept for the fold. */
#define LOOM_TAG_MAX_STEPS ((uint64_t)LOOM_TAG_MASK(LOOM_TAG_STEP_BITS))

/* Sequence numbers wrap (harmless, see above); steps must not. */
static inline uint64_t loom_tag_make(uint32_t context, int src_rank, uint32_t seq,
                                     unsigned alg, uint32_t step)
{
    return ((uint64_t)(context & LOOM_TAG_MASK(LOOM_TAG_CONTEXT_BITS))
                << LOOM_TAG_CONTEXT_SHIFT) |
           ((uint64_t)((uint32_t)src_rank & LOOM_TAG_MASK(LOOM_TAG_RANK_BITS))
                << LOOM_TAG_RANK_SHIFT) |
           ((uint64_t)(seq & LOOM_TAG_MASK(LOOM_TAG_SEQ_BITS)) << LOOM_TAG_SEQ_SHIFT) |
           ((uint64_t)(alg & LOOM_TAG_MASK(LOOM_TAG_ALG_BITS)) << LOOM_TAG_ALG_SHIFT) |
           ((uint64_t)(step & LOOM_TAG_MASK(LOOM_TAG_STEP_BITS)) << LOOM_TAG_STEP_SHIFT);
}

static inline uint32_t loom_tag_step(uint64_t tag)
{
    return (uint32_t)((tag >> LOOM_TAG_STEP_SHIFT) & LOOM_TAG_MASK(LOOM_TAG_STEP_BITS));
}

static inline unsigned loom_tag_alg(uint64_t tag)
{
    return (unsigned)((tag >> LOOM_TAG_ALG_SHIFT) & LOOM_TAG_MASK(LOOM_TAG_ALG_BITS));
}

static inline int loom_tag_rank(uint64_t tag)
{
    return (int)((tag >> LOOM_TAG_RANK_SHIFT) & LOOM_TAG_MASK(LOOM_TAG_RANK_BITS));
}

#endif
