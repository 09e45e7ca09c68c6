/*
 * ckpt/io.h on the real file system.  Handles are file descriptors.
 */
#include "ckpt/io.h"

#include <dirent.h>
#include <errno.h>
#include <fcntl.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <time.h>
#include <unistd.h>

static int posix_mkdir(void *ctx, const char *path, unsigned mode)
{
    (void)ctx;
    return mkdir(path, (mode_t)mode) == 0 ? 0 : -errno;
}

static int posix_create(void *ctx, const char *path, unsigned mode)
{
    (void)ctx;
    int fd = open(path, O_WRONLY | O_CREAT | O_TRUNC | O_CLOEXEC, (mode_t)mode);
    return fd >= 0 ? fd : -errno;
}

static int posix_write(void *ctx, int fd, const void *buf, size_t len)
{
    (void)ctx;
    const char *p = buf;
    while (len > 0) {
        ssize_t n = write(fd, p, len);
        if (n < 0) {
            if (errno == EINTR) {
                continue;
            }
            return -errno;
        }
        p += n;
        len -= (size_t)n;
    }
    return 0;
}

static int posix_fsync(void *ctx, int fd)
{
    (void)ctx;
    return fsync(fd) == 0 ? 0 : -errno;
}

static int posix_close(void *ctx, int fd)
{
    (void)ctx;
    return close(fd) == 0 ? 0 : -errno;
}

static int posix_rename(void *ctx, const char *from, const char *to)
{
    (void)ctx;
    return rename(from, to) == 0 ? 0 : -errno;
}

static int posix_fsync_dir(void *ctx, const char *path)
{
    (void)ctx;
    int fd = open(path, O_RDONLY | O_DIRECTORY | O_CLOEXEC);
    if (fd < 0) {
        return -errno;
    }
    int rc = fsync(fd) == 0 ? 0 : -errno;
    close(fd);
    return rc;
}

static int posix_unlink(void *ctx, const char *path)
{
    (void)ctx;
    return unlink(path) == 0 ? 0 : -errno;
}

static int posix_rmdir(void *ctx, const char *path)
{
    (void)ctx;
    return rmdir(path) == 0 ? 0 : -errno;
}

static int posix_age(void *ctx, const char *path, double *seconds_p)
{
    (void)ctx;
    struct stat st;
    if (stat(path, &st) != 0) {
        return -errno;
    }
    *seconds_p = difftime(time(NULL), st.st_mtime);
    return 0;
}

static int posix_exists(void *ctx, const char *path)
{
    (void)ctx;
    struct stat st;
    return stat(path, &st) == 0;
}

static int posix_read_all(void *ctx, const char *path, void **buf_p,
                          size_t *len_p)
{
    (void)ctx;
    int fd = open(path, O_RDONLY | O_CLOEXEC);
    if (fd < 0) {
        return -errno;
    }
    struct stat st;
    if (fstat(fd, &st) != 0 || !S_ISREG(st.st_mode)) {
        int rc = S_ISREG(st.st_mode) ? -errno : -EINVAL;
        close(fd);
        return rc;
    }
    size_t len = (size_t)st.st_size;
    char *buf = malloc(len > 0 ? len : 1);
    if (buf == NULL) {
        close(fd);
        return -ENOMEM;
    }
    size_t got = 0;
    while (got < len) {
        ssize_t n = read(fd, buf + got, len - got);
        if (n < 0 && errno == EINTR) {
            continue;
        }
        if (n <= 0) {
            int rc = n < 0 ? -errno : -EIO;
            free(buf);
            close(fd);
            return rc;
        }
        got += (size_t)n;
    }
    close(fd);
    *buf_p = buf;
    *len_p = len;
    return 0;
}

static int posix_list(void *ctx, const char *path, char ***names_p,
                      size_t *count_p)
{
    (void)ctx;
    DIR *d = opendir(path);
    if (d == NULL) {
        return -errno;
    }
    char **names = NULL;
    size_t count = 0, cap = 0;
    struct dirent *e;
    while ((e = readdir(d)) != NULL) {
        if (strcmp(e->d_name, ".") == 0 || strcmp(e->d_name, "..") == 0) {
            continue;
        }
        if (count == cap) {
            cap = cap ? 2 * cap : 16;
            char **grown = realloc(names, cap * sizeof(*names));
            if (grown == NULL) {
                goto fail_nomem;
            }
            names = grown;
        }
        if ((names[count] = strdup(e->d_name)) == NULL) {
            goto fail_nomem;
        }
        count++;
    }
    closedir(d);
    *names_p = names;
    *count_p = count;
    return 0;

fail_nomem:
    closedir(d);
    loom_ckpt_io_free_list(names, count);
    return -ENOMEM;
}

const loom_ckpt_io_t *loom_ckpt_io_posix(void)
{
    static const loom_ckpt_io_t io = {
        .ctx = NULL,
        .mkdir = posix_mkdir,
        .create = posix_create,
        .write = posix_write,
        .fsync = posix_fsync,
        .close = posix_close,
        .rename = posix_rename,
        .fsync_dir = posix_fsync_dir,
        .unlink = posix_unlink,
        .rmdir = posix_rmdir,
        .age = posix_age,
        .exists = posix_exists,
        .read_all = posix_read_all,
        .list = posix_list,
    };
    return &io;
}
