#include "checkpoint.h"

#include <stdio.h>
#include <stdlib.h>

#include <loom/ckpt_mpi.h>
#include <loom/filter.h>

struct mlp_ckpt {
    loom_ckpt_coord_t coord;
    loom_ckpt_t *ckpt;
    uint64_t progress[3];       /* epoch, batch, steps: the saved copy */
    /* With --filter: the gradient communicator, whose residuals (the
     * gradient the filter has not sent yet) are saved and restored with
     * the weights through loom/filter.h; MPI_COMM_NULL without. */
    MPI_Comm filter_comm;
    const char *dir;
    size_t restored_bytes;
};

mlp_status_t mlp_ckpt_open(const mlp_options_t *opts, mlp_model_t *model, MPI_Comm comm,
                           mlp_ckpt_t **ck_p, mlp_error_t *err)
{
    *ck_p = NULL;
    if (opts->checkpoint_dir == NULL) {
        return MLP_OK;
    }
    mlp_ckpt_t *ck = calloc(1, sizeof(*ck));
    if (ck == NULL) {
        return mlp_fail(err, MLP_ERR_NOMEM, "out of memory for the checkpoint context");
    }
    ck->filter_comm = opts->filter != NULL ? comm : MPI_COMM_NULL;
    ck->dir = opts->checkpoint_dir;
    if (loom_ckpt_coord_mpi(comm, &ck->coord) != MPI_SUCCESS) {
        free(ck);
        return mlp_fail(err, MLP_ERR_MPI, "--checkpoint-dir: cannot duplicate the communicator");
    }
    if (loom_ckpt_open(opts->checkpoint_dir, &ck->coord, NULL, &ck->ckpt) != LOOM_OK) {
        loom_ckpt_coord_mpi_free(&ck->coord);
        free(ck);
        return mlp_fail(err, MLP_ERR_IO, "--checkpoint-dir: cannot open %s (see the "
                        "message above)", opts->checkpoint_dir);
    }
    const size_t bytes = model->num_params * sizeof(double);
    loom_ckpt_region_t regions[] = {
        { .name = "params", .ptr = model->params, .size = bytes, .elem_size = sizeof(double) },
        { .name = "velocity", .ptr = model->velocity, .size = bytes,
          .elem_size = sizeof(double) },
        { .name = "progress", .ptr = ck->progress, .size = sizeof(ck->progress),
          .elem_size = sizeof(uint64_t) },
    };
    for (size_t i = 0; i < sizeof(regions) / sizeof(regions[0]); ++i) {
        if (loom_ckpt_register(ck->ckpt, &regions[i]) != LOOM_OK) {
            mlp_ckpt_close(ck);
            return mlp_fail(err, MLP_ERR_IO, "cannot register checkpoint region %s",
                            regions[i].name);
        }
    }
    *ck_p = ck;
    return MLP_OK;
}

/* The residuals saved at step go back into the filter (old rank r's to
 * rank r mod p, docs/filter_api.md), before the first filtered call.  A
 * run that does not filter now (no --filter, or the component is not
 * there) cannot take them: said, not fatal. */
static mlp_status_t filter_resume(mlp_ckpt_t *ck, uint64_t step, mlp_error_t *err)
{
    loom_status_t st;
    int rank;

    if (ck->filter_comm == MPI_COMM_NULL) {
        return MLP_OK;
    }
    MPI_Comm_rank(ck->filter_comm, &rank);
    st = loom_filter_restore(ck->ckpt, ck->filter_comm, ck->dir, step);
    if (st == LOOM_ERR_UNSUPPORTED) {
        if (rank == 0) {
            fprintf(stderr, "train_mlp: filter residuals of step %llu not restored: %s\n",
                    (unsigned long long)step, loom_filter_last_error());
        }
        return MLP_OK;
    }
    if (st != LOOM_OK) {
        return mlp_fail(err, MLP_ERR_IO, "cannot restore the filter's residuals: %s",
                        loom_filter_last_error());
    }
    if (loom_filter_residual_bytes(&ck->restored_bytes) != LOOM_OK) {
        ck->restored_bytes = 0;
    }
    return MLP_OK;
}

size_t mlp_ckpt_restored_residual_bytes(const mlp_ckpt_t *ck)
{
    return ck->restored_bytes;
}

mlp_status_t mlp_ckpt_resume(mlp_ckpt_t *ck, mlp_progress_t *progress, int *resumed_p,
                             mlp_error_t *err)
{
    uint64_t step = 0;
    loom_status_t st = loom_ckpt_restore(ck->ckpt, LOOM_CKPT_NEWEST, &step);
    *resumed_p = 0;
    if (st == LOOM_ERR_NOT_FOUND) {
        return MLP_OK;
    }
    if (st != LOOM_OK) {
        return mlp_fail(err, MLP_ERR_IO, "cannot restore the newest checkpoint (see the "
                        "message above); move the directory away to start afresh");
    }
    progress->epoch = (long)ck->progress[0];
    progress->batch = (long)ck->progress[1];
    progress->steps = (long)ck->progress[2];
    *resumed_p = 1;
    return filter_resume(ck, step, err);
}

mlp_status_t mlp_ckpt_save(mlp_ckpt_t *ck, const mlp_progress_t *progress,
                           mlp_error_t *err)
{
    ck->progress[0] = (uint64_t)progress->epoch;
    ck->progress[1] = (uint64_t)progress->batch;
    ck->progress[2] = (uint64_t)progress->steps;
    /* The residual slots that exist by now join the save (once each);
     * with no filtering here there are none to save. */
    if (ck->filter_comm != MPI_COMM_NULL) {
        loom_status_t st = loom_filter_save(ck->ckpt, ck->filter_comm);
        if (st != LOOM_OK && st != LOOM_ERR_UNSUPPORTED) {
            return mlp_fail(err, MLP_ERR_IO, "cannot save the filter's residuals: %s",
                            loom_filter_last_error());
        }
    }
    if (loom_ckpt_save(ck->ckpt, (uint64_t)progress->steps) != LOOM_OK) {
        return mlp_fail(err, MLP_ERR_IO, "checkpoint of step %ld failed (see the message "
                        "above); the previous one stays", progress->steps);
    }
    return MLP_OK;
}

void mlp_ckpt_close(mlp_ckpt_t *ck)
{
    if (ck != NULL) {
        loom_filter_forget(ck->ckpt);
        loom_ckpt_close(ck->ckpt);
        loom_ckpt_coord_mpi_free(&ck->coord);
        free(ck);
    }
}
