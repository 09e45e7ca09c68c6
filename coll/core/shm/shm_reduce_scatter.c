/*
 * Reduce_scatter(_block) through a node's shared segment, pipelined by
 * segment.
 *
 *   per segment k:  rank r copies piece k of each of its p input blocks
 *                   into its slot (the slot holds p pieces), then reduces
 *                   piece k of block r over all p slots straight into its
 *                   recvbuf
 *
 *   slot q = [ piece k of q's block 0 | of block 1 | ... | of block p-1 ]
 *   rank r: out[k] = slot r[r] (op) slot 0[r] (op) ... (every slot q != r)
 *
 * Cost per rank: n/c (copy in) + (p-1)/p n/g (its block's reduction), n
 * the whole input, c the copy rate, g the reduce rate: nothing is copied
 * out, so this is a copy and a reduction cheaper than any message-based
 * algorithm on one host.  Commutative ops only (the owner starts from its
 * own contribution).  In place the input is recvbuf and the result goes
 * to its start: piece k of block 0 is copied in before piece k of the
 * result overwrites it, and later pieces lie further on.
 */
#include "coll/core/shm/shm_sync.h"

#include <string.h>

int loom_shm_reduce_scatter_fits(size_t slot_bytes, int p, const loom_coll_args_t *args)
{
    return slot_bytes / (size_t)p >= args->elem_size && !(args->in_place && args->counts != NULL);
}

void loom_shm_reduce_scatter(loom_shm_t *shm, const loom_coll_args_t *args)
{
    const int p = shm->params.size, r = shm->params.rank;
    const size_t es = args->elem_size;
    const char *in = args->in_place ? args->recvbuf : args->sendbuf;
    char *out = args->recvbuf;
    size_t piece, longest = loom_shm_longest_block(args, p), off, n, at;
    uint64_t g;
    int q, b;

    /* A piece per block in each slot, whole elements, cache-line sized
     * where the slot allows it. */
    piece = shm->params.slot_bytes / (size_t)p;
    piece = piece >= 64 ? piece / 64 * 64 : piece;
    piece = piece / es * es;
    for (off = 0; off < longest; off += piece) {
        char *mine;

        g = shm->next_seg++;
        mine = loom_shm_slot(shm, r, g);
        loom_shm_wait_slot(shm, g);
        for (b = 0, at = 0; b < p; at += loom_shm_block_bytes(args, b), ++b) {
            n = loom_shm_piece(loom_shm_block_bytes(args, b), off, piece);
            if (n > 0) {
                memcpy(mine + (size_t)b * piece, in + at + off, n);
            }
        }
        loom_shm_publish(shm, LOOM_SHM_ARRIVED, g + 1);

        n = loom_shm_piece(loom_shm_block_bytes(args, r), off, piece);
        if (n > 0) {
            memcpy(out + off, mine + (size_t)r * piece, n);
        }
        for (q = 1; q < p; ++q) {
            int from = (r + q) % p;

            loom_shm_wait(shm, from, LOOM_SHM_ARRIVED, g + 1);
            if (n > 0) {
                args->op.fn(loom_shm_slot(shm, from, g) + (size_t)r * piece, out + off,
                            n / es, args->op.ctx);
            }
        }
        loom_shm_publish(shm, LOOM_SHM_DONE, g + 1);
    }
}
