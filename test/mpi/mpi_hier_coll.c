/*
 * The hierarchical bcast, reduce, allgather(v) and reduce_scatter(_block)
 * under mpirun, each forced with coll_loom_<coll>_algorithm=hierarchical
 * (and the small-message hand-offs off, so Loom runs every size): every
 * root, sizes from one element to a few MiB, in place or not, uneven
 * counts with gaps for allgatherv, on the world and on a split
 * communicator with uneven halves.  On one host every rank shares a node;
 * under `make check-cluster` the nodes are real namespaces and the chains
 * and holders cross them.  Every element is checked against a value each
 * rank computes itself, and each collective's alg_hierarchical counter
 * must count every call Loom ran.  A non-commutative reduce must still
 * come out right: the selection hands it to the binomial tree.
 */
#include "loom_test.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

static const char *const colls[] = { "bcast", "reduce", "allgather", "reduce_scatter" };
#define NCOLLS 4

static long long value(int r, size_t i, int salt)
{
    return (long long)(r + 1) * 7919 + (long long)(i % 100003) * 3 + salt;
}

static void check_bcast(MPI_Comm comm, size_t n, int root)
{
    long long *buf = malloc((n + 1) * sizeof(*buf));
    size_t i, bad = 0;
    int r;

    MPI_Comm_rank(comm, &r);
    for (i = 0; i < n; ++i) {
        buf[i] = r == root ? value(root, i, 1) : -1;
    }
    MPI_Bcast(buf, (int)n, MPI_LONG_LONG, root, comm);
    for (i = 0; i < n; ++i) {
        bad += buf[i] != value(root, i, 1);
    }
    CHECK(bad == 0, "bcast of %zu from %d: %zu elements wrong", n, root, bad);
    free(buf);
}

static void check_reduce(MPI_Comm comm, size_t n, int root, int in_place)
{
    long long *in = malloc((n + 1) * sizeof(*in)), *out = malloc((n + 1) * sizeof(*out));
    long long want;
    size_t i, bad = 0;
    int r, p, q;

    MPI_Comm_rank(comm, &r);
    MPI_Comm_size(comm, &p);
    in_place = in_place && r == root;
    for (i = 0; i < n; ++i) {
        in[i] = value(r, i, 2);
        out[i] = in_place ? in[i] : -1;
    }
    MPI_Reduce(in_place ? MPI_IN_PLACE : in, r == root ? out : NULL, (int)n, MPI_LONG_LONG,
               MPI_SUM, root, comm);
    for (i = 0; r == root && i < n; ++i) {
        for (want = 0, q = 0; q < p; ++q) {
            want += value(q, i, 2);
        }
        bad += out[i] != want;
    }
    CHECK(bad == 0, "reduce of %zu to %d: %zu elements wrong", n, root, bad);
    free(in);
    free(out);
}

/* v: uneven counts (some empty) at displacements with gaps. */
static void check_allgather(MPI_Comm comm, size_t n, int v, int in_place)
{
    int r, p, q, *counts, *displs, total = 0;
    long long *in, *out;
    size_t i, bad = 0;

    MPI_Comm_rank(comm, &r);
    MPI_Comm_size(comm, &p);
    counts = malloc(sizeof(int) * (size_t)p);
    displs = malloc(sizeof(int) * (size_t)p);
    for (q = 0; q < p; ++q) {
        counts[q] = v ? (int)((n + 3 * (size_t)q) % (n + 2)) : (int)n;
        displs[q] = total + (v ? q % 2 : 0);
        total = displs[q] + counts[q];
    }
    in = malloc(((size_t)counts[r] + 1) * sizeof(*in));
    out = malloc(((size_t)total + 1) * sizeof(*out));
    for (i = 0; i < (size_t)total; ++i) {
        out[i] = -1;
    }
    for (i = 0; i < (size_t)counts[r]; ++i) {
        in[i] = value(r, i, 3);
        if (in_place) {
            out[(size_t)displs[r] + i] = in[i];
        }
    }
    if (v) {
        MPI_Allgatherv(in_place ? MPI_IN_PLACE : in, counts[r], MPI_LONG_LONG, out, counts,
                       displs, MPI_LONG_LONG, comm);
    } else {
        MPI_Allgather(in_place ? MPI_IN_PLACE : in, (int)n, MPI_LONG_LONG, out, (int)n,
                      MPI_LONG_LONG, comm);
    }
    for (q = 0; q < p; ++q) {
        for (i = 0; i < (size_t)counts[q]; ++i) {
            bad += out[(size_t)displs[q] + i] != value(q, i, 3);
        }
    }
    CHECK(bad == 0, "allgather%s of %zu: %zu elements wrong", v ? "v" : "", n, bad);
    free(counts);
    free(displs);
    free(in);
    free(out);
}

/* v: reduce_scatter with uneven counts; else reduce_scatter_block. */
static void check_reduce_scatter(MPI_Comm comm, size_t n, int v, int in_place)
{
    int r, p, q, *counts, total = 0, off = 0;
    long long *in, *out, want;
    size_t i, bad = 0;

    MPI_Comm_rank(comm, &r);
    MPI_Comm_size(comm, &p);
    counts = malloc(sizeof(int) * (size_t)p);
    for (q = 0; q < p; ++q) {
        counts[q] = v ? (int)((n + 3 * (size_t)q) % (n + 2)) : (int)n;
        off += q < r ? counts[q] : 0;
        total += counts[q];
    }
    in = malloc(((size_t)total + 1) * sizeof(*in));
    out = malloc(((size_t)total + 1) * sizeof(*out));
    for (i = 0; i < (size_t)total; ++i) {
        in[i] = value(r, i, 4);
        out[i] = in_place ? in[i] : -1;
    }
    if (v) {
        MPI_Reduce_scatter(in_place ? MPI_IN_PLACE : in, out, counts, MPI_LONG_LONG, MPI_SUM,
                           comm);
    } else {
        MPI_Reduce_scatter_block(in_place ? MPI_IN_PLACE : in, out, (int)n, MPI_LONG_LONG,
                                 MPI_SUM, comm);
    }
    for (i = 0; i < (size_t)counts[r]; ++i) {
        for (want = 0, q = 0; q < p; ++q) {
            want += value(q, (size_t)off + i, 4);
        }
        bad += out[i] != want;
    }
    CHECK(bad == 0, "reduce_scatter%s of %zu: %zu elements wrong", v ? "" : "_block", n, bad);
    free(counts);
    free(in);
    free(out);
}

static void run_all(MPI_Comm comm, size_t n, int k)
{
    int p, root;

    MPI_Comm_size(comm, &p);
    for (root = 0; root < p; ++root) {
        check_bcast(comm, n, root);
        check_reduce(comm, n, root, (root + k) % 2);
    }
    check_allgather(comm, n / 4, 0, k % 2);
    check_allgather(comm, n / 4, 1, (k + 1) % 2);
    check_reduce_scatter(comm, n / 4, 0, k % 2);
    check_reduce_scatter(comm, n / 4, 1, (k + 1) % 2);
}

/* a (op) b for 2x2 matrices of small integers: not commutative. */
static void matmul(void *invec, void *inoutvec, int *len, MPI_Datatype *type)
{
    long long *a = invec, *b = inoutvec, c[4];
    int k;

    (void)type;
    for (k = 0; k < *len; ++k, a += 4, b += 4) {
        c[0] = (a[0] * b[0] + a[1] * b[2]) % 65521;
        c[1] = (a[0] * b[1] + a[1] * b[3]) % 65521;
        c[2] = (a[2] * b[0] + a[3] * b[2]) % 65521;
        c[3] = (a[2] * b[1] + a[3] * b[3]) % 65521;
        memcpy(b, c, sizeof(c));
    }
}

/* A non-commutative reduce with the hierarchical one forced: the rank
 * order product, computed here. */
static void check_noncommutative(MPI_Comm comm)
{
    long long in[8], out[8], want[8], m[8];
    MPI_Datatype mat;
    MPI_Op op;
    int r, p, q, len = 2, i;

    MPI_Comm_rank(comm, &r);
    MPI_Comm_size(comm, &p);
    MPI_Type_contiguous(4, MPI_LONG_LONG, &mat);
    MPI_Type_commit(&mat);
    MPI_Op_create(matmul, 0, &op);
    for (q = 0; q < p; ++q) {
        for (i = 0; i < 8; ++i) {
            m[i] = (q * 5 + i * 3 + 1) % 7 + (i % 4 == 1);
        }
        if (q == r) {
            memcpy(in, m, sizeof(m));
        }
        if (q == 0) {
            memcpy(want, m, sizeof(m));
        } else {
            matmul(want, m, &len, NULL);   /* m = want (op) m: lower ranks left */
            memcpy(want, m, sizeof(m));
        }
    }
    MPI_Reduce(in, out, 2, mat, op, p - 1, comm);
    CHECK(r != p - 1 || memcmp(out, want, sizeof(want)) == 0,
          "non-commutative reduce: not the rank-order product");
    MPI_Op_free(&op);
    MPI_Type_free(&mat);
}

int main(int argc, char **argv)
{
    static const size_t sizes[] = { 0, 1, 3, 17, 1000, 65536 + 7, 1 << 19 };
    unsigned long long alg[NCOLLS], calls[NCOLLS];
    char name[128];
    MPI_Comm half;
    size_t k;
    int rank, size, c;

    for (c = 0; c < NCOLLS; ++c) {
        snprintf(name, sizeof(name), "OMPI_MCA_coll_loom_%s_algorithm", colls[c]);
        setenv(name, "hierarchical", 1);
        snprintf(name, sizeof(name), "OMPI_MCA_coll_loom_%s_handoff", colls[c]);
        setenv(name, "0", 1);
    }
    loom_test_init(&argc, &argv, MPI_THREAD_SINGLE);
    MPI_Comm_rank(MPI_COMM_WORLD, &rank);
    MPI_Comm_size(MPI_COMM_WORLD, &size);
    if (!loom_test_expect_loom()) {
        return loom_test_skip("mpi_hier_coll", "needs Loom");
    }
    /* Halves of 1 and size - 1 ranks: uneven on purpose. */
    MPI_Comm_split(MPI_COMM_WORLD, rank == 0, size - rank, &half);
    for (c = 0; c < NCOLLS; ++c) {
        snprintf(name, sizeof(name), "coll_loom_%s_alg_hierarchical", colls[c]);
        alg[c] = loom_test_pvar(name);
        snprintf(name, sizeof(name), "coll_loom_%s_calls", colls[c]);
        calls[c] = loom_test_pvar(name);
    }
    for (k = 0; k < sizeof(sizes) / sizeof(sizes[0]); ++k) {
        run_all(MPI_COMM_WORLD, sizes[k], (int)k);
        run_all(half, sizes[k], (int)k + 1);
    }
    for (c = 0; c < NCOLLS; ++c) {
        snprintf(name, sizeof(name), "coll_loom_%s_alg_hierarchical", colls[c]);
        alg[c] = loom_test_pvar(name) - alg[c];
        snprintf(name, sizeof(name), "coll_loom_%s_calls", colls[c]);
        calls[c] = loom_test_pvar(name) - calls[c];
        CHECK(alg[c] == calls[c] && (size == 1 || alg[c] > 0),
              "%llu of %llu %s calls ran hierarchical", alg[c], calls[c], colls[c]);
    }
    check_noncommutative(MPI_COMM_WORLD);
    check_noncommutative(half);
    MPI_Comm_free(&half);
    return loom_test_finish("mpi_hier_coll");
}
