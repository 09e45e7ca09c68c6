/*
 * The small-message hand-off: on a communicator inside one node, an
 * allreduce below coll_loom_allreduce_handoff bytes goes to the module
 * Open MPI chose before Loom and is counted as a hand-off; from that size
 * on Loom runs it.  run.sh keeps the default here (the other tests set the
 * hand-off to 0 so Loom's own path is tested at every size).  The
 * threshold is read back through MPI_T, so the test follows the setting.
 */
#include "loom_test.h"

#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

/* Sum of count doubles; checks the values and what Loom's counters say. */
static void sum_once(int count, size_t threshold, int rank, int size)
{
    int expect_handoff = (size_t)count * sizeof(double) < threshold;
    double *in = malloc(sizeof(double) * (size_t)(count > 0 ? count : 1));
    double *out = malloc(sizeof(double) * (size_t)(count > 0 ? count : 1));
    unsigned long long handoffs = loom_test_pvar("coll_loom_allreduce_handoffs");
    loom_test_counters_t before = loom_test_counters();
    int i, bad = 0;
    char what[64];

    for (i = 0; i < count; ++i) {
        in[i] = rank * 100.0 + i;
    }
    CHECK(MPI_Allreduce(in, out, count, MPI_DOUBLE, MPI_SUM, MPI_COMM_WORLD) == MPI_SUCCESS,
          "allreduce of %d doubles failed", count);
    for (i = 0; i < count; ++i) {
        bad += out[i] != 100.0 * size * (size - 1) / 2 + (double)size * i;
    }
    CHECK(bad == 0, "%d of %d sums wrong", bad, count);
    snprintf(what, sizeof(what), "%d doubles", count);
    if (!loom_test_expect_loom()) {
        free(in);
        free(out);
        return;
    }
    CHECK(loom_test_pvar("coll_loom_allreduce_handoffs") - handoffs ==
          (unsigned long long)expect_handoff, "%s: hand-offs %llu, expected %d", what,
          loom_test_pvar("coll_loom_allreduce_handoffs") - handoffs, expect_handoff);
    CHECK_LOOM_COUNTERS(before, expect_handoff ? 0 : 1, 0, what);
    free(in);
    free(out);
}

int main(int argc, char **argv)
{
    size_t threshold;
    int rank, size, elems;

    loom_test_init(&argc, &argv, MPI_THREAD_SINGLE);
    MPI_Comm_rank(MPI_COMM_WORLD, &rank);
    MPI_Comm_size(MPI_COMM_WORLD, &size);
    if (size < 2) {
        return loom_test_skip("mpi_allreduce_handoff", "Loom joins 2 ranks or more");
    }
    threshold = loom_test_cvar_size("coll_loom_allreduce_handoff");
    CHECK(threshold >= 2 * sizeof(double),
          "coll_loom_allreduce_handoff is %zu: this test needs the default", threshold);
    loom_test_pvar("coll_loom_allreduce_handoffs"); /* start the counter */
    elems = (int)(threshold / sizeof(double));
    sum_once(1, threshold, rank, size);
    sum_once(elems - 1, threshold, rank, size);
    sum_once(elems, threshold, rank, size);
    sum_once(elems + 1, threshold, rank, size);
    sum_once(elems * 4 + 3, threshold, rank, size);
    return loom_test_finish("mpi_allreduce_handoff");
}
