/*
 * The verbose explanation of allgather(v) and reduce_scatter(_block): at
 * coll_loom_verbose=info, one line per (communicator, collective, size
 * class) names the algorithm and why.  Two calls in one size class give
 * one line; the v-form shares its collective's classes, so a v call in a
 * class already explained adds none; a call in another class adds one.
 * Every rank prints its own lines and checks them.
 */
#include "loom_test.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

static int rank, size;

/* Lines of text containing every one of the given strings. */
static int count_lines(const char *text, const char *a, const char *b)
{
    const char *line = text, *end;
    int n = 0;
    char buf[1024];

    while (*line != '\0') {
        end = strchr(line, '\n');
        size_t len = end != NULL ? (size_t)(end - line) : strlen(line);

        if (len >= sizeof(buf)) {
            len = sizeof(buf) - 1;
        }
        memcpy(buf, line, len);
        buf[len] = '\0';
        n += strstr(buf, a) != NULL && strstr(buf, b) != NULL;
        line = end != NULL ? end + 1 : line + strlen(line);
    }
    return n;
}

/* The block length k (doubles per rank) whose total lands in the size
 * class starting at 2^cls bytes, plus extra elements per rank. */
static int block_in_class(int cls, int extra)
{
    size_t lo = (size_t)1 << cls, per = sizeof(double) * (size_t)size;
    int k = (int)((lo + per - 1) / per) + extra;

    CHECK(per * (size_t)k >= lo && per * (size_t)k < 2 * lo,
          "k=%d on %d ranks leaves the size class of 2^%d bytes", k, size, cls);
    return k;
}

static void gather(MPI_Comm comm, int k, int v)
{
    double *in = calloc((size_t)k, sizeof(double));
    double *out = calloc((size_t)k * (size_t)size, sizeof(double));
    int *counts = malloc(sizeof(int) * (size_t)size), *displs = malloc(sizeof(int) * (size_t)size);
    int i, bad = 0;

    for (i = 0; i < k; ++i) {
        in[i] = rank + 0.5 * i;
    }
    for (i = 0; i < size; ++i) {
        counts[i] = k;
        displs[i] = i * k;
    }
    CHECK((v ? MPI_Allgatherv(in, k, MPI_DOUBLE, out, counts, displs, MPI_DOUBLE, comm)
             : MPI_Allgather(in, k, MPI_DOUBLE, out, k, MPI_DOUBLE, comm)) == MPI_SUCCESS,
          "allgather%s of %d failed", v ? "v" : "", k);
    for (i = 0; i < k * size; ++i) {
        bad += out[i] != i / k + 0.5 * (i % k);
    }
    CHECK(bad == 0, "allgather%s of %d: %d values wrong", v ? "v" : "", k, bad);
    free(in);
    free(out);
    free(counts);
    free(displs);
}

static void reduce_scatter(MPI_Comm comm, int k, int v)
{
    double *in = calloc((size_t)k * (size_t)size, sizeof(double));
    double *out = calloc((size_t)k, sizeof(double));
    int *counts = malloc(sizeof(int) * (size_t)size);
    int i, bad = 0;

    for (i = 0; i < k * size; ++i) {
        in[i] = rank + (double)i;
    }
    for (i = 0; i < size; ++i) {
        counts[i] = k;
    }
    CHECK((v ? MPI_Reduce_scatter(in, out, counts, MPI_DOUBLE, MPI_SUM, comm)
             : MPI_Reduce_scatter_block(in, out, k, MPI_DOUBLE, MPI_SUM, comm)) == MPI_SUCCESS,
          "reduce_scatter%s of %d failed", v ? "" : "_block", k);
    for (i = 0; i < k; ++i) {
        bad += out[i] != size * (size - 1) / 2.0 + (double)size * (rank * k + i);
    }
    CHECK(bad == 0, "reduce_scatter%s of %d: %d sums wrong", v ? "" : "_block", k, bad);
    free(in);
    free(out);
    free(counts);
}

int main(int argc, char **argv)
{
    MPI_Comm comm;
    char *text;
    int n;

    setenv("OMPI_MCA_coll_loom_verbose", "info", 1);
    loom_test_init(&argc, &argv, MPI_THREAD_SINGLE);
    MPI_Comm_rank(MPI_COMM_WORLD, &rank);
    MPI_Comm_size(MPI_COMM_WORLD, &size);
    if (size < 2 || !loom_test_expect_loom()) {
        return loom_test_skip("mpi_explain", "needs Loom on 2 ranks or more");
    }
    /* A fresh communicator: no size class explained yet. */
    MPI_Comm_dup(MPI_COMM_WORLD, &comm);
    loom_test_capture_start();
    gather(comm, block_in_class(13, 0), 0);
    gather(comm, block_in_class(13, 3), 0);
    gather(comm, block_in_class(13, 1), 1);
    gather(comm, block_in_class(16, 0), 1);
    reduce_scatter(comm, block_in_class(13, 0), 0);
    reduce_scatter(comm, block_in_class(13, 2), 1);
    reduce_scatter(comm, block_in_class(16, 1), 1);
    reduce_scatter(comm, block_in_class(16, 0), 0);
    MPI_Barrier(comm);
    text = loom_test_capture_end();

    n = count_lines(text, "] info coll: allgather on context", "(and this size class): ");
    CHECK(n == 1, "%d allgather explain lines, expected 1 (size class 2^13); output:\n%s", n,
          text);
    n = count_lines(text, "] info coll: allgatherv on context", "(and this size class): ");
    CHECK(n == 1, "%d allgatherv explain lines, expected 1 (size class 2^16); output:\n%s", n,
          text);
    n = count_lines(text, "] info coll: reduce_scatter_block on context", "size class): ");
    CHECK(n == 1, "%d reduce_scatter_block explain lines, expected 1 (size class 2^13)", n);
    n = count_lines(text, "] info coll: reduce_scatter on context", "size class): ");
    CHECK(n == 1, "%d reduce_scatter explain lines, expected 1 (size class 2^16)", n);
    /* Each line gives its reason: the cost model's, or (2 KiB and up on
     * one node, unless coll_loom_shm is off) the node's shared segment. */
    n = count_lines(text, "size class): ", "cost model: ") +
        count_lines(text, "size class): shm, ", "through the node's shared segment");
    CHECK(n >= 4, "%d explain lines give their reason, expected 4; output:\n%s", n, text);
    free(text);
    MPI_Comm_free(&comm);
    return loom_test_finish("mpi_explain");
}
