/*
 * See ckpt_memfs.h.  Names are whole paths; an entry's parent is its path
 * up to the last '/'.  Inodes hold a file's current and durable bytes; an
 * entry maps a path to an inode in the current view and, separately, in
 * the durable view.
 */
#include "ckpt_memfs.h"

#include <errno.h>
#include <stdlib.h>
#include <string.h>

#define MAX_NODES 65536
#define MAX_HANDLES 64

typedef struct inode {
    int is_dir;
    char *data;
    size_t len;
    char *ddata;    /* durable bytes */
    size_t dlen;
} inode_t;

typedef struct entry {
    char *path;
    int ino;        /* current view, -1: absent */
    int dino;       /* durable view, -1: absent */
} entry_t;

struct memfs {
    loom_ckpt_io_t io;
    inode_t nodes[MAX_NODES];
    int nnodes;
    entry_t *entries;
    size_t nentries;
    int handles[MAX_HANDLES];   /* inode, or -1 */
    long ops;
    long cut_at;
    int dead;
};

static entry_t *lookup(memfs_t *fs, const char *path)
{
    for (size_t i = 0; i < fs->nentries; i++) {
        if (strcmp(fs->entries[i].path, path) == 0) {
            return &fs->entries[i];
        }
    }
    return NULL;
}

static int current(memfs_t *fs, const char *path)
{
    entry_t *e = lookup(fs, path);
    return e ? e->ino : -1;
}

static size_t parent_len(const char *path)
{
    const char *slash = strrchr(path, '/');
    return slash ? (size_t)(slash - path) : 0;
}

static int parent_is_dir(memfs_t *fs, const char *path)
{
    size_t n = parent_len(path);
    if (n == 0) {
        return 1;   /* the root */
    }
    char *parent = strndup(path, n);
    int ino = current(fs, parent);
    free(parent);
    return ino >= 0 && fs->nodes[ino].is_dir;
}

static void set_entry(memfs_t *fs, const char *path, int ino)
{
    entry_t *e = lookup(fs, path);
    if (e == NULL) {
        fs->entries = realloc(fs->entries, (fs->nentries + 1) * sizeof(*e));
        e = &fs->entries[fs->nentries++];
        e->path = strdup(path);
        e->dino = -1;
    }
    e->ino = ino;
}

static int new_inode(memfs_t *fs, int is_dir)
{
    if (fs->nnodes == MAX_NODES) {
        return -ENOSPC;
    }
    inode_t *n = &fs->nodes[fs->nnodes];
    memset(n, 0, sizeof(*n));
    n->is_dir = is_dir;
    return fs->nnodes++;
}

/* Counts a changing operation; 0 to go on, -EIO once the power is off. */
static int step(memfs_t *fs)
{
    if (fs->dead) {
        return -EIO;
    }
    fs->ops++;
    if (fs->cut_at > 0 && fs->ops >= fs->cut_at) {
        fs->dead = 1;
        return -EIO;
    }
    return 0;
}

static int m_mkdir(void *ctx, const char *path, unsigned mode)
{
    memfs_t *fs = ctx;
    (void)mode;
    int rc = step(fs);
    if (rc != 0) {
        return rc;
    }
    if (current(fs, path) >= 0) {
        return -EEXIST;
    }
    if (!parent_is_dir(fs, path)) {
        return -ENOENT;
    }
    int ino = new_inode(fs, 1);
    if (ino < 0) {
        return ino;
    }
    set_entry(fs, path, ino);
    return 0;
}

static int m_create(void *ctx, const char *path, unsigned mode)
{
    memfs_t *fs = ctx;
    (void)mode;
    int rc = step(fs);
    if (rc != 0) {
        return rc;
    }
    if (!parent_is_dir(fs, path)) {
        return -ENOENT;
    }
    int ino = current(fs, path);
    if (ino >= 0 && fs->nodes[ino].is_dir) {
        return -EISDIR;
    }
    if (ino < 0) {
        if ((ino = new_inode(fs, 0)) < 0) {
            return ino;
        }
        set_entry(fs, path, ino);
    }
    fs->nodes[ino].len = 0;     /* O_TRUNC */
    for (int h = 0; h < MAX_HANDLES; h++) {
        if (fs->handles[h] < 0) {
            fs->handles[h] = ino;
            return h;
        }
    }
    return -EMFILE;
}

static int m_write(void *ctx, int h, const void *buf, size_t len)
{
    memfs_t *fs = ctx;
    int rc = step(fs);
    if (rc != 0) {
        return rc;
    }
    inode_t *n = &fs->nodes[fs->handles[h]];
    n->data = realloc(n->data, n->len + len + 1);
    memcpy(n->data + n->len, buf, len);
    n->len += len;
    return 0;
}

static int m_fsync(void *ctx, int h)
{
    memfs_t *fs = ctx;
    int rc = step(fs);
    if (rc != 0) {
        return rc;
    }
    inode_t *n = &fs->nodes[fs->handles[h]];
    free(n->ddata);
    n->ddata = malloc(n->len + 1);
    memcpy(n->ddata, n->data ? n->data : "", n->len);
    n->dlen = n->len;
    return 0;
}

static int m_close(void *ctx, int h)
{
    memfs_t *fs = ctx;
    int rc = step(fs);
    fs->handles[h] = -1;    /* released even when the power is off */
    return rc;
}

static int m_rename(void *ctx, const char *from, const char *to)
{
    memfs_t *fs = ctx;
    int rc = step(fs);
    if (rc != 0) {
        return rc;
    }
    int ino = current(fs, from);
    if (ino < 0) {
        return -ENOENT;
    }
    if (!parent_is_dir(fs, to)) {
        return -ENOENT;
    }
    set_entry(fs, to, ino);
    lookup(fs, from)->ino = -1;
    return 0;
}

static int m_fsync_dir(void *ctx, const char *path)
{
    memfs_t *fs = ctx;
    int rc = step(fs);
    if (rc != 0) {
        return rc;
    }
    int root = strcmp(path, "/") == 0;
    int dir = current(fs, path);
    if (!root && (dir < 0 || !fs->nodes[dir].is_dir)) {
        return -ENOTDIR;
    }
    size_t plen = root ? 0 : strlen(path);
    for (size_t i = 0; i < fs->nentries; i++) {
        entry_t *e = &fs->entries[i];
        if (parent_len(e->path) == plen && strncmp(e->path, path, plen) == 0) {
            e->dino = e->ino;
        }
    }
    return 0;
}

static int m_unlink(void *ctx, const char *path)
{
    memfs_t *fs = ctx;
    int rc = step(fs);
    if (rc != 0) {
        return rc;
    }
    entry_t *e = lookup(fs, path);
    if (e == NULL || e->ino < 0) {
        return -ENOENT;
    }
    e->ino = -1;
    return 0;
}

static int m_rmdir(void *ctx, const char *path)
{
    memfs_t *fs = ctx;
    int rc = step(fs);
    if (rc != 0) {
        return rc;
    }
    entry_t *e = lookup(fs, path);
    if (e == NULL || e->ino < 0) {
        return -ENOENT;
    }
    if (!fs->nodes[e->ino].is_dir) {
        return -ENOTDIR;
    }
    size_t plen = strlen(path);
    for (size_t i = 0; i < fs->nentries; i++) {
        entry_t *c = &fs->entries[i];
        if (c->ino >= 0 && parent_len(c->path) == plen &&
            strncmp(c->path, path, plen) == 0) {
            return -ENOTEMPTY;
        }
    }
    e->ino = -1;
    return 0;
}

static int m_exists(void *ctx, const char *path)
{
    return current(ctx, path) >= 0;
}

static int m_read_all(void *ctx, const char *path, void **buf_p, size_t *len_p)
{
    memfs_t *fs = ctx;
    if (fs->dead) {
        return -EIO;
    }
    int ino = current(fs, path);
    if (ino < 0) {
        return -ENOENT;
    }
    if (fs->nodes[ino].is_dir) {
        return -EISDIR;
    }
    inode_t *n = &fs->nodes[ino];
    char *buf = malloc(n->len + 1);
    memcpy(buf, n->data ? n->data : "", n->len);
    *buf_p = buf;
    *len_p = n->len;
    return 0;
}

static int m_list(void *ctx, const char *path, char ***names_p, size_t *count_p)
{
    memfs_t *fs = ctx;
    if (fs->dead) {
        return -EIO;
    }
    int dir = current(fs, path);
    if (dir < 0 || !fs->nodes[dir].is_dir) {
        return -ENOENT;
    }
    size_t plen = strlen(path), count = 0;
    char **names = malloc((fs->nentries + 1) * sizeof(*names));
    for (size_t i = 0; i < fs->nentries; i++) {
        entry_t *e = &fs->entries[i];
        if (e->ino >= 0 && parent_len(e->path) == plen &&
            strncmp(e->path, path, plen) == 0) {
            names[count++] = strdup(e->path + plen + 1);
        }
    }
    *names_p = names;
    *count_p = count;
    return 0;
}

memfs_t *memfs_create(void)
{
    memfs_t *fs = calloc(1, sizeof(*fs));
    fs->io = (loom_ckpt_io_t){
        .ctx = fs, .mkdir = m_mkdir, .create = m_create, .write = m_write,
        .fsync = m_fsync, .close = m_close, .rename = m_rename,
        .fsync_dir = m_fsync_dir, .unlink = m_unlink, .rmdir = m_rmdir, .exists = m_exists,
        .read_all = m_read_all, .list = m_list,
    };
    for (int h = 0; h < MAX_HANDLES; h++) {
        fs->handles[h] = -1;
    }
    return fs;
}

void memfs_destroy(memfs_t *fs)
{
    for (int i = 0; i < fs->nnodes; i++) {
        free(fs->nodes[i].data);
        free(fs->nodes[i].ddata);
    }
    for (size_t i = 0; i < fs->nentries; i++) {
        free(fs->entries[i].path);
    }
    free(fs->entries);
    free(fs);
}

const loom_ckpt_io_t *memfs_io(memfs_t *fs)
{
    return &fs->io;
}

void memfs_arm(memfs_t *fs, long k)
{
    fs->ops = 0;
    fs->cut_at = k;
}

long memfs_ops(const memfs_t *fs)
{
    return fs->ops;
}

int memfs_dead(const memfs_t *fs)
{
    return fs->dead;
}

void memfs_reboot(memfs_t *fs)
{
    for (size_t i = 0; i < fs->nentries; i++) {
        fs->entries[i].ino = fs->entries[i].dino;
    }
    for (int i = 0; i < fs->nnodes; i++) {
        inode_t *n = &fs->nodes[i];
        free(n->data);
        n->data = NULL;
        n->len = 0;
        if (n->ddata != NULL) {
            n->data = malloc(n->dlen + 1);
            memcpy(n->data, n->ddata, n->dlen);
            n->len = n->dlen;
        }
    }
    for (int h = 0; h < MAX_HANDLES; h++) {
        fs->handles[h] = -1;
    }
    fs->dead = 0;
    fs->ops = 0;
    fs->cut_at = 0;
}

int memfs_poke(memfs_t *fs, const char *path, size_t offset, unsigned char xor)
{
    int ino = current(fs, path);
    if (ino < 0 || offset >= fs->nodes[ino].len) {
        return -ENOENT;
    }
    fs->nodes[ino].data[offset] ^= (char)xor;
    return 0;
}
