/*
 * Durable writes composed from the primitives of ckpt/io.h, so that a
 * fault-injecting table can cut power between any two of them.
 */
#include "ckpt/io.h"

#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

int loom_ckpt_io_write_durable(const loom_ckpt_io_t *io, const char *dir,
                               const char *name, const void *buf, size_t len,
                               unsigned mode, int sync_dir)
{
    static unsigned counter;
    char tmp[4096], path[4096];
    int n1 = snprintf(tmp, sizeof(tmp), "%s/.%s.tmp.%ld.%u", dir, name,
                      (long)getpid(),
                      __atomic_add_fetch(&counter, 1, __ATOMIC_RELAXED));
    int n2 = snprintf(path, sizeof(path), "%s/%s", dir, name);
    if (n1 < 0 || n2 < 0 || (size_t)n1 >= sizeof(tmp) ||
        (size_t)n2 >= sizeof(path)) {
        return -ENAMETOOLONG;
    }

    int handle = io->create(io->ctx, tmp, mode);
    if (handle < 0) {
        return handle;
    }
    int rc = io->write(io->ctx, handle, buf, len);
    if (rc == 0) {
        rc = io->fsync(io->ctx, handle);
    }
    int rc_close = io->close(io->ctx, handle);
    if (rc == 0) {
        rc = rc_close;
    }
    if (rc == 0) {
        rc = io->rename(io->ctx, tmp, path);
    }
    if (rc != 0) {
        (void)io->unlink(io->ctx, tmp);
        return rc;
    }
    return sync_dir ? io->fsync_dir(io->ctx, dir) : 0;
}

int loom_ckpt_io_mkdir_durable(const loom_ckpt_io_t *io, const char *parent,
                               const char *path, unsigned mode)
{
    int rc = io->mkdir(io->ctx, path, mode);
    if (rc != 0 && rc != -EEXIST) {
        return rc;
    }
    /* Also when it existed: another rank may have created it and not yet
     * made the name durable. */
    return io->fsync_dir(io->ctx, parent);
}

void loom_ckpt_io_free_list(char **names, size_t count)
{
    for (size_t i = 0; i < count; i++) {
        free(names[i]);
    }
    free(names);
}
