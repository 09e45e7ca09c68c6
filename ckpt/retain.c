/*
 * Retention and chunk garbage collection.
 *
 * Runs on the rank that wrote the commit record, after it is durable and
 * before the ranks agree that the save is over: no rank of the job is
 * writing chunks then, so a chunk that no manifest refers to belongs to
 * no save in flight.  A step is deleted by removing its commit record
 * first (then fsync of its directory): from that moment it no longer
 * exists for restore, and a crash later only leaves files that the next
 * collection deletes.  Chunks are deleted only when every remaining step
 * directory's manifests could be read: if one cannot, nothing is deleted.
 */
#include "ckpt/context.h"

#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "ckpt/chunks.h"
#include "common/log.h"


/* a/b into out; -1 when it does not fit. */
static int join(char *out, size_t size, const char *a, const char *b)
{
    int n = snprintf(out, size, "%s/%s", a, b);
    return n >= 0 && (size_t)n < size ? 0 : -1;
}

static int cmp_hash(const void *a, const void *b)
{
    return strcmp(*(char *const *)a, *(char *const *)b);
}

/* Removes every file of a step directory, then the directory. */
static int delete_step_dir(loom_ckpt_t *ckpt, const char *stepdir)
{
    const loom_ckpt_io_t *io = ckpt->io;
    char path[4096], **names;
    size_t n;
    /* The commit record first: the step stops existing durably. */
    snprintf(path, sizeof(path), "%s/COMMIT", stepdir);
    int rc = io->unlink(io->ctx, path);
    if (rc == 0) {
        rc = io->fsync_dir(io->ctx, stepdir);
    } else if (rc == -ENOENT) {
        rc = 0;
    }
    if (rc != 0 || (rc = io->list(io->ctx, stepdir, &names, &n)) != 0) {
        return rc;
    }
    for (size_t i = 0; rc == 0 && i < n; i++) {
        snprintf(path, sizeof(path), "%s/%s", stepdir, names[i]);
        rc = io->unlink(io->ctx, path);
    }
    loom_ckpt_io_free_list(names, n);
    return rc == 0 ? io->rmdir(io->ctx, stepdir) : rc;
}

/* The hashes of every manifest in every step directory, sorted. */
static loom_status_t referenced(loom_ckpt_t *ckpt, char ***refs_p, size_t *n_p)
{
    const loom_ckpt_io_t *io = ckpt->io;
    char **steps, **files, **refs = NULL;
    size_t nsteps, nfiles, n = 0, cap = 0;
    loom_status_t st = LOOM_OK;
    if (io->list(io->ctx, ckpt->dir, &steps, &nsteps) != 0) {
        return LOOM_ERR_IO;
    }
    for (size_t s = 0; st == LOOM_OK && s < nsteps; s++) {
        char stepdir[4096];
        /* Any step-* directory: its manifests keep their chunks, even
         * under a name no step stands for. */
        if (strncmp(steps[s], LOOM_CKPT_STEP_PREFIX, strlen(LOOM_CKPT_STEP_PREFIX)) != 0) {
            continue;
        }
        snprintf(stepdir, sizeof(stepdir), "%s/%s", ckpt->dir, steps[s]);
        if (io->list(io->ctx, stepdir, &files, &nfiles) != 0) {
            st = LOOM_ERR_IO;
            break;
        }
        for (size_t f = 0; st == LOOM_OK && f < nfiles; f++) {
            const char *name = files[f];
            size_t len = strlen(name);
            if (len < 9 || strcmp(name + len - 9, ".manifest") != 0 || name[0] == '.') {
                continue;
            }
            char path[4096];
            void *text;
            size_t tlen;
            loom_ckpt_manifest_t m;
            if (join(path, sizeof(path), stepdir, name) != 0 ||
                io->read_all(io->ctx, path, &text, &tlen) != 0) {
                st = LOOM_ERR_IO;
                break;
            }
            st = loom_ckpt_manifest_parse(text, tlen, path, &m);
            free(text);
            int parsed = st == LOOM_OK;
            for (size_t g = 0; st == LOOM_OK && g < m.nregions; g++) {
                for (size_t c = 0; st == LOOM_OK && c < m.regions[g].nchunks; c++) {
                    if (n == cap) {
                        cap = cap ? 2 * cap : 256;
                        char **grown = realloc(refs, cap * sizeof(*refs));
                        if (grown == NULL) {
                            st = LOOM_ERR_NO_MEMORY;
                            break;
                        }
                        refs = grown;
                    }
                    if ((refs[n] = strdup(m.regions[g].chunks[c].hash)) == NULL) {
                        st = LOOM_ERR_NO_MEMORY;
                        break;
                    }
                    n++;
                }
            }
            if (parsed) {
                loom_ckpt_manifest_free(&m);
            }
        }
        loom_ckpt_io_free_list(files, nfiles);
    }
    loom_ckpt_io_free_list(steps, nsteps);
    if (st != LOOM_OK) {
        loom_ckpt_io_free_list(refs, n);
        return st;
    }
    qsort(refs, n, sizeof(*refs), cmp_hash);
    *refs_p = refs;
    *n_p = n;
    return LOOM_OK;
}

/* 1 when path changed less than grace_s seconds ago: it may belong to a
 * save in flight of a job the caller cannot see (loom-ckpt gc). */
static int too_young(const loom_ckpt_t *ckpt, const char *path, unsigned grace_s)
{
    double age = 0;
    return grace_s > 0 && ckpt->io->age != NULL &&
           ckpt->io->age(ckpt->io->ctx, path, &age) == 0 && age < (double)grace_s;
}

/* Deletes chunk files (and leftover temporary files) no manifest names. */
static loom_status_t collect_chunks(loom_ckpt_t *ckpt, unsigned grace_s)
{
    const loom_ckpt_io_t *io = ckpt->io;
    char **refs, top[4096];
    size_t nrefs;
    loom_status_t st = referenced(ckpt, &refs, &nrefs);
    if (st != LOOM_OK) {
        loom_warn("ckpt", "a manifest in %s cannot be read: no chunk is "
                  "deleted until it can", ckpt->dir);
        return LOOM_OK;
    }
    snprintf(top, sizeof(top), "%s/chunks", ckpt->dir);
    char **subs, **names;
    size_t nsubs, nnames;
    if (io->list(io->ctx, top, &subs, &nsubs) != 0) {
        loom_ckpt_io_free_list(refs, nrefs);
        return LOOM_ERR_IO;
    }
    for (size_t d = 0; st == LOOM_OK && d < nsubs; d++) {
        char sub[4096];
        if (join(sub, sizeof(sub), top, subs[d]) != 0 ||
            io->list(io->ctx, sub, &names, &nnames) != 0) {
            continue;
        }
        int deleted = 0;
        for (size_t i = 0; i < nnames; i++) {
            /* A compressed chunk is the same chunk: compare its hash. */
            char hash[LOOM_CKPT_HASH_HEX + 1];
            snprintf(hash, sizeof(hash), "%s", names[i]);
            const char *key = hash;
            if (names[i][0] != '.' &&
                bsearch(&key, refs, nrefs, sizeof(*refs), cmp_hash) != NULL) {
                continue;
            }
            char path[4096];
            if (join(path, sizeof(path), sub, names[i]) == 0 &&
                !too_young(ckpt, path, grace_s) && io->unlink(io->ctx, path) == 0) {
                deleted++;
                ckpt->stats.chunks_deleted += names[i][0] != '.';
            }
        }
        if (deleted > 0 && io->fsync_dir(io->ctx, sub) != 0) {
            st = LOOM_ERR_IO;
        }
        loom_ckpt_io_free_list(names, nnames);
    }
    loom_ckpt_io_free_list(subs, nsubs);
    loom_ckpt_io_free_list(refs, nrefs);
    return st;
}

loom_status_t loom_ckpt_retain(loom_ckpt_t *ckpt)
{
    return ckpt->keep > 0 ? loom_ckpt_gc(ckpt, ckpt->keep, 0, 0) : LOOM_OK;
}

loom_status_t loom_ckpt_gc(loom_ckpt_t *ckpt, unsigned keep, unsigned grace_s,
                          int sweep)
{
    uint64_t *steps;
    size_t n;
    loom_status_t st = loom_ckpt_list(ckpt, &steps, &n);
    if (st != LOOM_OK) {
        return st;
    }
    uint64_t newest = n > 0 ? steps[n - 1] : 0;
    size_t drop = keep > 0 && n > keep ? n - keep : 0;
    int changed = 0;
    for (size_t i = 0; i < drop; i++) {
        char stepdir[4096];
        loom_ckpt_step_path(ckpt, steps[i], NULL, stepdir, sizeof(stepdir));
        int rc = delete_step_dir(ckpt, stepdir);
        if (rc != 0) {
            loom_error("ckpt", "cannot delete %s: %s", stepdir, strerror(-rc));
            free(steps);
            return LOOM_ERR_IO;
        }
        ckpt->stats.steps_deleted++;
        changed = 1;
    }
    /* Step directories without a commit record older than the newest
     * committed step are saves that never completed. */
    char **names;
    size_t nn;
    if (n > 0 && ckpt->io->list(ckpt->io->ctx, ckpt->dir, &names, &nn) == 0) {
        for (size_t i = 0; i < nn; i++) {
            uint64_t step, r, c;
            const char *s = names[i];
            if (!loom_ckpt_step_from_name(s, &step) || step >= newest ||
                loom_ckpt_read_commit(ckpt, step, &r, &c) == LOOM_OK) {
                continue;
            }
            char stepdir[4096];
            snprintf(stepdir, sizeof(stepdir), "%s/%s", ckpt->dir, s);
            if (!too_young(ckpt, stepdir, grace_s)) {
                changed |= delete_step_dir(ckpt, stepdir) == 0;
            }
        }
        loom_ckpt_io_free_list(names, nn);
    }
    free(steps);
    if (changed && ckpt->io->fsync_dir(ckpt->io->ctx, ckpt->dir) != 0) {
        return LOOM_ERR_IO;
    }
    /* Inside a save, only deletions leave chunks behind; a collection
     * on request (sweep) also takes what crashed saves left. */
    return changed || sweep ? collect_chunks(ckpt, grace_s) : LOOM_OK;
}
