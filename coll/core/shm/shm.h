/*
 * A node's shared segment: the ranks of a team that share one host map the
 * same memory and move large collectives through it with plain loads and
 * stores, instead of sending messages to each other.
 *
 * Why: a message between two processes on one host goes through a bounce
 * buffer (two copies) or CMA (a kernel copy that measured a third of
 * memcpy's rate here).  Through a segment, an allreduce costs each rank
 * one copy in, its 1/p share of the reduction, and one copy out, and each
 * segment of the pipeline stays in the shared last-level cache between
 * those steps.
 *
 * Layout: a control block per rank (three counters, each on its own cache
 * line), then per rank `depth` slots of `slot_bytes`.  A collective is cut
 * into segments of at most slot_bytes per rank; segment g of the segment's
 * lifetime uses slot g % depth.  Counters only grow (they count segments
 * since the segment was created), so nothing is ever reset and a stale
 * value can only make a rank wait, never run ahead:
 *   arrived[r] = g + 1  rank r's input of segment g is in its slot
 *   reduced[r] = g + 1  rank r's share of segment g is reduced (allreduce)
 *   done[r]    = g + 1  rank r no longer reads any slot for segment g
 * A rank reuses its slot for segment g once every done[q] >= g - depth + 1.
 *
 * Every rank of the team calls the same collectives in the same order with
 * the same sizes (MPI's rule), so all ranks walk the same segment numbers.
 * No MPI here: creating, attaching and unlinking are plain POSIX calls, and
 * the adapter exchanges the name.
 */
#ifndef LOOM_SHM_H
#define LOOM_SHM_H

#include "coll/core/engine/args.h"
#include "loom/status.h"

#include <stddef.h>
#include <stdint.h>

/* Called while a rank waits for its peers: the adapter progresses its MPI
 * library (a peer may first need this rank to finish something else) and
 * yields the core when ranks outnumber cores. */
typedef void (*loom_shm_idle_fn_t)(void *ctx);

typedef struct loom_shm_params {
    int                 size;        /* ranks sharing the segment */
    int                 rank;        /* this rank, 0 .. size-1 */
    size_t              slot_bytes;  /* per rank and segment; a multiple of 64 */
    int                 depth;       /* slots per rank: segments in flight */
    int                 crowded;     /* 1: the ranks outnumber their cores, so
                                      * the work done, not how it is shared,
                                      * sets the time (shm_allreduce.c), and a
                                      * waiting rank polls less (shm.c) */
    loom_shm_idle_fn_t  idle;        /* NULL: sched_yield() */
    void                *idle_ctx;
} loom_shm_params_t;

typedef struct loom_shm {
    loom_shm_params_t   params;
    void                *base;       /* the mapping */
    size_t              bytes;       /* its length */
    int                 owns_map;    /* 1: loom_shm_destroy unmaps base */
    uint64_t            next_seg;    /* this rank's next segment number */
    int                 cma;         /* 1: every rank may read every other's
                                      * memory (loom_shm_cma_probe, agreed) */
    /* What this rank waits for now (for hang reports): a new number in
     * waits for every wait, the peer, which counter, which value. */
    uint64_t            waits;
    int                 wait_rank;
    int                 wait_counter;
    uint64_t            wait_value;
    struct loom_shm_ctl *ctl;        /* size control blocks */
    char                *slots;      /* size * depth slots */
} loom_shm_t;

/* Bytes of a segment for these parameters. */
size_t loom_shm_bytes(const loom_shm_params_t *params);

/* Creates the named POSIX shared memory object (O_EXCL, mode 0600) with
 * its pages reserved, so a full /dev/shm fails here and not later with
 * SIGBUS, and maps it.  The creator unlinks the name once every rank has
 * attached (loom_shm_unlink). */
loom_status_t loom_shm_create(const char *name, const loom_shm_params_t *params,
                              loom_shm_t **shm_p);

/* Maps the object another rank created under name. */
loom_status_t loom_shm_attach(const char *name, const loom_shm_params_t *params,
                              loom_shm_t **shm_p);

/* Uses memory the caller mapped shared (for example before fork()), of
 * loom_shm_bytes(params) bytes, zeroed.  The caller unmaps it. */
loom_status_t loom_shm_wrap(void *base, const loom_shm_params_t *params,
                            loom_shm_t **shm_p);

/* Whether this rank can read every other rank's memory with the kernel's
 * cross-process copy (process_vm_readv: Linux's CMA), tried on each
 * peer's control block once that peer has mapped the segment (it waits
 * for them).  The ranks must agree (every one true) before setting
 * shm->cma: a two-rank allgather then reads the peer's block straight
 * from its buffer, one copy instead of two.  A kernel without CMA, a
 * container that filters the call, or ptrace rules (Yama) that forbid it
 * make this false, and the slots are used. */
int loom_shm_cma_probe(loom_shm_t *shm);

/* Removes the name; mappings stay valid.  Nothing is left behind even if
 * the job is killed later. */
void loom_shm_unlink(const char *name);

void loom_shm_destroy(loom_shm_t *shm);

/* Describe in buf (len > 0) what this rank waits for: the peer, the step
 * and the segment, and where the peer is.  Returns the length written. */
size_t loom_shm_describe_wait(const loom_shm_t *shm, char *buf, size_t len);

/*
 * The collectives (shm_allreduce.c, shm_bcast.c, shm_allgather.c,
 * shm_reduce_scatter.c), with the
 * buffers of loom_coll_args_t; seg_bytes and depth of args are ignored (the
 * segment's own slot size and depth apply).  Every rank of the segment
 * calls the same one.  Blocking; they cannot fail once the segment exists.
 *
 * allreduce: commutative ops only (the owner of each share combines the
 * contributions starting from its own); every rank ends with bitwise the
 * same result, since each element is reduced once and copied to all.
 */
void loom_shm_allreduce(loom_shm_t *shm, const loom_coll_args_t *args);
/* reduce to args->root: as allreduce, the root alone copies out. */
void loom_shm_reduce(loom_shm_t *shm, const loom_coll_args_t *args);
/* reduce_scatter_block, and reduce_scatter with args->counts (commutative
 * ops only): the owner of each block reduces it straight into its recvbuf.
 * In place only in the block form (uneven blocks would let a result
 * overtake input not yet read); needs slot_bytes / size >= elem_size. */
void loom_shm_reduce_scatter(loom_shm_t *shm, const loom_coll_args_t *args);
/* Whether loom_shm_reduce_scatter takes args on p ranks with slots of
 * slot_bytes per rank: those two limits above. */
int loom_shm_reduce_scatter_fits(size_t slot_bytes, int p, const loom_coll_args_t *args);
void loom_shm_bcast(loom_shm_t *shm, const loom_coll_args_t *args);
/* allgather, and allgatherv with args->counts and args->displs. */
void loom_shm_allgather(loom_shm_t *shm, const loom_coll_args_t *args);

#endif
