/*
 * allreduce_compare: times MPI_Allreduce (double, MPI_SUM) from 8 B to
 * 64 MiB and checks every result.  Run it once with Loom selected and once
 * without (examples/compare.sh does both) to compare side by side.
 *
 * Per size: warm-up calls, then iterations each timed between barriers; the
 * time of an iteration is the slowest rank's; the median is printed.
 */
#include <mpi.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

static int cmp_double(const void *a, const void *b)
{
    double x = *(const double *)a, y = *(const double *)b;

    return (x > y) - (x < y);
}

int main(int argc, char **argv)
{
    size_t max_bytes = (size_t)64 << 20, bytes, count, i;
    const char *label = argc > 1 ? argv[1] : "run";
    int rank, size, it, iters, errors = 0, total_errors;
    double *in, *out, *times, t0, dt, expect;

    MPI_Init(&argc, &argv);
    MPI_Comm_rank(MPI_COMM_WORLD, &rank);
    MPI_Comm_size(MPI_COMM_WORLD, &size);
    if (argc > 2) {
        max_bytes = strtoull(argv[2], NULL, 0);
    }
    in = malloc(max_bytes);
    out = malloc(max_bytes);
    times = malloc(sizeof(double) * 64);
    if (in == NULL || out == NULL || times == NULL) {
        fprintf(stderr, "allreduce_compare: cannot allocate %zu bytes\n", max_bytes);
        MPI_Abort(MPI_COMM_WORLD, 1);
    }
    for (i = 0; i < max_bytes / sizeof(double); ++i) {
        in[i] = (double)((rank + 1) * ((i % 97) + 1)); /* integers: exact sums */
    }
    if (rank == 0) {
        printf("# %s: MPI_Allreduce, double sum, %d ranks\n", label, size);
        printf("# %12s %14s\n", "bytes", "median_us");
    }
    for (bytes = 8; bytes <= max_bytes; bytes *= 2) {
        count = bytes / sizeof(double);
        iters = bytes <= (1 << 16) ? 40 : bytes <= (1 << 22) ? 12 : 5;
        for (it = -2; it < iters; ++it) {
            MPI_Barrier(MPI_COMM_WORLD);
            t0 = MPI_Wtime();
            MPI_Allreduce(in, out, (int)count, MPI_DOUBLE, MPI_SUM, MPI_COMM_WORLD);
            dt = MPI_Wtime() - t0;
            MPI_Allreduce(MPI_IN_PLACE, &dt, 1, MPI_DOUBLE, MPI_MAX, MPI_COMM_WORLD);
            if (it >= 0) {
                times[it] = dt;
            }
        }
        for (i = 0; i < count; ++i) {
            expect = (double)((i % 97) + 1) * size * (size + 1) / 2;
            if (out[i] != expect) {
                ++errors;
                break;
            }
        }
        qsort(times, (size_t)iters, sizeof(double), cmp_double);
        if (rank == 0) {
            printf("%14zu %14.1f\n", bytes, times[iters / 2] * 1e6);
            fflush(stdout);
        }
    }
    MPI_Allreduce(&errors, &total_errors, 1, MPI_INT, MPI_SUM, MPI_COMM_WORLD);
    if (rank == 0) {
        printf("# %s: %s\n", label, total_errors ? "WRONG RESULTS" : "all results correct");
    }
    free(in);
    free(out);
    free(times);
    MPI_Finalize();
    return total_errors ? 1 : 0;
}
