/*
 * The counters of a node segment and how ranks wait on them (shm.h has
 * the protocol).  Internal to the shm_*.c files.
 */
#ifndef LOOM_SHM_SYNC_H
#define LOOM_SHM_SYNC_H

#include "coll/core/shm/shm.h"

#include <stdatomic.h>

/* Each counter on a cache line of its own: the owner writes it while the
 * others poll, and sharing a line would make every poll a miss for it. */
struct loom_shm_ctl {
    _Alignas(64) _Atomic uint64_t arrived;
    _Alignas(64) _Atomic uint64_t reduced;
    _Alignas(64) _Atomic uint64_t done;
    /* For reading a peer's buffers directly (shm_cma.c): its process and
     * where it mapped the segment, written once when it maps it, and the
     * address of its block in the current call, written before arrived. */
    _Alignas(64) _Atomic uint64_t pid;
    _Atomic uint64_t base;
    _Atomic uint64_t addr;
};

typedef enum loom_shm_counter {
    LOOM_SHM_ARRIVED,
    LOOM_SHM_REDUCED,
    LOOM_SHM_DONE,
} loom_shm_counter_t;

/* Slot of rank for segment g. */
static inline char *loom_shm_slot(const loom_shm_t *shm, int rank, uint64_t g)
{
    size_t index = (size_t)rank * (size_t)shm->params.depth +
                   (size_t)(g % (uint64_t)shm->params.depth);

    return shm->slots + index * shm->params.slot_bytes;
}

/* Bytes of rank q's block in a call with one block per rank (allgather,
 * reduce_scatter): args->counts[q] elements, or args->count each. */
static inline size_t loom_shm_block_bytes(const loom_coll_args_t *args, int q)
{
    return (args->counts != NULL ? args->counts[q] : args->count) * args->elem_size;
}

/* The largest block: the pieces of a call follow it. */
static inline size_t loom_shm_longest_block(const loom_coll_args_t *args, int p)
{
    size_t longest = 0, len;
    int q;

    for (q = 0; q < p; ++q) {
        len = loom_shm_block_bytes(args, q);
        longest = len > longest ? len : longest;
    }
    return longest;
}

/* Bytes of the piece at off, at most piece long, of a block of len bytes
 * (0 once a shorter block has ended). */
static inline size_t loom_shm_piece(size_t len, size_t off, size_t piece)
{
    size_t n = off < len ? len - off : 0;

    return n < piece ? n : piece;
}

/* Bytes per piece when a two-rank walk cuts a call of total bytes into
 * quarters, so that one rank's copy of a piece overlaps the other's work
 * on the previous one: a quarter rounded up to a cache line, at least
 * min_bytes, at most a slot. */
static inline size_t loom_shm_quarter(const loom_shm_t *shm, size_t total, size_t min_bytes)
{
    size_t quarter = (total / 4 + 63) / 64 * 64;

    quarter = quarter < min_bytes ? min_bytes : quarter;
    return quarter < shm->params.slot_bytes ? quarter : shm->params.slot_bytes;
}

/* Copies len bytes at the address rank published in its ctl->addr into
 * local, with the kernel's cross-process copy (shm->cma must be set). */
void loom_shm_cma_read(loom_shm_t *shm, int rank, void *local, size_t len);

/* Makes this rank's writes before it visible to whoever sees value. */
void loom_shm_publish(loom_shm_t *shm, loom_shm_counter_t counter, uint64_t value);

/* Waits until rank's counter reaches value. */
void loom_shm_wait(loom_shm_t *shm, int rank, loom_shm_counter_t counter, uint64_t value);

/* Waits until this rank may overwrite its slot for segment g: every rank
 * is done with segment g - depth, the last one that used that slot. */
void loom_shm_wait_slot(loom_shm_t *shm, uint64_t g);

#endif
