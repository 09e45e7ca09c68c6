/*
 * MPI_Allgather(v), MPI_Iallgather, MPI_Reduce_scatter(_block) and
 * MPI_Ireduce_scatter_block through Loom, on world and on a split in
 * reverse rank order: counts 1, small, odd and large, uneven blocks with
 * zeros and gaps between them (allgatherv), in place and not, a
 * non-commutative user op (2x2 matrix products mod a prime, so any
 * misordered contribution shows), several nonblocking calls outstanding at
 * once.  Every result is computed independently by each rank, and Loom's
 * counters prove Loom ran each call.
 */
#include "loom_test.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#define PRIME 65521u

static int value(int r, int i, int salt) { return (r + 1) * 1000003 + i * 7 + salt * 13; }

static unsigned long long pvar(const char *coll, const char *what)
{
    char name[96];

    snprintf(name, sizeof(name), "coll_loom_%s_%s", coll, what);
    return loom_test_pvar(name);
}

static void check_allgather(MPI_Comm comm, int count, int in_place, int salt)
{
    int r, p, i, q, bad = 0, *in, *out;

    MPI_Comm_rank(comm, &r);
    MPI_Comm_size(comm, &p);
    in = malloc(sizeof(int) * (size_t)(count + 1));
    out = malloc(sizeof(int) * (size_t)(count * p + 1));
    for (i = 0; i < count * p; ++i) {
        out[i] = -1;
    }
    for (i = 0; i < count; ++i) {
        in[i] = value(r, i, salt);
        if (in_place) {
            out[r * count + i] = in[i];
        }
    }
    MPI_Allgather(in_place ? MPI_IN_PLACE : in, count, MPI_INT, out, count, MPI_INT, comm);
    for (q = 0; q < p; ++q) {
        for (i = 0; i < count; ++i) {
            bad += out[q * count + i] != value(q, i, salt);
        }
    }
    CHECK(bad == 0, "allgather count %d in_place %d on %d ranks: %d wrong", count, in_place, p,
          bad);
    free(in);
    free(out);
}

/* Uneven blocks (rank q has (q * 5 + salt) % 7 elements, some zero), each
 * placed with a gap of 3 elements that must stay untouched. */
static void check_allgatherv(MPI_Comm comm, int salt)
{
    int r, p, i, q, bad = 0, total = 0, *counts, *displs, *in, *out;

    MPI_Comm_rank(comm, &r);
    MPI_Comm_size(comm, &p);
    counts = malloc(sizeof(int) * (size_t)p);
    displs = malloc(sizeof(int) * (size_t)p);
    for (q = p - 1; q >= 0; --q) {  /* blocks laid out in reverse rank order */
        counts[q] = (q * 5 + salt) % 7;
        displs[q] = total;
        total += counts[q] + 3;
    }
    in = malloc(sizeof(int) * (size_t)(counts[r] + 1));
    out = malloc(sizeof(int) * (size_t)total);
    for (i = 0; i < total; ++i) {
        out[i] = -7;
    }
    for (i = 0; i < counts[r]; ++i) {
        in[i] = value(r, i, salt);
    }
    MPI_Allgatherv(in, counts[r], MPI_INT, out, counts, displs, MPI_INT, comm);
    for (q = 0; q < p; ++q) {
        for (i = 0; i < counts[q]; ++i) {
            bad += out[displs[q] + i] != value(q, i, salt);
        }
        for (i = counts[q]; i < counts[q] + 3; ++i) {
            bad += out[displs[q] + i] != -7;  /* the gap */
        }
    }
    CHECK(bad == 0, "allgatherv on %d ranks: %d wrong", p, bad);
    free(counts);
    free(displs);
    free(in);
    free(out);
}

/* 2x2 matrices mod PRIME, multiplied in rank order: inout = in x inout. */
static void matmul(void *invec, void *inoutvec, int *len, MPI_Datatype *type)
{
    unsigned *a = invec, *b = inoutvec, c[4];
    typedef unsigned long long u64;  /* exact products: the op must associate */
    int k;

    (void)type;
    for (k = 0; k < *len; ++k, a += 4, b += 4) {
        c[0] = (unsigned)(((u64)a[0] * b[0] + (u64)a[1] * b[2]) % PRIME);
        c[1] = (unsigned)(((u64)a[0] * b[1] + (u64)a[1] * b[3]) % PRIME);
        c[2] = (unsigned)(((u64)a[2] * b[0] + (u64)a[3] * b[2]) % PRIME);
        c[3] = (unsigned)(((u64)a[2] * b[1] + (u64)a[3] * b[3]) % PRIME);
        memcpy(b, c, sizeof(c));
    }
}

static void matrix_of(int r, int i, unsigned *m)
{
    m[0] = (unsigned)(r * 31 + i + 2) % PRIME;
    m[1] = (unsigned)(r * 17 + 3 * i + 1) % PRIME;
    m[2] = (unsigned)(r * 7 + 5) % PRIME;
    m[3] = (unsigned)(i * 11 + r + 1) % PRIME;
}

/* Block form with the matrix op (rcounts NULL) or uneven sums. */
static void check_reduce_scatter(MPI_Comm comm, int rcount, int uneven, int in_place,
                                 MPI_Datatype mat, MPI_Op op)
{
    int r, p, i, q, bad = 0, total = 0, off = 0, *counts = NULL;
    unsigned *in, *out, expect[4], m[4];
    int len = 1;

    MPI_Comm_rank(comm, &r);
    MPI_Comm_size(comm, &p);
    if (uneven) {
        counts = malloc(sizeof(int) * (size_t)p);
        for (q = 0; q < p; ++q) {
            counts[q] = (q * 3 + rcount) % 5;
            total += counts[q];
            off += q < r ? counts[q] : 0;
        }
    } else {
        total = rcount * p;
        off = rcount * r;
    }
    in = malloc(sizeof(unsigned) * 4 * (size_t)(total + 1));
    out = malloc(sizeof(unsigned) * 4 * (size_t)(total + 1));
    for (i = 0; i < total; ++i) {
        matrix_of(r, i, &(in_place ? out : in)[4 * i]);
    }
    if (uneven) {
        MPI_Reduce_scatter(in_place ? MPI_IN_PLACE : in, out, counts, mat, op, comm);
    } else {
        MPI_Reduce_scatter_block(in_place ? MPI_IN_PLACE : in, out, rcount, mat, op, comm);
    }
    for (i = 0; i < (uneven ? counts[r] : rcount); ++i) {
        matrix_of(p - 1, off + i, expect);
        for (q = p - 2; q >= 0; --q) {
            matrix_of(q, off + i, m);
            matmul(m, expect, &len, NULL);  /* expect = m x expect: lower ranks left */
        }
        bad += memcmp(&out[4 * i], expect, sizeof(expect)) != 0;
    }
    CHECK(bad == 0, "reduce_scatter%s rcount %d in_place %d on %d ranks: %d wrong",
          uneven ? "" : "_block", rcount, in_place, p, bad);
    free(counts);
    free(in);
    free(out);
}

/* Several iallgathers and ireduce_scatter_blocks in flight, then Waitall. */
static void check_nonblocking(MPI_Comm comm)
{
    enum { N = 6, COUNT = 333 };
    int r, p, k, i, q, bad = 0, *gin[N], *gout[N];
    double *sin[N], *sout[N];
    MPI_Request req[2 * N];

    MPI_Comm_rank(comm, &r);
    MPI_Comm_size(comm, &p);
    for (k = 0; k < N; ++k) {
        gin[k] = malloc(sizeof(int) * COUNT);
        gout[k] = malloc(sizeof(int) * COUNT * (size_t)p);
        sin[k] = malloc(sizeof(double) * COUNT * (size_t)p);
        sout[k] = malloc(sizeof(double) * COUNT);
        for (i = 0; i < COUNT; ++i) {
            gin[k][i] = value(r, i, k);
        }
        for (i = 0; i < COUNT * p; ++i) {
            sin[k][i] = r + i + k;
        }
        MPI_Iallgather(gin[k], COUNT, MPI_INT, gout[k], COUNT, MPI_INT, comm, &req[2 * k]);
        MPI_Ireduce_scatter_block(sin[k], sout[k], COUNT, MPI_DOUBLE, MPI_SUM, comm,
                                  &req[2 * k + 1]);
    }
    MPI_Waitall(2 * N, req, MPI_STATUSES_IGNORE);
    for (k = 0; k < N; ++k) {
        for (q = 0; q < p; ++q) {
            for (i = 0; i < COUNT; ++i) {
                bad += gout[k][q * COUNT + i] != value(q, i, k);
            }
        }
        for (i = 0; i < COUNT; ++i) {
            bad += sout[k][i] != (double)p * (p - 1) / 2 + (double)p * (r * COUNT + i + k);
        }
        free(gin[k]);
        free(gout[k]);
        free(sin[k]);
        free(sout[k]);
    }
    CHECK(bad == 0, "nonblocking allgather/reduce_scatter on %d ranks: %d wrong", p, bad);
}

int main(int argc, char **argv)
{
    static const int counts[] = { 1, 2, 5, 17, 1000, 70001 };
    unsigned long long ag, rs;
    int rank, size, c, calls_ag = 0, calls_rs = 0, in_place;
    MPI_Comm comms[2];
    MPI_Datatype mat;
    MPI_Op op;

    loom_test_init(&argc, &argv, MPI_THREAD_SINGLE);
    MPI_Comm_rank(MPI_COMM_WORLD, &rank);
    MPI_Comm_size(MPI_COMM_WORLD, &size);
    MPI_Comm_dup(MPI_COMM_WORLD, &comms[0]);
    MPI_Comm_split(MPI_COMM_WORLD, 0, size - rank, &comms[1]);
    MPI_Type_contiguous(4, MPI_UNSIGNED, &mat);
    MPI_Type_commit(&mat);
    MPI_Op_create(matmul, 0, &op);

    ag = pvar("allgather", "calls");
    rs = pvar("reduce_scatter", "calls");
    for (c = 0; c < (int)(sizeof(counts) / sizeof(counts[0])); ++c) {
        in_place = c % 2;
        check_allgather(comms[c % 2], counts[c], in_place, c);
        check_allgatherv(comms[(c + 1) % 2], c);
        check_reduce_scatter(comms[c % 2], counts[c] % 300 + 1, 0, in_place, mat, op);
        check_reduce_scatter(comms[(c + 1) % 2], counts[c] % 7 + 1, 1, !in_place, mat, op);
        calls_ag += 2;
        calls_rs += 2;
    }
    check_nonblocking(comms[0]);
    calls_ag += 6;
    calls_rs += 6;
    if (size > 1 && loom_test_expect_loom()) {
        CHECK(pvar("allgather", "calls") - ag == (unsigned long long)calls_ag,
              "Loom ran %llu allgathers, expected %d", pvar("allgather", "calls") - ag, calls_ag);
        CHECK(pvar("reduce_scatter", "calls") - rs == (unsigned long long)calls_rs,
              "Loom ran %llu reduce_scatters, expected %d", pvar("reduce_scatter", "calls") - rs,
              calls_rs);
        CHECK(pvar("allgather", "fallbacks") == 0 && pvar("reduce_scatter", "fallbacks") == 0,
              "calls were handed down");
    }
    MPI_Op_free(&op);
    MPI_Type_free(&mat);
    MPI_Comm_free(&comms[0]);
    MPI_Comm_free(&comms[1]);
    return loom_test_finish("mpi_allgather_rs");
}
