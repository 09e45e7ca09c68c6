/*
 * Bruck allgather(v): ceil(log2 p) rounds for any p.
 *
 * Each rank gathers into a scratch buffer in rotated order: its own block
 * first, then the blocks of ranks r+1, r+2, ... (mod p), packed.  In round
 * k (distance d = 2^k) it sends the first min(d, p-d) blocks it holds to
 * rank r-d and appends as many from rank r+d, whose first blocks are the
 * ones that follow its own:
 *
 *   p = 5, rotated blocks held by rank 0 after each round
 *     start      [0]
 *     d = 1      [0 1]          (from rank 1: its [1])
 *     d = 2      [0 1 2 3]      (from rank 2: its [2 3])
 *     d = 4      [0 1 2 3 4]    (from rank 4: the first 1 of its [4 0 1 2])
 *
 * A final local pass copies the blocks to their places in the receive
 * buffer (one copy per run of blocks that are adjacent there: two when the
 * layout is packed).  Block sizes come from counts, the same on every
 * rank, so both ends of every message agree on its size and allgatherv
 * costs nothing more than allgather.
 *
 * Cost: ceil(log2 p) alpha + (p-1)/p n beta + n bytes of local copies
 * (the own block into the scratch buffer, every other block out of it)
 * for n bytes gathered.  The fewest rounds there are, with no more bytes
 * on the wire than the ring: it wins for small and medium n, until the
 * ring's saved copies outweigh its extra (p - 1 - log2 p) latencies.
 *
 * Each round's receive is posted once the previous round's is done, so
 * that one step (the latest receive) stands for everything gathered so
 * far; the messages are small when Bruck is chosen, and a transport keeps
 * a message that arrives early until its receive is posted.
 *
 * The rounds are the Bruck phase (phase.h) over the ranks in the team's
 * rank order (loom_sched_order): the rotation counts positions, so the
 * gathering buffer holds the blocks of the ranks at positions i, i+1,
 * ... from this rank's position i, and the final pass puts each where its
 * rank's block belongs.  The copies into and out of the gathering buffer
 * are this plan's.
 */
#include "coll/core/allgather/allgather.h"
#include "coll/core/parts/blocks.h"
#include "coll/core/parts/partition.h"
#include "coll/core/parts/phase.h"

#include <stdlib.h>

/* Bytes of the blocks of positions i .. i+m-1 (mod p), packed: blocks
 * by position. */
static size_t loom_bruck_run(const loom_bruck_phase_t *ph, int i, int m)
{
    const loom_blocks_t *blocks = ph->ctx;

    return loom_blocks_run(blocks, i, m) * ph->sched->args.elem_size;
}

/* The blocks in position order, at *blocks_p: blocks itself without an
 * order or when every block has the same count; else by_pos, described
 * from the counts permuted into *counts_p (the caller frees both). */
static loom_status_t loom_bruck_by_pos(const loom_blocks_t *blocks, const int *ranks,
                                       const loom_order_t *o, loom_blocks_t *by_pos,
                                       size_t **counts_p, const loom_blocks_t **blocks_p)
{
    size_t *counts;
    loom_status_t status;
    int i;

    *counts_p = NULL;
    if (o == NULL || blocks->counts == NULL) {
        *blocks_p = blocks;
        return LOOM_OK;
    }
    counts = malloc(sizeof(*counts) * (size_t)blocks->p);
    if (counts == NULL) {
        return LOOM_ERR_NO_MEMORY;
    }
    for (i = 0; i < blocks->p; ++i) {
        counts[i] = blocks->counts[ranks[i]];
    }
    status = loom_blocks_init(by_pos, blocks->p, 0, counts, NULL);
    if (status != LOOM_OK) {
        free(counts);
        return status;
    }
    *counts_p = counts;
    *blocks_p = by_pos;
    return LOOM_OK;
}

loom_status_t loom_allgather_bruck_plan(const loom_coll_args_t *args, loom_team_t *team,
                                        loom_sched_t **sched_p)
{
    int p = team->size, r = team->rank, i, b, start, me, *ranks;
    size_t esize = args->elem_size, run_bytes, own_bytes, *pos_counts = NULL;
    char *buf = args->recvbuf, *tmp, *run_dst;
    const char *own;
    const loom_order_t *o;
    loom_blocks_t blocks, pos_blocks;
    const loom_blocks_t *by_pos;
    loom_bruck_phase_t ph = { .n = p, .run = loom_bruck_run, .tag_base = 1 };
    loom_sched_t *sched;
    loom_status_t status;

    status = loom_blocks_init(&blocks, p, args->count, args->counts, args->displs);
    if (status != LOOM_OK) {
        return status;
    }
    status = loom_sched_create(team, args, LOOM_ALLGATHER_BRUCK, &sched);
    if (status != LOOM_OK) {
        loom_blocks_fini(&blocks);
        return status;
    }
    own_bytes = loom_blocks_count(&blocks, r) * esize;
    own = args->in_place ? buf + loom_blocks_offset(&blocks, r) * esize
                         : (const char *)args->sendbuf;
    if (!args->in_place) {
        loom_sched_copy(sched, own, buf + loom_blocks_offset(&blocks, r) * esize, own_bytes,
                        LOOM_NO_DEPS);
    }
    if (p == 1 || blocks.total == 0) {
        goto out;
    }
    status = loom_sched_alloc_scratch(sched, blocks.total * esize, (void **)&tmp);
    if (status != LOOM_OK) {
        goto out;
    }
    status = loom_sched_alloc_ints(sched, p, &ranks);
    if (status != LOOM_OK) {
        goto out;
    }
    o = loom_sched_order(sched);
    for (i = 0; i < p; ++i) {
        ranks[i] = loom_order_at(o, i);
    }
    me = loom_order_pos(o, r);
    status = loom_bruck_by_pos(&blocks, ranks, o, &pos_blocks, &pos_counts, &by_pos);
    if (status != LOOM_OK) {
        loom_sched_destroy(sched);
        loom_blocks_fini(&blocks);
        return status;
    }
    /* tmp + run(me, i) * esize is where rotated block i (position me+i)
     * goes. */
    ph.sched = sched;
    ph.ranks = ranks;
    ph.me = me;
    ph.ctx = by_pos;
    ph.tmp = tmp;
    ph.last = loom_sched_copy(sched, own, tmp, own_bytes, LOOM_NO_DEPS);
    loom_phase_bruck(&ph);

    /* Unrotate: each block to its rank's place; runs of the blocks of
     * positions me+1, me+2, ... that lie back to back in the receive
     * buffer go in one copy (tmp holds them back to back). */
    for (i = 1; i < p; i = start) {
        start = i;
        b = ranks[loom_mod(me + i, p)];
        run_dst = buf + loom_blocks_offset(&blocks, b) * esize;
        run_bytes = 0;
        do {
            run_bytes += loom_blocks_count(&blocks, b) * esize;
            ++start;
            b = ranks[loom_mod(me + start, p)];
        } while (start < p &&
                 loom_blocks_offset(&blocks, b) * esize == (size_t)(run_dst - buf) + run_bytes);
        loom_sched_copy(sched, tmp + loom_blocks_run(by_pos, me, i) * esize, run_dst,
                        run_bytes, LOOM_DEPS(ph.last));
    }
    if (pos_counts != NULL) {
        loom_blocks_fini(&pos_blocks);
        free(pos_counts);
    }

out:
    loom_blocks_fini(&blocks);
    return loom_sched_plan_done(sched, sched_p);
}
