/*
 * The checkpoint context shared by ckpt.c (open, save, list) and
 * restore.c.
 */
#ifndef LOOM_CKPT_CONTEXT_H
#define LOOM_CKPT_CONTEXT_H

#include <stddef.h>
#include <inttypes.h>
#include <stdint.h>

#include <loom/ckpt.h>

#include "ckpt/io.h"
#include "ckpt/manifest.h"

typedef struct loom_ckpt_async loom_ckpt_async_t;
typedef struct loom_ckpt_track loom_ckpt_track_t;

typedef struct loom_ckpt_creg {
    loom_ckpt_region_t region;
    char name[LOOM_CKPT_NAME_MAX + 1];
    /* Hashes of the last committed save: a chunk whose hash is unchanged
     * is durable already and is neither stored nor looked up again. */
    loom_ckpt_chunk_ref_t *committed;
    size_t ncommitted;
} loom_ckpt_creg_t;

struct loom_ckpt {
    char *dir;
    loom_ckpt_coord_t coord;
    int coordinated;
    const loom_ckpt_io_t *io;
    uint64_t chunk_size;
    unsigned file_mode;
    unsigned dir_mode;
    unsigned keep;
    int zstd_level;                 /* 0: chunks stored raw */
    size_t staging_bytes;
    loom_ckpt_async_t *async;       /* the writer thread, once needed */
    loom_ckpt_track_t *track;       /* which chunks a save must hash */
    int pending;                    /* an async save awaits loom_ckpt_wait */
    uint64_t pending_step;
    loom_status_t pending_status;   /* of its staging, on this thread */
    loom_ckpt_manifest_t pending_manifest;
    loom_ckpt_creg_t *regions;
    size_t nregions;
    loom_ckpt_stats_t stats;
    loom_ckpt_stats_t published;    /* what hook.h's totals already hold */
};

/* Collective: every rank passes whether it succeeded; 1 when all did. */
int loom_ckpt_agree(loom_ckpt_t *ckpt, int ok);

#define LOOM_CKPT_STEP_PREFIX "step-"
/* The file whose presence in a step's directory makes the step committed. */
#define LOOM_CKPT_COMMIT_NAME "COMMIT"
/* A rank's manifest in a step's directory (printf format, the rank). */
#define LOOM_CKPT_MANIFEST_FMT "rank-%06" PRIu64 ".manifest"

/* The step a directory name "step-<20 digits>" stands for; 0 for any
 * other name (list, show and retention ignore those). */
int loom_ckpt_step_from_name(const char *name, uint64_t *step_p);

/* dir/step-<20 digits>[/name] */
int loom_ckpt_step_path(const loom_ckpt_t *ckpt, uint64_t step,
                        const char *name, char *path, size_t size);

/* Reads and checks step's commit record: LOOM_OK when the step exists. */
loom_status_t loom_ckpt_read_commit(const loom_ckpt_t *ckpt, uint64_t step,
                                    uint64_t *nranks_p, uint64_t *chunk_size_p);

/* Retention, by the rank that committed, before the ranks agree that the
 * save is over: deletes committed steps beyond the newest ckpt->keep and
 * abandoned (uncommitted) steps older than the newest committed one, then
 * every chunk that no remaining manifest refers to (see retain.c). */
loom_status_t loom_ckpt_retain(loom_ckpt_t *ckpt);

/* The same on request (loom-ckpt gc, sweep = 1: collect chunks even when
 * no step was deleted): keep the newest `keep` committed steps (0: all),
 * and spare any file or step directory changed less than grace_s seconds
 * ago, which a running job may still be saving. */
loom_status_t loom_ckpt_gc(loom_ckpt_t *ckpt, unsigned keep, unsigned grace_s,
                          int sweep);

/* The nranks manifests of a committed step, checked to belong to it. */
loom_status_t loom_ckpt_read_manifests(const loom_ckpt_t *ckpt, uint64_t step,
                                       uint64_t nranks, uint64_t chunk_size,
                                       loom_ckpt_manifest_t *ms);

#endif
