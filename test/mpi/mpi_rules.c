/*
 * Selection rules under mpirun, one case per program (RULES_CASE):
 *   1 (apply):    coll_loom_rules sends small allreduces to Rabenseifner and
 *                 large ones to the ring, every bcast to the chain (the
 *                 model's pick on 3 ranks is binomial), small allgathers to
 *                 Bruck and large ones to the ring, every reduce to
 *                 binomial (the model's pick at 768 KiB is
 *                 reduce_scatter_gather) and reduce_scatter_block to
 *                 recursive halving: the per-algorithm counters say so, and
 *                 every result is right.
 *   2 (mismatch): rank 0 holds other rules than the rest: Loom steps aside on
 *                 every communicator (no Loom calls), rank 0 warns once per
 *                 communicator, and every result is still right.
 *   3 (invalid):  a rule with a typo: an error naming the position and the
 *                 valid algorithms, and Loom runs on its defaults.
 *   4 (calibrate): coll_loom_calibrate=1 and a cost: line for alpha: every
 *                 rank reads the same, plausible constants through MPI_T
 *                 (rank 0's measurement, the line's alpha), rank 0 says
 *                 so, and every result is right.
 *   5 (calibrate_mismatch): only rank 0 calibrates: Loom steps aside as
 *                 for differing rules, rank 0 warns, results are right.
 * Every rank's stderr is captured from before MPI_Init to the end of it,
 * and rank 0 checks the messages (run.sh fails a test on Loom warnings it
 * sees).
 */
#include "loom_test.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#ifndef RULES_CASE
#error "build with -DRULES_CASE=1 to 5"
#endif

static void sum(int count, int rank, int size)
{
    double *in = malloc(sizeof(double) * (size_t)count);
    double *out = malloc(sizeof(double) * (size_t)count);
    int i, bad = 0;

    for (i = 0; i < count; ++i) {
        in[i] = rank + i;
    }
    MPI_Allreduce(in, out, count, MPI_DOUBLE, MPI_SUM, MPI_COMM_WORLD);
    for (i = 0; i < count; ++i) {
        bad += out[i] != (double)size * (size - 1) / 2 + (double)size * i;
    }
    CHECK(bad == 0, "%d of %d sums wrong", bad, count);
    free(in);
    free(out);
}

/* Sizes stay above the small-message hand-off (4 KiB), so that the calls
 * meant for a rule reach Loom on one node too. */
static void bcast(int count, int rank)
{
    int *buf = malloc(sizeof(int) * (size_t)count);
    int i, bad = 0;

    for (i = 0; i < count; ++i) {
        buf[i] = rank == 1 ? 7 * i + 1 : -1;
    }
    MPI_Bcast(buf, count, MPI_INT, 1, MPI_COMM_WORLD);
    for (i = 0; i < count; ++i) {
        bad += buf[i] != 7 * i + 1;
    }
    CHECK(bad == 0, "bcast: %d of %d elements wrong", bad, count);
    free(buf);
}

static void allgather(int count, int rank, int size)
{
    int *in = malloc(sizeof(int) * (size_t)count);
    int *out = malloc(sizeof(int) * (size_t)count * (size_t)size);
    int i, bad = 0;

    for (i = 0; i < count; ++i) {
        in[i] = rank * count + i;
    }
    MPI_Allgather(in, count, MPI_INT, out, count, MPI_INT, MPI_COMM_WORLD);
    for (i = 0; i < count * size; ++i) {
        bad += out[i] != i;
    }
    CHECK(bad == 0, "allgather: %d of %d elements wrong", bad, count * size);
    free(in);
    free(out);
}

/* reduce to root 0, then reduce_scatter_block of the same vector. */
static void reduce_and_scatter(int count, int rank, int size)
{
    int *in = malloc(sizeof(int) * (size_t)count * (size_t)size);
    int *out = malloc(sizeof(int) * (size_t)count * (size_t)size);
    int i, bad = 0;

    for (i = 0; i < count * size; ++i) {
        in[i] = rank + i;
    }
    MPI_Reduce(in, out, count * size, MPI_INT, MPI_SUM, 0, MPI_COMM_WORLD);
    for (i = 0; rank == 0 && i < count * size; ++i) {
        bad += out[i] != size * (size - 1) / 2 + size * i;
    }
    CHECK(bad == 0, "reduce: %d of %d elements wrong", bad, count * size);
    MPI_Reduce_scatter_block(in, out, count, MPI_INT, MPI_SUM, MPI_COMM_WORLD);
    for (i = 0, bad = 0; i < count; ++i) {
        bad += out[i] != size * (size - 1) / 2 + size * (rank * count + i);
    }
    CHECK(bad == 0, "reduce_scatter_block: %d of %d elements wrong", bad, count);
    free(in);
    free(out);
}

/* Runs fn's calls between two reads of the named counters: the
 * increments, in the order of the names. */
#define LOOM_RULES_NCOUNT 8
static const char *const loom_rules_counters[LOOM_RULES_NCOUNT] = {
    "coll_loom_bcast_alg_chain", "coll_loom_bcast_alg_binomial",
    "coll_loom_allgather_alg_bruck", "coll_loom_allgather_alg_ring",
    "coll_loom_reduce_alg_reduce_scatter_gather", "coll_loom_reduce_alg_binomial",
    "coll_loom_reduce_scatter_alg_recursive_halving", "coll_loom_reduce_scatter_alg_ring",
};

static void other_colls(int rank, int size, unsigned long long *delta)
{
    int k;

    for (k = 0; k < LOOM_RULES_NCOUNT; ++k) {
        delta[k] = loom_test_pvar(loom_rules_counters[k]);
    }
    bcast(4096, rank);                          /* 16 KiB */
    allgather(1024, rank, size);                /* 4 KiB a rank */
    allgather(16384, rank, size);               /* 64 KiB a rank */
    reduce_and_scatter(65536, rank, size);      /* 256 KiB a rank */
    for (k = 0; k < LOOM_RULES_NCOUNT; ++k) {
        delta[k] = loom_test_pvar(loom_rules_counters[k]) - delta[k];
    }
}

/* An int control variable through MPI_T, or -1. */
static int cvar_int(const char *name)
{
    MPI_T_cvar_handle handle;
    int index, count, value = -1;

    if (MPI_T_cvar_get_index(name, &index) != MPI_SUCCESS ||
        MPI_T_cvar_handle_alloc(index, NULL, &handle, &count) != MPI_SUCCESS) {
        return -1;
    }
    if (count != 1 || MPI_T_cvar_read(handle, &value) != MPI_SUCCESS) {
        value = -1;
    }
    MPI_T_cvar_handle_free(&handle);
    return value;
}

/* The cost constants every rank holds must be one set: rank 0's. */
static void check_calibration(int rank, const char *text)
{
    int mine[3], lo[3], hi[3];

    mine[0] = cvar_int("coll_loom_cost_alpha_ns");
    mine[1] = cvar_int("coll_loom_cost_bandwidth_mbs");
    mine[2] = cvar_int("coll_loom_cost_reduce_mbs");
    MPI_Allreduce(mine, lo, 3, MPI_INT, MPI_MIN, MPI_COMM_WORLD);
    MPI_Allreduce(mine, hi, 3, MPI_INT, MPI_MAX, MPI_COMM_WORLD);
    CHECK(lo[0] == 2000 && hi[0] == 2000, "alpha from the cost: line: %d to %d", lo[0], hi[0]);
    CHECK(lo[1] == hi[1] && lo[2] == hi[2], "ranks differ: bandwidth %d to %d, reduce %d "
          "to %d MB/s", lo[1], hi[1], lo[2], hi[2]);
    /* Plausible for any memory system: 100 MB/s to 10 TB/s. */
    CHECK(mine[1] >= 100 && mine[1] <= 10000000, "bandwidth %d MB/s", mine[1]);
    CHECK(mine[2] >= 100 && mine[2] <= 10000000, "reduce rate %d MB/s", mine[2]);
    if (rank == 0) {
        char expect[128];

        snprintf(expect, sizeof(expect), "bandwidth %d MB/s (memcpy), reduce %d MB/s",
                 mine[1], mine[2]);
        CHECK(strstr(text, "calibrated on world rank 0") != NULL && strstr(text, expect),
              "no line reporting '%s' in:\n%s", expect, text);
    }
}

int main(int argc, char **argv)
{
    const char *env_rank = getenv("OMPI_COMM_WORLD_RANK");
    int world_rank = env_rank != NULL ? atoi(env_rank) : 0, rank, size;
    unsigned long long rab, ring, calls, other[LOOM_RULES_NCOUNT];
    char *text = NULL;

    if (RULES_CASE == 1) {
        setenv("OMPI_MCA_coll_loom_rules", "v1; allreduce:0-1K:@rabenseifner; "
               "allreduce:1K-inf:@ring:seg=4K; bcast:0-inf:@chain:seg=4K; "
               "allgather:0-32K:@bruck; allgatherv:32K-inf:@ring; "
               "reduce:0-inf:@binomial; "
               "reduce_scatter_block:0-inf:@recursive_halving", 1);
    } else if (RULES_CASE == 2) {
        setenv("OMPI_MCA_coll_loom_rules", world_rank == 0 ? "allreduce:0-inf:@ring"
                                                           : "allreduce:0-inf:@rabenseifner", 1);
    } else if (RULES_CASE == 3) {
        setenv("OMPI_MCA_coll_loom_rules", "allreduce:0-1K:@rign", 1);
    } else if (RULES_CASE == 5) {
        setenv("OMPI_MCA_coll_loom_calibrate", world_rank == 0 ? "1" : "0", 1);
    } else {
        setenv("OMPI_MCA_coll_loom_rules", "v2; cost:alpha_ns=2000", 1);
        setenv("OMPI_MCA_coll_loom_calibrate", "1", 1);
        setenv("OMPI_MCA_coll_loom_verbose", "info", 1);
    }
    loom_test_capture_start();  /* every rank parses and may complain; rank 0 checks */
    loom_test_init(&argc, &argv, MPI_THREAD_SINGLE);
    MPI_Comm_rank(MPI_COMM_WORLD, &rank);
    MPI_Comm_size(MPI_COMM_WORLD, &size);
    text = loom_test_capture_end();
    if (size < 2 || !loom_test_expect_loom()) {
        free(text);
        return loom_test_skip("mpi_rules", "needs Loom on 2 ranks or more");
    }
    rab = loom_test_pvar("coll_loom_allreduce_alg_rabenseifner");
    ring = loom_test_pvar("coll_loom_allreduce_alg_ring");
    calls = loom_test_pvar("coll_loom_allreduce_calls");
    sum(10, rank, size);       /* 80 bytes */
    sum(10000, rank, size);    /* 80000 bytes */
    rab = loom_test_pvar("coll_loom_allreduce_alg_rabenseifner") - rab;
    ring = loom_test_pvar("coll_loom_allreduce_alg_ring") - ring;
    calls = loom_test_pvar("coll_loom_allreduce_calls") - calls;
    other_colls(rank, size, other);

    switch (RULES_CASE) {
    case 1:
        CHECK(rab == 1 && ring == 1, "rules not followed: rabenseifner %llu, ring %llu",
              rab, ring);
        CHECK(other[0] == 1 && other[1] == 0, "bcast rule not followed: chain %llu, "
              "binomial %llu", other[0], other[1]);
        CHECK(other[2] == 1 && other[3] == 1, "allgather rules not followed: bruck %llu, "
              "ring %llu", other[2], other[3]);
        CHECK(other[4] == 0 && other[5] == 1, "reduce rule not followed: "
              "reduce_scatter_gather %llu, binomial %llu", other[4], other[5]);
        CHECK(other[6] == 1 && other[7] == 0, "reduce_scatter_block rule not followed: "
              "recursive_halving %llu, ring %llu", other[6], other[7]);
        break;
    case 2:
        CHECK(calls == 0, "Loom ran %llu calls although the ranks' rules differ", calls);
        if (rank == 0) {
            CHECK(strstr(text, "holds other selection rules") != NULL &&
                  strstr(text, "MPI_COMM_WORLD") != NULL,
                  "no warning about differing rules in:\n%s", text);
        }
        break;
    case 5:
        CHECK(calls == 0, "Loom ran %llu calls although only rank 0 calibrates", calls);
        if (rank == 0) {
            CHECK(strstr(text, "or coll_loom_calibrate") != NULL,
                  "no warning about differing calibration in:\n%s", text);
        }
        break;
    case 4:
        CHECK(calls == 2, "Loom did not run with calibration (%llu calls)", calls);
        check_calibration(rank, text);
        break;
    default:
        CHECK(calls == 2, "Loom did not run on its defaults (%llu calls)", calls);
        if (rank == 0) {
            CHECK(strstr(text, "coll_loom_rules, position 17") != NULL &&
                  strstr(text, "rabenseifner") != NULL && strstr(text, "'rign'") != NULL,
                  "no error naming the position and the valid algorithms in:\n%s", text);
        }
        break;
    }
    free(text);
    return loom_test_finish(RULES_CASE == 1 ? "mpi_rules_apply"
                            : RULES_CASE == 2 ? "mpi_rules_mismatch"
                            : RULES_CASE == 3 ? "mpi_rules_invalid"
                            : RULES_CASE == 4 ? "mpi_rules_calibrate"
                            : "mpi_rules_calibrate_mismatch");
}
