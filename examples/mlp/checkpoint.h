/*
 * train_mlp's checkpoints through libloom-ckpt: the parameters, the
 * momentum and where training stands (epoch, next batch, optimizer step),
 * all replicated (every rank of a data-parallel job holds them whole), so
 * a job restarts from the last committed step on any number of ranks.
 * With --filter, the filter's residuals too (loom/filter.h): each rank's
 * own, folded onto the new rank count at a restore (docs/filter_api.md).
 */
#ifndef MLP_CHECKPOINT_H
#define MLP_CHECKPOINT_H

#include <mpi.h>

#include "common.h"
#include "model.h"
#include "options.h"

typedef struct mlp_ckpt mlp_ckpt_t;

/* Where training stands: the next optimizer step starts at batch
 * `batch` of epoch `epoch`, after `steps` steps. */
typedef struct mlp_progress {
    long epoch;
    long batch;
    long steps;
} mlp_progress_t;

/* Opens opts->checkpoint_dir on comm (collective); *ck_p = NULL when
 * checkpoints are off. */
mlp_status_t mlp_ckpt_open(const mlp_options_t *opts, mlp_model_t *model, MPI_Comm comm,
                           mlp_ckpt_t **ck_p, mlp_error_t *err);

/* Restores the newest committed step into the model and *progress;
 * *resumed_p = 0 when there is none (a fresh start).  Collective. */
mlp_status_t mlp_ckpt_resume(mlp_ckpt_t *ck, mlp_progress_t *progress, int *resumed_p,
                             mlp_error_t *err);

/* The residual bytes the last resume put back into the filter (0: none). */
size_t mlp_ckpt_restored_residual_bytes(const mlp_ckpt_t *ck);

/* Saves the model and progress (and with --filter the residuals) as step
 * progress->steps.  Collective. */
mlp_status_t mlp_ckpt_save(mlp_ckpt_t *ck, const mlp_progress_t *progress,
                           mlp_error_t *err);

void mlp_ckpt_close(mlp_ckpt_t *ck);

#endif
