/*
 * mca_coll_loomfilter under mpirun: which communicators get its module,
 * which calls it takes, and what it says, one case per program
 * (FILTER_CASE; run.sh gives each its settings):
 *   1 (optin): loomfilter above loom.  A communicator made with the info
 *              key loom_filter=topk:0.01 (MPI_Comm_dup_with_info, and
 *              MPI_Comm_split_type with info) gets a module, a plain dup
 *              beside it none; large float and double sums on it (blocking,
 *              nonblocking, in place) are taken, small ones, other types
 *              and other ops go down untouched; wrong values warn, naming
 *              the value and what is accepted, and give no module;
 *              loom_filter=none gives none.  MPI_Comm_dup of an opted-in
 *              communicator: whether Open MPI 4.1.4 carries the key over
 *              (docs/filter_component.md says which; checked here).
 *   2 (mca):   coll_loomfilter_filter=topk:0.01: every intra-communicator
 *              gets a module (MPI_COMM_WORLD's sums are taken), but one
 *              made with loom_filter=none.
 *   3 (mca_bad): coll_loomfilter_filter=topk:2: world rank 0 warns once
 *              in MPI_Init, naming the value; no module on MPI_COMM_WORLD
 *              nor on its dups, but on one made with loom_filter.
 *   4 (below): coll_loom_priority above coll_loomfilter_priority: an
 *              opted-in communicator gets no module, and rank 0 says why,
 *              once however many communicators ask.
 * Every sum is of small integers stored as floats, so it is exact whatever
 * the order; and each rank's input has at most 1% of its entries nonzero,
 * so top-k at 1% (or more) sends all of them and a filtered sum is the
 * exact dense sum too.  filtering() then shows filtering at work on dense
 * input: far fewer entries than dense, the same bits on every rank.
 */
#include "loom_test.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#ifndef FILTER_CASE
#error "build with -DFILTER_CASE=1 to 4"
#endif

/* The counters of mca_coll_loomfilter this test reads. */
typedef struct filter_counts {
    unsigned long long calls, handed_down, comms;
} filter_counts_t;

static filter_counts_t filter_counts(void)
{
    filter_counts_t k = {
        .calls = loom_test_pvar("coll_loomfilter_calls"),
        .handed_down = loom_test_pvar("coll_loomfilter_handed_down"),
        .comms = loom_test_pvar("coll_loomfilter_comms"),
    };

    return k;
}

#define CHECK_FILTER(before, calls_, down_, what)                                      \
    do {                                                                               \
        filter_counts_t now_ = filter_counts();                                        \
        CHECK(now_.calls - (before).calls == (calls_) &&                               \
              now_.handed_down - (before).handed_down == (down_),                      \
              "%s: loomfilter took %llu calls and handed down %llu, expected %d and %d", \
              (what), now_.calls - (before).calls,                                     \
              now_.handed_down - (before).handed_down, (calls_), (down_));             \
    } while (0)

/* Communicators that got a module since before. */
static unsigned long long new_modules(filter_counts_t before)
{
    return filter_counts().comms - before.comms;
}

static MPI_Comm dup_with(MPI_Comm comm, const char *value)
{
    MPI_Info info;
    MPI_Comm dup;

    MPI_Info_create(&info);
    MPI_Info_set(info, "loom_filter", value);
    MPI_Comm_dup_with_info(comm, info, &dup);
    MPI_Info_free(&info);
    return dup;
}

/* Rank r's element i: nonzero at one index in 100 (a different one per
 * rank), a small integer there. */
static int input(int r, int i)
{
    return (i + 5 * r) % 100 == 0 ? (r + i) % 17 + 1 : 0;
}

/* An allreduce of count elements of type (MPI_FLOAT, MPI_DOUBLE or
 * MPI_INT) with MPI_SUM or MPI_MAX, blocking or not, in place or not;
 * checks every element. */
static void sum(MPI_Comm comm, MPI_Datatype type, MPI_Op op, int count, int nonblocking,
                int in_place, const char *what)
{
    int rank, size, i, bad = 0;
    size_t esize = type == MPI_DOUBLE ? sizeof(double) : 4;
    char *in = malloc(esize * (size_t)count), *out = malloc(esize * (size_t)count);
    MPI_Request req;

    MPI_Comm_rank(comm, &rank);
    MPI_Comm_size(comm, &size);
    for (i = 0; i < count; ++i) {
        int v = input(rank, i);

        if (type == MPI_FLOAT) {
            ((float *)in)[i] = (float)v;
        } else if (type == MPI_DOUBLE) {
            ((double *)in)[i] = v;
        } else {
            ((int *)in)[i] = v;
        }
    }
    if (in_place) {
        memcpy(out, in, esize * (size_t)count);
    }
    if (nonblocking) {
        MPI_Iallreduce(in_place ? MPI_IN_PLACE : in, out, count, type, op, comm, &req);
        MPI_Wait(&req, MPI_STATUS_IGNORE);
    } else {
        MPI_Allreduce(in_place ? MPI_IN_PLACE : in, out, count, type, op, comm);
    }
    for (i = 0; i < count; ++i) {
        double want = 0, got;
        int r;

        for (r = 0; r < size; ++r) {
            double v = input(r, i);

            want = op == MPI_SUM ? want + v : (r == 0 || v > want ? v : want);
        }
        got = type == MPI_FLOAT ? ((float *)out)[i]
            : type == MPI_DOUBLE ? ((double *)out)[i] : ((int *)out)[i];
        bad += got != want;
    }
    CHECK(bad == 0, "%s: %d of %d results wrong", what, bad, count);
    free(in);
    free(out);
}

#if FILTER_CASE == 1
/* A wrong value on a dup: rank 0 warns naming it and what is accepted,
 * no module, and sums are exact (dense). */
static void bad_value(const char *value, const char *part)
{
    filter_counts_t before = filter_counts();
    MPI_Comm comm;
    char *text;
    int rank;

    MPI_Comm_rank(MPI_COMM_WORLD, &rank);
    loom_test_capture_start();
    comm = dup_with(MPI_COMM_WORLD, value);
    text = loom_test_capture_end();
    CHECK(new_modules(before) == 0, "loom_filter=%s: got a module", value);
    if (rank == 0) {
        /* The wrong part, quoted, and what is accepted in its place. */
        CHECK(strstr(text, "info key loom_filter") != NULL && strstr(text, part) != NULL &&
                  (strstr(text, "accepted") != NULL || strstr(text, " is not ") != NULL) &&
                  strstr(text, "runs dense") != NULL,
              "loom_filter=%s: no warning naming %s; stderr: %s", value, part, text);
    } else {
        CHECK(strstr(text, "loom_filter") == NULL, "a rank but 0 warned: %s", text);
    }
    free(text);
    sum(comm, MPI_FLOAT, MPI_SUM, 4096, 0, 0, "float sum, wrong value");
    CHECK_FILTER(before, 0, 0, "wrong value");
    MPI_Comm_free(&comm);
}

/* Filtering at work: the same dense double gradient allreduced ROUNDS
 * times at 1%, blocking and nonblocking in turn.  The first calls teach the step tracker the sequence of
 * calls and run dense; from then on each result has at most p k nonzero
 * entries (k = 1% of 4096 = 41 per rank), never all 4096, is the same
 * bits on every rank, and the filter sends less than dense would. */
#define ROUNDS 6
#define N 4096

static void filtering(const char *spec)
{
    /* A communicator of its own: its step tracker sees only these calls
     * (calls of other counts before them would keep it learning,
     * coll/core/filter/steps.h). */
    MPI_Comm comm = dup_with(MPI_COMM_WORLD, spec);
    unsigned long long calls0 = loom_test_pvar("coll_loomfilter_calls");
    unsigned long long sent0 = loom_test_pvar("coll_loomfilter_sent_bytes");
    unsigned long long dense0 = loom_test_pvar("coll_loomfilter_dense_bytes");
    unsigned long long sent, dense, hash[2];
    double *out = malloc(sizeof(double) * N);
    int rank, size, t, i, nonzero = 0;

    MPI_Comm_rank(comm, &rank);
    MPI_Comm_size(comm, &size);
    for (t = 0; t < ROUNDS; ++t) {
        for (i = 0; i < N; ++i) {
            out[i] = (rank + i) % 17 + 1;
        }
        if (t % 2 == 1) {
            /* Nonblocking on odd rounds (the last one too): a request
             * Open MPI's progress advances. */
            MPI_Request req;

            MPI_Iallreduce(MPI_IN_PLACE, out, N, MPI_DOUBLE, MPI_SUM, comm, &req);
            MPI_Wait(&req, MPI_STATUS_IGNORE);
        } else {
            MPI_Allreduce(MPI_IN_PLACE, out, N, MPI_DOUBLE, MPI_SUM, comm);
        }
        hash[0] = 0;
        for (i = 0, nonzero = 0; i < N; ++i) {
            unsigned long long bits;

            memcpy(&bits, &out[i], sizeof(bits));
            hash[0] = hash[0] * 1099511628211ull ^ bits;
            nonzero += out[i] != 0;
        }
        hash[1] = ~hash[0];
        /* Through the plain path (MPI_MAX of integers is never filtered):
         * the largest hash and the largest complement agree only if all
         * ranks' hashes do. */
        MPI_Allreduce(MPI_IN_PLACE, hash, 2, MPI_UNSIGNED_LONG_LONG, MPI_MAX, comm);
        CHECK(hash[1] == ~hash[0], "round %d: ranks hold different results", t);
    }
    CHECK(size == 1 || (nonzero > 0 && nonzero <= size * 41),
          "the last round has %d nonzero entries of %d; filtering at 1%% keeps at most %d",
          nonzero, N, size * 41);
    sent = loom_test_pvar("coll_loomfilter_sent_bytes") - sent0;
    dense = loom_test_pvar("coll_loomfilter_dense_bytes") - dense0;
    CHECK(size == 1 || sent < dense, "%s: the filter sent %llu bytes where dense sends %llu",
          spec, sent, dense);
    CHECK(loom_test_pvar("coll_loomfilter_calls") - calls0 == ROUNDS,
          "%s: the filter took %llu of %d calls", spec,
          loom_test_pvar("coll_loomfilter_calls") - calls0, ROUNDS);
    free(out);
    MPI_Comm_free(&comm);
}

static void run_case(void)
{
    filter_counts_t before = filter_counts();
    MPI_Comm filtered, plain, again, split, none, merge;
    MPI_Info info;

    filtered = dup_with(MPI_COMM_WORLD, "topk:0.01");
    CHECK(new_modules(before) == 1, "dup_with_info: %llu modules, expected 1",
          new_modules(before));
    before = filter_counts();
    MPI_Comm_dup(MPI_COMM_WORLD, &plain);
    CHECK(new_modules(before) == 0, "plain dup got a module");

    /* Taken: MPI_SUM of float and double from min_bytes (4 KiB) on. */
    before = filter_counts();
    sum(filtered, MPI_FLOAT, MPI_SUM, 4096, 0, 0, "float sum");
    sum(filtered, MPI_DOUBLE, MPI_SUM, 512, 0, 0, "double sum at min_bytes");
    sum(filtered, MPI_FLOAT, MPI_SUM, 3000, 1, 0, "float isum");
    sum(filtered, MPI_DOUBLE, MPI_SUM, 2048, 0, 1, "double sum in place");
    sum(filtered, MPI_FLOAT, MPI_SUM, 1500, 1, 1, "float isum in place");
    CHECK_FILTER(before, 5, 0, "large float and double sums");
    /* Handed down: small, other type, other op. */
    before = filter_counts();
    sum(filtered, MPI_FLOAT, MPI_SUM, 16, 0, 0, "small float sum");
    sum(filtered, MPI_DOUBLE, MPI_SUM, 511, 1, 0, "double isum below min_bytes");
    sum(filtered, MPI_INT, MPI_SUM, 4096, 0, 0, "int sum");
    sum(filtered, MPI_FLOAT, MPI_MAX, 4096, 1, 0, "float imax");
    CHECK_FILTER(before, 0, 4, "calls the filter does not take");
    /* The plain communicator beside it: nothing of the filter's. */
    before = filter_counts();
    sum(plain, MPI_FLOAT, MPI_SUM, 4096, 0, 0, "float sum, plain");
    sum(plain, MPI_DOUBLE, MPI_SUM, 4096, 1, 0, "double isum, plain");
    CHECK_FILTER(before, 0, 0, "plain communicator");

    /* MPI_Comm_dup of an opted-in communicator: Open MPI 4.1.4 does not
     * carry its info over, so the dup is dense (docs/filter_component.md). */
    before = filter_counts();
    MPI_Comm_dup(filtered, &again);
    CHECK(new_modules(before) == 0, "MPI_Comm_dup carried loom_filter over: update "
          "docs/filter_component.md");
    /* MPI_Comm_split_type with the info key. */
    before = filter_counts();
    MPI_Info_create(&info);
    MPI_Info_set(info, "loom_filter", "topk:1%,min_bytes=1K");
    MPI_Comm_split_type(MPI_COMM_WORLD, MPI_COMM_TYPE_SHARED, 0, info, &split);
    MPI_Info_free(&info);
    CHECK(new_modules(before) == 1, "split_type with info: %llu modules, expected 1",
          new_modules(before));
    before = filter_counts();
    sum(split, MPI_FLOAT, MPI_SUM, 256, 0, 0, "float sum at min_bytes=1K");
    CHECK_FILTER(before, 1, 0, "split_type's min_bytes");
    /* Saying no. */
    before = filter_counts();
    none = dup_with(MPI_COMM_WORLD, "none");
    CHECK(new_modules(before) == 0, "loom_filter=none got a module");

    bad_value("topk:2", "density '2' is not in (0, 1]");
    bad_value("topk", "'topk'");
    bad_value("gzip:0.5", "'gzip:0.5'");
    bad_value("topk:0.01,warmup=x", "warmup 'x'");
    bad_value("topk:0.01,exchange=ring", "exchange 'ring'");

    /* The merge is exact too: the sums above, through it. */
    merge = dup_with(MPI_COMM_WORLD, "topk:0.01,exchange=merge");
    before = filter_counts();
    sum(merge, MPI_FLOAT, MPI_SUM, 4096, 0, 0, "float sum, merge");
    sum(merge, MPI_DOUBLE, MPI_SUM, 2048, 1, 1, "double isum in place, merge");
    CHECK_FILTER(before, 2, 0, "sums through the merge");
    MPI_Comm_free(&merge);

    /* Each exchange on dense input: the cost model's, and each forced
     * (split keeps what passes its threshold, so it is checked here, where
     * results are compared across ranks, not against a plain sum). */
    filtering("topk:0.01");
    filtering("topk:0.01,exchange=allgather");
    filtering("topk:0.01,exchange=merge");
    filtering("topk:0.01,exchange=split");

    before = filter_counts();
    MPI_Comm_free(&none);
    MPI_Comm_free(&split);
    MPI_Comm_free(&again);
    MPI_Comm_free(&plain);
    MPI_Comm_free(&filtered);
    CHECK(before.comms - filter_counts().comms == 2, "freeing did not drop both modules");
}
#elif FILTER_CASE == 2
static void run_case(void)
{
    filter_counts_t before = filter_counts();
    MPI_Comm dup, none;

    /* MPI_COMM_WORLD and MPI_COMM_SELF got theirs in MPI_Init. */
    CHECK(before.comms != LOOM_TEST_NO_PVAR, "no coll_loomfilter_comms");
    sum(MPI_COMM_WORLD, MPI_FLOAT, MPI_SUM, 4096, 0, 0, "float sum on world");
    sum(MPI_COMM_WORLD, MPI_DOUBLE, MPI_SUM, 4096, 1, 0, "double isum on world");
    sum(MPI_COMM_WORLD, MPI_INT, MPI_SUM, 4096, 0, 0, "int sum on world");
    CHECK_FILTER(before, 2, 1, "world under coll_loomfilter_filter");
    before = filter_counts();
    MPI_Comm_dup(MPI_COMM_WORLD, &dup);
    CHECK(new_modules(before) == 1, "a dup under coll_loomfilter_filter got no module");
    before = filter_counts();
    none = dup_with(MPI_COMM_WORLD, "none");
    CHECK(new_modules(before) == 0, "loom_filter=none did not win over the MCA parameter");
    before = filter_counts();
    sum(none, MPI_FLOAT, MPI_SUM, 4096, 0, 0, "float sum, loom_filter=none");
    sum(dup, MPI_FLOAT, MPI_SUM, 4096, 1, 0, "float isum on the dup");
    CHECK_FILTER(before, 1, 0, "none and dup");
    MPI_Comm_free(&none);
    MPI_Comm_free(&dup);
}
#elif FILTER_CASE == 3 || FILTER_CASE == 4
static void run_case(void)
{
    filter_counts_t before = filter_counts();
    MPI_Comm a, b;
    char *text;
    int rank;

    MPI_Comm_rank(MPI_COMM_WORLD, &rank);
    loom_test_capture_start();
#if FILTER_CASE == 3
    /* The wrong MCA value opts nobody in; an info key still would. */
    MPI_Comm_dup(MPI_COMM_WORLD, &a);
    MPI_Comm_dup(MPI_COMM_WORLD, &b);
#else
    a = dup_with(MPI_COMM_WORLD, "topk:0.01");
    b = dup_with(MPI_COMM_WORLD, "topk:0.05");
#endif
    text = loom_test_capture_end();
    CHECK(new_modules(before) == 0, "%llu modules, expected none", new_modules(before));
#if FILTER_CASE == 4
    if (rank == 0) {
        static const char once[] = "coll_loom_priority (100) is above "
                                   "coll_loomfilter_priority (90)";
        const char *said = strstr(text, once);

        CHECK(said != NULL && strstr(said + sizeof(once) - 1, once) == NULL,
              "rank 0 did not say once that loom is above loomfilter: %s", text);
    } else {
        CHECK(strstr(text, "is above") == NULL, "a rank but 0 warned: %s", text);
    }
#endif
    free(text);
    sum(a, MPI_FLOAT, MPI_SUM, 4096, 0, 0, "float sum");
    sum(b, MPI_DOUBLE, MPI_SUM, 4096, 1, 0, "double isum");
    sum(MPI_COMM_WORLD, MPI_FLOAT, MPI_SUM, 4096, 0, 0, "float sum on world");
    CHECK_FILTER(before, 0, 0, "no module anywhere");
#if FILTER_CASE == 3
    {
        /* An info key still opts a communicator in. */
        MPI_Comm c;

        before = filter_counts();
        c = dup_with(MPI_COMM_WORLD, "topk:0.01");
        CHECK(new_modules(before) == 1, "loom_filter beside a wrong MCA value: no module");
        sum(c, MPI_FLOAT, MPI_SUM, 4096, 0, 0, "float sum, info beside a wrong MCA value");
        CHECK_FILTER(before, 1, 0, "info beside a wrong MCA value");
        MPI_Comm_free(&c);
    }
#endif
    MPI_Comm_free(&a);
    MPI_Comm_free(&b);
}
#endif

int main(int argc, char **argv)
{
    static const char *const names[] = { "", "mpi_filter", "mpi_filter_mca",
                                         "mpi_filter_mca_bad", "mpi_filter_below" };
    char *text = NULL;
    int rank;

#if FILTER_CASE == 3
    loom_test_capture_start();
#endif
    loom_test_init(&argc, &argv, MPI_THREAD_SINGLE);
#if FILTER_CASE == 3
    text = loom_test_capture_end();
#endif
    MPI_Comm_rank(MPI_COMM_WORLD, &rank);
    if (loom_test_pvar("coll_loomfilter_calls") == LOOM_TEST_NO_PVAR) {
        return loom_test_skip(names[FILTER_CASE], "mca_coll_loomfilter is not loaded");
    }
#if FILTER_CASE == 3
    if (rank == 0) {
        CHECK(strstr(text, "coll_loomfilter_filter: loom_filter: density '2' is not in") != NULL &&
                  strstr(text, "every communicator runs dense") != NULL,
              "no warning naming coll_loomfilter_filter's value: %s", text);
    } else {
        CHECK(strstr(text, "coll_loomfilter_filter") == NULL, "a rank but 0 warned: %s", text);
    }
#endif
    free(text);
    run_case();
    return loom_test_finish(names[FILTER_CASE]);
}
