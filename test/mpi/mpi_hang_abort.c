/*
 * A program error that hangs: rank 0 enters an allreduce while every other
 * rank enters a barrier, so neither ever completes.  Run by
 * test_hang_abort.sh, which expects coll_loom_hang_abort to end the job
 * with Loom's last hang report.  The mode (argument) picks where rank 0
 * waits: "blocking" (a 16 KiB schedule: the script turns the node segment
 * off for it), "nonblocking" (the same through
 * MPI_Iallreduce and MPI_Wait) or "shm" (1 MiB through the node's shared
 * segment, attached by a matched call first).  Reaching the end is the
 * failure: it prints "not aborted" and exits 3.
 */
#include <mpi.h>

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#define SMALL 2048          /* doubles: above every hand-off */
#define LARGE (1 << 17)     /* doubles: 1 MiB, through the segment */

int main(int argc, char **argv)
{
    const char *mode = argc > 1 ? argv[1] : "blocking";
    int rank, n = strcmp(mode, "shm") == 0 ? LARGE : SMALL;
    double *buf = calloc((size_t)LARGE, sizeof(double));
    MPI_Request req;

    MPI_Init(&argc, &argv);
    MPI_Comm_rank(MPI_COMM_WORLD, &rank);
    /* Every rank alike first: attaches the segment, proves the job runs. */
    MPI_Allreduce(MPI_IN_PLACE, buf, n, MPI_DOUBLE, MPI_SUM, MPI_COMM_WORLD);
    if (rank == 0) {
        fprintf(stderr, "mismatch starts (%s)\n", mode);
        if (strcmp(mode, "nonblocking") == 0) {
            MPI_Iallreduce(MPI_IN_PLACE, buf, n, MPI_DOUBLE, MPI_SUM, MPI_COMM_WORLD, &req);
            MPI_Wait(&req, MPI_STATUS_IGNORE);
        } else {
            MPI_Allreduce(MPI_IN_PLACE, buf, n, MPI_DOUBLE, MPI_SUM, MPI_COMM_WORLD);
        }
    } else {
        MPI_Barrier(MPI_COMM_WORLD);
    }
    fprintf(stderr, "rank %d: not aborted\n", rank);
    free(buf);
    MPI_Finalize();
    return 3;
}
