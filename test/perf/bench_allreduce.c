/*
 * bench_allreduce: Loom against Open MPI's default, interleaved in one job.
 *
 * Three twins of MPI_COMM_WORLD: one where Loom runs allreduce, two that
 * refuse Loom (Open MPI's default, tuned).  For every size the three take
 * turns, so drift on a shared machine hits all of them; the second default
 * twin measured against the first (A/A) shows how much of a ratio is noise.
 * The fourth contender is the memory-copy bound of a 2-rank allreduce of
 * n bytes: two copies of n and one reduction of n/2 per rank, every rank
 * at once.  It takes its turn with the others and is timed the same way
 * (slowest rank of a batch).  The turns follow a design balanced for
 * carry-over (tools/common/turns.h): what the machine does after a turn
 * (here: the kernel's and the VM's work after tuned's fresh full-size
 * temporary) lands on every contender alike.  The default 12 rounds are
 * three periods of the design.
 *
 * usage: bench_allreduce [max_bytes] [reps]     (double, MPI_SUM)
 */
#include <mpi.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

#include "bench_common.h"
#include "tools/common/turns.h"

enum { LOOM, DEF_A, DEF_B, BOUND, NCONT };
static const char *const bench_names[NCONT] = { "loom", "tuned", "tuned(A/A)", "bound" };

/* Calls per timed batch: enough that a batch lasts about a millisecond,
 * so the skew of leaving the barrier does not dominate small sizes. */
static int bench_batch(size_t bytes)
{
    size_t calls = ((size_t)1 << 20) / (bytes + 4096);

    return calls < 1 ? 1 : calls > 200 ? 200 : (int)calls;
}

/* The bound's "allreduce": copy in, reduce half, copy out.  scratch
 * stands for the shared buffer and is distinct from in and out, as a
 * real exchange's would be. */
static void bench_bound_call(const double *in, double *scratch, double *out, size_t count)
{
    memcpy(scratch, in, count * sizeof(double));
    MPI_Reduce_local(in, scratch, (int)(count / 2), MPI_DOUBLE, MPI_SUM);
    memcpy(out, scratch, count * sizeof(double));
}

/* One timed batch: the slowest rank's time per call.  Waiting ranks sleep
 * in the first barrier; the second, a spinning one, lines them up.
 * comm == MPI_COMM_NULL times the bound. */
static double bench_once(MPI_Comm comm, MPI_Comm sync, double *in, double *out,
                         double *scratch, size_t count, int batch)
{
    double t0, dt, worst;
    int i;

    bench_sleepy_barrier(sync);
    MPI_Barrier(sync);
    t0 = MPI_Wtime();
    for (i = 0; i < batch; ++i) {
        if (comm == MPI_COMM_NULL) {
            bench_bound_call(in, scratch, out, count);
        } else {
            MPI_Allreduce(in, out, (int)count, MPI_DOUBLE, MPI_SUM, comm);
        }
    }
    dt = (MPI_Wtime() - t0) / batch;
    MPI_Allreduce(&dt, &worst, 1, MPI_DOUBLE, MPI_MAX, sync);
    return worst;
}

int main(int argc, char **argv)
{
    size_t max_bytes = argc > 1 ? strtoull(argv[1], NULL, 0) : (64u << 20);
    int reps = argc > 2 ? atoi(argv[2]) : 12, rank, size, c, k, i, w, order[NCONT];
    double *in, *out, *scratch, t[NCONT][64], med[NCONT], aa[64];
    MPI_Comm comm[NCONT];
    MPI_Info refuse;
    size_t bytes, count;
    int naa = 0;

    MPI_Init(&argc, &argv);
    MPI_Comm_rank(MPI_COMM_WORLD, &rank);
    MPI_Comm_size(MPI_COMM_WORLD, &size);
    if (reps < 3 || reps > 64) {
        reps = 12;
    }
    MPI_Info_create(&refuse);
    MPI_Info_set(refuse, "ompi_comm_coll_preference", "^loom");
    MPI_Comm_dup(MPI_COMM_WORLD, &comm[LOOM]);
    MPI_Comm_dup_with_info(MPI_COMM_WORLD, refuse, &comm[DEF_A]);
    MPI_Comm_dup_with_info(MPI_COMM_WORLD, refuse, &comm[DEF_B]);
    comm[BOUND] = MPI_COMM_NULL;
    in = malloc(max_bytes);
    out = malloc(max_bytes);
    scratch = malloc(max_bytes);
    for (i = 0; i < (int)(max_bytes / sizeof(double)); ++i) {
        in[i] = (double)(rank + i % 13);
    }
    if (rank == 0) {
        printf("# allreduce, double sum, %d ranks, median of %d, contenders interleaved\n",
               size, reps);
        printf("%12s %12s %12s %12s %10s %10s %12s %10s\n", "bytes", "loom_us", "tuned_us",
               "tuned2_us", "loom/tuned", "A/A", "bound_us", "loom/bound");
    }
    for (bytes = 8; bytes <= max_bytes; bytes *= 2) {
        count = bytes / sizeof(double);
        for (c = 0; c < NCONT; ++c) {  /* warm-up: pools, endpoints, caches */
            bench_once(comm[c], comm[DEF_A], in, out, scratch, count, 1);
        }
        for (k = 0; k < reps; ++k) {
            loom_tool_turns(k, NCONT, order);   /* balanced for carry-over: turns.h */
            for (w = 0; w < NCONT; ++w) {
                c = order[w];
                t[c][k] = bench_once(comm[c], comm[DEF_A], in, out, scratch, count,
                                     bench_batch(bytes));
            }
        }
        for (c = 0; c < NCONT; ++c) {
            med[c] = bench_median(t[c], reps);
        }
        aa[naa++] = med[DEF_B] / med[DEF_A];
        if (rank == 0) {
            printf("%12zu %12.1f %12.1f %12.1f %10.2f %10.2f %12.1f %10.2f\n", bytes,
                   med[LOOM] * 1e6, med[DEF_A] * 1e6, med[DEF_B] * 1e6,
                   med[LOOM] / med[DEF_A], med[DEF_B] / med[DEF_A], med[BOUND] * 1e6,
                   med[LOOM] / med[BOUND]);
            fflush(stdout);
        }
    }
    qsort(aa, (size_t)naa, sizeof(double), bench_cmp);
    if (rank == 0) {
        printf("# A/A ratio over sizes: median %.2f, 95th percentile %.2f; %s is %s\n",
               aa[naa / 2], aa[(naa * 95) / 100 < naa ? (naa * 95) / 100 : naa - 1],
               bench_names[DEF_B], "the default against itself");
    }
    for (c = 0; c < BOUND; ++c) {
        MPI_Comm_free(&comm[c]);
    }
    MPI_Info_free(&refuse);
    free(in);
    free(out);
    free(scratch);
    MPI_Finalize();
    return 0;
}
