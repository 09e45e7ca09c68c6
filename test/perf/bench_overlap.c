/*
 * bench_overlap: how much of a nonblocking allreduce hides behind
 * computation, the measure behind coll_loom_progress_thread.
 *
 * Per iteration, in turn (so drift on a shared machine hits all alike):
 *   T_comm  post MPI_Iallreduce, wait at once;
 *   T_comp  a compute loop calibrated to last about T_comm, no MPI call;
 *   T_both  post, compute, wait; once with no MPI call inside the
 *           computation, once with `tests` MPI_Test calls spread evenly
 *           through it (what an application that polls now and then does).
 * Each time is the slowest rank's; the table shows their medians and the
 * median over iterations of
 *   hidden = (T_comm + T_comp - T_both) / T_comm,
 * 1 when the transfer hid entirely, 0 when computing and communicating
 * took as long as doing one after the other.  The fraction is taken per
 * iteration, from four times measured back to back, because on a loaded
 * machine the speed of the computation drifts more between iterations than
 * within one.  Run it once with
 * --mca coll_loom_progress_thread 0 and once with 1 (make bench-overlap).
 *
 * usage: bench_overlap [bytes] [iterations] [tests]   (double, MPI_SUM;
 *        defaults 8 MiB, 15, 8)
 */
#include <mpi.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

#include "bench_common.h"

enum { T_COMM, T_COMP, T_BOTH, T_BOTH_TESTS, NTIMES };

#define MAX_ITERS 200
#define CHUNK_DOUBLES 2048   /* 16 KiB: the compute stays in L1/L2 */

static volatile double bench_sink;  /* keeps the computation */

/* `units` passes of arithmetic over a small array, with MPI_Test on req
 * `tests` times along the way (req may be MPI_REQUEST_NULL). */
static void bench_compute(double *a, long units, int tests, MPI_Request *req)
{
    long u, next = tests > 0 ? units / (tests + 1) : units + 1;
    int i, k = 1, flag;

    for (u = 0; u < units; ++u) {
        for (i = 0; i < CHUNK_DOUBLES; ++i) {
            a[i] = a[i] * 0.999999 + 1e-6;
        }
        if (u + 1 == next && k <= tests) {
            MPI_Test(req, &flag, MPI_STATUS_IGNORE);
            next = (long)(++k) * units / (tests + 1);
        }
    }
    bench_sink += a[u % CHUNK_DOUBLES];
}

static double bench_comm(double *in, double *out, int count)
{
    MPI_Request req;
    double t0 = MPI_Wtime();

    MPI_Iallreduce(in, out, count, MPI_DOUBLE, MPI_SUM, MPI_COMM_WORLD, &req);
    MPI_Wait(&req, MPI_STATUS_IGNORE);
    return MPI_Wtime() - t0;
}

static double bench_both(double *in, double *out, int count, double *a, long units,
                         int tests)
{
    MPI_Request req;
    double t0 = MPI_Wtime();

    MPI_Iallreduce(in, out, count, MPI_DOUBLE, MPI_SUM, MPI_COMM_WORLD, &req);
    bench_compute(a, units, tests, &req);
    MPI_Wait(&req, MPI_STATUS_IGNORE);
    return MPI_Wtime() - t0;
}

static double bench_comp(double *a, long units)
{
    MPI_Request none = MPI_REQUEST_NULL;
    double t0 = MPI_Wtime();

    bench_compute(a, units, 0, &none);
    return MPI_Wtime() - t0;
}

/* Compute units lasting about `target` seconds on this rank.  Refined at
 * full length: on a loaded machine a burst of a few milliseconds runs
 * within one scheduler slice and overstates the speed of a long one. */
static long bench_calibrate(double *a, double target)
{
    double t[3];
    long units = 64;
    int i, round;

    while (bench_comp(a, units) < 2e-3 && units < (1L << 30)) {
        units *= 2;
    }
    for (round = 0; round < 3; ++round) {
        for (i = 0; i < 3; ++i) {
            t[i] = bench_comp(a, units);
        }
        units = (long)((double)units * target / bench_median(t, 3));
        units = units > 0 ? units : 1;
    }
    return units;
}

/* coll_loom_progress_thread through MPI_T: 1, 0, or -1 when absent. */
static int bench_thread_param(void)
{
    unsigned char value[16] = { 0 };
    MPI_T_cvar_handle handle;
    int index, count, provided, on = 0;
    size_t i;

    MPI_T_init_thread(MPI_THREAD_SINGLE, &provided);
    if (MPI_T_cvar_get_index("coll_loom_progress_thread", &index) != MPI_SUCCESS ||
        MPI_T_cvar_handle_alloc(index, NULL, &handle, &count) != MPI_SUCCESS) {
        MPI_T_finalize();
        return -1;
    }
    MPI_T_cvar_read(handle, value);
    MPI_T_cvar_handle_free(&handle);
    for (i = 0; i < sizeof(value); ++i) {
        on |= value[i] != 0;
    }
    MPI_T_finalize();
    return on;
}

int main(int argc, char **argv)
{
    size_t bytes = argc > 1 ? strtoull(argv[1], NULL, 0) : (8u << 20);
    int iters = argc > 2 ? atoi(argv[2]) : 15, tests = argc > 3 ? atoi(argv[3]) : 8;
    static double t[NTIMES][MAX_ITERS], hidden[2][MAX_ITERS];
    double *in, *out, *a, mine[NTIMES], worst[NTIMES], med[NTIMES], tcomm;
    int rank, size, count, i, k, thread;
    const char *tls = getenv("LOOM_UCX_TLS");
    char label[32];
    long units;

    MPI_Init(&argc, &argv);
    MPI_Comm_rank(MPI_COMM_WORLD, &rank);
    MPI_Comm_size(MPI_COMM_WORLD, &size);
    iters = iters < 3 ? 3 : iters > MAX_ITERS ? MAX_ITERS : iters;
    tests = tests < 0 ? 0 : tests;
    count = (int)(bytes / sizeof(double));
    thread = bench_thread_param();
    in = malloc(bytes);
    out = malloc(bytes);
    a = malloc(CHUNK_DOUBLES * sizeof(double));
    for (i = 0; i < count; ++i) {
        in[i] = (double)(rank + i % 13);
    }
    for (i = 0; i < CHUNK_DOUBLES; ++i) {
        a[i] = 1.0 + i;
    }

    /* Warm-up (endpoints, pools), then T_comm alone to size the compute. */
    for (i = 0; i < 3; ++i) {
        bench_sleepy_barrier(MPI_COMM_WORLD);
        bench_comm(in, out, count);
    }
    for (i = 0; i < 5; ++i) {
        bench_sleepy_barrier(MPI_COMM_WORLD);
        mine[0] = bench_comm(in, out, count);
        MPI_Allreduce(mine, &t[T_COMM][i], 1, MPI_DOUBLE, MPI_MAX, MPI_COMM_WORLD);
    }
    tcomm = bench_median(t[T_COMM], 5);
    units = bench_calibrate(a, tcomm);

    for (k = 0; k < iters; ++k) {
        bench_sleepy_barrier(MPI_COMM_WORLD);
        mine[T_COMM] = bench_comm(in, out, count);
        bench_sleepy_barrier(MPI_COMM_WORLD);
        mine[T_COMP] = bench_comp(a, units);
        bench_sleepy_barrier(MPI_COMM_WORLD);
        mine[T_BOTH] = bench_both(in, out, count, a, units, 0);
        bench_sleepy_barrier(MPI_COMM_WORLD);
        mine[T_BOTH_TESTS] = bench_both(in, out, count, a, units, tests);
        MPI_Allreduce(mine, worst, NTIMES, MPI_DOUBLE, MPI_MAX, MPI_COMM_WORLD);
        for (i = 0; i < NTIMES; ++i) {
            t[i][k] = worst[i];
        }
        hidden[0][k] = (worst[T_COMM] + worst[T_COMP] - worst[T_BOTH]) / worst[T_COMM];
        hidden[1][k] = (worst[T_COMM] + worst[T_COMP] - worst[T_BOTH_TESTS]) / worst[T_COMM];
    }
    for (i = 0; i < NTIMES; ++i) {
        med[i] = bench_median(t[i], iters);
    }
    if (rank == 0) {
        printf("# overlap: %d ranks, %zu bytes iallreduce (double, sum), LOOM_UCX_TLS=%s, "
               "progress thread %s, median of %d\n", size, bytes, tls ? tls : "(unset)",
               thread < 0 ? "(no such parameter)" : thread ? "on" : "off", iters);
        printf("%-22s %10s %10s %10s %8s\n", "compute", "T_comm_ms", "T_comp_ms",
               "T_both_ms", "hidden");
        printf("%-22s %10.2f %10.2f %10.2f %8.2f\n", "no MPI calls", med[T_COMM] * 1e3,
               med[T_COMP] * 1e3, med[T_BOTH] * 1e3, bench_median(hidden[0], iters));
        snprintf(label, sizeof(label), "%d MPI_Test calls", tests);
        printf("%-22s %10.2f %10.2f %10.2f %8.2f\n", label, med[T_COMM] * 1e3, med[T_COMP] * 1e3, med[T_BOTH_TESTS] * 1e3,
               (med[T_COMM] + med[T_COMP] - med[T_BOTH_TESTS]) / med[T_COMM]);
        fflush(stdout);
    }
    free(in);
    free(out);
    free(a);
    MPI_Finalize();
    return 0;
}
