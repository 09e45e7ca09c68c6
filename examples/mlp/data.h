/*
 * Fashion-MNIST as Debian's dataset-fashion-mnist package ships it: gzip
 * compressed IDX files, images as 28x28 bytes, labels as bytes 0-9.
 */
#ifndef MLP_DATA_H
#define MLP_DATA_H

#include <mpi.h>
#include <stdint.h>

#include "common.h"

#define MLP_NUM_CLASSES 10

typedef struct mlp_dataset {
    int      count;     /* images */
    int      pixels;    /* per image: rows * cols */
    uint8_t *images;    /* count x pixels */
    uint8_t *labels;    /* count */
} mlp_dataset_t;

/* Read DIR/PREFIX-images-idx3-ubyte.gz and DIR/PREFIX-labels-idx1-ubyte.gz
 * (PREFIX is "train" or "t10k"), the first `limit` images when limit > 0. */
mlp_status_t mlp_dataset_load(const char *dir, const char *prefix, long limit,
                              mlp_dataset_t **ds_p, mlp_error_t *err);

/* Give every rank of comm the dataset that root loaded: on the other ranks
 * *ds_p is NULL on entry and the copy on return.  Collective. */
mlp_status_t mlp_dataset_bcast(mlp_dataset_t **ds_p, int root, MPI_Comm comm, mlp_error_t *err);

void mlp_dataset_destroy(mlp_dataset_t *ds);

/* Mean and standard deviation of all pixels (0-255 scale). */
void mlp_dataset_pixel_stats(const mlp_dataset_t *ds, double *mean_p, double *std_p);

#endif
