/*
 * The small-message hand-off of every collective but allreduce
 * (mpi_allreduce_handoff has that one): on a communicator inside one node,
 * a call deciding on fewer bytes than coll_loom_<coll>_handoff goes to
 * the module Open MPI chose before Loom and is counted as a hand-off; from
 * that size on Loom runs it.  The bytes are the ones every rank computes
 * alike: the type signature of bcast and reduce, every block together for
 * allgather(v) and reduce_scatter(_block).  On two ranks allgather(v) and
 * bcast hand off below coll_loom_<coll>_pair_handoff where that is
 * larger.  Nonblocking forms follow the same rule.  run.sh keeps the defaults here; the thresholds are read back
 * through MPI_T, so the test follows the settings.
 */
#include "loom_test.h"

#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

static int rank, size;

/* The v-forms' uneven blocks: rank i holds k + i % 2 elements. */
static int vcount(int k, int i)
{
    return k + i % 2;
}

static double *alloc_doubles(size_t n)
{
    double *d = calloc(n > 0 ? n : 1, sizeof(double));

    CHECK(d != NULL, "out of memory for %zu doubles", n);
    if (d == NULL) {
        MPI_Abort(MPI_COMM_WORLD, 1);
    }
    return d;
}

/* One collective under test: how many bytes its call of size k decides
 * on, and the call itself with its result checked (k elements: of the
 * message for bcast and reduce, of a rank's block otherwise). */
typedef struct coll_case {
    const char  *name;       /* for messages */
    const char  *counters;   /* coll_loom_<counters>_calls, _handoffs */
    const char  *setting;    /* coll_loom_<setting>_handoff */
    int         blocks;      /* bytes are k doubles per rank, all ranks */
    int         uneven;      /* per-rank blocks of vcount() */
    int         nonblocking;
    void        (*run)(const struct coll_case *cc, int k);
} coll_case_t;

static size_t case_bytes(const coll_case_t *cc, int k)
{
    size_t elems = 0;
    int i;

    if (!cc->blocks) {
        return (size_t)k * sizeof(double);
    }
    for (i = 0; i < size; ++i) {
        elems += cc->uneven ? (size_t)vcount(k, i) : (size_t)k;
    }
    return elems * sizeof(double);
}

static void finish(const coll_case_t *cc, MPI_Request *req, int rc, int k)
{
    if (cc->nonblocking && rc == MPI_SUCCESS) {
        rc = MPI_Wait(req, MPI_STATUS_IGNORE);
    }
    CHECK(rc == MPI_SUCCESS, "%s of k=%d failed", cc->name, k);
}

static void run_bcast(const coll_case_t *cc, int k)
{
    double *buf = alloc_doubles((size_t)k);
    int root = size - 1, i, bad = 0, rc;
    MPI_Request req;

    for (i = 0; i < k; ++i) {
        buf[i] = rank == root ? 1000.0 * k + i : -1.0;
    }
    rc = cc->nonblocking ? MPI_Ibcast(buf, k, MPI_DOUBLE, root, MPI_COMM_WORLD, &req)
                         : MPI_Bcast(buf, k, MPI_DOUBLE, root, MPI_COMM_WORLD);
    finish(cc, &req, rc, k);
    for (i = 0; i < k; ++i) {
        bad += buf[i] != 1000.0 * k + i;
    }
    CHECK(bad == 0, "%s of k=%d: %d of %d values wrong", cc->name, k, bad, k);
    free(buf);
}

static void run_reduce(const coll_case_t *cc, int k)
{
    double *in = alloc_doubles((size_t)k), *out = alloc_doubles((size_t)k);
    int root = 1 % size, i, bad = 0, rc;
    MPI_Request req;

    for (i = 0; i < k; ++i) {
        in[i] = rank * 100.0 + i;
    }
    rc = cc->nonblocking
             ? MPI_Ireduce(in, out, k, MPI_DOUBLE, MPI_SUM, root, MPI_COMM_WORLD, &req)
             : MPI_Reduce(in, out, k, MPI_DOUBLE, MPI_SUM, root, MPI_COMM_WORLD);
    finish(cc, &req, rc, k);
    for (i = 0; rank == root && i < k; ++i) {
        bad += out[i] != 100.0 * size * (size - 1) / 2 + (double)size * i;
    }
    CHECK(bad == 0, "%s of k=%d: %d of %d sums wrong", cc->name, k, bad, k);
    free(in);
    free(out);
}

static void run_allgather(const coll_case_t *cc, int k)
{
    int *counts = malloc(sizeof(int) * (size_t)size), *displs = malloc(sizeof(int) * (size_t)size);
    int i, j, total = 0, mine, bad = 0, rc;
    double *in, *out;
    MPI_Request req;

    for (i = 0; i < size; ++i) {
        counts[i] = cc->uneven ? vcount(k, i) : k;
        displs[i] = total;
        total += counts[i];
    }
    mine = counts[rank];
    in = alloc_doubles((size_t)mine);
    out = alloc_doubles((size_t)total);
    for (j = 0; j < mine; ++j) {
        in[j] = rank * 1000.0 + j;
    }
    if (cc->uneven) {
        rc = MPI_Allgatherv(in, mine, MPI_DOUBLE, out, counts, displs, MPI_DOUBLE,
                            MPI_COMM_WORLD);
    } else if (cc->nonblocking) {
        rc = MPI_Iallgather(in, k, MPI_DOUBLE, out, k, MPI_DOUBLE, MPI_COMM_WORLD, &req);
    } else {
        rc = MPI_Allgather(in, k, MPI_DOUBLE, out, k, MPI_DOUBLE, MPI_COMM_WORLD);
    }
    finish(cc, &req, rc, k);
    for (i = 0; i < size; ++i) {
        for (j = 0; j < counts[i]; ++j) {
            bad += out[displs[i] + j] != i * 1000.0 + j;
        }
    }
    CHECK(bad == 0, "%s of k=%d: %d of %d values wrong", cc->name, k, bad, total);
    free(in);
    free(out);
    free(counts);
    free(displs);
}

static void run_reduce_scatter(const coll_case_t *cc, int k)
{
    int *counts = malloc(sizeof(int) * (size_t)size);
    int i, j, total = 0, first = 0, bad = 0, rc;
    double *in, *out;
    MPI_Request req;

    for (i = 0; i < size; ++i) {
        counts[i] = cc->uneven ? vcount(k, i) : k;
        first += i < rank ? counts[i] : 0;
        total += counts[i];
    }
    in = alloc_doubles((size_t)total);
    out = alloc_doubles((size_t)counts[rank]);
    for (j = 0; j < total; ++j) {
        in[j] = rank * 100.0 + j;
    }
    if (cc->uneven) {
        rc = MPI_Reduce_scatter(in, out, counts, MPI_DOUBLE, MPI_SUM, MPI_COMM_WORLD);
    } else if (cc->nonblocking) {
        rc = MPI_Ireduce_scatter_block(in, out, k, MPI_DOUBLE, MPI_SUM, MPI_COMM_WORLD, &req);
    } else {
        rc = MPI_Reduce_scatter_block(in, out, k, MPI_DOUBLE, MPI_SUM, MPI_COMM_WORLD);
    }
    finish(cc, &req, rc, k);
    for (j = 0; j < counts[rank]; ++j) {
        bad += out[j] != 100.0 * size * (size - 1) / 2 + (double)size * (first + j);
    }
    CHECK(bad == 0, "%s of k=%d: %d of %d sums wrong", cc->name, k, bad, counts[rank]);
    free(in);
    free(out);
    free(counts);
}

static const coll_case_t cases[] = {
    { .name = "bcast", .counters = "bcast", .setting = "bcast", .run = run_bcast },
    { .name = "ibcast", .counters = "bcast", .setting = "bcast", .nonblocking = 1,
      .run = run_bcast },
    { .name = "reduce", .counters = "reduce", .setting = "reduce", .run = run_reduce },
    { .name = "ireduce", .counters = "reduce", .setting = "reduce", .nonblocking = 1,
      .run = run_reduce },
    { .name = "allgather", .counters = "allgather", .setting = "allgather", .blocks = 1,
      .run = run_allgather },
    { .name = "iallgather", .counters = "allgather", .setting = "allgather", .blocks = 1,
      .nonblocking = 1, .run = run_allgather },
    { .name = "allgatherv", .counters = "allgather", .setting = "allgather", .blocks = 1,
      .uneven = 1, .run = run_allgather },
    { .name = "reduce_scatter_block", .counters = "reduce_scatter",
      .setting = "reduce_scatter", .blocks = 1, .run = run_reduce_scatter },
    { .name = "ireduce_scatter_block", .counters = "reduce_scatter",
      .setting = "reduce_scatter", .blocks = 1, .nonblocking = 1, .run = run_reduce_scatter },
    { .name = "reduce_scatter", .counters = "reduce_scatter", .setting = "reduce_scatter",
      .blocks = 1, .uneven = 1, .run = run_reduce_scatter },
};

/* One call of size k: the result (checked by run) and, with Loom, exactly
 * one of Loom's calls or hand-offs counted, as the threshold says. */
static void check_once(const coll_case_t *cc, size_t threshold, int k)
{
    char calls_name[96], handoffs_name[96];
    size_t bytes = case_bytes(cc, k);
    int expect_handoff = bytes < threshold;
    unsigned long long calls, handoffs, dcalls, dhandoffs;

    snprintf(calls_name, sizeof(calls_name), "coll_loom_%s_calls", cc->counters);
    snprintf(handoffs_name, sizeof(handoffs_name), "coll_loom_%s_handoffs", cc->counters);
    calls = loom_test_pvar(calls_name);
    handoffs = loom_test_pvar(handoffs_name);
    cc->run(cc, k);
    if (!loom_test_expect_loom()) {
        return;
    }
    dcalls = loom_test_pvar(calls_name) - calls;
    dhandoffs = loom_test_pvar(handoffs_name) - handoffs;
    CHECK(dhandoffs == (unsigned long long)expect_handoff && dcalls == (unsigned long long)!expect_handoff,
          "%s of %zu bytes (threshold %zu): %llu hand-offs and %llu Loom calls, expected %s",
          cc->name, bytes, threshold, dhandoffs, dcalls, expect_handoff ? "a hand-off" : "Loom");
}

/* Sizes around the threshold: the largest k below it, the smallest k at
 * or above it, and one well above. */
static void check_case(const coll_case_t *cc)
{
    char setting[96];
    size_t threshold;
    int k, below = 0, at = 1;

    snprintf(setting, sizeof(setting), "coll_loom_%s_handoff", cc->setting);
    threshold = loom_test_cvar_size(setting);
    /* Two ranks gather and bcast below the larger of the collective's two
     * settings (one exchange either way); from three ranks on, the pair
     * setting must not count: the np3 and np4 runs check that. */
    if ((strcmp(cc->setting, "allgather") == 0 || strcmp(cc->setting, "bcast") == 0) &&
        size == 2) {
        char pair_setting[96];
        size_t pair;

        snprintf(pair_setting, sizeof(pair_setting), "coll_loom_%s_pair_handoff", cc->setting);
        pair = loom_test_cvar_size(pair_setting);
        CHECK(pair > threshold, "%s is %zu, not above %s (%zu): the two-rank rule goes "
              "untested", pair_setting, pair, setting, threshold);
        threshold = pair > threshold ? pair : threshold;
    }
    CHECK(threshold >= 4 * sizeof(double) * (size_t)size,
          "%s is %zu: this test needs a default of a few elements per rank at least",
          setting, threshold);
    for (k = 1; case_bytes(cc, k) < threshold; ++k) {
        below = k;
    }
    at = k;
    check_once(cc, threshold, 1);
    if (below > 1) {
        check_once(cc, threshold, below);
    }
    check_once(cc, threshold, at);
    check_once(cc, threshold, at + 1);
    check_once(cc, threshold, 4 * at + 3);
}

int main(int argc, char **argv)
{
    size_t i;

    loom_test_init(&argc, &argv, MPI_THREAD_SINGLE);
    MPI_Comm_rank(MPI_COMM_WORLD, &rank);
    MPI_Comm_size(MPI_COMM_WORLD, &size);
    if (size < 2) {
        return loom_test_skip("mpi_handoff", "Loom joins 2 ranks or more");
    }
    for (i = 0; i < sizeof(cases) / sizeof(cases[0]); ++i) {
        check_case(&cases[i]);
    }
    return loom_test_finish("mpi_handoff");
}
