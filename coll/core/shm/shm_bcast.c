/*
 * Bcast through a node's shared segment, pipelined by segment.
 *
 *   root:    copies segment k of its buffer into its slot, publishes it
 *   others:  copy segment k out of the root's slot into their buffer
 *
 * Cost: n/c + (segments + 1) handshakes, c the copy rate: every rank
 * copies n bytes once, the root and the others at the same time, segment
 * by segment, and the segment is read from the shared cache where the
 * root just wrote it.  Wins over messages on one host for large n.
 */
#include "coll/core/shm/shm_sync.h"

#include <string.h>

void loom_shm_bcast(loom_shm_t *shm, const loom_coll_args_t *args)
{
    const int r = shm->params.rank, root = args->root;
    const size_t total = args->count * args->elem_size;
    char *buf = args->recvbuf;
    size_t off, n, seg = shm->params.slot_bytes;
    uint64_t g;

    /* Two ranks: in quarters of at least 32 KiB, so that the other rank
     * copies one piece out while the root copies the next one in (whole,
     * a call up to a slot costs two copies one after the other, against
     * Open MPI's one kernel copy: 1.2 to 1.45 of its time from 64 to 512
     * KiB on single calls here).  From three ranks on, on this machine's
     * two cores, more pieces cost more context switches than they save. */
    if (shm->params.size == 2) {
        seg = loom_shm_quarter(shm, total, 32768);
    }
    for (off = 0; off < total; off += n) {
        n = total - off < seg ? total - off : seg;
        g = shm->next_seg++;
        if (r == root) {
            loom_shm_wait_slot(shm, g);
            memcpy(loom_shm_slot(shm, root, g), buf + off, n);
            loom_shm_publish(shm, LOOM_SHM_ARRIVED, g + 1);
        } else {
            loom_shm_wait(shm, root, LOOM_SHM_ARRIVED, g + 1);
            memcpy(buf + off, loom_shm_slot(shm, root, g), n);
        }
        loom_shm_publish(shm, LOOM_SHM_DONE, g + 1);
    }
}
