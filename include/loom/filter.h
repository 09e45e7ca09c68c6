/*
 * libloom-filter: the application's side of gradient filtering
 * (docs/filter_api.md).
 *
 * Filtering itself happens in the Open MPI component mca_coll_loomfilter,
 * on communicators that opted in (the info key loom_filter).  These calls
 * let the application tell it what it knows -- which gradient a call
 * carries, where a training step starts -- read the residual memory in
 * use, and save and restore the residuals (the gradient mass not sent
 * yet) with libloom-ckpt, so that a resumed job loses no delayed
 * gradient.
 *
 * The library reaches the component through one object it exports, which
 * the component fills when its first communicator is enabled (found with
 * dlsym(RTLD_DEFAULT)).  Without the component (not loaded, not selected,
 * or no filtered communicator yet) every call returns
 * LOOM_ERR_UNSUPPORTED.  Nothing here logs: a failed call returns its
 * status, and loom_filter_last_error() says what was wrong.
 *
 * Like ckpt_mpi.h, this is the one filter header that includes mpi.h.
 */
#ifndef LOOM_FILTER_H
#define LOOM_FILTER_H

#include <stddef.h>
#include <stdint.h>

#include <mpi.h>

#include <loom/ckpt.h>
#include <loom/status.h>

#ifdef __cplusplus
extern "C" {
#endif

/* The longest slot name (a checkpoint region name is at most 64
 * characters; the residual's region prefixes 6). */
#define LOOM_FILTER_NAME_MAX 58

/*
 * The next filtered allreduce on comm (from any thread) uses the residual
 * slot named name instead of a position from the step tracker: named
 * slots are filtered from their first call, with no learning.  A call
 * that is not filtered (too small, not MPI_SUM of float or double) does
 * not use the name; the next filtered one does.  A named call takes no
 * position: the positional calls around it keep theirs.
 * name: 1 .. LOOM_FILTER_NAME_MAX characters of [A-Za-z0-9_.-], else
 * LOOM_ERR_INVALID_PARAM.
 */
loom_status_t loom_filter_name(MPI_Comm comm, const char *name);

/*
 * A training step starts on comm.  From the first mark on, the step
 * number (the warm-up's clock) counts marks, and a positional call's
 * position is its index since the last mark: the tracker no longer needs
 * to learn the period, and steps need not be alike.  Mixed use: calls
 * before the first mark are placed by learning (dense until it locks);
 * once marked, a communicator stays marked, and a step that is not marked
 * continues the previous one (its calls take the next positions).
 */
loom_status_t loom_filter_step(MPI_Comm comm);

/* The residual memory this process holds now, over every communicator
 * (what the MPI_T variable coll_loomfilter_residual_bytes reads). */
loom_status_t loom_filter_residual_bytes(size_t *bytes_p);

/*
 * Copies the residual of comm's slot named name, count elements of type
 * (MPI_FLOAT or MPI_DOUBLE), into buf.  LOOM_ERR_NOT_FOUND: no such slot.
 */
loom_status_t loom_filter_residual_read(MPI_Comm comm, const char *name, MPI_Datatype type,
                                        void *buf, size_t count);

/*
 * Registers every residual slot comm holds now as a region of ck, so that
 * the application's next loom_ckpt_save saves them with its weights.
 * Each rank's residual is its own slice of a sharded array of p * count
 * elements (p: comm's size), named "lf.n<t>.<name>" for a named slot and
 * "lf.p<t>.<position>.<count>" for a positional one (<t>: f or d).  The
 * slots' memory is registered, not copied: later changes are saved too.
 * Call it again when new slots may exist; a slot registered before is
 * not registered twice.  Collective over comm (every rank holds the same
 * slots).  Free comm only after loom_ckpt_close(ck).
 */
loom_status_t loom_filter_save(loom_ckpt_t *ck, MPI_Comm comm);

/*
 * Loads the residuals saved in step step of the checkpoint directory dir
 * (the directory ck was opened on; step as loom_ckpt_restore gave it)
 * into comm's residual store, before comm's first filtered call, then
 * registers them on ck as loom_filter_save does.  The saved job may have
 * had another rank count p_old: old rank r's residual goes to new rank
 * r mod p, summed in old-rank order where several fold onto one, so the
 * sum over ranks -- what the allreduce would have applied -- is kept
 * (exactly when p >= p_old).  Collective over comm.
 * LOOM_ERR_NOT_FOUND: step is not committed in dir.
 */
loom_status_t loom_filter_restore(loom_ckpt_t *ck, MPI_Comm comm, const char *dir,
                                  uint64_t step);

/* Drops what loom_filter_save remembers of ck; call it before
 * loom_ckpt_close(ck) when the process opens another context later. */
void loom_filter_forget(loom_ckpt_t *ck);

/* What the last failed call of this thread found wrong, never NULL. */
const char *loom_filter_last_error(void);

#ifdef __cplusplus
}
#endif

#endif
