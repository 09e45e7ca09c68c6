/*
 * coll_loom_reproducible=1 under mpirun: floating sums of values that make
 * addition visibly non-associative come out bitwise equal to the canonical
 * order (adjacent partials paired level by level over rank ids), which
 * every rank computes here by itself; for double and float, blocking and
 * nonblocking, in place and not, on world and on a split.  Reduce (every
 * root) and reduce_scatter_block / reduce_scatter, blocking and
 * nonblocking, give bitwise what allreduce gives.  Integer data keeps the
 * cost model's algorithm (any order sums alike).
 */
#include "loom_test.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

static double value(int r, int i)
{
    static const double scale[] = { 1e16, 1.0, -1e16, 3e-3, 7.25, -1e8, 1e-3 };

    return scale[(r * 3 + i) % 7] * (1.0 + (double)((r * 131 + i * 17) % 97) / 97.0);
}

static double canonical_double(int p, int i)
{
    double part[256];
    int n, j, k;

    for (j = 0; j < p; ++j) {
        part[j] = value(j, i);
    }
    for (n = p; n > 1; n = k) {
        for (j = 0, k = 0; j < n; j += 2, ++k) {
            part[k] = j + 1 < n ? part[j] + part[j + 1] : part[j];
        }
    }
    return part[0];
}

static float canonical_float(int p, int i)
{
    float part[256];
    int n, j, k;

    for (j = 0; j < p; ++j) {
        part[j] = (float)value(j, i);
    }
    for (n = p; n > 1; n = k) {
        for (j = 0, k = 0; j < n; j += 2, ++k) {
            part[k] = j + 1 < n ? part[j] + part[j + 1] : part[j];
        }
    }
    return part[0];
}

static void check_double(MPI_Comm comm, int count, int in_place, int nonblocking)
{
    double *in = malloc(sizeof(double) * (size_t)count), *out = malloc(sizeof(double) * (size_t)count);
    int r, p, i, bad = 0;
    MPI_Request req;
    double expect;

    MPI_Comm_rank(comm, &r);
    MPI_Comm_size(comm, &p);
    for (i = 0; i < count; ++i) {
        in[i] = out[i] = value(r, i);
    }
    if (nonblocking) {
        MPI_Iallreduce(in_place ? MPI_IN_PLACE : in, out, count, MPI_DOUBLE, MPI_SUM, comm,
                       &req);
        MPI_Wait(&req, MPI_STATUS_IGNORE);
    } else {
        MPI_Allreduce(in_place ? MPI_IN_PLACE : in, out, count, MPI_DOUBLE, MPI_SUM, comm);
    }
    for (i = 0; i < count; ++i) {
        expect = canonical_double(p, i);
        bad += memcmp(&out[i], &expect, sizeof(double)) != 0;
    }
    CHECK(bad == 0, "double count %d in_place %d nonblocking %d on %d ranks: %d elements "
          "differ from the canonical order", count, in_place, nonblocking, p, bad);
    free(in);
    free(out);
}

static void check_float(MPI_Comm comm, int count)
{
    float *in = malloc(sizeof(float) * (size_t)count), *out = malloc(sizeof(float) * (size_t)count);
    int r, p, i, bad = 0;
    float expect;

    MPI_Comm_rank(comm, &r);
    MPI_Comm_size(comm, &p);
    for (i = 0; i < count; ++i) {
        in[i] = (float)value(r, i);
    }
    MPI_Allreduce(in, out, count, MPI_FLOAT, MPI_SUM, comm);
    for (i = 0; i < count; ++i) {
        expect = canonical_float(p, i);
        bad += memcmp(&out[i], &expect, sizeof(float)) != 0;
    }
    CHECK(bad == 0, "float count %d on %d ranks: %d elements differ", count, p, bad);
    free(in);
    free(out);
}

/* Reduce to every root and reduce_scatter in even and uneven blocks, each
 * compared bit for bit with allreduce of the same data (itself checked
 * against the canonical order). */
static void check_rooted_and_scattered(MPI_Comm comm, int block, int variant)
{
    int r, p, i, q, root, n, off, bad = 0, nonblocking = variant & 1, in_place = variant & 2;
    double *in, *ref, *out;
    const void *sbuf;
    int *rcounts;
    MPI_Request req;

    MPI_Comm_rank(comm, &r);
    MPI_Comm_size(comm, &p);
    n = block * p;
    in = malloc(sizeof(double) * (size_t)(n + 1));
    ref = malloc(sizeof(double) * (size_t)(n + 1));
    out = malloc(sizeof(double) * (size_t)(n + 1));
    rcounts = malloc(sizeof(int) * (size_t)p);
    for (i = 0; i < n; ++i) {
        in[i] = value(r, i);
    }
    MPI_Allreduce(in, ref, n, MPI_DOUBLE, MPI_SUM, comm);
    for (i = 0; i < n; ++i) {
        double expect = canonical_double(p, i);

        bad += memcmp(&ref[i], &expect, sizeof(double)) != 0;
    }
    CHECK(bad == 0, "allreduce of %d on %d ranks: %d elements differ from the canonical "
          "order", n, p, bad);

    for (root = 0; root < p; ++root) {
        memcpy(out, in, sizeof(double) * (size_t)n);
        sbuf = in_place && r == root ? MPI_IN_PLACE : in;

        if (nonblocking) {
            MPI_Ireduce(sbuf, out, n, MPI_DOUBLE, MPI_SUM, root, comm, &req);
            MPI_Wait(&req, MPI_STATUS_IGNORE);
        } else {
            MPI_Reduce(sbuf, out, n, MPI_DOUBLE, MPI_SUM, root, comm);
        }
        if (r == root) {
            bad = 0;
            for (i = 0; i < n; ++i) {
                bad += memcmp(&out[i], &ref[i], sizeof(double)) != 0;
            }
            CHECK(bad == 0, "reduce of %d to root %d on %d ranks (variant %d): %d elements "
                  "differ from allreduce", n, root, p, variant, bad);
        }
    }

    memcpy(out, in, sizeof(double) * (size_t)n);
    if (nonblocking) {
        MPI_Ireduce_scatter_block(in_place ? MPI_IN_PLACE : in, out, block, MPI_DOUBLE,
                                  MPI_SUM, comm, &req);
        MPI_Wait(&req, MPI_STATUS_IGNORE);
    } else {
        MPI_Reduce_scatter_block(in_place ? MPI_IN_PLACE : in, out, block, MPI_DOUBLE,
                                 MPI_SUM, comm);
    }
    bad = 0;
    for (i = 0; i < block; ++i) {
        bad += memcmp(&out[i], &ref[r * block + i], sizeof(double)) != 0;
    }
    CHECK(bad == 0, "reduce_scatter_block of %d on %d ranks (variant %d): %d elements "
          "differ from allreduce", block, p, variant, bad);

    /* Uneven: rank q gets 2q elements, the last rank the rest. */
    for (q = 0, off = 0; q < p; ++q) {
        rcounts[q] = q + 1 < p && off + 2 * q <= n ? 2 * q : n - off;
        off += rcounts[q];
    }
    for (q = 0, off = 0; q < r; ++q) {
        off += rcounts[q];
    }
    memcpy(out, in, sizeof(double) * (size_t)n);
    MPI_Reduce_scatter(in_place ? MPI_IN_PLACE : in, out, rcounts, MPI_DOUBLE, MPI_SUM,
                       comm);
    bad = 0;
    for (i = 0; i < rcounts[r]; ++i) {
        bad += memcmp(&out[i], &ref[off + i], sizeof(double)) != 0;
    }
    CHECK(bad == 0, "reduce_scatter of %d on %d ranks (variant %d): %d elements differ "
          "from allreduce", n, p, variant, bad);
    free(in);
    free(ref);
    free(out);
    free(rcounts);
}

int main(int argc, char **argv)
{
    static const int counts[] = { 1, 3, 100, 4099, 70000 };
    static const int blocks[] = { 0, 1, 5, 333, 9000 };
    unsigned long long repro, calls, handoffs;
    int rank, size, c, ints[64], sums[64], i;
    MPI_Comm half;

    /* Read by Open MPI at MPI_Init, as --mca would be.  The hand-off of
     * small allreduces (which run.sh turns off for the other tests) is on,
     * up to 64 KiB: a reproducible call must stay with Loom whatever its
     * size, or small results would come from another order. */
    setenv("OMPI_MCA_coll_loom_reproducible", "1", 1);
    setenv("OMPI_MCA_coll_loom_allreduce_handoff", "65536", 1);
    loom_test_init(&argc, &argv, MPI_THREAD_SINGLE);
    MPI_Comm_rank(MPI_COMM_WORLD, &rank);
    MPI_Comm_size(MPI_COMM_WORLD, &size);
    MPI_Comm_split(MPI_COMM_WORLD, rank % 2, rank, &half);

    repro = loom_test_pvar("coll_loom_allreduce_alg_reproducible");
    calls = loom_test_pvar("coll_loom_allreduce_calls");
    handoffs = loom_test_pvar("coll_loom_allreduce_handoffs");
    for (c = 0; c < (int)(sizeof(counts) / sizeof(counts[0])); ++c) {
        check_double(MPI_COMM_WORLD, counts[c], c % 2, 0);
        check_double(MPI_COMM_WORLD, counts[c], (c + 1) % 2, 1);
        check_double(half, counts[c], 0, 0);
        check_float(MPI_COMM_WORLD, counts[c]);
    }
    if (size > 1 && loom_test_expect_loom()) {
        CHECK(loom_test_pvar("coll_loom_allreduce_alg_reproducible") - repro ==
              loom_test_pvar("coll_loom_allreduce_calls") - calls,
              "not every floating allreduce ran the reproducible algorithm");
        CHECK(loom_test_pvar("coll_loom_allreduce_calls") - calls > 0, "Loom ran nothing");
        CHECK(loom_test_pvar("coll_loom_allreduce_handoffs") == handoffs,
              "a reproducible allreduce was handed off");
    }

    /* Reduce and reduce_scatter: each run Loom ran was the reproducible one. */
    repro = loom_test_pvar("coll_loom_reduce_alg_reproducible") +
            loom_test_pvar("coll_loom_reduce_scatter_alg_reproducible");
    calls = loom_test_pvar("coll_loom_reduce_calls") +
            loom_test_pvar("coll_loom_reduce_scatter_calls");
    for (c = 0; c < (int)(sizeof(blocks) / sizeof(blocks[0])); ++c) {
        check_rooted_and_scattered(MPI_COMM_WORLD, blocks[c], c % 4);
        check_rooted_and_scattered(half, blocks[c], (c + 1) % 4);
    }
    if (size > 1 && loom_test_expect_loom()) {
        CHECK(loom_test_pvar("coll_loom_reduce_alg_reproducible") +
              loom_test_pvar("coll_loom_reduce_scatter_alg_reproducible") - repro ==
              loom_test_pvar("coll_loom_reduce_calls") +
              loom_test_pvar("coll_loom_reduce_scatter_calls") - calls,
              "not every floating reduce or reduce_scatter ran the reproducible algorithm");
        CHECK(loom_test_pvar("coll_loom_reduce_calls") - calls > 0, "Loom ran no reduce");
    }

    /* Integers: exact in any order, so the cost model keeps its choice. */
    repro = loom_test_pvar("coll_loom_allreduce_alg_reproducible");
    for (i = 0; i < 64; ++i) {
        ints[i] = rank * 64 + i;
    }
    MPI_Allreduce(ints, sums, 64, MPI_INT, MPI_SUM, MPI_COMM_WORLD);
    for (i = 0; i < 64; ++i) {
        CHECK(sums[i] == 64 * size * (size - 1) / 2 + size * i, "int sum wrong at %d", i);
    }
    CHECK(loom_test_pvar("coll_loom_allreduce_alg_reproducible") == repro,
          "an integer sum was forced to the reproducible algorithm");
    MPI_Comm_free(&half);
    return loom_test_finish("mpi_reproducible");
}
