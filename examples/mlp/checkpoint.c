#include "checkpoint.h"

#include <stdlib.h>

#include <loom/ckpt_mpi.h>

struct mlp_ckpt {
    loom_ckpt_coord_t coord;
    loom_ckpt_t *ckpt;
    uint64_t progress[3];       /* epoch, batch, steps: the saved copy */
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
    return MLP_OK;
}

mlp_status_t mlp_ckpt_save(mlp_ckpt_t *ck, const mlp_progress_t *progress,
                           mlp_error_t *err)
{
    ck->progress[0] = (uint64_t)progress->epoch;
    ck->progress[1] = (uint64_t)progress->batch;
    ck->progress[2] = (uint64_t)progress->steps;
    if (loom_ckpt_save(ck->ckpt, (uint64_t)progress->steps) != LOOM_OK) {
        return mlp_fail(err, MLP_ERR_IO, "checkpoint of step %ld failed (see the message "
                        "above); the previous one stays", progress->steps);
    }
    return MLP_OK;
}

void mlp_ckpt_close(mlp_ckpt_t *ck)
{
    if (ck != NULL) {
        loom_ckpt_close(ck->ckpt);
        loom_ckpt_coord_mpi_free(&ck->coord);
        free(ck);
    }
}
