/*
 * Restoring the registered regions from a committed step, onto the same
 * or a different number of ranks.
 *
 * Every rank reads every saved rank's manifest.  A replicated region comes
 * from saved rank 0's manifest.  A sharded region is reassembled: this
 * rank's slice [global_offset, global_offset + size) is cut from whichever
 * saved slices overlap it, chunk by chunk, and the bytes covered must add
 * up to the slice exactly.  Every chunk read is checked against its hash.
 */
#include "ckpt/context.h"

#include <inttypes.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "ckpt/chunks.h"
#include "ckpt/track.h"
#include "common/log.h"

loom_status_t loom_ckpt_read_manifests(const loom_ckpt_t *ckpt, uint64_t step,
                                       uint64_t nranks, uint64_t chunk_size,
                                       loom_ckpt_manifest_t *ms)
{
    for (uint64_t r = 0; r < nranks; r++) {
        char name[64], path[4096];
        snprintf(name, sizeof(name), LOOM_CKPT_MANIFEST_FMT, r);
        if (loom_ckpt_step_path(ckpt, step, name, path, sizeof(path)) != 0) {
            return LOOM_ERR_INVALID_PARAM;
        }
        void *text;
        size_t len;
        int rc = ckpt->io->read_all(ckpt->io->ctx, path, &text, &len);
        if (rc != 0) {
            loom_error("ckpt", "step %" PRIu64 " is committed but %s cannot be "
                       "read: %s", step, path, strerror(-rc));
            return LOOM_ERR_IO;
        }
        loom_status_t st = loom_ckpt_manifest_parse(text, len, path, &ms[r]);
        free(text);
        if (st != LOOM_OK) {
            return st;
        }
        if (ms[r].step != step || ms[r].rank != r || ms[r].nranks != nranks ||
            ms[r].chunk_size != chunk_size) {
            loom_error("ckpt", "%s does not belong to step %" PRIu64 " of %"
                       PRIu64 " ranks with %" PRIu64 "-byte chunks", path,
                       step, nranks, chunk_size);
            return LOOM_ERR_IO;
        }
    }
    return LOOM_OK;
}

static const loom_ckpt_mregion_t *find_region(const loom_ckpt_manifest_t *m,
                                              const char *name)
{
    for (size_t i = 0; i < m->nregions; i++) {
        if (strcmp(m->regions[i].name, name) == 0) {
            return &m->regions[i];
        }
    }
    return NULL;
}

/* Copies the part of saved slice g that overlaps [lo, hi) of the global
 * array into dst (which holds [lo, hi)); *covered_p grows by its bytes. */
static loom_status_t copy_overlap(loom_ckpt_t *ckpt, const loom_ckpt_mregion_t *g,
                                  uint64_t chunk_size, uint64_t lo, uint64_t hi,
                                  char *dst, uint64_t *covered_p)
{
    uint64_t g_lo = g->global_offset, g_hi = g->global_offset + g->size;
    uint64_t a = lo > g_lo ? lo : g_lo, b = hi < g_hi ? hi : g_hi;
    if (a >= b) {
        return LOOM_OK;
    }
    for (size_t c = (size_t)((a - g_lo) / chunk_size); c < g->nchunks; c++) {
        uint64_t c_lo = g_lo + c * chunk_size, c_hi = c_lo + g->chunks[c].len;
        if (c_lo >= b) {
            break;
        }
        uint64_t x = a > c_lo ? a : c_lo, y = b < c_hi ? b : c_hi;
        loom_status_t st = loom_ckpt_chunk_load(ckpt->io, ckpt->dir,
                                                &g->chunks[c], g->name, c,
                                                x - c_lo, y - x, dst + (x - lo));
        if (st != LOOM_OK) {
            return st;
        }
        *covered_p += y - x;
    }
    return LOOM_OK;
}

static int cmp_slice(const void *a, const void *b)
{
    const loom_ckpt_mregion_t *x = *(const loom_ckpt_mregion_t *const *)a;
    const loom_ckpt_mregion_t *y = *(const loom_ckpt_mregion_t *const *)b;
    return x->global_offset < y->global_offset ? -1
         : x->global_offset > y->global_offset;
}

/* The saved slices of a sharded region must not overlap, or bytes could
 * be counted twice while others are missing. */
static loom_status_t check_disjoint(const char *name,
                                    const loom_ckpt_manifest_t *ms,
                                    uint64_t nranks)
{
    const loom_ckpt_mregion_t **slices = calloc(nranks, sizeof(*slices));
    if (slices == NULL) {
        return LOOM_ERR_NO_MEMORY;
    }
    loom_status_t st = LOOM_OK;
    for (uint64_t q = 0; q < nranks && st == LOOM_OK; q++) {
        slices[q] = find_region(&ms[q], name);
        if (slices[q] == NULL || slices[q]->layout != LOOM_CKPT_SHARDED) {
            loom_error("ckpt", "region %s: saved rank %" PRIu64 " holds no "
                       "sharded slice of it", name, q);
            st = LOOM_ERR_IO;
        }
    }
    if (st == LOOM_OK) {
        qsort(slices, nranks, sizeof(*slices), cmp_slice);
        for (uint64_t q = 1; q < nranks && st == LOOM_OK; q++) {
            if (slices[q]->global_offset <
                slices[q - 1]->global_offset + slices[q - 1]->size) {
                loom_error("ckpt", "region %s: saved slices overlap at global "
                           "offset %" PRIu64, name, slices[q]->global_offset);
                st = LOOM_ERR_IO;
            }
        }
    }
    free(slices);
    return st;
}

static loom_status_t restore_region(loom_ckpt_t *ckpt, const loom_ckpt_creg_t *c,
                                    const loom_ckpt_manifest_t *ms,
                                    uint64_t nranks, uint64_t chunk_size)
{
    const loom_ckpt_region_t *r = &c->region;
    const loom_ckpt_mregion_t *g0 = find_region(&ms[0], c->name);
    if (g0 == NULL) {
        loom_error("ckpt", "region %s is not in step %" PRIu64, c->name, ms[0].step);
        return LOOM_ERR_NOT_FOUND;
    }
    if (g0->layout != r->layout || g0->elem_size != r->elem_size ||
        g0->global_size != r->global_size) {
        loom_error("ckpt", "region %s was saved %s with %" PRIu64 " bytes of "
                   "%" PRIu64 "-byte elements; it is registered %s with %"
                   PRIu64 " bytes of %zu-byte elements", c->name,
                   g0->layout == LOOM_CKPT_SHARDED ? "sharded" : "replicated",
                   g0->global_size, g0->elem_size,
                   r->layout == LOOM_CKPT_SHARDED ? "sharded" : "replicated",
                   r->global_size, r->elem_size);
        return LOOM_ERR_INVALID_PARAM;
    }
    uint64_t covered = 0;
    uint64_t lo = r->global_offset, hi = r->global_offset + r->size;
    if (r->layout == LOOM_CKPT_REPLICATED) {
        loom_status_t st = copy_overlap(ckpt, g0, chunk_size, lo, hi, r->ptr,
                                        &covered);
        if (st != LOOM_OK) {
            return st;
        }
    } else {
        loom_status_t st = check_disjoint(c->name, ms, nranks);
        if (st != LOOM_OK) {
            return st;
        }
        for (uint64_t q = 0; q < nranks; q++) {
            const loom_ckpt_mregion_t *g = find_region(&ms[q], c->name);
            if (g->global_size != r->global_size) {
                loom_error("ckpt", "region %s: saved rank %" PRIu64 " has a "
                           "different global size", c->name, q);
                return LOOM_ERR_IO;
            }
            loom_status_t st = copy_overlap(ckpt, g, chunk_size, lo, hi, r->ptr,
                                            &covered);
            if (st != LOOM_OK) {
                return st;
            }
        }
    }
    if (covered != r->size) {
        loom_error("ckpt", "region %s: the saved slices cover %" PRIu64 " of "
                   "the %zu bytes at global offset %" PRIu64 " (overlapping "
                   "or missing slices)", c->name, covered, r->size,
                   r->global_offset);
        return LOOM_ERR_IO;
    }
    return LOOM_OK;
}

/* The newest committed step, or LOOM_ERR_NOT_FOUND. */
static loom_status_t newest_step(loom_ckpt_t *ckpt, uint64_t *step_p)
{
    uint64_t *steps;
    size_t n;
    loom_status_t st = loom_ckpt_list(ckpt, &steps, &n);
    if (st != LOOM_OK) {
        return st;
    }
    if (n == 0) {
        st = LOOM_ERR_NOT_FOUND;
    } else {
        *step_p = steps[n - 1];
    }
    free(steps);
    return st;
}

loom_status_t loom_ckpt_restore(loom_ckpt_t *ckpt, uint64_t step,
                                uint64_t *step_p)
{
    /* A pending asynchronous save commits (or fails) first. */
    (void)loom_ckpt_wait(ckpt);
    loom_status_t st = LOOM_OK;
    uint64_t nranks = 0, chunk_size = 0;
    const int requested_newest = step == LOOM_CKPT_NEWEST;
    if (requested_newest) {
        st = newest_step(ckpt, &step);
        if (st == LOOM_ERR_NOT_FOUND) {
            loom_info("ckpt", "no committed checkpoint in %s", ckpt->dir);
        }
    }
    if (ckpt->coordinated && requested_newest) {
        /* Every rank restores the same step: the oldest of the newest
         * each one sees, and none when one rank sees none. */
        if (!loom_ckpt_agree(ckpt, st == LOOM_OK)) {
            return st != LOOM_OK ? st : LOOM_ERR_NOT_FOUND;
        }
        if (ckpt->coord.min_u64(ckpt->coord.ctx, &step) != 0) {
            return LOOM_ERR_IO;
        }
    }
    if (st == LOOM_OK) {
        st = loom_ckpt_read_commit(ckpt, step, &nranks, &chunk_size);
        if (st == LOOM_ERR_NOT_FOUND) {
            loom_error("ckpt", "step %" PRIu64 " is not committed in %s", step,
                       ckpt->dir);
        }
    }
    loom_ckpt_manifest_t *ms = NULL;
    if (st == LOOM_OK) {
        ms = calloc(nranks, sizeof(*ms));
        st = ms != NULL ? loom_ckpt_read_manifests(ckpt, step, nranks, chunk_size, ms)
                        : LOOM_ERR_NO_MEMORY;
    }
    for (size_t i = 0; st == LOOM_OK && i < ckpt->nregions; i++) {
        st = restore_region(ckpt, &ckpt->regions[i], ms, nranks, chunk_size);
    }
    /* The regions now hold another step's bytes (or part of them, after an
     * error) than the last committed save of this context recorded: the
     * next save hashes every chunk, whatever the tracking mode. */
    loom_ckpt_track_all(ckpt->track);
    for (uint64_t r = 0; ms != NULL && r < nranks; r++) {
        loom_ckpt_manifest_free(&ms[r]);
    }
    free(ms);
    /* All ranks restore the same step or none reports success. */
    uint64_t agreed_step = step;
    if (loom_ckpt_agree(ckpt, st == LOOM_OK)) {
        if (step_p != NULL) {
            *step_p = agreed_step;
        }
        return LOOM_OK;
    }
    return st != LOOM_OK ? st : LOOM_ERR_IO;
}
