/*
 * The hierarchical allreduce under mpirun, forced with
 * coll_loom_allreduce_algorithm=hierarchical: sizes from one element to
 * several MiB, in place or not, on the world and on a split communicator
 * with uneven halves.  On one host every rank shares a node (the shards
 * stay inside it); under `make check-cluster` the nodes are real
 * namespaces and the shards cross them.  Every element is checked, and
 * coll_loom_allreduce_alg_hierarchical must count every call Loom ran.
 */
#include "loom_test.h"

#include <stdio.h>
#include <stdlib.h>

static int rank, size;

static double value_of(int r, size_t i)
{
    return (double)((i * 13) % 997) + r * 0.25;
}

static void run(MPI_Comm comm, size_t n, int in_place)
{
    double *in = malloc((n + 1) * sizeof(double)), *out = malloc((n + 1) * sizeof(double));
    int r, p, q;
    size_t i;

    MPI_Comm_rank(comm, &r);
    MPI_Comm_size(comm, &p);
    for (i = 0; i < n; ++i) {
        in[i] = value_of(r, i);
        out[i] = in_place ? in[i] : -1;
    }
    MPI_Allreduce(in_place ? MPI_IN_PLACE : in, out, (int)n, MPI_DOUBLE, MPI_SUM, comm);
    for (i = 0; i < n; ++i) {
        double want = 0;

        for (q = 0; q < p; ++q) {
            want += value_of(q, i);
        }
        if (out[i] != want) {
            CHECK(0, "allreduce of %zu doubles on %d ranks: element %zu is %g, expected %g", n,
                  p, i, out[i], want);
            break;
        }
    }
    free(in);
    free(out);
}

int main(int argc, char **argv)
{
    static const size_t sizes[] = { 1, 3, 17, 1000, 65536 + 7, 1 << 20 };
    unsigned long long before, calls_before, grew, calls;
    MPI_Comm half;
    size_t k;

    setenv("OMPI_MCA_coll_loom_allreduce_algorithm", "hierarchical", 1);
    loom_test_init(&argc, &argv, MPI_THREAD_SINGLE);
    MPI_Comm_rank(MPI_COMM_WORLD, &rank);
    MPI_Comm_size(MPI_COMM_WORLD, &size);
    if (!loom_test_expect_loom()) {
        return loom_test_skip("mpi_hier", "needs Loom");
    }
    /* Halves of 1 and size - 1 ranks: uneven on purpose. */
    MPI_Comm_split(MPI_COMM_WORLD, rank == 0, rank, &half);
    before = loom_test_pvar("coll_loom_allreduce_alg_hierarchical");
    calls_before = loom_test_pvar("coll_loom_allreduce_calls");
    for (k = 0; k < sizeof(sizes) / sizeof(sizes[0]); ++k) {
        run(MPI_COMM_WORLD, sizes[k], (int)k % 2);
        run(half, sizes[k], (int)(k + 1) % 2);
    }
    grew = loom_test_pvar("coll_loom_allreduce_alg_hierarchical") - before;
    calls = loom_test_pvar("coll_loom_allreduce_calls") - calls_before;
    CHECK(grew == calls, "%llu of %llu allreduce calls ran hierarchical", grew, calls);
    CHECK(size == 1 || grew >= sizeof(sizes) / sizeof(sizes[0]),
          "only %llu calls ran hierarchical", grew);
    MPI_Comm_free(&half);
    return loom_test_finish("mpi_hier");
}
