/*
 * MPI_Bcast, MPI_Ibcast, MPI_Reduce and MPI_Ireduce through Loom: every
 * root, sizes from 1 element to 1 MiB, world and a split in reverse rank
 * order, in place at the root, a non-commutative user op (2x2 matrix
 * products mod a prime, exact in 64 bits) that shows any misordered
 * contribution, several nonblocking calls in flight, and the rule that a
 * reduce never writes a non-root's receive buffer.  Each rank computes
 * every expected value itself; Loom's counters prove Loom ran each call.
 */
#include "loom_test.h"

#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#define PRIME 65521u

static long long value(int r, int i, int salt) { return (long long)(r + 1) * 7919 + i * 3 + salt; }

static unsigned long long pvar(const char *name)
{
    return loom_test_pvar(name);
}

static void check_bcast(MPI_Comm comm, int count, int root, int salt)
{
    long long *buf = malloc(sizeof(long long) * (size_t)count);
    int r, i, bad = 0;

    MPI_Comm_rank(comm, &r);
    for (i = 0; i < count; ++i) {
        buf[i] = r == root ? value(root, i, salt) : -1;
    }
    MPI_Bcast(buf, count, MPI_LONG_LONG, root, comm);
    for (i = 0; i < count; ++i) {
        bad += buf[i] != value(root, i, salt);
    }
    CHECK(bad == 0, "bcast count %d root %d: %d wrong", count, root, bad);
    free(buf);
}

static void matmul(void *invec, void *inoutvec, int *len, MPI_Datatype *type)
{
    unsigned *a = invec, *b = inoutvec, c[4];
    typedef unsigned long long u64;
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

/* Sum of long longs, or the matrix op; in place at the root when asked. */
static void check_reduce(MPI_Comm comm, int count, int root, int matrix, int in_place,
                         MPI_Datatype mat, MPI_Op op)
{
    int r, p, i, q, bad = 0, one = 1;
    size_t esize = matrix ? 4 * sizeof(unsigned) : sizeof(long long);
    char *in = malloc(esize * (size_t)count), *out = malloc(esize * (size_t)count);
    unsigned expect[4], m[4];
    long long sum;

    MPI_Comm_rank(comm, &r);
    MPI_Comm_size(comm, &p);
    memset(out, 0x5a, esize * (size_t)count);
    for (i = 0; i < count; ++i) {
        char *dst = (in_place && r == root) ? out : in;

        if (matrix) {
            matrix_of(r, i, (unsigned *)dst + 4 * i);
        } else {
            ((long long *)dst)[i] = value(r, i, count);
        }
    }
    MPI_Reduce(in_place && r == root ? MPI_IN_PLACE : in, out, count,
               matrix ? mat : MPI_LONG_LONG, matrix ? op : MPI_SUM, root, comm);
    for (i = 0; i < count; ++i) {
        if (r != root) {
            bad += ((unsigned char *)out)[i * esize] != 0x5a;  /* untouched */
            continue;
        }
        if (matrix) {
            matrix_of(p - 1, i, expect);
            for (q = p - 2; q >= 0; --q) {
                matrix_of(q, i, m);
                matmul(m, expect, &one, NULL);
            }
            bad += memcmp((unsigned *)out + 4 * i, expect, sizeof(expect)) != 0;
        } else {
            for (sum = 0, q = 0; q < p; ++q) {
                sum += value(q, i, count);
            }
            bad += ((long long *)out)[i] != sum;
        }
    }
    CHECK(bad == 0, "reduce %s count %d root %d in_place %d on %d ranks: %d wrong",
          matrix ? "matrix" : "sum", count, root, in_place, p, bad);
    free(in);
    free(out);
}

static void check_nonblocking(MPI_Comm comm)
{
    enum { N = 5, COUNT = 5000 };
    long long *b[N], *in[N], *out[N], sum;
    MPI_Request req[2 * N];
    int r, p, k, i, q, bad = 0;

    MPI_Comm_rank(comm, &r);
    MPI_Comm_size(comm, &p);
    for (k = 0; k < N; ++k) {
        b[k] = malloc(sizeof(long long) * COUNT);
        in[k] = malloc(sizeof(long long) * COUNT);
        out[k] = malloc(sizeof(long long) * COUNT);
        for (i = 0; i < COUNT; ++i) {
            b[k][i] = r == k % p ? value(k % p, i, k) : 0;
            in[k][i] = value(r, i, k);
        }
        MPI_Ibcast(b[k], COUNT, MPI_LONG_LONG, k % p, comm, &req[2 * k]);
        MPI_Ireduce(in[k], out[k], COUNT, MPI_LONG_LONG, MPI_SUM, (k + 1) % p, comm,
                    &req[2 * k + 1]);
    }
    MPI_Waitall(2 * N, req, MPI_STATUSES_IGNORE);
    for (k = 0; k < N; ++k) {
        for (i = 0; i < COUNT; ++i) {
            bad += b[k][i] != value(k % p, i, k);
            if (r == (k + 1) % p) {
                for (sum = 0, q = 0; q < p; ++q) {
                    sum += value(q, i, k);
                }
                bad += out[k][i] != sum;
            }
        }
        free(b[k]);
        free(in[k]);
        free(out[k]);
    }
    CHECK(bad == 0, "ibcast/ireduce on %d ranks: %d wrong", p, bad);
}

int main(int argc, char **argv)
{
    static const int counts[] = { 1, 3, 17, 1000, 131072 };
    unsigned long long bc, rd;
    int rank, size, c, root, nb = 0, nr = 0, p;
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

    bc = pvar("coll_loom_bcast_calls");
    rd = pvar("coll_loom_reduce_calls");
    for (c = 0; c < (int)(sizeof(counts) / sizeof(counts[0])); ++c) {
        MPI_Comm_size(comms[c % 2], &p);
        for (root = 0; root < p; ++root) {
            check_bcast(comms[c % 2], counts[c], root, c);
            check_reduce(comms[c % 2], counts[c] > 5000 ? 5000 : counts[c], root, c % 2,
                         root % 2, mat, op);
            nb += 1;
            nr += 1;
        }
    }
    check_nonblocking(comms[1]);
    nb += 5;
    nr += 5;
    if (size > 1 && loom_test_expect_loom()) {
        CHECK(pvar("coll_loom_bcast_calls") - bc == (unsigned long long)nb,
              "Loom ran %llu bcasts, expected %d", pvar("coll_loom_bcast_calls") - bc, nb);
        CHECK(pvar("coll_loom_reduce_calls") - rd == (unsigned long long)nr,
              "Loom ran %llu reduces, expected %d", pvar("coll_loom_reduce_calls") - rd, nr);
    }
    MPI_Op_free(&op);
    MPI_Type_free(&mat);
    MPI_Comm_free(&comms[0]);
    MPI_Comm_free(&comms[1]);
    return loom_test_finish("mpi_bcast_reduce");
}
