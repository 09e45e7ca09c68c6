/*
 * Reading a checkpoint directory without the job that wrote it: its
 * committed steps, each step's ranks, regions and chunks, a chunk checked
 * against its hash, the files one step is made of; and the one
 * maintenance call, garbage collection.  What loom-ckpt is built on; no
 * MPI, and nothing here writes but loom_ckpt_dir_gc (docs/ckpt.md).
 */
#ifndef LOOM_CKPT_INSPECT_H
#define LOOM_CKPT_INSPECT_H

#include <stddef.h>
#include <stdint.h>

#include <loom/ckpt.h>

#ifdef __cplusplus
extern "C" {
#endif

typedef struct loom_ckpt_dir loom_ckpt_dir_t;
typedef struct loom_ckpt_view loom_ckpt_view_t;

/* Chunk hashes are 32 hexadecimal digits. */
#define LOOM_CKPT_INSPECT_HASH_HEX 32

typedef struct loom_ckpt_chunk_info {
    char        hash[LOOM_CKPT_INSPECT_HASH_HEX + 1];
    uint64_t    len;
} loom_ckpt_chunk_info_t;

typedef struct loom_ckpt_region_info {
    const char          *name;          /* valid while the view is open */
    loom_ckpt_layout_t  layout;
    uint64_t            size;           /* this rank's bytes */
    uint64_t            global_offset;  /* sharded: where they start in the whole */
    size_t              nchunks;
} loom_ckpt_region_info_t;

/* Opens path for reading.  LOOM_ERR_NOT_FOUND: no such directory. */
loom_status_t loom_ckpt_dir_open(const char *path, loom_ckpt_dir_t **dir_p);
void loom_ckpt_dir_close(loom_ckpt_dir_t *dir);

/* The committed steps, oldest first, in *steps_p (free() it). */
loom_status_t loom_ckpt_dir_steps(loom_ckpt_dir_t *dir, uint64_t **steps_p, size_t *n_p);

/* Keeps the newest keep committed steps (0: all) and deletes the rest,
 * unfinished saves and chunks no step refers to, sparing anything changed
 * in the last grace_s seconds (a running job may still be saving).  What
 * it deleted goes to *steps_p and *chunks_p. */
loom_status_t loom_ckpt_dir_gc(loom_ckpt_dir_t *dir, unsigned keep, unsigned grace_s,
                               uint64_t *steps_p, uint64_t *chunks_p);

/* One committed step: its commit record and every rank's manifest, read
 * once.  LOOM_ERR_NOT_FOUND: the step is not committed. */
loom_status_t loom_ckpt_view_open(loom_ckpt_dir_t *dir, uint64_t step,
                                  loom_ckpt_view_t **view_p);
void loom_ckpt_view_close(loom_ckpt_view_t *view);

uint64_t loom_ckpt_view_step(const loom_ckpt_view_t *view);
uint64_t loom_ckpt_view_nranks(const loom_ckpt_view_t *view);
uint64_t loom_ckpt_view_chunk_size(const loom_ckpt_view_t *view);
size_t loom_ckpt_view_nregions(const loom_ckpt_view_t *view, uint64_t rank);
/* Region g of rank's manifest (rank < nranks, g < nregions). */
void loom_ckpt_view_region(const loom_ckpt_view_t *view, uint64_t rank, size_t g,
                           loom_ckpt_region_info_t *info_p);
/* Chunk c of that region, in order. */
void loom_ckpt_view_chunk(const loom_ckpt_view_t *view, uint64_t rank, size_t g, size_t c,
                          loom_ckpt_chunk_info_t *info_p);
/* Reads chunk c of that region and checks it against its hash:
 * LOOM_OK, or an error after a message naming the region and chunk. */
loom_status_t loom_ckpt_view_check_chunk(const loom_ckpt_view_t *view, uint64_t rank,
                                         size_t g, size_t c);

/* The step's distinct chunks (each stored once however many regions
 * hold it), in hash order; and whether it holds one with this hash. */
size_t loom_ckpt_view_nunique(const loom_ckpt_view_t *view);
void loom_ckpt_view_unique(const loom_ckpt_view_t *view, size_t i,
                           loom_ckpt_chunk_info_t *info_p);
int loom_ckpt_view_has(const loom_ckpt_view_t *view, const char *hash);

/* The files the step is made of, relative to the directory: its commit
 * record, every rank's manifest, every distinct chunk as stored
 * (compressed or not).  File i's name goes to rel (size bytes), its
 * contents to *buf_p (free() it) and *len_p. */
size_t loom_ckpt_view_nfiles(const loom_ckpt_view_t *view);
loom_status_t loom_ckpt_view_read_file(const loom_ckpt_view_t *view, size_t i, char *rel,
                                       size_t size, void **buf_p, size_t *len_p);

#ifdef __cplusplus
}
#endif

#endif
