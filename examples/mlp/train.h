/*
 * Data-parallel training: every rank holds the whole model and the whole
 * dataset, takes its contiguous share of each global batch of one shuffled
 * order (the same on all ranks), and the gradient sum goes through
 * MPI_Allreduce on a communicator made for gradients.
 */
#ifndef MLP_TRAIN_H
#define MLP_TRAIN_H

#include <mpi.h>

#include "checkpoint.h"
#include "common.h"
#include "data.h"
#include "loom_counter.h"
#include "model.h"
#include "options.h"

typedef struct mlp_trainer mlp_trainer_t;

/* What a run measured, summed over its epochs; times are means over ranks. */
typedef struct mlp_result {
    int                 epochs;
    long                steps;          /* optimizer steps */
    long                steps_run;      /* of them, this run's (not before a resume) */
    double              loss;           /* mean loss of the last epoch */
    double              train_acc;      /* of the last epoch's batches */
    double              test_acc;       /* after the last epoch */
    double              images;         /* trained, all ranks together */
    double              train_s, comm_s, compute_s;
    unsigned long long  bytes_sent;     /* this rank's gradient allreduce payload */
    long                grad_allreduces;
    int                 replicas_identical; /* every rank ends with the same bits */
} mlp_result_t;

/* The trainer borrows everything it is given; comm is the gradient
 * communicator. */
mlp_status_t mlp_trainer_create(const mlp_options_t *opts, mlp_model_t *model,
                                const mlp_dataset_t *train, const mlp_dataset_t *test,
                                MPI_Comm comm, mlp_trainer_t **trainer_p, mlp_error_t *err);
void mlp_trainer_destroy(mlp_trainer_t *t);

/* Checkpoints: resume from ck's newest step at the start of the run and
 * save every opts->checkpoint_every steps.  ck stays the caller's. */
void mlp_trainer_set_checkpoint(mlp_trainer_t *t, mlp_ckpt_t *ck);

/* Loom's counters, for the epoch lines' filter fields (printed when the
 * filter's variables are there).  counter stays the caller's. */
void mlp_trainer_set_counter(mlp_trainer_t *t, const mlp_loom_counter_t *counter);

/* Train for opts->epochs (or opts->steps); rank 0 prints a line per epoch
 * unless quiet; then compare the parameters' bits across ranks (a lossy
 * filter must still leave every replica the same).  Collective over comm
 * and MPI_COMM_WORLD. */
mlp_status_t mlp_trainer_run(mlp_trainer_t *t, mlp_result_t *result, mlp_error_t *err);

/* The contiguous share [*start, *start + *len) of `total` items that rank
 * `rank` of `size` takes: sizes differ by at most one, lower ranks first. */
void mlp_share(long total, int rank, int size, long *start, long *len);

#endif
