/*
 * libloom-ckpt on an MPI communicator: a loom_ckpt_coord_t whose
 * agreement is an MPI_Allreduce(MPI_MIN) on a private duplicate of the
 * communicator, so that it never matches the application's own traffic.
 * Header-only, so that libloom-ckpt itself needs no MPI.
 *
 *   loom_ckpt_coord_t coord;
 *   loom_ckpt_coord_mpi(MPI_COMM_WORLD, &coord);
 *   loom_ckpt_open("ckpt", &coord, NULL, &ckpt);
 *   ...
 *   loom_ckpt_close(ckpt);
 *   loom_ckpt_coord_mpi_free(&coord);
 */
#ifndef LOOM_CKPT_MPI_H
#define LOOM_CKPT_MPI_H

#include <stdlib.h>

#include <mpi.h>

#include <loom/ckpt.h>

static inline int loom_ckpt_mpi_min_u64(void *ctx, uint64_t *value)
{
    uint64_t in = *value;
    return MPI_Allreduce(&in, value, 1, MPI_UINT64_T, MPI_MIN,
                         *(MPI_Comm *)ctx) == MPI_SUCCESS ? 0 : -1;
}

/* Collective over comm.  Returns MPI_SUCCESS or an MPI error code. */
static inline int loom_ckpt_coord_mpi(MPI_Comm comm, loom_ckpt_coord_t *coord)
{
    MPI_Comm *dup = (MPI_Comm *)malloc(sizeof(*dup));
    if (dup == NULL) {
        return MPI_ERR_NO_MEM;
    }
    int rc = MPI_Comm_dup(comm, dup);
    if (rc != MPI_SUCCESS) {
        free(dup);
        return rc;
    }
    MPI_Comm_rank(*dup, &coord->rank);
    MPI_Comm_size(*dup, &coord->size);
    coord->min_u64 = loom_ckpt_mpi_min_u64;
    coord->ctx = dup;
    return MPI_SUCCESS;
}

/* Collective: frees the duplicate communicator. */
static inline void loom_ckpt_coord_mpi_free(loom_ckpt_coord_t *coord)
{
    MPI_Comm *dup = (MPI_Comm *)coord->ctx;
    if (dup != NULL) {
        MPI_Comm_free(dup);
        free(dup);
        coord->ctx = NULL;
    }
}

#endif
