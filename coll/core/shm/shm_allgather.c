/*
 * Allgather(v) through a node's shared segment, pipelined by segment.
 *
 *   per segment k:  rank r copies piece k of its block into its slot,
 *                   then piece k of every block out of the slots
 *
 * Cost per rank: m/c (own block, in) + p m/c (every block, out; its own
 * too unless in place), m the block size and c the copy rate.  Every piece
 * is read from the shared cache where its owner just wrote it, so memory
 * sees about one read of m and one write of p m per rank: a memcpy of the
 * result.  Wins over messages on one host for large blocks.  With uneven
 * blocks (allgatherv) the pieces follow the largest block; a shorter one
 * simply ends early.
 */
#include "coll/core/shm/shm_sync.h"

#include <string.h>

static size_t loom_shm_block_offset(const loom_coll_args_t *args, int q)
{
    if (args->displs != NULL) {
        return args->displs[q] * args->elem_size;
    }
    return (size_t)q * args->count * args->elem_size;
}

/* Two ranks whose kernel lets them read each other's memory (shm->cma)
 * and blocks of at least this many bytes (the largest, equal on both
 * ranks): the peer's block is read straight from its buffer.  Measured
 * here (2 ranks, medians of two jobs each way, 2026-12-03): at 1 to 16 MiB
 * in all 0.84 to 1.04 of tuned with it against 1.00 to 1.29 without; at
 * 256 KiB (128 KiB blocks) no better, so it starts at 256 KiB blocks. */
#define LOOM_SHM_CMA_MIN_BLOCK 262144

/* Each rank publishes where its block is, copies its own block out while
 * the peer does the same, reads the peer's block from the peer's buffer,
 * and leaves only once the peer has read its block: one copy of each
 * block, as Open MPI's single-copy transport. */
static void loom_shm_allgather_cma(loom_shm_t *shm, const loom_coll_args_t *args,
                                   const char *mine)
{
    const int r = shm->params.rank, peer = 1 - r;
    char *out = args->recvbuf;
    const uint64_t g = shm->next_seg++;
    size_t n = loom_shm_block_bytes(args, r);

    atomic_store_explicit(&shm->ctl[r].addr, (uint64_t)(uintptr_t)mine, memory_order_relaxed);
    loom_shm_publish(shm, LOOM_SHM_ARRIVED, g + 1);
    if (!args->in_place && n > 0) {
        memcpy(out + loom_shm_block_offset(args, r), mine, n);
    }
    n = loom_shm_block_bytes(args, peer);
    loom_shm_wait(shm, peer, LOOM_SHM_ARRIVED, g + 1);
    if (n > 0) {
        loom_shm_cma_read(shm, peer, out + loom_shm_block_offset(args, peer), n);
    }
    loom_shm_publish(shm, LOOM_SHM_DONE, g + 1);
    loom_shm_wait(shm, peer, LOOM_SHM_DONE, g + 1);
}

void loom_shm_allgather(loom_shm_t *shm, const loom_coll_args_t *args)
{
    const int p = shm->params.size, r = shm->params.rank;
    const size_t seg = shm->params.slot_bytes;
    char *out = args->recvbuf;
    const char *mine = args->in_place ? out + loom_shm_block_offset(args, r) : args->sendbuf;
    size_t off, longest = loom_shm_longest_block(args, p), n;
    uint64_t g;
    int q;

    if (p == 2 && shm->cma && longest >= LOOM_SHM_CMA_MIN_BLOCK) {
        loom_shm_allgather_cma(shm, args, mine);
        return;
    }
    for (off = 0; off < longest; off += seg) {
        g = shm->next_seg++;
        n = loom_shm_piece(loom_shm_block_bytes(args, r), off, seg);
        loom_shm_wait_slot(shm, g);
        if (n > 0) {
            memcpy(loom_shm_slot(shm, r, g), mine + off, n);
        }
        loom_shm_publish(shm, LOOM_SHM_ARRIVED, g + 1);
        if (!args->in_place && n > 0) {
            memcpy(out + loom_shm_block_offset(args, r) + off, loom_shm_slot(shm, r, g), n);
        }
        for (q = 1; q < p; ++q) {
            int from = (r + q) % p;

            n = loom_shm_piece(loom_shm_block_bytes(args, from), off, seg);
            if (n == 0) {
                continue; /* its block ended: nothing to wait for */
            }
            loom_shm_wait(shm, from, LOOM_SHM_ARRIVED, g + 1);
            memcpy(out + loom_shm_block_offset(args, from) + off, loom_shm_slot(shm, from, g),
                   n);
        }
        loom_shm_publish(shm, LOOM_SHM_DONE, g + 1);
    }
}
