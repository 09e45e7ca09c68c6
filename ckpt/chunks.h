/*
 * The content-addressed chunk store: DIR/chunks/<first two hex digits>/
 * <XXH3-128 of the bytes, 32 hex digits>, or the same name with ".zst"
 * when the file holds a zstd frame of the bytes (compression on request,
 * kept only when it saves space).  The hash is always of the bytes
 * themselves, so a chunk is the same chunk compressed or not.  A chunk
 * file is written once, durably, under its final name, and never
 * rewritten: two ranks or two steps saving the same bytes share it.
 */
#ifndef LOOM_CKPT_CHUNKS_H
#define LOOM_CKPT_CHUNKS_H

#include <stddef.h>
#include <stdint.h>

#include "ckpt/io.h"
#include "ckpt/manifest.h"

/* The 32 lowercase hex digits of the XXH3-128 of buf. */
void loom_ckpt_chunk_hash(const void *buf, size_t len,
                          char hex[LOOM_CKPT_HASH_HEX + 1]);

/* dir/chunks/ab/<hex>, or its directory when file is 0. */
int loom_ckpt_chunk_path(const char *dir, const char *hex, int file,
                         char *path, size_t size);

/* The chunk directories: one per value of the first two hex digits. */
#define LOOM_CKPT_CHUNK_DIRS 256

#define LOOM_CKPT_ZST_SUFFIX ".zst"

/* How chunks are stored. */
typedef struct loom_ckpt_store_opts {
    unsigned file_mode;
    unsigned dir_mode;
    int zstd_level;         /* 0: no compression */
} loom_ckpt_store_opts_t;

/* Stores buf under its hash unless a chunk of that name exists already;
 * *written_p is the bytes written to disk (0: it existed).  The file is
 * durable on return, its name only after loom_ckpt_chunk_sync_dirs:
 * dirty[] marks its directory. */
loom_status_t loom_ckpt_chunk_store(const loom_ckpt_io_t *io, const char *dir,
                                    const char *hex, const void *buf,
                                    size_t len, const loom_ckpt_store_opts_t *opts,
                                    uint8_t dirty[LOOM_CKPT_CHUNK_DIRS],
                                    size_t *written_p);

/* fsyncs the chunk directories marked in dirty[]. */
loom_status_t loom_ckpt_chunk_sync_dirs(const loom_ckpt_io_t *io,
                                        const char *dir,
                                        const uint8_t dirty[LOOM_CKPT_CHUNK_DIRS]);

/* Reads the chunk ref, verifies its length and hash, and copies bytes
 * [offset, offset + len) of it to dst.  Errors name the region, the
 * chunk's index in it and the file. */
loom_status_t loom_ckpt_chunk_load(const loom_ckpt_io_t *io, const char *dir,
                                   const loom_ckpt_chunk_ref_t *ref,
                                   const char *region, size_t index,
                                   uint64_t offset, uint64_t len, void *dst);

#endif
