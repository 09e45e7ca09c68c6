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
 * The rounds are the Bruck phase (phase.h) over the ranks in team order;
 * the copies into and out of the gathering buffer are this plan's.
 */
#include "coll/core/allgather/allgather.h"
#include "coll/core/parts/blocks.h"
#include "coll/core/parts/partition.h"
#include "coll/core/parts/phase.h"

/* Bytes of the blocks of ranks i .. i+m-1 (mod p), packed. */
static size_t loom_bruck_run(const loom_bruck_phase_t *ph, int i, int m)
{
    const loom_blocks_t *blocks = ph->ctx;

    return loom_blocks_run(blocks, i, m) * ph->sched->args.elem_size;
}

loom_status_t loom_allgather_bruck_plan(const loom_coll_args_t *args, loom_team_t *team,
                                        loom_sched_t **sched_p)
{
    int p = team->size, r = team->rank, i, b, start, *ranks;
    size_t esize = args->elem_size, run_bytes, own_bytes;
    char *buf = args->recvbuf, *tmp, *run_dst;
    const char *own;
    loom_blocks_t blocks;
    loom_bruck_phase_t ph = { .n = p, .me = r, .run = loom_bruck_run, .ctx = &blocks,
                              .tag_base = 1 };
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
    for (i = 0; i < p; ++i) {
        ranks[i] = i;
    }
    /* tmp + run(r, i) * esize is where rotated block i (rank r+i) goes. */
    ph.sched = sched;
    ph.ranks = ranks;
    ph.tmp = tmp;
    ph.last = loom_sched_copy(sched, own, tmp, own_bytes, LOOM_NO_DEPS);
    loom_phase_bruck(&ph);

    /* Unrotate: runs of blocks r+1, r+2, ... that lie back to back in the
     * receive buffer go in one copy (tmp holds them back to back). */
    for (i = 1; i < p; i = start) {
        start = i;
        b = loom_mod(r + i, p);
        run_dst = buf + loom_blocks_offset(&blocks, b) * esize;
        run_bytes = 0;
        do {
            run_bytes += loom_blocks_count(&blocks, b) * esize;
            ++start;
            b = loom_mod(r + start, p);
        } while (start < p &&
                 loom_blocks_offset(&blocks, b) * esize == (size_t)(run_dst - buf) + run_bytes);
        loom_sched_copy(sched, tmp + loom_blocks_run(&blocks, r, i) * esize, run_dst,
                        run_bytes, LOOM_DEPS(ph.last));
    }

out:
    loom_blocks_fini(&blocks);
    return loom_sched_plan_done(sched, sched_p);
}
