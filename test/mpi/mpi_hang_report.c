/*
 * The hang report: with coll_loom_hang_timeout at 1 s, rank 0 enters an
 * allreduce (blocking, then nonblocking, then a large blocking one that
 * runs through the node's shared segment when coll_loom_shm is on) while
 * every other rank sleeps 2.5 s first.  Rank 0 must print, while it waits, a warning naming the
 * collective, the communicator, the sequence number and the peer it waits
 * for; and the collective must still complete with the right values.
 * Rank 0's stderr is captured in a file for the check, so the expected
 * warning does not reach run.sh (which fails a test on Loom warnings).
 */
#include "loom_test.h"

#include <fcntl.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#define COUNT 8
/* 1 MiB: at or above coll_loom_shm_min_bytes by default. */
#define LARGE (1 << 17)

static void expect_report(const char *text, const char *coll, const char *what)
{
    char want[64];

    snprintf(want, sizeof(want), "warn coll: %s (", coll);
    CHECK(strstr(text, want) != NULL, "%s: no '%s' line in:\n%s", what, want, text);
    CHECK(strstr(text, "has made no progress") != NULL, "%s: no hang report in:\n%s", what,
          text);
    CHECK(strstr(text, "communicator MPI_COMM_WORLD") != NULL, "%s: communicator not named",
          what);
    /* A schedule names its sequence number, the shared segment its segment. */
    CHECK(strstr(text, "seq ") != NULL || strstr(text, "segment ") != NULL,
          "%s: neither sequence number nor segment named", what);
    /* Every rank but 0 is late: the report must name one of them. */
    CHECK(strstr(text, "from rank 0") == NULL && strstr(text, "to rank 0") == NULL &&
          (strstr(text, " rank 1") != NULL || strstr(text, " rank 2") != NULL),
          "%s: no late peer named in:\n%s", what, text);
}

static void run_one(int nonblocking, int count, int rank, int size)
{
    double *in = malloc(sizeof(double) * (size_t)count);
    double *out = malloc(sizeof(double) * (size_t)count);
    MPI_Request req;
    char *text = NULL;
    int i, done = 0, bad = 0;

    for (i = 0; i < count; ++i) {
        in[i] = rank + i;
    }
    if (rank == 0) {
        loom_test_capture_start();
    } else {
        usleep(2500000);
    }
    if (nonblocking) {
        MPI_Iallreduce(in, out, count, MPI_DOUBLE, MPI_SUM, MPI_COMM_WORLD, &req);
        while (!done) {
            MPI_Test(&req, &done, MPI_STATUS_IGNORE);
        }
    } else {
        MPI_Allreduce(in, out, count, MPI_DOUBLE, MPI_SUM, MPI_COMM_WORLD);
    }
    if (rank == 0) {
        text = loom_test_capture_end();
        expect_report(text, "allreduce", nonblocking ? "iallreduce" : "allreduce");
        free(text);
    }
    for (i = 0; i < count; ++i) {
        bad += out[i] != (double)size * (size - 1) / 2 + (double)size * i;
    }
    CHECK(bad == 0, "%d wrong sums after the wait", bad);
    free(in);
    free(out);
}

int main(int argc, char **argv)
{
    int rank, size;

    /* Read by Open MPI at MPI_Init, before Loom registers its parameters. */
    setenv("OMPI_MCA_coll_loom_hang_timeout", "1", 1);
    loom_test_init(&argc, &argv, MPI_THREAD_SINGLE);
    MPI_Comm_rank(MPI_COMM_WORLD, &rank);
    MPI_Comm_size(MPI_COMM_WORLD, &size);
    if (size < 2 || !loom_test_expect_loom()) {
        return loom_test_skip("mpi_hang_report", "needs Loom on 2 ranks or more");
    }
    run_one(0, COUNT, rank, size);
    run_one(1, COUNT, rank, size);
    /* The segment is attached at the first large call, through the module
     * below Loom: do that first, all together, then wait inside it. */
    {
        double *warm = calloc(LARGE, sizeof(double));

        MPI_Allreduce(MPI_IN_PLACE, warm, LARGE, MPI_DOUBLE, MPI_SUM, MPI_COMM_WORLD);
        free(warm);
    }
    run_one(0, LARGE, rank, size);
    return loom_test_finish("mpi_hang_report");
}
