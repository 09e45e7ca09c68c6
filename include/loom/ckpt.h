/*
 * libloom-ckpt: incremental, multi-rank checkpoints with an atomic commit
 * and elastic restore.
 *
 * A checkpoint directory holds content-addressed chunks and, per step, one
 * manifest per rank and one commit record:
 *
 *   DIR/chunks/ab/ab12...ef        a chunk, named by the XXH3-128 of its bytes
 *   DIR/step-00000000000000000042/rank-000000.manifest
 *   DIR/step-00000000000000000042/COMMIT
 *
 * A step exists for restore only once its COMMIT record does; the record is
 * written (temporary name, fsync, rename, directory fsync) after every rank
 * has made its chunks and manifest durable and the ranks have agreed.  A
 * crash at any point therefore leaves the previous committed step
 * restorable.  Chunks are shared by every step that holds the same bytes,
 * so a save writes only chunks that no committed step already holds, and
 * no step depends on another (no chain to replay, no periodic full save).
 *
 * Every call returns a loom_status_t; errors are also logged once, naming
 * the region, chunk and file concerned.  Nothing here includes mpi.h: the
 * ranks agree through loom_ckpt_coord_t, which include/loom/ckpt_mpi.h
 * provides for an MPI communicator.
 */
#ifndef LOOM_CKPT_H
#define LOOM_CKPT_H

#include <stddef.h>
#include <stdint.h>

#include <loom/status.h>

#ifdef __cplusplus
extern "C" {
#endif

typedef struct loom_ckpt loom_ckpt_t;
typedef struct loom_ckpt_io loom_ckpt_io_t;

/* How the ranks of a job agree.  Pass NULL to loom_ckpt_open for a single
 * process.  min_u64 is collective: every rank passes a value and every
 * rank gets the minimum back; it returns 0 on success. */
typedef struct loom_ckpt_coord {
    int rank;
    int size;
    int (*min_u64)(void *ctx, uint64_t *value);
    void *ctx;
} loom_ckpt_coord_t;

typedef enum loom_ckpt_layout {
    LOOM_CKPT_REPLICATED = 0,   /* the same bytes on every rank */
    LOOM_CKPT_SHARDED    = 1    /* this rank's slice of a global array */
} loom_ckpt_layout_t;

/* A named region of the application's memory.  Names are 1 to 64
 * characters from [A-Za-z0-9_.-].  For a sharded region, global_offset and
 * global_size (bytes) place this rank's size bytes in the global array; a
 * restore onto a different number of ranks reassembles each rank's slice
 * from whichever saved slices overlap it.  elem_size is recorded so that
 * a restore can refuse a region whose element type changed. */
typedef struct loom_ckpt_region {
    const char *name;
    void *ptr;
    size_t size;
    size_t elem_size;
    loom_ckpt_layout_t layout;
    uint64_t global_offset;
    uint64_t global_size;
} loom_ckpt_region_t;

/* How a save finds the chunks that may have changed; only those are
 * hashed (a chunk whose hash is unchanged is not written either way).
 *   AUTO    WRITES when the kernel can track writes, else NONE.
 *   WRITES  the kernel reports the pages written since the last save,
 *           including writes the kernel makes for the process (read(),
 *           MPI receives); Linux 6.7+ userfaultfd write-protection.
 *           Pages discarded with madvise(MADV_DONTNEED/MADV_FREE) are not
 *           seen: loom_ckpt_touch them.
 *   MARKS   only the ranges the application passes to loom_ckpt_touch;
 *           anything changed and not touched is NOT saved.
 *   NONE    every chunk is hashed at every save. */
typedef enum loom_ckpt_track_mode {
    LOOM_CKPT_TRACK_DEFAULT = 0,    /* options only: LOOM_CKPT_TRACK, else AUTO */
    LOOM_CKPT_TRACK_AUTO    = 1,
    LOOM_CKPT_TRACK_WRITES  = 2,
    LOOM_CKPT_TRACK_MARKS   = 3,
    LOOM_CKPT_TRACK_NONE    = 4
} loom_ckpt_track_mode_t;

typedef struct loom_ckpt_options {
    size_t chunk_size;          /* bytes; 0: LOOM_CKPT_CHUNK_SIZE or 1 MiB */
    unsigned file_mode;         /* 0: 0600 */
    unsigned dir_mode;          /* 0: 0700 */
    unsigned keep;              /* committed steps kept; 0: LOOM_CKPT_KEEP or all */
    size_t staging_bytes;       /* async staging bound; 0: LOOM_CKPT_STAGING or 64 MiB */
    int zstd_level;             /* chunk compression: 1..19; -1: none;
                                 * 0: LOOM_CKPT_COMPRESS (default none) */
    const loom_ckpt_io_t *io;   /* NULL: the POSIX file system */
    loom_ckpt_track_mode_t track; /* 0: LOOM_CKPT_TRACK or auto */
} loom_ckpt_options_t;

/* What the saves of this context did, summed over its lifetime. */
typedef struct loom_ckpt_stats {
    uint64_t saves;
    uint64_t bytes_registered;  /* bytes covered by the last save */
    uint64_t chunks_written;
    uint64_t chunks_reused;     /* unchanged, or already stored */
    uint64_t bytes_written;     /* chunk bytes written to disk (compressed) */
    uint64_t manifest_bytes;    /* manifest bytes */
    uint64_t steps_deleted;     /* by retention (keep) */
    uint64_t chunks_deleted;    /* no longer referenced by any step */
    uint64_t staging_peak;      /* most bytes staged at once (async) */
    uint64_t stall_ns;          /* time save_async waited for staging room */
    uint64_t chunks_hashed;     /* candidates of change tracking, hashed */
    uint64_t chunks_clean;      /* skipped unhashed: tracking saw no change */
    loom_ckpt_track_mode_t track; /* the tracking in effect (never AUTO):
                                 * NONE when the kernel could not track */
} loom_ckpt_stats_t;

/* Opens (creating it if needed) a checkpoint directory.  coord may be
 * NULL (one process); opts may be NULL (defaults, environment).
 * Collective when coord is given. */
loom_status_t loom_ckpt_open(const char *dir, const loom_ckpt_coord_t *coord,
                             const loom_ckpt_options_t *opts,
                             loom_ckpt_t **ckpt_p);

/* Adds a region to every later save and restore.  The memory must stay
 * valid until loom_ckpt_close.  Every rank registers the same names in
 * the same order. */
loom_status_t loom_ckpt_register(loom_ckpt_t *ckpt,
                                 const loom_ckpt_region_t *region);

/* Declares that bytes [offset, offset + len) of region `name` changed
 * (clamped to the region): the next save hashes their chunks.  Needed in
 * LOOM_CKPT_TRACK_MARKS mode for every change; harmless in the others.
 * Not concurrently with a save of the same context.
 * LOOM_ERR_NOT_FOUND when no region has that name. */
loom_status_t loom_ckpt_touch(loom_ckpt_t *ckpt, const char *name,
                              uint64_t offset, uint64_t len);

/* Saves every registered region as step `step` and commits it.
 * Collective.  LOOM_OK only once the commit record is durable; on an
 * error no rank commits and the previous committed step stays. */
loom_status_t loom_ckpt_save(loom_ckpt_t *ckpt, uint64_t step);

/* Starts saving step `step` and returns LOOM_INPROGRESS once the chunks
 * that change tracking names as candidates are copied to the staging area
 * (bounded by staging_bytes; when it is full, the call waits for the
 * background writer: a stall, counted in stall_ns).  The writer hashes
 * them, drops the unchanged ones and writes the rest.  The regions may change as soon as it returns.  The step is
 * committed by loom_ckpt_wait, which every rank must call; a later save,
 * save_async or restore calls it first.  Collective. */
loom_status_t loom_ckpt_save_async(loom_ckpt_t *ckpt, uint64_t step);

/* Completes the pending asynchronous save: waits for this rank's writes,
 * then the ranks agree and the step is committed, as loom_ckpt_save does.
 * LOOM_OK when committed or when nothing was pending.  Collective. */
loom_status_t loom_ckpt_wait(loom_ckpt_t *ckpt);

/* *written_p = 1 when this rank's part of the pending save is durable,
 * i.e. loom_ckpt_wait would not wait for the disk.  Local. */
loom_status_t loom_ckpt_test(loom_ckpt_t *ckpt, int *written_p);

/* Restores every registered region from step `step`, or from the newest
 * committed step when step is LOOM_CKPT_NEWEST; *step_p (may be NULL)
 * receives the step restored.  Every chunk is verified against its hash.
 * LOOM_ERR_NOT_FOUND when no committed step exists.  Collective. */
#define LOOM_CKPT_NEWEST UINT64_MAX
loom_status_t loom_ckpt_restore(loom_ckpt_t *ckpt, uint64_t step,
                                uint64_t *step_p);

/* The committed steps, ascending, in a malloc()ed array the caller frees. */
loom_status_t loom_ckpt_list(loom_ckpt_t *ckpt, uint64_t **steps_p,
                             size_t *count_p);

void loom_ckpt_get_stats(const loom_ckpt_t *ckpt, loom_ckpt_stats_t *stats_p);

/* Frees the context; registered memory is the application's.  A pending
 * asynchronous save that was not waited for is written out but never
 * committed: the previous committed step stays the newest. */
void loom_ckpt_close(loom_ckpt_t *ckpt);

#ifdef __cplusplus
}
#endif

#endif
