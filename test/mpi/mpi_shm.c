/*
 * Large blocking calls on one node through Loom's node segment
 * (coll/core/shm/shm.h): allreduce, reduce, reduce_scatter(_block), bcast,
 * allgather and allgatherv, below and
 * above coll_loom_shm_min_bytes, in place or not, any root, a
 * non-contiguous bcast type, two communicators of one process each with
 * its own segment, and a nonblocking allreduce in flight (as messages)
 * while a blocking one runs through the segment.  Every result is checked,
 * and the per-collective counter coll_loom_<coll>_alg_shm must grow by
 * exactly the calls that qualify: none when run.sh turns coll_loom_shm off
 * (the tcp cases), so both paths are covered, and none on communicators
 * that span nodes (make check-cluster).
 */
#include "loom_test.h"

#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

static int rank, size;
static size_t min_bytes;
static int shm_on;

/* Value of element i contributed by rank r to call c. */
static double value_of(int r, int c, size_t i)
{
    return (double)((i * 31 + (size_t)c * 7) % 1000) + r * 0.5;
}

static double *alloc_doubles(size_t n)
{
    double *d = malloc((n > 0 ? n : 1) * sizeof(double));

    if (d == NULL) {
        MPI_Abort(MPI_COMM_WORLD, 1);
    }
    return d;
}

/* Whether every rank of comm shares this rank's node (on the emulated
 * cluster of make check-cluster, communicators span nodes and never use
 * the segment). */
static int on_one_node(MPI_Comm comm)
{
    MPI_Comm local;
    int p, l;

    MPI_Comm_size(comm, &p);
    MPI_Comm_split_type(comm, MPI_COMM_TYPE_SHARED, 0, MPI_INFO_NULL, &local);
    MPI_Comm_size(local, &l);
    MPI_Comm_free(&local);
    return l == p;
}

/* Whether a call of bytes on comm should use the segment. */
static int qualifies(MPI_Comm comm, size_t bytes)
{
    int p;

    MPI_Comm_size(comm, &p);
    return shm_on && p > 1 && bytes >= min_bytes && on_one_node(comm);
}

static int run_allreduce(MPI_Comm comm, size_t n, int c, int in_place)
{
    double *in = alloc_doubles(n), *out = alloc_doubles(n);
    int r, p, q;
    size_t i;

    MPI_Comm_rank(comm, &r);
    MPI_Comm_size(comm, &p);
    for (i = 0; i < n; ++i) {
        in[i] = value_of(r, c, i);
        out[i] = in_place ? in[i] : -1;
    }
    MPI_Allreduce(in_place ? MPI_IN_PLACE : in, out, (int)n, MPI_DOUBLE, MPI_SUM, comm);
    for (i = 0; i < n; ++i) {
        double want = 0;

        for (q = 0; q < p; ++q) {
            want += value_of(q, c, i);
        }
        /* Halves and small integers: every order of addition is exact. */
        if (out[i] != want) {
            CHECK(0, "allreduce of %zu doubles (call %d): element %zu is %g, expected %g", n, c,
                  i, out[i], want);
            break;
        }
    }
    free(in);
    free(out);
    return qualifies(comm, n * sizeof(double));
}

static int run_bcast(MPI_Comm comm, size_t n, int c, int root)
{
    double *buf = alloc_doubles(n);
    int r;
    size_t i;

    MPI_Comm_rank(comm, &r);
    for (i = 0; i < n; ++i) {
        buf[i] = r == root ? value_of(root, c, i) : -1;
    }
    MPI_Bcast(buf, (int)n, MPI_DOUBLE, root, comm);
    for (i = 0; i < n; ++i) {
        if (buf[i] != value_of(root, c, i)) {
            CHECK(0, "bcast of %zu doubles from %d: element %zu is %g", n, root, i, buf[i]);
            break;
        }
    }
    free(buf);
    return qualifies(comm, n * sizeof(double));
}

/* uneven: rank q's block holds k + q % 3 elements (allgatherv), laid out
 * in reverse rank order. */
static int run_allgather(MPI_Comm comm, size_t k, int c, int uneven, int in_place)
{
    int p, r, q, *counts, *displs, total = 0;
    double *in, *out;
    size_t i;

    MPI_Comm_rank(comm, &r);
    MPI_Comm_size(comm, &p);
    counts = malloc(sizeof(int) * (size_t)p);
    displs = malloc(sizeof(int) * (size_t)p);
    for (q = p - 1; q >= 0; --q) {
        counts[q] = (int)k + (uneven ? q % 3 : 0);
        displs[q] = uneven ? total : q * (int)k;
        total += counts[q];
    }
    in = alloc_doubles((size_t)counts[r]);
    out = alloc_doubles((size_t)total);
    for (i = 0; i < (size_t)counts[r]; ++i) {
        in[i] = value_of(r, c, i);
        out[(size_t)displs[r] + i] = in[i];
    }
    if (uneven) {
        MPI_Allgatherv(in_place ? MPI_IN_PLACE : in, counts[r], MPI_DOUBLE, out, counts,
                       displs, MPI_DOUBLE, comm);
    } else {
        MPI_Allgather(in_place ? MPI_IN_PLACE : in, (int)k, MPI_DOUBLE, out, (int)k,
                      MPI_DOUBLE, comm);
    }
    for (q = 0; q < p; ++q) {
        for (i = 0; i < (size_t)counts[q]; ++i) {
            if (out[(size_t)displs[q] + i] != value_of(q, c, i)) {
                CHECK(0, "allgather%s of %zu doubles per rank: rank %d's element %zu is %g",
                      uneven ? "v" : "", k, q, i, out[(size_t)displs[q] + i]);
                q = p;
                break;
            }
        }
    }
    free(in);
    free(out);
    free(counts);
    free(displs);
    return qualifies(comm, (size_t)total * sizeof(double));
}

static double sum_of(int p, int c, size_t i)
{
    double want = 0;
    int q;

    for (q = 0; q < p; ++q) {
        want += value_of(q, c, i);
    }
    return want;
}

static int run_reduce(MPI_Comm comm, size_t n, int c, int root, int in_place)
{
    double *in = alloc_doubles(n), *out = alloc_doubles(n);
    int r, p;
    size_t i;

    MPI_Comm_rank(comm, &r);
    MPI_Comm_size(comm, &p);
    in_place = in_place && r == root;
    for (i = 0; i < n; ++i) {
        in[i] = value_of(r, c, i);
        out[i] = in_place ? in[i] : -1;
    }
    MPI_Reduce(in_place ? MPI_IN_PLACE : in, out, (int)n, MPI_DOUBLE, MPI_SUM, root, comm);
    for (i = 0; i < n; ++i) {
        double want = r == root ? sum_of(p, c, i) : -1;

        if (out[i] != want) {
            CHECK(0, "reduce of %zu doubles to %d: rank %d's element %zu is %g, expected %g",
                  n, root, r, i, out[i], want);
            break;
        }
    }
    free(in);
    free(out);
    return qualifies(comm, n * sizeof(double));
}

/* uneven: MPI_Reduce_scatter with blocks of k + q % 3; otherwise the block
 * form, in place or not. */
static int run_reduce_scatter(MPI_Comm comm, size_t k, int c, int uneven, int in_place)
{
    int p, r, q, *counts;
    size_t total = 0, at = 0, i;
    double *in, *out;

    MPI_Comm_rank(comm, &r);
    MPI_Comm_size(comm, &p);
    counts = malloc(sizeof(int) * (size_t)p);
    for (q = 0; q < p; ++q) {
        counts[q] = (int)k + (uneven ? q % 3 : 0);
        total += (size_t)counts[q];
        at += q < r ? (size_t)counts[q] : 0;
    }
    in = alloc_doubles(total);
    out = alloc_doubles(total);
    for (i = 0; i < total; ++i) {
        in[i] = value_of(r, c, i);
        out[i] = in_place ? in[i] : -1;
    }
    if (uneven) {
        MPI_Reduce_scatter(in, out, counts, MPI_DOUBLE, MPI_SUM, comm);
    } else {
        MPI_Reduce_scatter_block(in_place ? MPI_IN_PLACE : in, out, (int)k, MPI_DOUBLE,
                                 MPI_SUM, comm);
    }
    for (i = 0; i < (size_t)counts[r]; ++i) {
        if (out[i] != sum_of(p, c, at + i)) {
            CHECK(0, "reduce_scatter%s of %zu doubles per rank: element %zu is %g, "
                  "expected %g", uneven ? "" : "_block", k, i, out[i], sum_of(p, c, at + i));
            break;
        }
    }
    free(in);
    free(out);
    free(counts);
    return qualifies(comm, total * sizeof(double));
}

/* Every other double of 2n: a vector type that is not flat, staged. */
static int run_bcast_strided(MPI_Comm comm, size_t n, int root)
{
    double *buf = alloc_doubles(2 * n);
    MPI_Datatype vec;
    int r;
    size_t i;

    MPI_Comm_rank(comm, &r);
    for (i = 0; i < 2 * n; ++i) {
        buf[i] = r == root || i % 2 ? value_of(root, 99, i) : -1;
    }
    MPI_Type_vector((int)n, 1, 2, MPI_DOUBLE, &vec);
    MPI_Type_commit(&vec);
    MPI_Bcast(buf, 1, vec, root, comm);
    for (i = 0; i < 2 * n; ++i) {
        if (buf[i] != value_of(root, 99, i)) {
            CHECK(0, "strided bcast of %zu doubles: element %zu is %g", n, i, buf[i]);
            break;
        }
    }
    MPI_Type_free(&vec);
    free(buf);
    return qualifies(comm, n * sizeof(double));
}

/* A nonblocking allreduce (messages) in flight on one communicator while
 * a blocking one runs through the segment on another. */
static int run_overlapped(MPI_Comm comm, MPI_Comm other, size_t n)
{
    double *a = alloc_doubles(n), *b = alloc_doubles(n);
    MPI_Request req;
    int p, expect;
    size_t i;

    MPI_Comm_size(comm, &p);
    for (i = 0; i < n; ++i) {
        a[i] = 1.0;
        b[i] = 2.0;
    }
    MPI_Iallreduce(MPI_IN_PLACE, a, (int)n, MPI_DOUBLE, MPI_SUM, other, &req);
    MPI_Allreduce(MPI_IN_PLACE, b, (int)n, MPI_DOUBLE, MPI_SUM, comm);
    MPI_Wait(&req, MPI_STATUS_IGNORE);
    expect = 0;
    for (i = 0; i < n; ++i) {
        if (a[i] != p || b[i] != 2.0 * p) {
            CHECK(0, "overlapped allreduces: element %zu is %g and %g, expected %d and %d", i,
                  a[i], b[i], p, 2 * p);
            break;
        }
    }
    expect = qualifies(comm, n * sizeof(double));
    free(a);
    free(b);
    return expect;
}

typedef struct shm_counts {
    unsigned long long allreduce, bcast, allgather, reduce, reduce_scatter;
} shm_counts_t;

static shm_counts_t read_counts(void)
{
    return (shm_counts_t){
        .allreduce = loom_test_pvar("coll_loom_allreduce_alg_shm"),
        .bcast = loom_test_pvar("coll_loom_bcast_alg_shm"),
        .allgather = loom_test_pvar("coll_loom_allgather_alg_shm"),
        .reduce = loom_test_pvar("coll_loom_reduce_alg_shm"),
        .reduce_scatter = loom_test_pvar("coll_loom_reduce_scatter_alg_shm"),
    };
}

int main(int argc, char **argv)
{
    size_t elems[4], n;
    shm_counts_t before, after, want = { 0, 0, 0, 0, 0 };
    MPI_Comm dup, half;
    int c = 0, k;

    loom_test_init(&argc, &argv, MPI_THREAD_SINGLE);
    MPI_Comm_rank(MPI_COMM_WORLD, &rank);
    MPI_Comm_size(MPI_COMM_WORLD, &size);
    if (!loom_test_expect_loom()) {
        return loom_test_skip("mpi_shm", "needs Loom");
    }
    shm_on = loom_test_cvar_size("coll_loom_shm") != 0;
    min_bytes = loom_test_cvar_size("coll_loom_shm_min_bytes");
    CHECK(min_bytes >= 8, "coll_loom_shm_min_bytes reads %zu", min_bytes);
    /* Just below the threshold, at it, odd sizes above, several slots. */
    elems[0] = min_bytes / sizeof(double) - 1;
    elems[1] = min_bytes / sizeof(double);
    elems[2] = 3 * min_bytes / sizeof(double) + 5;
    elems[3] = (4u << 20) / sizeof(double) + 3;
    MPI_Comm_dup(MPI_COMM_WORLD, &dup);
    MPI_Comm_split(MPI_COMM_WORLD, rank % 2, rank, &half);

    before = read_counts();
    for (k = 0; k < 4; ++k) {
        n = elems[k];
        want.allreduce += (unsigned long long)run_allreduce(MPI_COMM_WORLD, n, c++, 0);
        want.allreduce += (unsigned long long)run_allreduce(MPI_COMM_WORLD, n, c++, 1);
        want.allreduce += (unsigned long long)run_allreduce(half, n, c++, k % 2);
        want.bcast += (unsigned long long)run_bcast(MPI_COMM_WORLD, n, c++, size - 1);
        want.bcast += (unsigned long long)run_bcast(half, n, c++, 0);
        want.allgather += (unsigned long long)run_allgather(MPI_COMM_WORLD, n / size + 1, c++,
                                                            0, k % 2);
        want.allgather += (unsigned long long)run_allgather(MPI_COMM_WORLD, n / size + 1, c++,
                                                            1, k % 2 == 0);
        want.reduce += (unsigned long long)run_reduce(MPI_COMM_WORLD, n, c++, k % size, k % 2);
        want.reduce += (unsigned long long)run_reduce(half, n, c++, 0, 0);
        want.reduce_scatter += (unsigned long long)run_reduce_scatter(
            MPI_COMM_WORLD, n / size + 1, c++, 0, k % 2);
        want.reduce_scatter += (unsigned long long)run_reduce_scatter(
            MPI_COMM_WORLD, n / size + 1, c++, 1, 0);
    }
    want.bcast += (unsigned long long)run_bcast_strided(MPI_COMM_WORLD, elems[2], size / 2);
    want.allreduce += (unsigned long long)run_overlapped(MPI_COMM_WORLD, dup, elems[3]);
    after = read_counts();

    CHECK(after.allreduce - before.allreduce == want.allreduce,
          "coll_loom_allreduce_alg_shm grew by %llu, expected %llu (shm %d, min %zu bytes)",
          after.allreduce - before.allreduce, want.allreduce, shm_on, min_bytes);
    CHECK(after.bcast - before.bcast == want.bcast,
          "coll_loom_bcast_alg_shm grew by %llu, expected %llu",
          after.bcast - before.bcast, want.bcast);
    CHECK(after.allgather - before.allgather == want.allgather,
          "coll_loom_allgather_alg_shm grew by %llu, expected %llu",
          after.allgather - before.allgather, want.allgather);
    CHECK(after.reduce - before.reduce == want.reduce,
          "coll_loom_reduce_alg_shm grew by %llu, expected %llu",
          after.reduce - before.reduce, want.reduce);
    CHECK(after.reduce_scatter - before.reduce_scatter == want.reduce_scatter,
          "coll_loom_reduce_scatter_alg_shm grew by %llu, expected %llu",
          after.reduce_scatter - before.reduce_scatter, want.reduce_scatter);
    CHECK(!shm_on || size == 1 || !on_one_node(MPI_COMM_WORLD) || want.allreduce > 0,
          "no call qualified for the segment");
    MPI_Comm_free(&half);
    MPI_Comm_free(&dup);
    return loom_test_finish("mpi_shm");
}
