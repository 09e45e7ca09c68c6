#include "bench_common.h"

#include <stdlib.h>
#include <time.h>

int bench_cmp(const void *a, const void *b)
{
    double x = *(const double *)a, y = *(const double *)b;

    return (x > y) - (x < y);
}

double bench_median(double *v, int n)
{
    qsort(v, (size_t)n, sizeof(double), bench_cmp);
    return n % 2 ? v[n / 2] : 0.5 * (v[n / 2 - 1] + v[n / 2]);
}

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
