/*
 * A training loop in miniature for libloom-slownode's tests: STEPS steps of
 * STEP_MS of "compute" (nanosleep, so that 8 ranks share 2 cores without
 * slowing each other) and one MPI_Allreduce of COUNT doubles on
 * MPI_COMM_WORLD.  Every step's sum is checked against the value computed
 * here (rank r contributes r + step + i at element i), so a rank order
 * written by the library that changed results fails the run.  Rank 0
 * prints the median step time over the second half of the run.
 *
 *   step_prog STEPS STEP_MS [COUNT]
 */
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <time.h>

#include <mpi.h>

static void sleep_ms(double ms)
{
    struct timespec ts = { .tv_sec = (time_t)(ms / 1000),
                           .tv_nsec = (long)((ms - 1000.0 * (time_t)(ms / 1000)) * 1e6) };

    while (nanosleep(&ts, &ts) != 0 && errno == EINTR) {
    }
}

static int cmp_double(const void *a, const void *b)
{
    double x = *(const double *)a, y = *(const double *)b;

    return (x > y) - (x < y);
}

/* Whole numbers below 2^53: the sum is exact in any order. */
static int step_run(int step, int count, int rank, int size, double *in, double *out)
{
    double want;
    int i;

    for (i = 0; i < count; ++i) {
        in[i] = rank + step + i;
    }
    MPI_Allreduce(in, out, count, MPI_DOUBLE, MPI_SUM, MPI_COMM_WORLD);
    for (i = 0; i < count; ++i) {
        want = (double)size * (size - 1) / 2 + (double)size * (step + i);
        if (out[i] != want) {
            fprintf(stderr, "step_prog: rank %d step %d element %d: %.17g, expected %.17g\n",
                    rank, step, i, out[i], want);
            return 0;
        }
    }
    return 1;
}

int main(int argc, char **argv)
{
    int steps, count, rank, size, s, ok = 1, all_ok;
    double step_ms, *in, *out, *times, t;

    if (argc < 3 || (steps = atoi(argv[1])) < 2 || (step_ms = atof(argv[2])) < 0) {
        fprintf(stderr, "usage: step_prog STEPS(>=2) STEP_MS(>=0) [COUNT(>=1)]\n");
        return 2;
    }
    count = argc > 3 ? atoi(argv[3]) : 16;
    if (count < 1) {
        fprintf(stderr, "step_prog: COUNT must be at least 1, not %s\n", argv[3]);
        return 2;
    }
    MPI_Init(&argc, &argv);
    MPI_Comm_rank(MPI_COMM_WORLD, &rank);
    MPI_Comm_size(MPI_COMM_WORLD, &size);
    in = malloc((size_t)count * sizeof(double));
    out = malloc((size_t)count * sizeof(double));
    times = malloc((size_t)steps * sizeof(double));
    for (s = 0; s < steps && ok; ++s) {
        t = MPI_Wtime();
        sleep_ms(step_ms);
        ok = step_run(s, count, rank, size, in, out);
        times[s] = MPI_Wtime() - t;
    }
    MPI_Allreduce(&ok, &all_ok, 1, MPI_INT, MPI_LAND, MPI_COMM_WORLD);
    if (rank == 0 && all_ok) {
        qsort(times + steps / 2, (size_t)(steps - steps / 2), sizeof(double), cmp_double);
        printf("step_prog: %d ranks, %d steps of %.1f ms: all sums right; median step of the "
               "second half %.3f ms\n", size, steps, step_ms,
               1e3 * times[steps / 2 + (steps - steps / 2) / 2]);
    }
    free(in);
    free(out);
    free(times);
    MPI_Finalize();
    return all_ok ? 0 : 1;
}
