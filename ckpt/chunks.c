#include "ckpt/chunks.h"

#include <inttypes.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include <errno.h>
#include <xxhash.h>
#include <zstd.h>

#include "common/log.h"

void loom_ckpt_chunk_hash(const void *buf, size_t len,
                          char hex[LOOM_CKPT_HASH_HEX + 1])
{
    XXH128_hash_t h = XXH3_128bits(buf, len);
    snprintf(hex, LOOM_CKPT_HASH_HEX + 1, "%016" PRIx64 "%016" PRIx64,
             (uint64_t)h.high64, (uint64_t)h.low64);
}

int loom_ckpt_chunk_path(const char *dir, const char *hex, int file,
                         char *path, size_t size)
{
    int n = file ? snprintf(path, size, "%s/chunks/%.2s/%s", dir, hex, hex)
                 : snprintf(path, size, "%s/chunks/%.2s", dir, hex);
    return n >= 0 && (size_t)n < size ? 0 : -1;
}

loom_status_t loom_ckpt_chunk_store(const loom_ckpt_io_t *io, const char *dir,
                                    const char *hex, const void *buf,
                                    size_t len, const loom_ckpt_store_opts_t *opts,
                                    uint8_t dirty[LOOM_CKPT_CHUNK_DIRS],
                                    size_t *written_p)
{
    char sub[4096], file[4096], zfile[4096], top[4096], name[64];
    if (loom_ckpt_chunk_path(dir, hex, 0, sub, sizeof(sub)) != 0 ||
        loom_ckpt_chunk_path(dir, hex, 1, file, sizeof(file)) != 0 ||
        snprintf(zfile, sizeof(zfile), "%s" LOOM_CKPT_ZST_SUFFIX, file) >= (int)sizeof(zfile) ||
        snprintf(top, sizeof(top), "%s/chunks", dir) >= (int)sizeof(top)) {
        loom_error("ckpt", "checkpoint directory name too long: %s", dir);
        return LOOM_ERR_INVALID_PARAM;
    }
    if (io->exists(io->ctx, file) || io->exists(io->ctx, zfile)) {
        *written_p = 0;
        return LOOM_OK;
    }
    /* Compressed only when that saves space: random bytes stay raw. */
    void *packed = NULL;
    const void *out = buf;
    size_t out_len = len;
    snprintf(name, sizeof(name), "%s", hex);
    if (opts->zstd_level > 0 && len > 0) {
        size_t cap = ZSTD_compressBound(len);
        packed = malloc(cap);
        size_t z = packed ? ZSTD_compress(packed, cap, buf, len, opts->zstd_level) : 0;
        if (packed != NULL && !ZSTD_isError(z) && z < len) {
            out = packed;
            out_len = z;
            snprintf(name, sizeof(name), "%s" LOOM_CKPT_ZST_SUFFIX, hex);
        }
    }
    /* A directory another rank created is made durable by that rank
     * before it agrees to commit. */
    int rc = io->exists(io->ctx, sub) ? 0
           : loom_ckpt_io_mkdir_durable(io, top, sub, opts->dir_mode);
    if (rc == 0) {
        rc = loom_ckpt_io_write_durable(io, sub, name, out, out_len,
                                        opts->file_mode, 0);
    }
    free(packed);
    if (rc != 0) {
        loom_error("ckpt", "cannot write chunk %s/%s: %s", sub, name, strerror(-rc));
        return LOOM_ERR_IO;
    }
    dirty[strtoul((char[3]){ hex[0], hex[1], '\0' }, NULL, 16)] = 1;
    *written_p = out_len;
    return LOOM_OK;
}

loom_status_t loom_ckpt_chunk_sync_dirs(const loom_ckpt_io_t *io,
                                        const char *dir,
                                        const uint8_t dirty[LOOM_CKPT_CHUNK_DIRS])
{
    for (unsigned d = 0; d < LOOM_CKPT_CHUNK_DIRS; d++) {
        char sub[4096];
        if (!dirty[d]) {
            continue;
        }
        snprintf(sub, sizeof(sub), "%s/chunks/%02x", dir, d);
        int rc = io->fsync_dir(io->ctx, sub);
        if (rc != 0) {
            loom_error("ckpt", "cannot fsync %s: %s", sub, strerror(-rc));
            return LOOM_ERR_IO;
        }
    }
    return LOOM_OK;
}

/* Reads a chunk's bytes, raw or from its zstd frame, into *buf_p
 * (malloc()ed, *len_p bytes); the file read is named in *file. */
static loom_status_t read_chunk(const loom_ckpt_io_t *io, const char *dir,
                                const loom_ckpt_chunk_ref_t *ref,
                                const char *region, size_t index,
                                char *file, size_t file_size,
                                void **buf_p, size_t *len_p)
{
    void *buf = NULL;
    size_t got = 0;
    if (loom_ckpt_chunk_path(dir, ref->hash, 1, file, file_size) != 0) {
        loom_error("ckpt", "checkpoint directory name too long: %s", dir);
        return LOOM_ERR_INVALID_PARAM;
    }
    int rc = io->read_all(io->ctx, file, &buf, &got), zst = 0;
    if (rc == -ENOENT) {
        size_t n = strlen(file);
        zst = 1;
        snprintf(file + n, file_size - n, LOOM_CKPT_ZST_SUFFIX);
        rc = io->read_all(io->ctx, file, &buf, &got);
        if (rc == 0) {
            /* The frame must say it holds exactly the chunk's length:
             * nothing is allocated on a corrupt header's word. */
            unsigned long long size = ZSTD_getFrameContentSize(buf, got);
            void *raw = size == ref->len ? malloc(ref->len ? ref->len : 1) : NULL;
            size_t z = raw ? ZSTD_decompress(raw, ref->len, buf, got) : 0;
            free(buf);
            if (raw == NULL || ZSTD_isError(z) || z != ref->len) {
                free(raw);
                loom_error("ckpt", "region %s, chunk %zu: %s is not a zstd frame "
                           "of %" PRIu64 " bytes (corrupt)", region, index, file,
                           ref->len);
                return LOOM_ERR_IO;
            }
            buf = raw;
            got = z;
        }
    }
    if (rc != 0) {
        if (zst && rc == -ENOENT) {
            /* Neither form is there: name the plain one. */
            file[strlen(file) - strlen(LOOM_CKPT_ZST_SUFFIX)] = '\0';
        }
        loom_error("ckpt", "region %s, chunk %zu: cannot read %s: %s", region,
                   index, file, strerror(-rc));
        return LOOM_ERR_IO;
    }
    *buf_p = buf;
    *len_p = got;
    return LOOM_OK;
}

loom_status_t loom_ckpt_chunk_load(const loom_ckpt_io_t *io, const char *dir,
                                   const loom_ckpt_chunk_ref_t *ref,
                                   const char *region, size_t index,
                                   uint64_t offset, uint64_t len, void *dst)
{
    char file[4096];
    void *buf = NULL;
    size_t got = 0;
    loom_status_t st = read_chunk(io, dir, ref, region, index, file,
                                  sizeof(file), &buf, &got);
    if (st != LOOM_OK) {
        return st;
    }
    char hex[LOOM_CKPT_HASH_HEX + 1];
    if (got != ref->len) {
        loom_error("ckpt", "region %s, chunk %zu: %s holds %zu bytes, the "
                   "manifest says %" PRIu64 " (truncated or replaced)",
                   region, index, file, got, ref->len);
        st = LOOM_ERR_IO;
    } else if (loom_ckpt_chunk_hash(buf, got, hex), strcmp(hex, ref->hash) != 0) {
        loom_error("ckpt", "region %s, chunk %zu: %s does not match its hash "
                   "(corrupt)", region, index, file);
        st = LOOM_ERR_IO;
    } else if (offset > got || len > got - offset) {
        loom_error("ckpt", "region %s, chunk %zu: bytes %" PRIu64 "+%" PRIu64
                   " lie outside %s", region, index, offset, len, file);
        st = LOOM_ERR_IO;
    } else {
        memcpy(dst, (char *)buf + offset, len);
    }
    free(buf);
    return st;
}
