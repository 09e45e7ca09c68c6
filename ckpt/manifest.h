/*
 * A rank's manifest: which chunks hold each region of one step, as this
 * rank saw it.  Text, one record per line, ending with an XXH3-64 checksum
 * of everything before it, so that a torn or edited manifest is refused
 * rather than half-believed.  Manifests name chunks only by hash: the
 * reader derives every path itself and never opens a path read from a
 * file, so no manifest can lead a restore outside its directory.
 *
 *   loom-ckpt-manifest 1
 *   step 42
 *   rank 0 4
 *   chunk_size 1048576
 *   regions 1
 *   region weights sharded 4000 4 0 16000 1
 *   0123456789abcdef0123456789abcdef 4000
 *   checksum 0123456789abcdef
 */
#ifndef LOOM_CKPT_MANIFEST_H
#define LOOM_CKPT_MANIFEST_H

#include <stddef.h>
#include <stdint.h>

#include <loom/ckpt.h>

#define LOOM_CKPT_NAME_MAX 64
#define LOOM_CKPT_HASH_HEX 32

typedef struct loom_ckpt_chunk_ref {
    char hash[LOOM_CKPT_HASH_HEX + 1];
    uint64_t len;
} loom_ckpt_chunk_ref_t;

typedef struct loom_ckpt_mregion {
    char name[LOOM_CKPT_NAME_MAX + 1];
    loom_ckpt_layout_t layout;
    uint64_t size;
    uint64_t elem_size;
    uint64_t global_offset;
    uint64_t global_size;
    size_t nchunks;
    loom_ckpt_chunk_ref_t *chunks;
} loom_ckpt_mregion_t;

typedef struct loom_ckpt_manifest {
    uint64_t step;
    uint64_t rank;
    uint64_t nranks;
    uint64_t chunk_size;
    size_t nregions;
    loom_ckpt_mregion_t *regions;
} loom_ckpt_manifest_t;

/* 1 when name is a valid region name (see include/loom/ckpt.h). */
int loom_ckpt_name_valid(const char *name);

/* The text of m, malloc()ed, with its checksum line. */
loom_status_t loom_ckpt_manifest_format(const loom_ckpt_manifest_t *m,
                                        char **text_p, size_t *len_p);

/* Parses text (not NUL-terminated) into *m.  On error, logs what is wrong
 * and where, naming `file`, and leaves *m empty. */
loom_status_t loom_ckpt_manifest_parse(const char *text, size_t len,
                                       const char *file,
                                       loom_ckpt_manifest_t *m);

void loom_ckpt_manifest_free(loom_ckpt_manifest_t *m);

/* The commit record of a step: its presence makes the step exist. */
loom_status_t loom_ckpt_commit_format(uint64_t step, uint64_t nranks,
                                      uint64_t chunk_size, char **text_p,
                                      size_t *len_p);
loom_status_t loom_ckpt_commit_parse(const char *text, size_t len,
                                     const char *file, uint64_t *step_p,
                                     uint64_t *nranks_p,
                                     uint64_t *chunk_size_p);

#endif
