/*
 * An in-memory file system behind ckpt/io.h that can lose power.
 *
 * It keeps two views: what the process sees, and what would survive a
 * power cut -- a file's bytes as of its last fsync, a directory's names as
 * of its last directory fsync.  memfs_arm(fs, k) cuts the power just
 * before the k-th operation that changes anything (1-based): from then on
 * every operation fails with EIO, and memfs_reboot() brings back the
 * durable view alone, as a machine restarting after the cut would.
 */
#ifndef LOOM_TEST_CKPT_MEMFS_H
#define LOOM_TEST_CKPT_MEMFS_H

#include "ckpt/io.h"

typedef struct memfs memfs_t;

memfs_t *memfs_create(void);
void memfs_destroy(memfs_t *fs);
const loom_ckpt_io_t *memfs_io(memfs_t *fs);

/* Cut before the k-th changing operation from now; 0: never. */
void memfs_arm(memfs_t *fs, long k);
/* Changing operations since the last memfs_arm or memfs_reboot. */
long memfs_ops(const memfs_t *fs);
/* 1 once the power is off. */
int memfs_dead(const memfs_t *fs);
/* Cuts the power if it is on, then restarts with the durable view. */
void memfs_reboot(memfs_t *fs);

/* Replaces the bytes of an existing file (corruption tests). */
int memfs_poke(memfs_t *fs, const char *path, size_t offset, unsigned char xor);

#endif
