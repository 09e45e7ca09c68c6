/*
 * The file operations of libloom-ckpt, behind a table so that tests can
 * replace the file system with one that loses power
 * (test/unit/support/ckpt_memfs.c) and check that every committed
 * checkpoint survives.
 *
 * Durability follows POSIX as file systems implement it: a file's bytes are
 * durable after fsync of the file, a name (create, rename) after fsync of
 * its directory.  Every function returns 0 or a negative errno.
 */
#ifndef LOOM_CKPT_IO_H
#define LOOM_CKPT_IO_H

#include <stddef.h>

#include <loom/ckpt.h>

struct loom_ckpt_io {
    void *ctx;
    int (*mkdir)(void *ctx, const char *path, unsigned mode);   /* -EEXIST */
    int (*create)(void *ctx, const char *path, unsigned mode);  /* a handle >= 0 */
    int (*write)(void *ctx, int handle, const void *buf, size_t len);
    int (*fsync)(void *ctx, int handle);
    int (*close)(void *ctx, int handle);
    int (*rename)(void *ctx, const char *from, const char *to);
    int (*fsync_dir)(void *ctx, const char *path);
    int (*unlink)(void *ctx, const char *path);
    int (*rmdir)(void *ctx, const char *path);                  /* empty only */
    int (*exists)(void *ctx, const char *path);                 /* 1, 0 */
    /* Seconds since the last change; NULL where unknown (then 0: old). */
    int (*age)(void *ctx, const char *path, double *seconds_p);
    /* The whole file, in a malloc()ed buffer the caller frees. */
    int (*read_all)(void *ctx, const char *path, void **buf_p, size_t *len_p);
    /* The names in a directory, malloc()ed, without "." and "..". */
    int (*list)(void *ctx, const char *path, char ***names_p, size_t *count_p);
};

/* The real file system. */
const loom_ckpt_io_t *loom_ckpt_io_posix(void);

/* Writes dir/name durably: a temporary name in dir, write, fsync, close,
 * rename onto name, and, when sync_dir is set, fsync of dir (otherwise the
 * caller fsyncs dir before relying on the name, e.g. once for many
 * files).  Either the old file (or none) or the whole new one is there
 * after a crash, never a part. */
int loom_ckpt_io_write_durable(const loom_ckpt_io_t *io, const char *dir,
                               const char *name, const void *buf, size_t len,
                               unsigned mode, int sync_dir);

/* mkdir that accepts an existing directory, followed by an fsync of the
 * parent so that the new name is durable. */
int loom_ckpt_io_mkdir_durable(const loom_ckpt_io_t *io, const char *parent,
                               const char *path, unsigned mode);

void loom_ckpt_io_free_list(char **names, size_t count);

#endif
