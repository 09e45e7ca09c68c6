/* Reading a checkpoint directory (include/loom/ckpt_inspect.h). */
#include <loom/ckpt_inspect.h>

#include <errno.h>
#include <inttypes.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>

#include "ckpt/chunks.h"
#include "ckpt/context.h"
#include "common/log.h"

_Static_assert(LOOM_CKPT_INSPECT_HASH_HEX == LOOM_CKPT_HASH_HEX,
               "the public hash length is the store's");

/* A context with a directory and the POSIX store only: what reading and
 * garbage collection use of a loom_ckpt_t. */
struct loom_ckpt_dir {
    loom_ckpt_t ck;
};

struct loom_ckpt_view {
    loom_ckpt_dir_t         *dir;
    uint64_t                step, nranks, chunk_size;
    loom_ckpt_manifest_t    *ms;        /* one per rank */
    loom_ckpt_chunk_ref_t   *uniq;      /* every chunk once, sorted by hash */
    size_t                  nuniq;
};

loom_status_t loom_ckpt_dir_open(const char *path, loom_ckpt_dir_t **dir_p)
{
    loom_ckpt_dir_t *d;
    struct stat st;

    *dir_p = NULL;
    if (path == NULL || stat(path, &st) != 0 || !S_ISDIR(st.st_mode)) {
        return LOOM_ERR_NOT_FOUND;
    }
    d = calloc(1, sizeof(*d));
    if (d == NULL || (d->ck.dir = strdup(path)) == NULL) {
        free(d);
        return LOOM_ERR_NO_MEMORY;
    }
    d->ck.io = loom_ckpt_io_posix();
    *dir_p = d;
    return LOOM_OK;
}

void loom_ckpt_dir_close(loom_ckpt_dir_t *dir)
{
    if (dir != NULL) {
        free(dir->ck.dir);
        free(dir);
    }
}

loom_status_t loom_ckpt_dir_steps(loom_ckpt_dir_t *dir, uint64_t **steps_p, size_t *n_p)
{
    return loom_ckpt_list(&dir->ck, steps_p, n_p);
}

loom_status_t loom_ckpt_dir_gc(loom_ckpt_dir_t *dir, unsigned keep, unsigned grace_s,
                               uint64_t *steps_p, uint64_t *chunks_p)
{
    loom_status_t st;

    memset(&dir->ck.stats, 0, sizeof(dir->ck.stats));
    st = loom_ckpt_gc(&dir->ck, keep, grace_s, 1);
    *steps_p = dir->ck.stats.steps_deleted;
    *chunks_p = dir->ck.stats.chunks_deleted;
    return st;
}

static int loom_ckpt_cmp_hash(const void *a, const void *b)
{
    return strcmp(((const loom_ckpt_chunk_ref_t *)a)->hash,
                  ((const loom_ckpt_chunk_ref_t *)b)->hash);
}

/* Every chunk of every rank's regions once, sorted by hash. */
static loom_status_t loom_ckpt_view_index(loom_ckpt_view_t *v)
{
    size_t n = 0, u = 0, i;

    for (uint64_t r = 0; r < v->nranks; r++) {
        for (size_t g = 0; g < v->ms[r].nregions; g++) {
            n += v->ms[r].regions[g].nchunks;
        }
    }
    v->uniq = malloc((n ? n : 1) * sizeof(*v->uniq));
    if (v->uniq == NULL) {
        return LOOM_ERR_NO_MEMORY;
    }
    for (uint64_t r = 0; r < v->nranks; r++) {
        for (size_t g = 0; g < v->ms[r].nregions; g++) {
            const loom_ckpt_mregion_t *reg = &v->ms[r].regions[g];
            memcpy(v->uniq + u, reg->chunks, reg->nchunks * sizeof(*reg->chunks));
            u += reg->nchunks;
        }
    }
    qsort(v->uniq, n, sizeof(*v->uniq), loom_ckpt_cmp_hash);
    for (i = 0, u = 0; i < n; i++) {
        if (u == 0 || strcmp(v->uniq[u - 1].hash, v->uniq[i].hash) != 0) {
            v->uniq[u++] = v->uniq[i];
        }
    }
    v->nuniq = u;
    return LOOM_OK;
}

loom_status_t loom_ckpt_view_open(loom_ckpt_dir_t *dir, uint64_t step,
                                  loom_ckpt_view_t **view_p)
{
    loom_ckpt_view_t *v = calloc(1, sizeof(*v));
    loom_status_t st;

    *view_p = NULL;
    if (v == NULL) {
        return LOOM_ERR_NO_MEMORY;
    }
    v->dir = dir;
    v->step = step;
    st = loom_ckpt_read_commit(&dir->ck, step, &v->nranks, &v->chunk_size);
    if (st == LOOM_OK && (v->ms = calloc(v->nranks ? v->nranks : 1, sizeof(*v->ms))) == NULL) {
        st = LOOM_ERR_NO_MEMORY;
    }
    if (st == LOOM_OK) {
        st = loom_ckpt_read_manifests(&dir->ck, step, v->nranks, v->chunk_size, v->ms);
    }
    if (st == LOOM_OK) {
        st = loom_ckpt_view_index(v);
    }
    if (st != LOOM_OK) {
        loom_ckpt_view_close(v);
        return st;
    }
    *view_p = v;
    return LOOM_OK;
}

void loom_ckpt_view_close(loom_ckpt_view_t *view)
{
    if (view == NULL) {
        return;
    }
    for (uint64_t r = 0; view->ms != NULL && r < view->nranks; r++) {
        loom_ckpt_manifest_free(&view->ms[r]);
    }
    free(view->ms);
    free(view->uniq);
    free(view);
}

uint64_t loom_ckpt_view_step(const loom_ckpt_view_t *view)
{
    return view->step;
}

uint64_t loom_ckpt_view_nranks(const loom_ckpt_view_t *view)
{
    return view->nranks;
}

uint64_t loom_ckpt_view_chunk_size(const loom_ckpt_view_t *view)
{
    return view->chunk_size;
}

size_t loom_ckpt_view_nregions(const loom_ckpt_view_t *view, uint64_t rank)
{
    return view->ms[rank].nregions;
}

void loom_ckpt_view_region(const loom_ckpt_view_t *view, uint64_t rank, size_t g,
                           loom_ckpt_region_info_t *info_p)
{
    const loom_ckpt_mregion_t *reg = &view->ms[rank].regions[g];

    *info_p = (loom_ckpt_region_info_t){ .name = reg->name, .layout = reg->layout,
                                         .size = reg->size,
                                         .global_offset = reg->global_offset,
                                         .nchunks = reg->nchunks };
}

static void loom_ckpt_chunk_info(const loom_ckpt_chunk_ref_t *ref, loom_ckpt_chunk_info_t *info_p)
{
    memcpy(info_p->hash, ref->hash, sizeof(info_p->hash));
    info_p->len = ref->len;
}

void loom_ckpt_view_chunk(const loom_ckpt_view_t *view, uint64_t rank, size_t g, size_t c,
                          loom_ckpt_chunk_info_t *info_p)
{
    loom_ckpt_chunk_info(&view->ms[rank].regions[g].chunks[c], info_p);
}

loom_status_t loom_ckpt_view_check_chunk(const loom_ckpt_view_t *view, uint64_t rank,
                                         size_t g, size_t c)
{
    const loom_ckpt_mregion_t *reg = &view->ms[rank].regions[g];
    const loom_ckpt_chunk_ref_t *ref = &reg->chunks[c];
    char *buf = malloc(ref->len + 1);
    loom_status_t st;

    if (buf == NULL) {
        return LOOM_ERR_NO_MEMORY;
    }
    st = loom_ckpt_chunk_load(view->dir->ck.io, view->dir->ck.dir, ref, reg->name, c, 0,
                              ref->len, buf);
    free(buf);
    return st;
}

size_t loom_ckpt_view_nunique(const loom_ckpt_view_t *view)
{
    return view->nuniq;
}

void loom_ckpt_view_unique(const loom_ckpt_view_t *view, size_t i, loom_ckpt_chunk_info_t *info_p)
{
    loom_ckpt_chunk_info(&view->uniq[i], info_p);
}

int loom_ckpt_view_has(const loom_ckpt_view_t *view, const char *hash)
{
    loom_ckpt_chunk_ref_t key;

    if (view == NULL || strlen(hash) != LOOM_CKPT_HASH_HEX) {
        return 0;
    }
    memcpy(key.hash, hash, sizeof(key.hash));
    return bsearch(&key, view->uniq, view->nuniq, sizeof(*view->uniq), loom_ckpt_cmp_hash) != NULL;
}

size_t loom_ckpt_view_nfiles(const loom_ckpt_view_t *view)
{
    return 1 + (size_t)view->nranks + view->nuniq;
}

loom_status_t loom_ckpt_view_read_file(const loom_ckpt_view_t *view, size_t i, char *rel,
                                       size_t size, void **buf_p, size_t *len_p)
{
    const loom_ckpt_t *ck = &view->dir->ck;
    const loom_ckpt_io_t *io = ck->io;
    size_t skip = strlen(ck->dir) + 1;     /* the path less "dir/" is rel */
    char path[4096], name[64];
    int bad, rc;

    /* The store's own path helpers, so the names are the ones it writes. */
    if (i == 0) {
        bad = loom_ckpt_step_path(ck, view->step, LOOM_CKPT_COMMIT_NAME, path, sizeof(path));
    } else if (i <= view->nranks) {
        snprintf(name, sizeof(name), LOOM_CKPT_MANIFEST_FMT, (uint64_t)(i - 1));
        bad = loom_ckpt_step_path(ck, view->step, name, path, sizeof(path));
    } else if (i - 1 - view->nranks < view->nuniq) {
        bad = loom_ckpt_chunk_path(ck->dir, view->uniq[i - 1 - view->nranks].hash, 1, path,
                                   sizeof(path) - sizeof(LOOM_CKPT_ZST_SUFFIX));
    } else {
        return LOOM_ERR_INVALID_PARAM;
    }
    if (bad != 0 || strlen(path + skip) >= size) {
        return LOOM_ERR_INVALID_PARAM;
    }
    rc = io->read_all(io->ctx, path, buf_p, len_p);
    if (rc == -ENOENT && i > view->nranks) {
        /* The chunk is stored compressed (room for the suffix kept above). */
        strcat(path, LOOM_CKPT_ZST_SUFFIX);
        if (strlen(path + skip) >= size) {
            return LOOM_ERR_INVALID_PARAM;
        }
        rc = io->read_all(io->ctx, path, buf_p, len_p);
    }
    if (rc != 0) {
        loom_error("ckpt", "cannot read %s: %s", path, strerror(-rc));
        return rc == -ENOENT ? LOOM_ERR_NOT_FOUND : LOOM_ERR_IO;
    }
    strcpy(rel, path + skip);
    return LOOM_OK;
}
