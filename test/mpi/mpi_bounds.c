/*
 * Where Loom writes: exactly where Open MPI's own components write.
 *
 * Every collective Loom takes (allreduce, bcast, reduce, allgather(v),
 * reduce_scatter(_block), and the nonblocking forms it takes), under every
 * algorithm of its collective, each forced in turn through MPI_T and then
 * the default choice, in place and not, at sizes from one element to past
 * the node segment's threshold:
 *   - the result is right;
 *   - every receive-buffer element outside the result keeps its value
 *     (in-place reduce_scatter: all but the rank's block; allgatherv: the
 *     gaps between blocks; reduce: a non-root rank's receive buffer);
 *   - guard words before and after every buffer survive;
 *   - no send buffer is written (a non-root rank's above all);
 *   - and each forced algorithm's counter shows that it ran.
 * One program covers a rank count in one job; run.sh runs it at Loom's
 * defaults (small calls handed down) and with every hand-off at 0.
 */
#include "loom_test.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#define GUARD 8              /* ints before and after every buffer */
#define GAP   5              /* ints between allgatherv's blocks */
#define MAX_ALGS 16

static const size_t sizes[] = { 1, 5, 2048, 20000 };
#define NSIZES (sizeof(sizes) / sizeof(sizes[0]))

static int guard_word(size_t i) { return (int)(0x6a09e667u ^ ((unsigned)i * 2654435761u)); }
/* What a receive buffer holds before the call, where nothing is sent. */
static int untouched(size_t i) { return -(int)(i % 100000) - 7777; }
static int value(int r, size_t i) { return (r + 1) * 1009 + (int)(i % 977) * 3; }

static int sum_of(int p, size_t i)
{
    int q, s = 0;

    for (q = 0; q < p; ++q) {
        s += value(q, i);
    }
    return s;
}

/* A buffer of n ints between guards, and the ints it must hold after. */
typedef struct buf {
    int     *mem;
    int     *data;
    int     *expect;
    size_t  n;
} buf_t;

static int *buf_new(buf_t *b, size_t n)
{
    size_t i;

    b->n = n;
    b->mem = malloc(sizeof(int) * (n + 2 * GUARD));
    b->expect = malloc(sizeof(int) * (n + 1));
    b->data = b->mem + GUARD;
    for (i = 0; i < GUARD; ++i) {
        b->mem[i] = guard_word(i);
        b->data[n + i] = guard_word(GUARD + i);
    }
    for (i = 0; i < n; ++i) {
        b->data[i] = untouched(i);
        b->expect[i] = untouched(i);
    }
    return b->data;
}

/* The data as it is now must stay so: a send buffer, or an input. */
static void buf_keep(buf_t *b)
{
    memcpy(b->expect, b->data, sizeof(int) * b->n);
}

static void buf_check(buf_t *b, const char *which, const char *what)
{
    size_t i, bad = 0, first = 0;
    int guards = 0;

    for (i = 0; i < GUARD; ++i) {
        guards += b->mem[i] != guard_word(i);
        guards += b->data[b->n + i] != guard_word(GUARD + i);
    }
    for (i = 0; i < b->n; ++i) {
        if (b->data[i] != b->expect[i] && bad++ == 0) {
            first = i;
        }
    }
    CHECK(guards == 0, "%s: %d guard words around the %s buffer overwritten", what, guards,
          which);
    CHECK(bad == 0, "%s: %zu of %zu elements of the %s buffer wrong, the first at %zu: %d, "
          "expected %d", what, bad, b->n, which, first, bad ? b->data[first] : 0,
          bad ? b->expect[first] : 0);
    free(b->mem);
    free(b->expect);
}

static void wait_for(MPI_Request *req)
{
    MPI_Wait(req, MPI_STATUS_IGNORE);
}

typedef struct ctx {
    MPI_Comm    comm;
    int         r, p;
    const char  *alg;
} ctx_t;

static void check_allreduce(const ctx_t *c, size_t n, int in_place, int nb)
{
    buf_t sb, rb;
    int *s = buf_new(&sb, n), *d = buf_new(&rb, n);
    MPI_Request req;
    char what[160];
    size_t i;

    for (i = 0; i < n; ++i) {
        s[i] = value(c->r, i);
        if (in_place) {
            d[i] = value(c->r, i);
        }
        rb.expect[i] = sum_of(c->p, i);
    }
    buf_keep(&sb);
    snprintf(what, sizeof(what), "%sallreduce (%s) of %zu%s", nb ? "i" : "", c->alg, n,
             in_place ? " in place" : "");
    if (nb) {
        MPI_Iallreduce(in_place ? MPI_IN_PLACE : s, d, (int)n, MPI_INT, MPI_SUM, c->comm, &req);
        wait_for(&req);
    } else {
        MPI_Allreduce(in_place ? MPI_IN_PLACE : s, d, (int)n, MPI_INT, MPI_SUM, c->comm);
    }
    buf_check(&sb, "send", what);
    buf_check(&rb, "receive", what);
}

static void check_bcast(const ctx_t *c, size_t n, int root, int nb)
{
    buf_t b;
    int *d = buf_new(&b, n);
    MPI_Request req;
    char what[160];
    size_t i;

    for (i = 0; i < n; ++i) {
        if (c->r == root) {
            d[i] = value(root, i);
        }
        b.expect[i] = value(root, i);
    }
    snprintf(what, sizeof(what), "%sbcast (%s) of %zu from %d", nb ? "i" : "", c->alg, n, root);
    if (nb) {
        MPI_Ibcast(d, (int)n, MPI_INT, root, c->comm, &req);
        wait_for(&req);
    } else {
        MPI_Bcast(d, (int)n, MPI_INT, root, c->comm);
    }
    buf_check(&b, "data", what);
}

/* A non-root rank's receive buffer is not significant: Loom leaves it. */
static void check_reduce(const ctx_t *c, size_t n, int root, int in_place, int nb)
{
    buf_t sb, rb;
    int *s = buf_new(&sb, n), *d = buf_new(&rb, n);
    int here = in_place && c->r == root;
    MPI_Request req;
    char what[160];
    size_t i;

    for (i = 0; i < n; ++i) {
        s[i] = value(c->r, i);
        if (here) {
            d[i] = value(c->r, i);
        }
        if (c->r == root) {
            rb.expect[i] = sum_of(c->p, i);
        }
    }
    buf_keep(&sb);
    snprintf(what, sizeof(what), "%sreduce (%s) of %zu to %d%s", nb ? "i" : "", c->alg, n,
             root, in_place ? " in place" : "");
    if (nb) {
        MPI_Ireduce(here ? MPI_IN_PLACE : s, d, (int)n, MPI_INT, MPI_SUM, root, c->comm, &req);
        wait_for(&req);
    } else {
        MPI_Reduce(here ? MPI_IN_PLACE : s, d, (int)n, MPI_INT, MPI_SUM, root, c->comm);
    }
    buf_check(&sb, "send", what);
    buf_check(&rb, "receive", what);
}

static void check_allgather(const ctx_t *c, size_t n, int in_place, int nb)
{
    buf_t sb, rb;
    int *s = buf_new(&sb, n), *d = buf_new(&rb, n * (size_t)c->p);
    MPI_Request req;
    char what[160];
    size_t i;
    int q;

    for (i = 0; i < n; ++i) {
        s[i] = value(c->r, i);
        if (in_place) {
            d[(size_t)c->r * n + i] = value(c->r, i);
        }
        for (q = 0; q < c->p; ++q) {
            rb.expect[(size_t)q * n + i] = value(q, i);
        }
    }
    buf_keep(&sb);
    snprintf(what, sizeof(what), "%sallgather (%s) of %zu%s", nb ? "i" : "", c->alg, n,
             in_place ? " in place" : "");
    if (nb) {
        MPI_Iallgather(in_place ? MPI_IN_PLACE : s, (int)n, MPI_INT, d, (int)n, MPI_INT,
                       c->comm, &req);
        wait_for(&req);
    } else {
        MPI_Allgather(in_place ? MPI_IN_PLACE : s, (int)n, MPI_INT, d, (int)n, MPI_INT,
                      c->comm);
    }
    buf_check(&sb, "send", what);
    buf_check(&rb, "receive", what);
}

/* Uneven counts (some zero for n = 1) around n. */
static int uneven(size_t n, int q) { return (int)(n * (size_t)(q % 3 + 1) / 2); }

/* Blocks in reverse rank order with GAP untouched ints after each. */
static void check_allgatherv(const ctx_t *c, size_t n, int in_place)
{
    int *counts = malloc(sizeof(int) * (size_t)c->p), *displs = malloc(sizeof(int) * (size_t)c->p);
    int *s, *d, q, total = 0, i;
    buf_t sb, rb;
    char what[160];

    for (q = c->p - 1; q >= 0; --q) {
        counts[q] = uneven(n, q);
        displs[q] = total;
        total += counts[q] + GAP;
    }
    s = buf_new(&sb, (size_t)counts[c->r]);
    d = buf_new(&rb, (size_t)total);
    for (i = 0; i < counts[c->r]; ++i) {
        s[i] = value(c->r, (size_t)i);
        if (in_place) {
            d[displs[c->r] + i] = value(c->r, (size_t)i);
        }
    }
    for (q = 0; q < c->p; ++q) {
        for (i = 0; i < counts[q]; ++i) {
            rb.expect[displs[q] + i] = value(q, (size_t)i);
        }
    }
    buf_keep(&sb);
    snprintf(what, sizeof(what), "allgatherv (%s) around %zu%s", c->alg, n,
             in_place ? " in place" : "");
    MPI_Allgatherv(in_place ? MPI_IN_PLACE : s, counts[c->r], MPI_INT, d, counts, displs,
                   MPI_INT, c->comm);
    buf_check(&sb, "send", what);
    buf_check(&rb, "receive", what);
    free(counts);
    free(displs);
}

/* Block form (counts NULL, n each) or uneven counts; in place, the input
 * fills the receive buffer and all but the result must stay as it was. */
static void check_reduce_scatter(const ctx_t *c, size_t n, int block, int in_place, int nb)
{
    int *counts = calloc((size_t)c->p, sizeof(int)), *s, *d, q;
    size_t total = 0, off = 0, i, mine;
    MPI_Request req;
    buf_t sb, rb;
    char what[160];

    for (q = 0; q < c->p; ++q) {
        counts[q] = block ? (int)n : uneven(n, q);
        off += q < c->r ? (size_t)counts[q] : 0;
        total += (size_t)counts[q];
    }
    mine = (size_t)counts[c->r];
    s = buf_new(&sb, total);
    d = buf_new(&rb, in_place ? total : mine);
    for (i = 0; i < total; ++i) {
        s[i] = value(c->r, i);
        if (in_place) {
            d[i] = value(c->r, i);
        }
    }
    buf_keep(&sb);
    buf_keep(&rb);
    for (i = 0; i < mine; ++i) {
        rb.expect[i] = sum_of(c->p, off + i);
    }
    snprintf(what, sizeof(what), "%sreduce_scatter%s (%s) %s %zu%s", nb ? "i" : "",
             block ? "_block" : "", c->alg, block ? "of" : "around", n,
             in_place ? " in place" : "");
    if (nb) {
        MPI_Ireduce_scatter_block(in_place ? MPI_IN_PLACE : s, d, (int)n, MPI_INT, MPI_SUM,
                                  c->comm, &req);
        wait_for(&req);
    } else if (block) {
        MPI_Reduce_scatter_block(in_place ? MPI_IN_PLACE : s, d, (int)n, MPI_INT, MPI_SUM,
                                 c->comm);
    } else {
        MPI_Reduce_scatter(in_place ? MPI_IN_PLACE : s, d, counts, MPI_INT, MPI_SUM, c->comm);
    }
    buf_check(&sb, "send", what);
    buf_check(&rb, "receive", what);
    free(counts);
}

/* Every case of one collective at one size. */
static void run_family(const ctx_t *c, int family, size_t n)
{
    int in_place, root, roots[2] = { 0, c->p - 1 };

    for (in_place = 0; in_place < 2; ++in_place) {
        switch (family) {
        case 0:
            check_allreduce(c, n, in_place, 0);
            check_allreduce(c, n, in_place, 1);
            break;
        case 1:
            if (!in_place) {
                for (root = 0; root < 2; ++root) {
                    check_bcast(c, n, roots[root], 0);
                    check_bcast(c, n, roots[root], 1);
                }
            }
            break;
        case 2:
            for (root = 0; root < 2; ++root) {
                check_reduce(c, n, roots[root], in_place, 0);
                check_reduce(c, n, roots[root], in_place, 1);
            }
            break;
        case 3:
            check_allgather(c, n, in_place, 0);
            check_allgather(c, n, in_place, 1);
            check_allgatherv(c, n, in_place);
            break;
        case 4:
            check_reduce_scatter(c, n, 1, in_place, 0);
            check_reduce_scatter(c, n, 1, in_place, 1);
            check_reduce_scatter(c, n, 0, in_place, 0);
            break;
        }
    }
}

static const char *const families[] = { "allreduce", "bcast", "reduce", "allgather",
                                        "reduce_scatter" };
#define NFAMILIES 5

static unsigned long long alg_counter(const char *family, const char *alg)
{
    char name[128];

    snprintf(name, sizeof(name), "coll_loom_%s_alg_%s", family, alg);
    return loom_test_pvar(name);
}

/* Each algorithm forced in turn, then auto (value 0, which stays). */
static void run_algorithms(MPI_Comm comm, int family, int loom)
{
    char names[MAX_ALGS][64], cvar[96];
    unsigned long long before;
    int nalgs, k, alg;
    size_t i;
    ctx_t c = { .comm = comm };

    MPI_Comm_rank(comm, &c.r);
    MPI_Comm_size(comm, &c.p);
    snprintf(cvar, sizeof(cvar), "coll_loom_%s_algorithm", families[family]);
    nalgs = loom ? loom_test_cvar_enum_names(cvar, names, MAX_ALGS) : 1;
    CHECK(nalgs > 1, "%s: no algorithms listed", cvar);
    if (nalgs < 1) {
        strcpy(names[0], "auto");
        nalgs = 1;
    }
    /* A value past the last algorithm is refused, not clamped. */
    CHECK(!loom || !loom_test_cvar_write_int(cvar, nalgs), "%s: took %d, past its last value",
          cvar, nalgs);
    for (k = 1; k <= nalgs; ++k) {
        alg = k % nalgs;  /* 1, 2, ..., then 0 */
        c.alg = names[alg];
        if (loom) {
            CHECK(loom_test_cvar_write_int(cvar, alg), "%s: writing %s refused", cvar,
                  names[alg]);
        }
        before = alg > 0 && loom ? alg_counter(families[family], names[alg]) : 0;
        for (i = 0; i < NSIZES; ++i) {
            run_family(&c, family, sizes[i]);
        }
        if (alg > 0 && loom && c.p > 1) {
            CHECK(alg_counter(families[family], names[alg]) > before,
                  "%s forced to %s: it never ran", families[family], names[alg]);
        }
    }
}

int main(int argc, char **argv)
{
    int family, loom;

    loom_test_init(&argc, &argv, MPI_THREAD_SINGLE);
    loom = loom_test_expect_loom();
    for (family = 0; family < NFAMILIES; ++family) {
        run_algorithms(MPI_COMM_WORLD, family, loom);
    }
    return loom_test_finish("mpi_bounds");
}
