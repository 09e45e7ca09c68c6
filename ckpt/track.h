/*
 * Change tracking: which chunks of the registered regions may have
 * changed since the last committed save, so that a save hashes only those
 * (see track.c).  A chunk that is not a candidate is, bit for bit, what the
 * last committed save recorded; a candidate may or may not have changed
 * (its hash decides).
 *
 * One tracker per context, used from the thread that saves.  The order of
 * a save: collect (what changed becomes the save's candidates), read the
 * candidates, then settle (committed: forget them; failed: they stay
 * candidates for the next save).
 */
#ifndef LOOM_CKPT_TRACK_H
#define LOOM_CKPT_TRACK_H

#include <stddef.h>
#include <stdint.h>

#include <loom/ckpt.h>

typedef struct loom_ckpt_track loom_ckpt_track_t;

/* mode: LOOM_CKPT_TRACK_AUTO, _WRITES, _MARKS or _NONE.  AUTO and WRITES
 * become NONE when the kernel cannot track writes (logged once); the mode
 * in effect is loom_ckpt_track_mode(). */
loom_status_t loom_ckpt_track_create(loom_ckpt_track_mode_t mode,
                                     loom_ckpt_track_t **track_p);

loom_ckpt_track_mode_t loom_ckpt_track_mode(const loom_ckpt_track_t *track);

/* Adds the next region (regions are numbered in the order added); every
 * chunk of it starts as a candidate (there is no baseline yet). */
loom_status_t loom_ckpt_track_add(loom_ckpt_track_t *track, void *ptr,
                                  size_t size, uint64_t chunk_size);

/* The application says bytes [offset, offset + len) of region changed. */
void loom_ckpt_track_touch(loom_ckpt_track_t *track, size_t region,
                           uint64_t offset, uint64_t len);

/* Every chunk of every region becomes a candidate (after a restore wrote
 * the regions, whatever the mode). */
void loom_ckpt_track_all(loom_ckpt_track_t *track);

/* Start of a save: what changed since the last collect joins the
 * candidates, and tracking starts afresh from here. */
void loom_ckpt_track_collect(loom_ckpt_track_t *track);

/* 1 when chunk `chunk` of region `region` is a candidate of this save. */
int loom_ckpt_track_candidate(const loom_ckpt_track_t *track, size_t region,
                              size_t chunk);

/* End of a save: committed, the candidates are recorded and forgotten;
 * not committed, they stay candidates for the next save. */
void loom_ckpt_track_settle(loom_ckpt_track_t *track, int committed);

void loom_ckpt_track_destroy(loom_ckpt_track_t *track);

#endif
