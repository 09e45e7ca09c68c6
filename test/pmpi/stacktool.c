/*
 * stacktool: a second PMPI-style tool, built only for test_pmpi.sh, to show
 * that libloom-pmpi stacks with another tool in either LD_PRELOAD order.
 * It counts MPI_Allreduce calls through the next definition (dlsym
 * RTLD_NEXT, as libloom-pmpi does) and prints its count at MPI_Finalize.
 */
#define _GNU_SOURCE
#include <dlfcn.h>
#include <mpi.h>
#include <stdio.h>

static long stacktool_allreduces;

int MPI_Allreduce(const void *sendbuf, void *recvbuf, int count, MPI_Datatype datatype, MPI_Op op,
                  MPI_Comm comm)
{
    static __typeof__(&MPI_Allreduce) next;

    if (next == NULL) {
        next = (__typeof__(&MPI_Allreduce))dlsym(RTLD_NEXT, "MPI_Allreduce");
    }
    stacktool_allreduces++;
    return next(sendbuf, recvbuf, count, datatype, op, comm);
}

int MPI_Finalize(void)
{
    static __typeof__(&MPI_Finalize) next;
    int rank;

    if (next == NULL) {
        next = (__typeof__(&MPI_Finalize))dlsym(RTLD_NEXT, "MPI_Finalize");
    }
    PMPI_Comm_rank(MPI_COMM_WORLD, &rank);
    fprintf(stderr, "stacktool: rank %d saw %ld MPI_Allreduce\n", rank, stacktool_allreduces);
    return next();
}
