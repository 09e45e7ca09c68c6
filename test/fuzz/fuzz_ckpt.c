/*
 * libFuzzer target for libloom-ckpt's readers (make fuzz): whatever bytes
 * a manifest, a commit record or a compressed chunk holds, the readers
 * return an error or a result and never read or allocate out of bounds
 * (the build adds AddressSanitizer and UndefinedBehaviorSanitizer).
 *
 * The first byte picks the reader: 0 manifest, 1 commit record, 2 a chunk
 * stored compressed (the zstd frame and the length and hash checks).
 */
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>
#include <string.h>

#include "ckpt/chunks.h"
#include "ckpt/manifest.h"
#include "common/log.h"
#include "test/unit/support/ckpt_memfs.h"

static void chunk_reader(const uint8_t *data, size_t size)
{
    static memfs_t *fs;
    if (fs == NULL) {
        fs = memfs_create();
        const loom_ckpt_io_t *io = memfs_io(fs);
        io->mkdir(fs, "/ck", 0700);
        io->mkdir(fs, "/ck/chunks", 0700);
        io->mkdir(fs, "/ck/chunks/00", 0700);
    }
    const loom_ckpt_io_t *io = memfs_io(fs);
    /* The length the manifest would claim: the first two bytes. */
    if (size < 2) {
        return;
    }
    loom_ckpt_chunk_ref_t ref = { .len = data[0] | (size_t)data[1] << 8 };
    data += 2;
    size -= 2;
    memcpy(ref.hash, "00000000000000000000000000000000", sizeof(ref.hash));
    /* create truncates the one file: no inode per input. */
    int h = io->create(fs, "/ck/chunks/00/00000000000000000000000000000000.zst", 0600);
    if (h < 0) {
        return;
    }
    io->write(fs, h, data, size);
    io->close(fs, h);
    unsigned char out[1 << 16];
    (void)loom_ckpt_chunk_load(io, "/ck", &ref, "fuzz", 0, 0, ref.len, out);
}

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
    static FILE *null;
    if (null == NULL) {
        null = fopen("/dev/null", "w");
        loom_log_set_stream(null);     /* every input is an error */
    }
    if (size == 0) {
        return 0;
    }
    const char *text = (const char *)data + 1;
    size_t len = size - 1;
    switch (data[0] % 3) {
    case 0: {
        loom_ckpt_manifest_t m;
        if (loom_ckpt_manifest_parse(text, len, "fuzz", &m) == LOOM_OK) {
            loom_ckpt_manifest_free(&m);
        }
        break;
    }
    case 1: {
        uint64_t step, nranks, chunk;
        (void)loom_ckpt_commit_parse(text, len, "fuzz", &step, &nranks, &chunk);
        break;
    }
    default:
        chunk_reader(data + 1, len);
        break;
    }
    return 0;
}
