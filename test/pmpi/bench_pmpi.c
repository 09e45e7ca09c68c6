/*
 * bench_pmpi: the time of one call, for libloom-pmpi's overhead
 * (bench_pmpi.sh runs it with and without the library, interleaved).
 *
 *   bench_pmpi barrier|allreduce [calls]
 *
 * barrier: MPI_Barrier (on 1 rank, an empty collective); allreduce: an
 * 8-byte MPI_Allreduce.  After 10000 calls of warm-up (the profiler's only
 * slow path, a new site, is behind them), the calls run in 20 batches and
 * rank 0 prints the mean time per call of the fastest batch in ns: on a
 * shared machine the fastest batch is the one least disturbed by others.
 */
#include <mpi.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#define BENCH_BATCHES 20

static void bench_one(int allreduce)
{
    double in = 1, out;

    if (allreduce) {
        MPI_Allreduce(&in, &out, 1, MPI_DOUBLE, MPI_SUM, MPI_COMM_WORLD);
    } else {
        MPI_Barrier(MPI_COMM_WORLD);
    }
}

int main(int argc, char **argv)
{
    int allreduce, calls, rank, i, batch;
    double t0, best = 1e30;

    MPI_Init(&argc, &argv);
    MPI_Comm_rank(MPI_COMM_WORLD, &rank);
    if (argc < 2 || (strcmp(argv[1], "barrier") != 0 && strcmp(argv[1], "allreduce") != 0)) {
        if (rank == 0) {
            fprintf(stderr, "usage: bench_pmpi barrier|allreduce [calls]\n");
        }
        MPI_Finalize();
        return 2;
    }
    allreduce = strcmp(argv[1], "allreduce") == 0;
    calls = argc > 2 ? atoi(argv[2]) : 200000;
    for (i = 0; i < 10000; ++i) {
        bench_one(allreduce);
    }
    for (batch = 0; batch < BENCH_BATCHES; ++batch) {
        /* Every rank starts a batch together, so the batches are comparable. */
        MPI_Barrier(MPI_COMM_WORLD);
        t0 = MPI_Wtime();
        for (i = 0; i < calls / BENCH_BATCHES; ++i) {
            bench_one(allreduce);
        }
        t0 = (MPI_Wtime() - t0) / (calls / BENCH_BATCHES);
        best = t0 < best ? t0 : best;
    }
    if (rank == 0) {
        printf("%s %.1f ns/call\n", argv[1], best * 1e9);
    }
    MPI_Finalize();
    return 0;
}
