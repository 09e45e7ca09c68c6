/*
 * pmpi_prog: an MPI program with a known number of calls of known sizes,
 * for libloom-pmpi's tests (test_pmpi.sh).  It knows nothing of the
 * profiler: the tests run it with and without LD_PRELOAD.
 *
 *   pmpi_prog [iterations [churn]]     (default 20)
 *
 * Each iteration: allreduces at four call sites (two sizes, on
 * MPI_COMM_WORLD and on "halves", a split named with MPI_Comm_set_name),
 * bcast, alltoall, allgatherv, iallreduce + wait, ibcast + a test loop,
 * barrier, and a ring of isend/recv; then nonblocking collectives completed
 * through every other completion call (prog_completions).  Then an ibcast
 * and a barrier in different orders on different ranks (prog_order), and
 * one reduce of the checksum.
 * Rank 0 prints the checksum and the program's own tally of what every rank
 * called (computed from the parameters, without communicating), one line
 * per function: "tally MPI_X calls C bytes B" summed over ranks, and
 * "ring R bytes B" for what rank R sent to its right neighbour.
 *
 * With "churn", it then duplicates MPI_COMM_WORLD CHURN_COMMS times, each
 * for one barrier and a free: more communicators than the profiler's table
 * holds at once, and a partial last-arrival window flushed at every free.
 *
 * LOOM_TEST_SLOW_RANK=r LOOM_TEST_SLOW_MS=ms: rank r sleeps ms before each
 * allreduce of the first call site.
 */
#include <mpi.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

#define N_BIG 1024      /* doubles: the first size of allreduce */
#define N_SMALL 16      /* ints: the second */
#define N_BCAST 256     /* ints */
#define N_A2A 8         /* ints per peer */
#define N_IALL 64       /* doubles */
#define N_IBCAST 128    /* bytes */
#define RING_UNIT 100   /* rank r sends RING_UNIT * (r + 1) bytes to r + 1 */
#define CHURN_COMMS 600
#define N_NB 4          /* ints or doubles in each of prog_completions' calls */

typedef struct {
    int rank, size, iters, slow_rank, slow_ms, churn;
    MPI_Comm halves;
    double sum;         /* the checksum: every result, exactly representable */
} prog_t;

static void prog_sleep(const prog_t *p)
{
    struct timespec ts;

    if (p->rank == p->slow_rank && p->slow_ms > 0) {
        ts.tv_sec = p->slow_ms / 1000;
        ts.tv_nsec = (long)(p->slow_ms % 1000) * 1000000L;
        nanosleep(&ts, NULL);
    }
}

static void prog_allreduces(prog_t *p, int it)
{
    static double in[N_BIG], out[N_BIG];
    int iin[N_SMALL], iout[N_SMALL], i;

    for (i = 0; i < N_BIG; ++i) {
        in[i] = p->rank + 1 + (i + it) % 7;
    }
    for (i = 0; i < N_SMALL; ++i) {
        iin[i] = p->rank * 3 + i + it;
    }
    prog_sleep(p);
    MPI_Allreduce(in, out, N_BIG, MPI_DOUBLE, MPI_SUM, MPI_COMM_WORLD);          /* site A */
    p->sum += out[0] + out[N_BIG - 1];
    MPI_Allreduce(iin, iout, N_SMALL, MPI_INT, MPI_SUM, MPI_COMM_WORLD);         /* site B */
    p->sum += iout[0] + iout[N_SMALL - 1];
    MPI_Allreduce(in, out, N_BIG, MPI_DOUBLE, MPI_MAX, p->halves);               /* site C */
    p->sum += out[3];
    MPI_Allreduce(iin, iout, N_SMALL, MPI_INT, MPI_MIN, p->halves);              /* site D */
    p->sum += iout[5];
}

static void prog_others(prog_t *p, int it)
{
    int bc[N_BCAST], *a2a_in, *a2a_out, *agv_in, *agv_out, *counts, *displs, i, total = 0, flag;
    double iin[N_IALL], iout[N_IALL];
    char ib[N_IBCAST];
    MPI_Request req;

    for (i = 0; i < N_BCAST; ++i) {
        bc[i] = p->rank == it % p->size ? i * 2 + it : -1;
    }
    MPI_Bcast(bc, N_BCAST, MPI_INT, it % p->size, MPI_COMM_WORLD);
    p->sum += bc[7];

    a2a_in = malloc(sizeof(int) * N_A2A * (size_t)p->size);
    a2a_out = malloc(sizeof(int) * N_A2A * (size_t)p->size);
    for (i = 0; i < N_A2A * p->size; ++i) {
        a2a_in[i] = p->rank * 1000 + i;
    }
    MPI_Alltoall(a2a_in, N_A2A, MPI_INT, a2a_out, N_A2A, MPI_INT, MPI_COMM_WORLD);
    p->sum += a2a_out[N_A2A * p->size - 1];

    counts = malloc(sizeof(int) * (size_t)p->size);
    displs = malloc(sizeof(int) * (size_t)p->size);
    for (i = 0; i < p->size; ++i) {
        counts[i] = i + 1;
        displs[i] = total;
        total += i + 1;
    }
    agv_in = malloc(sizeof(int) * (size_t)(p->rank + 1));
    agv_out = malloc(sizeof(int) * (size_t)total);
    for (i = 0; i <= p->rank; ++i) {
        agv_in[i] = p->rank + i + it;
    }
    MPI_Allgatherv(agv_in, p->rank + 1, MPI_INT, agv_out, counts, displs, MPI_INT,
                   MPI_COMM_WORLD);
    p->sum += agv_out[total - 1];

    for (i = 0; i < N_IALL; ++i) {
        iin[i] = i % 5 + p->rank;
    }
    MPI_Iallreduce(iin, iout, N_IALL, MPI_DOUBLE, MPI_SUM, MPI_COMM_WORLD, &req);
    MPI_Wait(&req, MPI_STATUS_IGNORE);
    p->sum += iout[N_IALL - 1];

    memset(ib, p->rank == 0 ? (char)(it + 1) : 0, sizeof(ib));
    MPI_Ibcast(ib, N_IBCAST, MPI_CHAR, 0, MPI_COMM_WORLD, &req);
    do {
        MPI_Test(&req, &flag, MPI_STATUS_IGNORE);
    } while (!flag);
    p->sum += ib[N_IBCAST - 1];

    MPI_Barrier(MPI_COMM_WORLD);
    free(a2a_in);
    free(a2a_out);
    free(agv_in);
    free(agv_out);
    free(counts);
    free(displs);
}

/* Nonblocking collectives completed by Waitall or Testall (alternate
 * iterations), Waitany, Testsome and Testany: the profiler must time each
 * to its completion, whichever call sees it. */
static void prog_completions(prog_t *p, int it)
{
    int ag_in[N_NB], *ag_out, a2a_in[N_NB], *a2a_out, scan_in[N_NB], scan_out[N_NB];
    int *rsb_in, rsb_out[N_NB], idx[2], n, flag, done, i;
    double red_in[N_NB], red_out[N_NB];
    MPI_Request reqs[2];
    MPI_Status st[2];   /* not MPI_STATUSES_IGNORE: gcc warns about it under MPICH */

    ag_out = malloc(sizeof(int) * N_NB * (size_t)p->size);
    a2a_out = malloc(sizeof(int) * N_NB * (size_t)p->size);
    rsb_in = malloc(sizeof(int) * N_NB * (size_t)p->size);
    for (i = 0; i < N_NB; ++i) {
        ag_in[i] = a2a_in[i] = scan_in[i] = p->rank + i + it;
        red_in[i] = p->rank * 0.5 + i;
    }
    for (i = 0; i < N_NB * p->size; ++i) {
        rsb_in[i] = i + p->rank;
    }
    /* N_NB ints per rank to allgather; one int to each peer in alltoall */
    MPI_Iallgather(ag_in, N_NB, MPI_INT, ag_out, N_NB, MPI_INT, MPI_COMM_WORLD, &reqs[0]);
    MPI_Ialltoall(a2a_in, 1, MPI_INT, a2a_out, 1, MPI_INT, MPI_COMM_WORLD, &reqs[1]);
    if (it % 2 == 0) {
        MPI_Waitall(2, reqs, st);
    } else {
        do {
            MPI_Testall(2, reqs, &flag, st);
        } while (!flag);
    }
    p->sum += ag_out[N_NB * p->size - 1] + a2a_out[p->size - 1];

    MPI_Ireduce(red_in, red_out, N_NB, MPI_DOUBLE, MPI_SUM, 0, MPI_COMM_WORLD, &reqs[0]);
    MPI_Ibarrier(MPI_COMM_WORLD, &reqs[1]);
    MPI_Waitany(2, reqs, &idx[0], MPI_STATUS_IGNORE);
    MPI_Waitany(2, reqs, &idx[1], MPI_STATUS_IGNORE);
    p->sum += p->rank == 0 ? red_out[1] : 0;

    MPI_Iscan(scan_in, scan_out, N_NB, MPI_INT, MPI_SUM, MPI_COMM_WORLD, &reqs[0]);
    MPI_Ireduce_scatter_block(rsb_in, rsb_out, N_NB, MPI_INT, MPI_SUM, MPI_COMM_WORLD, &reqs[1]);
    for (done = 0; done < 1;) {
        MPI_Testsome(1, &reqs[0], &n, idx, st);
        done += n == MPI_UNDEFINED ? 1 : n;
    }
    do {
        MPI_Testany(1, &reqs[1], &idx[0], &flag, MPI_STATUS_IGNORE);
    } while (!flag);
    p->sum += scan_out[2] + rsb_out[3];
    free(ag_out);
    free(a2a_out);
    free(rsb_in);
}

static void prog_ring(prog_t *p, int it)
{
    int right = (p->rank + 1) % p->size, left = (p->rank + p->size - 1) % p->size;
    int out_n = RING_UNIT * (p->rank + 1), in_n = RING_UNIT * (left + 1), i;
    char *out = malloc((size_t)out_n), *in = malloc((size_t)in_n);
    MPI_Request req;

    for (i = 0; i < out_n; ++i) {
        out[i] = (char)(p->rank + it + i % 3);
    }
    MPI_Isend(out, out_n, MPI_CHAR, right, 5, MPI_COMM_WORLD, &req);
    MPI_Recv(in, in_n, MPI_CHAR, left, 5, MPI_COMM_WORLD, MPI_STATUS_IGNORE);
    MPI_Wait(&req, MPI_STATUS_IGNORE);
    p->sum += in[in_n - 1];
    free(out);
    free(in);
}

/* Legal and deadlock-free whatever the collectives do inside: rank 0
 * starts an ibcast on a fresh duplicate, then waits in a barrier on
 * MPI_COMM_WORLD; the others enter that barrier first and the ibcast after.
 * A profiler that synchronized a communicator's members at its first
 * collective (to make its shadow there) would hang here. */
static void prog_order(prog_t *p)
{
    MPI_Comm dup;
    MPI_Request req;
    int v = p->rank == 0 ? 42 : 0;

    MPI_Comm_dup(MPI_COMM_WORLD, &dup);
    if (p->rank == 0) {
        MPI_Ibcast(&v, 1, MPI_INT, 0, dup, &req);
        MPI_Barrier(MPI_COMM_WORLD);
    } else {
        MPI_Barrier(MPI_COMM_WORLD);
        MPI_Ibcast(&v, 1, MPI_INT, 0, dup, &req);
    }
    MPI_Wait(&req, MPI_STATUS_IGNORE);
    p->sum += v;
    MPI_Comm_free(&dup);
}

static void prog_tally_line(const char *fn, long long calls, long long bytes)
{
    printf("tally %s calls %lld bytes %lld\n", fn, calls, bytes);
}

/* What every rank called, from the parameters alone. */
static void prog_tally(const prog_t *p)
{
    long long n = p->iters, s = p->size, agv = 0;
    int r;

    for (r = 0; r < p->size; ++r) {
        agv += 4LL * (r + 1);
    }
    prog_tally_line("MPI_Allreduce", 4 * n * s, 2 * n * s * (N_BIG * 8LL + N_SMALL * 4LL));
    prog_tally_line("MPI_Bcast", n * s, n * s * N_BCAST * 4LL);
    prog_tally_line("MPI_Alltoall", n * s, n * s * N_A2A * 4LL * s);
    prog_tally_line("MPI_Allgatherv", n * s, n * agv);
    prog_tally_line("MPI_Iallreduce", n * s, n * s * N_IALL * 8LL);
    prog_tally_line("MPI_Ibcast", (n + 1) * s, n * s * N_IBCAST + s * 4LL);
    prog_tally_line("MPI_Barrier", (n + 1 + (p->churn ? CHURN_COMMS : 0)) * s, 0);
    prog_tally_line("MPI_Reduce", s, s * 8LL);
    prog_tally_line("MPI_Iallgather", n * s, n * s * N_NB * 4LL);
    prog_tally_line("MPI_Ialltoall", n * s, n * s * 4LL * s);
    prog_tally_line("MPI_Ireduce", n * s, n * s * N_NB * 8LL);
    prog_tally_line("MPI_Ibarrier", n * s, 0);
    prog_tally_line("MPI_Iscan", n * s, n * s * N_NB * 4LL);
    prog_tally_line("MPI_Ireduce_scatter_block", n * s, n * s * N_NB * 4LL * s);
    for (r = 0; r < p->size; ++r) {
        printf("ring %d bytes %lld\n", r, n * RING_UNIT * (r + 1LL));
    }
}

int main(int argc, char **argv)
{
    prog_t p = { .slow_rank = -1 };
    const char *slow_rank = getenv("LOOM_TEST_SLOW_RANK"), *slow_ms = getenv("LOOM_TEST_SLOW_MS");
    double total = 0;
    int it;

    MPI_Init(&argc, &argv);
    MPI_Comm_rank(MPI_COMM_WORLD, &p.rank);
    MPI_Comm_size(MPI_COMM_WORLD, &p.size);
    p.iters = argc > 1 ? atoi(argv[1]) : 20;
    if (slow_rank != NULL && slow_ms != NULL) {
        p.slow_rank = atoi(slow_rank);
        p.slow_ms = atoi(slow_ms);
    }
    MPI_Comm_split(MPI_COMM_WORLD, p.rank % 2, p.rank, &p.halves);
    MPI_Comm_set_name(p.halves, "halves");
    for (it = 0; it < p.iters; ++it) {
        prog_allreduces(&p, it);
        prog_others(&p, it);
        prog_ring(&p, it);
        prog_completions(&p, it);
    }
    prog_order(&p);
    if (argc > 2 && strcmp(argv[2], "churn") == 0) {
        MPI_Comm dup;

        p.churn = 1;
        for (it = 0; it < CHURN_COMMS; ++it) {
            MPI_Comm_dup(MPI_COMM_WORLD, &dup);
            MPI_Barrier(dup);
            MPI_Comm_free(&dup);
        }
    }
    MPI_Reduce(&p.sum, &total, 1, MPI_DOUBLE, MPI_SUM, 0, MPI_COMM_WORLD);
    if (p.rank == 0) {
        printf("ranks %d iterations %d checksum %.1f\n", p.size, p.iters, total);
        prog_tally(&p);
    }
    MPI_Comm_free(&p.halves);
    MPI_Finalize();
    return 0;
}
