#include "ckpt/chunks.h"

#include <inttypes.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include <xxhash.h>

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
                                    size_t len, unsigned file_mode,
                                    unsigned dir_mode,
                                    uint8_t dirty[LOOM_CKPT_CHUNK_DIRS],
                                    int *written_p)
{
    char sub[4096], file[4096], top[4096];
    if (loom_ckpt_chunk_path(dir, hex, 0, sub, sizeof(sub)) != 0 ||
        loom_ckpt_chunk_path(dir, hex, 1, file, sizeof(file)) != 0 ||
        snprintf(top, sizeof(top), "%s/chunks", dir) >= (int)sizeof(top)) {
        loom_error("ckpt", "checkpoint directory name too long: %s", dir);
        return LOOM_ERR_INVALID_PARAM;
    }
    if (io->exists(io->ctx, file)) {
        *written_p = 0;
        return LOOM_OK;
    }
    /* A directory another rank created is made durable by that rank
     * before it agrees to commit. */
    int rc = io->exists(io->ctx, sub) ? 0
           : loom_ckpt_io_mkdir_durable(io, top, sub, dir_mode);
    if (rc == 0) {
        rc = loom_ckpt_io_write_durable(io, sub, hex, buf, len, file_mode, 0);
    }
    if (rc != 0) {
        loom_error("ckpt", "cannot write chunk %s: %s", file, strerror(-rc));
        return LOOM_ERR_IO;
    }
    dirty[strtoul((char[3]){ hex[0], hex[1], '\0' }, NULL, 16)] = 1;
    *written_p = 1;
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

loom_status_t loom_ckpt_chunk_load(const loom_ckpt_io_t *io, const char *dir,
                                   const loom_ckpt_chunk_ref_t *ref,
                                   const char *region, size_t index,
                                   uint64_t offset, uint64_t len, void *dst)
{
    char file[4096];
    if (loom_ckpt_chunk_path(dir, ref->hash, 1, file, sizeof(file)) != 0) {
        loom_error("ckpt", "checkpoint directory name too long: %s", dir);
        return LOOM_ERR_INVALID_PARAM;
    }
    void *buf = NULL;
    size_t got = 0;
    int rc = io->read_all(io->ctx, file, &buf, &got);
    if (rc != 0) {
        loom_error("ckpt", "region %s, chunk %zu: cannot read %s: %s", region,
                   index, file, strerror(-rc));
        return LOOM_ERR_IO;
    }
    loom_status_t st = LOOM_OK;
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
