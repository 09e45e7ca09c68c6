/*
 * Opening a checkpoint directory, registering regions, saving a step and
 * committing it.
 *
 * A save, on every rank: store the chunks that changed since the last
 * committed save (replicated regions: each chunk by one rank only, chunk
 * index modulo ranks), write the rank's manifest durably, agree; then rank
 * 0 writes the commit record durably, and the ranks agree once more so
 * that every rank returns the same verdict.  What a directory's committed
 * steps are, and how they are named, is steps.c's.
 */
#include "ckpt/context.h"

#include <errno.h>
#include <inttypes.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>



#include "ckpt/async.h"
#include "ckpt/chunks.h"
#include "ckpt/hook.h"
#include "ckpt/settings.h"
#include "ckpt/track.h"
#include "common/log.h"

int loom_ckpt_agree(loom_ckpt_t *ckpt, int ok)
{
    if (!ckpt->coordinated) {
        return ok;
    }
    uint64_t v = ok ? 1 : 0;
    if (ckpt->coord.min_u64(ckpt->coord.ctx, &v) != 0) {
        loom_error("ckpt", "the ranks could not agree (coordination failed)");
        return 0;
    }
    return v == 1;
}

loom_status_t loom_ckpt_open(const char *dir, const loom_ckpt_coord_t *coord,
                             const loom_ckpt_options_t *opts,
                             loom_ckpt_t **ckpt_p)
{
    if (dir == NULL || *dir == '\0' ||
        (coord != NULL && (coord->min_u64 == NULL || coord->size < 1 ||
                           coord->rank < 0 || coord->rank >= coord->size))) {
        loom_error("ckpt", "loom_ckpt_open needs a directory name and, if "
                   "given, a coordinator with 0 <= rank < size and min_u64");
        return LOOM_ERR_INVALID_PARAM;
    }
    loom_ckpt_t *ckpt = calloc(1, sizeof(*ckpt));
    if (ckpt == NULL || (ckpt->dir = strdup(dir)) == NULL) {
        free(ckpt);
        return LOOM_ERR_NO_MEMORY;
    }
    if (coord != NULL) {
        ckpt->coord = *coord;
        ckpt->coordinated = 1;
    }
    ckpt->io = opts && opts->io ? opts->io : loom_ckpt_io_posix();
    ckpt->file_mode = opts && opts->file_mode ? opts->file_mode : 0600;
    ckpt->dir_mode = opts && opts->dir_mode ? opts->dir_mode : 0700;
    loom_ckpt_settings_t set;
    loom_status_t st = loom_ckpt_settings_resolve(opts, &set);
    ckpt->chunk_size = set.chunk_size;
    ckpt->keep = set.keep;
    ckpt->zstd_level = set.zstd_level;
    ckpt->staging_bytes = (size_t)set.staging_bytes;
    if (st == LOOM_OK) {
        st = loom_ckpt_track_create(set.track, &ckpt->track);
    }
    if (st == LOOM_OK) {
        ckpt->stats.track = loom_ckpt_track_mode(ckpt->track);
    }

    size_t n = strlen(ckpt->dir);
    while (n > 1 && ckpt->dir[n - 1] == '/') {
        ckpt->dir[--n] = '\0';
    }
    char parent[4096], chunks[4096];
    const char *slash = strrchr(ckpt->dir, '/');
    snprintf(parent, sizeof(parent), "%.*s",
             slash == NULL ? 1 : slash == ckpt->dir ? 1 : (int)(slash - ckpt->dir),
             slash == NULL ? "." : ckpt->dir);
    if (snprintf(chunks, sizeof(chunks), "%s/chunks", ckpt->dir) >=
        (int)sizeof(chunks)) {
        loom_error("ckpt", "checkpoint directory name too long: %s", dir);
        st = LOOM_ERR_INVALID_PARAM;
    }
    if (st == LOOM_OK) {
        /* The directory's own name must survive a crash too. */
        int rc = loom_ckpt_io_mkdir_durable(ckpt->io, parent, ckpt->dir,
                                            ckpt->dir_mode);
        if (rc == 0) {
            rc = loom_ckpt_io_mkdir_durable(ckpt->io, ckpt->dir, chunks,
                                            ckpt->dir_mode);
        }
        if (rc != 0) {
            loom_error("ckpt", "cannot create checkpoint directory %s: %s",
                       dir, strerror(-rc));
            st = LOOM_ERR_IO;
        }
    }
    if (!loom_ckpt_agree(ckpt, st == LOOM_OK)) {
        loom_ckpt_close(ckpt);
        return st != LOOM_OK ? st : LOOM_ERR_IO;
    }
    *ckpt_p = ckpt;
    return LOOM_OK;
}

loom_status_t loom_ckpt_register(loom_ckpt_t *ckpt,
                                 const loom_ckpt_region_t *region)
{
    const char *why = NULL;
    if (!loom_ckpt_name_valid(region->name)) {
        why = "its name must be 1 to 64 characters of [A-Za-z0-9_.-]";
    } else if (region->ptr == NULL && region->size > 0) {
        why = "it has no memory (ptr is NULL)";
    } else if (region->layout != LOOM_CKPT_REPLICATED &&
               region->layout != LOOM_CKPT_SHARDED) {
        why = "its layout must be LOOM_CKPT_REPLICATED or LOOM_CKPT_SHARDED";
    } else if (region->layout == LOOM_CKPT_SHARDED &&
               (region->global_offset > region->global_size ||
                region->size > region->global_size - region->global_offset)) {
        why = "its slice (global_offset, size) lies outside global_size";
    }
    for (size_t i = 0; why == NULL && i < ckpt->nregions; i++) {
        if (strcmp(ckpt->regions[i].name, region->name) == 0) {
            why = "a region of that name is registered already";
        }
    }
    if (why != NULL) {
        loom_error("ckpt", "cannot register region '%s': %s",
                   region->name ? region->name : "(null)", why);
        return LOOM_ERR_INVALID_PARAM;
    }
    loom_ckpt_creg_t *grown = realloc(ckpt->regions,
                                      (ckpt->nregions + 1) * sizeof(*grown));
    if (grown == NULL) {
        return LOOM_ERR_NO_MEMORY;
    }
    /* The tracker numbers regions in the same order. */
    loom_status_t st = loom_ckpt_track_add(ckpt->track, region->ptr, region->size,
                                           ckpt->chunk_size);
    if (st != LOOM_OK) {
        ckpt->regions = grown;
        return st;
    }
    ckpt->regions = grown;
    loom_ckpt_creg_t *c = &ckpt->regions[ckpt->nregions++];
    memset(c, 0, sizeof(*c));
    c->region = *region;
    strcpy(c->name, region->name);
    c->region.name = c->name;
    if (region->layout == LOOM_CKPT_REPLICATED) {
        c->region.global_offset = 0;
        c->region.global_size = region->size;
    }
    return LOOM_OK;
}

loom_status_t loom_ckpt_touch(loom_ckpt_t *ckpt, const char *name,
                              uint64_t offset, uint64_t len)
{
    for (size_t i = 0; name != NULL && i < ckpt->nregions; i++) {
        if (strcmp(ckpt->regions[i].name, name) == 0) {
            loom_ckpt_track_touch(ckpt->track, i, offset, len);
            return LOOM_OK;
        }
    }
    loom_error("ckpt", "cannot touch region '%s': no region of that name is "
               "registered", name ? name : "(null)");
    return LOOM_ERR_NOT_FOUND;
}

/* Where a save hashes its candidate chunks. */
typedef enum save_how {
    SAVE_SYNC,          /* here, and stores the changed ones */
    SAVE_STAGE_HASHED,  /* here, and stages the changed ones */
    SAVE_STAGE_RAW      /* stages them all; the writer hashes */
} save_how_t;

/* An async save stages its candidates unhashed when they all fit in the
 * staging area: the caller then pays one memcpy of them.  When they do
 * not (tracking off, a region rewritten whole, the first save), the
 * caller would wait for the writer to hash and write them all; hashing
 * here and staging only the changed ones is cheaper then. */
static save_how_t async_how(const loom_ckpt_t *ckpt)
{
    uint64_t bytes = 0;
    const uint64_t cs = ckpt->chunk_size;
    for (size_t i = 0; i < ckpt->nregions; i++) {
        const loom_ckpt_creg_t *c = &ckpt->regions[i];
        for (uint64_t off = 0, k = 0; off < c->region.size; off += cs, k++) {
            uint64_t len = c->region.size - off < cs ? c->region.size - off : cs;
            if (k >= c->ncommitted || c->committed[k].len != len ||
                loom_ckpt_track_candidate(ckpt->track, i, (size_t)k)) {
                bytes += len;
            }
        }
    }
    return bytes <= ckpt->staging_bytes ? SAVE_STAGE_RAW : SAVE_STAGE_HASHED;
}

/* Fills g (the manifest entry) with one region's chunks.  A chunk that
 * change tracking says is unchanged since the last committed save keeps
 * that save's hash unread.  The others are hashed, here or by the writer
 * thread (how), and stored, or staged for the writer, if their hash
 * changed. */
static loom_status_t save_region(loom_ckpt_t *ckpt, size_t index,
                                 loom_ckpt_mregion_t *g, uint8_t *dirty,
                                 save_how_t how)
{
    loom_ckpt_creg_t *c = &ckpt->regions[index];
    const loom_ckpt_region_t *r = &c->region;
    const uint64_t cs = ckpt->chunk_size;
    strcpy(g->name, c->name);
    g->layout = r->layout;
    g->size = r->size;
    g->elem_size = r->elem_size;
    g->global_offset = r->global_offset;
    g->global_size = r->global_size;
    g->nchunks = (size_t)(r->size / cs + (r->size % cs != 0));
    g->chunks = calloc(g->nchunks ? g->nchunks : 1, sizeof(*g->chunks));
    if (g->chunks == NULL) {
        return LOOM_ERR_NO_MEMORY;
    }
    const int rank = ckpt->coordinated ? ckpt->coord.rank : 0;
    const int size = ckpt->coordinated ? ckpt->coord.size : 1;
    for (size_t i = 0; i < g->nchunks; i++) {
        const char *p = (const char *)r->ptr + i * cs;
        size_t len = (size_t)(r->size - i * cs < cs ? r->size - i * cs : cs);
        loom_ckpt_chunk_ref_t *ref = &g->chunks[i];
        const loom_ckpt_chunk_ref_t *old = i < c->ncommitted &&
                                           c->committed[i].len == len
                                         ? &c->committed[i] : NULL;
        int mine = r->layout == LOOM_CKPT_SHARDED || (int)(i % (size_t)size) == rank;
        ref->len = len;
        if (old != NULL && !loom_ckpt_track_candidate(ckpt->track, index, i)) {
            memcpy(ref->hash, old->hash, sizeof(ref->hash));
            ckpt->stats.chunks_clean++;
            /* The writer thread counts too. */
            __atomic_add_fetch(&ckpt->stats.chunks_reused, 1, __ATOMIC_RELAXED);
            continue;
        }
        ckpt->stats.chunks_hashed++;
        if (how == SAVE_STAGE_RAW) {
            loom_status_t st = loom_ckpt_async_stage(ckpt->async, &(loom_ckpt_stage_t){
                                                         .ref = ref, .old = old,
                                                         .store = mine },
                                                     p, len);
            if (st != LOOM_OK) {
                return st;
            }
            continue;
        }
        loom_ckpt_chunk_hash(p, len, ref->hash);
        int unchanged = old != NULL && strcmp(old->hash, ref->hash) == 0;
        if (unchanged || !mine) {
            __atomic_add_fetch(&ckpt->stats.chunks_reused, (uint64_t)unchanged,
                               __ATOMIC_RELAXED);
            continue;
        }
        if (how == SAVE_STAGE_HASHED) {
            loom_status_t st = loom_ckpt_async_stage(ckpt->async, &(loom_ckpt_stage_t){
                                                         .ref = ref, .hashed = 1,
                                                         .store = 1 },
                                                     p, len);
            if (st != LOOM_OK) {
                return st;
            }
            continue;
        }
        size_t written = 0;
        loom_status_t st = loom_ckpt_chunk_store(ckpt->io, ckpt->dir, ref->hash, p, len,
                                                 &(loom_ckpt_store_opts_t){
                                                     .file_mode = ckpt->file_mode,
                                                     .dir_mode = ckpt->dir_mode,
                                                     .zstd_level = ckpt->zstd_level },
                                                 dirty, &written);
        ckpt->stats.chunks_written += st == LOOM_OK && written;
        ckpt->stats.chunks_reused += st == LOOM_OK && !written;
        ckpt->stats.bytes_written += st == LOOM_OK ? written : 0;
        if (st != LOOM_OK) {
            return st;
        }
    }
    return LOOM_OK;
}

/* Stores (or stages) the chunks and writes (or queues) this rank's
 * manifest of `step`. */
static loom_status_t save_rank(loom_ckpt_t *ckpt, uint64_t step,
                               loom_ckpt_manifest_t *m, int async)
{
    char stepdir[4096], name[64];
    if (loom_ckpt_step_path(ckpt, step, NULL, stepdir, sizeof(stepdir)) != 0) {
        return LOOM_ERR_INVALID_PARAM;
    }
    /* Async: the writer creates it, keeping the fsync off the caller. */
    int rc = async ? 0 : loom_ckpt_io_mkdir_durable(ckpt->io, ckpt->dir, stepdir,
                                                    ckpt->dir_mode);
    if (rc != 0) {
        loom_error("ckpt", "cannot create %s: %s", stepdir, strerror(-rc));
        return LOOM_ERR_IO;
    }
    m->step = step;
    m->rank = ckpt->coordinated ? (uint64_t)ckpt->coord.rank : 0;
    m->nranks = ckpt->coordinated ? (uint64_t)ckpt->coord.size : 1;
    m->chunk_size = ckpt->chunk_size;
    m->regions = calloc(ckpt->nregions ? ckpt->nregions : 1, sizeof(*m->regions));
    if (m->regions == NULL) {
        return LOOM_ERR_NO_MEMORY;
    }
    m->nregions = ckpt->nregions;
    ckpt->stats.bytes_registered = 0;
    uint8_t dirty[LOOM_CKPT_CHUNK_DIRS] = { 0 };
    loom_status_t st = LOOM_OK;
    if (async) {
        loom_ckpt_async_begin(ckpt->async);
    }
    /* From here on writes to the regions count for the next save. */
    loom_ckpt_track_collect(ckpt->track);
    ckpt->stats.track = loom_ckpt_track_mode(ckpt->track);   /* after a fork: none */
    const save_how_t how = async ? async_how(ckpt) : SAVE_SYNC;
    for (size_t i = 0; i < ckpt->nregions && st == LOOM_OK; i++) {
        st = save_region(ckpt, i, &m->regions[i], dirty, how);
        ckpt->stats.bytes_registered += ckpt->regions[i].region.size;
    }
    /* The new chunks' names, once per directory, before the manifest
     * that refers to them (the writer thread does the same). */
    if (st == LOOM_OK && !async) {
        st = loom_ckpt_chunk_sync_dirs(ckpt->io, ckpt->dir, dirty);
    }
    snprintf(name, sizeof(name), LOOM_CKPT_MANIFEST_FMT, m->rank);
    if (async) {
        /* Even after an error, so that the writer goes idle; it formats
         * the manifest once it has hashed the staged chunks. */
        loom_ckpt_async_end(ckpt->async, stepdir, name, st == LOOM_OK ? m : NULL);
        return st;
    }
    char *text = NULL;
    size_t len = 0;
    if (st == LOOM_OK) {
        st = loom_ckpt_manifest_format(m, &text, &len);
    }
    if (st != LOOM_OK) {
        return st;
    }
    rc = loom_ckpt_io_write_durable(ckpt->io, stepdir, name, text, len,
                                    ckpt->file_mode, 1);
    free(text);
    if (rc != 0) {
        loom_error("ckpt", "cannot write %s/%s: %s", stepdir, name, strerror(-rc));
        return LOOM_ERR_IO;
    }
    ckpt->stats.manifest_bytes += len;
    return LOOM_OK;
}

static loom_status_t write_commit(loom_ckpt_t *ckpt, uint64_t step)
{
    char stepdir[4096], *text;
    size_t len;
    if (loom_ckpt_step_path(ckpt, step, NULL, stepdir, sizeof(stepdir)) != 0) {
        return LOOM_ERR_INVALID_PARAM;
    }
    uint64_t nranks = ckpt->coordinated ? (uint64_t)ckpt->coord.size : 1;
    loom_status_t st = loom_ckpt_commit_format(step, nranks, ckpt->chunk_size,
                                               &text, &len);
    if (st != LOOM_OK) {
        return st;
    }
    int rc = loom_ckpt_io_write_durable(ckpt->io, stepdir, LOOM_CKPT_COMMIT_NAME, text,
                                        len, ckpt->file_mode, 1);
    free(text);
    if (rc != 0) {
        loom_error("ckpt", "cannot write %s/" LOOM_CKPT_COMMIT_NAME ": %s", stepdir,
                   strerror(-rc));
        return LOOM_ERR_IO;
    }
    return LOOM_OK;
}

/* Adds what this context did since the last call to the process totals
 * that the loom component's MPI_T variables read (hook.h). */
static void publish_stats(loom_ckpt_t *ckpt)
{
    loom_ckpt_stats_t now, *was = &ckpt->published;
    loom_ckpt_get_stats(ckpt, &now);
    __atomic_add_fetch(&loom_ckpt_hook.saves, now.saves - was->saves, __ATOMIC_RELAXED);
    __atomic_add_fetch(&loom_ckpt_hook.bytes_written, now.bytes_written - was->bytes_written,
                       __ATOMIC_RELAXED);
    __atomic_add_fetch(&loom_ckpt_hook.chunks_written,
                       now.chunks_written - was->chunks_written, __ATOMIC_RELAXED);
    __atomic_add_fetch(&loom_ckpt_hook.chunks_reused, now.chunks_reused - was->chunks_reused,
                       __ATOMIC_RELAXED);
    __atomic_add_fetch(&loom_ckpt_hook.stall_ns, now.stall_ns - was->stall_ns,
                       __ATOMIC_RELAXED);
    *was = now;
}

/* Refuses a committed step number; collective. */
static loom_status_t begin_save(loom_ckpt_t *ckpt, uint64_t step)
{
    uint64_t nranks, cs;
    loom_status_t st = LOOM_OK;
    if (step == LOOM_CKPT_NEWEST) {
        loom_error("ckpt", "step %" PRIu64 " is reserved (LOOM_CKPT_NEWEST)", step);
        st = LOOM_ERR_INVALID_PARAM;
    } else if (loom_ckpt_read_commit(ckpt, step, &nranks, &cs) != LOOM_ERR_NOT_FOUND) {
        /* Committed (or unreadable): a committed step is never rewritten. */
        loom_error("ckpt", "step %" PRIu64 " is committed already in %s; "
                   "save under a new step number", step, ckpt->dir);
        st = LOOM_ERR_INVALID_PARAM;
    }
    if (!loom_ckpt_agree(ckpt, st == LOOM_OK)) {
        return st != LOOM_OK ? st : LOOM_ERR_INVALID_PARAM;
    }
    return LOOM_OK;
}

/* The ranks agree that every one saved (st), rank 0 commits, and the
 * ranks agree on the verdict.  Collective; consumes m. */
static loom_status_t finish_save(loom_ckpt_t *ckpt, uint64_t step,
                                 loom_status_t st, loom_ckpt_manifest_t *m)
{
    int all_saved = loom_ckpt_agree(ckpt, st == LOOM_OK);
    int is_root = !ckpt->coordinated || ckpt->coord.rank == 0;
    loom_status_t commit_st = LOOM_OK;
    if (all_saved && is_root) {
        commit_st = write_commit(ckpt, step);
        /* The step is committed whatever retention does. */
        if (commit_st == LOOM_OK && loom_ckpt_retain(ckpt) != LOOM_OK) {
            loom_warn("ckpt", "step %" PRIu64 " is committed, but deleting "
                      "old steps from %s failed (see above)", step, ckpt->dir);
        }
    }
    int committed = loom_ckpt_agree(ckpt, all_saved && commit_st == LOOM_OK);
    /* Not committed: what changed is still to be saved. */
    loom_ckpt_track_settle(ckpt->track, committed);
    if (committed) {
        /* The manifest's hashes now describe durable chunks. */
        for (size_t i = 0; i < ckpt->nregions; i++) {
            loom_ckpt_creg_t *c = &ckpt->regions[i];
            free(c->committed);
            c->committed = m->regions[i].chunks;
            c->ncommitted = m->regions[i].nchunks;
            m->regions[i].chunks = NULL;
        }
        ckpt->stats.saves++;
    }
    loom_ckpt_manifest_free(m);
    publish_stats(ckpt);
    if (committed) {
        return LOOM_OK;
    }
    return st != LOOM_OK ? st : commit_st != LOOM_OK ? commit_st : LOOM_ERR_IO;
}

loom_status_t loom_ckpt_save(loom_ckpt_t *ckpt, uint64_t step)
{
    loom_status_t st = loom_ckpt_wait(ckpt);
    if (st != LOOM_OK && st != LOOM_ERR_IO) {
        return st;
    }
    if ((st = begin_save(ckpt, step)) != LOOM_OK) {
        return st;
    }
    loom_ckpt_manifest_t m = { 0 };
    st = save_rank(ckpt, step, &m, 0);
    return finish_save(ckpt, step, st, &m);
}

loom_status_t loom_ckpt_save_async(loom_ckpt_t *ckpt, uint64_t step)
{
    loom_status_t st = loom_ckpt_wait(ckpt);
    if (st != LOOM_OK && st != LOOM_ERR_IO) {
        return st;
    }
    if ((st = begin_save(ckpt, step)) != LOOM_OK) {
        return st;
    }
    if (ckpt->async == NULL &&
        (st = loom_ckpt_async_create(ckpt, ckpt->staging_bytes, &ckpt->async)) != LOOM_OK) {
        loom_ckpt_manifest_t none = { 0 };
        return finish_save(ckpt, step, st, &none);
    }
    memset(&ckpt->pending_manifest, 0, sizeof(ckpt->pending_manifest));
    ckpt->pending_status = save_rank(ckpt, step, &ckpt->pending_manifest, 1);
    ckpt->pending_step = step;
    ckpt->pending = 1;
    return LOOM_INPROGRESS;
}

loom_status_t loom_ckpt_wait(loom_ckpt_t *ckpt)
{
    if (!ckpt->pending) {
        return LOOM_OK;
    }
    loom_status_t st = loom_ckpt_async_wait(ckpt->async);
    if (ckpt->pending_status != LOOM_OK) {
        st = ckpt->pending_status;
    }
    ckpt->pending = 0;
    return finish_save(ckpt, ckpt->pending_step, st, &ckpt->pending_manifest);
}

loom_status_t loom_ckpt_test(loom_ckpt_t *ckpt, int *written_p)
{
    *written_p = !ckpt->pending || loom_ckpt_async_idle(ckpt->async);
    return LOOM_OK;
}

void loom_ckpt_get_stats(const loom_ckpt_t *ckpt, loom_ckpt_stats_t *stats_p)
{
    *stats_p = ckpt->stats;
}

void loom_ckpt_close(loom_ckpt_t *ckpt)
{
    if (ckpt == NULL) {
        return;
    }
    loom_ckpt_async_destroy(ckpt->async);
    loom_ckpt_track_destroy(ckpt->track);
    if (ckpt->pending) {
        loom_ckpt_manifest_free(&ckpt->pending_manifest);
    }
    for (size_t i = 0; i < ckpt->nregions; i++) {
        free(ckpt->regions[i].committed);
    }
    free(ckpt->regions);
    free(ckpt->dir);
    free(ckpt);
}
