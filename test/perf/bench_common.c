#include "bench_common.h"

#include <time.h>

/* A barrier whose waiters sleep instead of spinning on the two cores. */
void bench_sleepy_barrier(MPI_Comm comm)
{
    struct timespec nap = { 0, 20000 };
    MPI_Request req;
    int done = 0;

    MPI_Ibarrier(comm, &req);
    while (!done) {
        MPI_Test(&req, &done, MPI_STATUS_IGNORE);
        if (!done) {
            nanosleep(&nap, NULL);
        }
    }
}
