/*
 * Reading a peer's memory directly with the kernel's cross-process copy
 * (process_vm_readv, Linux's CMA), for the node segment's two-rank
 * allgather: a peer's block then moves once, from its buffer into this
 * rank's, as Open MPI's shared-memory transport moves large messages,
 * instead of into a slot and out again.
 *
 * Why only there: on two ranks every allgather byte otherwise costs
 * three copies (own block into the slot, own block out, the peer's out)
 * against Open MPI's two, and on this project's machine, when its two
 * virtual CPUs copy slowly between each other, that made Loom 1.1 to 1.35
 * times slower from 256 KiB to 16 MiB (docs/benchmarks.md).  From three
 * ranks on the slots are read by every peer while still in the shared
 * cache, and the segment's walk wins as it is.
 */
#define _GNU_SOURCE
#include "coll/core/shm/shm_sync.h"

#include "common/log.h"

#include <errno.h>
#include <sched.h>
#include <stddef.h>
#include <stdlib.h>
#include <string.h>
#include <sys/types.h>
#include <sys/uio.h>

/* Reads len bytes at remote in process pid into local; 0 on success. */
static int loom_shm_vm_read(pid_t pid, void *local, const void *remote, size_t len)
{
    while (len > 0) {
        struct iovec l = { .iov_base = local, .iov_len = len };
        struct iovec r = { .iov_base = (void *)remote, .iov_len = len };
        ssize_t got = process_vm_readv(pid, &l, 1, &r, 1, 0);

        if (got < 0 && errno == EINTR) {
            continue;
        }
        if (got <= 0) {
            return -1;
        }
        /* The kernel may stop short (a page boundary it could not cross
         * in one go): go on from there. */
        local = (char *)local + got;
        remote = (const char *)remote + got;
        len -= (size_t)got;
    }
    return 0;
}

int loom_shm_cma_probe(loom_shm_t *shm)
{
    const int p = shm->params.size, r = shm->params.rank;
    int q, ok = 1;

    for (q = 0; q < p; ++q) {
        struct loom_shm_ctl *ctl = &shm->ctl[q];
        uint64_t pid, base, seen = 0;

        if (q == r) {
            continue;
        }
        while ((pid = atomic_load_explicit(&ctl->pid, memory_order_acquire)) == 0) {
            sched_yield(); /* that peer has not mapped the segment yet */
        }
        base = atomic_load_explicit(&ctl->base, memory_order_relaxed);
        /* The peer's own pid, read through its own mapping of its control
         * block: right only if the kernel let this rank read its memory. */
        if (loom_shm_vm_read((pid_t)pid, &seen,
                             (const char *)(uintptr_t)base + (size_t)q * sizeof(*ctl) +
                                 offsetof(struct loom_shm_ctl, pid),
                             sizeof(seen)) != 0 ||
            seen != pid) {
            loom_debug("coll", "shm: cannot read rank %d's memory (process_vm_readv: %s); "
                       "the slots carry every block", q, strerror(errno));
            ok = 0;
        }
    }
    return ok;
}

void loom_shm_cma_read(loom_shm_t *shm, int rank, void *local, size_t len)
{
    struct loom_shm_ctl *ctl = &shm->ctl[rank];
    uint64_t pid = atomic_load_explicit(&ctl->pid, memory_order_relaxed);
    uint64_t addr = atomic_load_explicit(&ctl->addr, memory_order_relaxed);

    /* Every rank proved it could read every other before shm->cma was
     * set, and the peer keeps its buffer until this rank says it is done:
     * a failure here means the peer's process is gone, and no result can
     * be delivered. */
    if (loom_shm_vm_read((pid_t)pid, local, (const void *)(uintptr_t)addr, len) != 0) {
        loom_error("coll", "shm: reading %zu bytes of rank %d's buffer failed (%s): its "
                   "process is gone; aborting", len, rank, strerror(errno));
        abort();
    }
}
