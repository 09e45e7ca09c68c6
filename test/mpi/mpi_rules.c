/*
 * Selection rules under mpirun, one case per program (RULES_CASE):
 *   1 (apply):    coll_loom_rules sends small allreduces to Rabenseifner and
 *                 large ones to the ring: the per-algorithm counters say so.
 *   2 (mismatch): rank 0 holds other rules than the rest: Loom steps aside on
 *                 every communicator (no Loom calls), rank 0 warns once per
 *                 communicator, and every result is still right.
 *   3 (invalid):  a rule with a typo: an error naming the position and the
 *                 valid algorithms, and Loom runs on its defaults.
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
#error "build with -DRULES_CASE=1, 2 or 3"
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

int main(int argc, char **argv)
{
    const char *env_rank = getenv("OMPI_COMM_WORLD_RANK");
    int world_rank = env_rank != NULL ? atoi(env_rank) : 0, rank, size;
    unsigned long long rab, ring, calls;
    char *text = NULL;

    if (RULES_CASE == 1) {
        setenv("OMPI_MCA_coll_loom_rules", "v1; allreduce:0-1K:@rabenseifner; "
               "allreduce:1K-inf:@ring:seg=4K", 1);
    } else if (RULES_CASE == 2) {
        setenv("OMPI_MCA_coll_loom_rules", world_rank == 0 ? "allreduce:0-inf:@ring"
                                                           : "allreduce:0-inf:@rabenseifner", 1);
    } else {
        setenv("OMPI_MCA_coll_loom_rules", "allreduce:0-1K:@rign", 1);
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

    switch (RULES_CASE) {
    case 1:
        CHECK(rab == 1 && ring == 1, "rules not followed: rabenseifner %llu, ring %llu",
              rab, ring);
        break;
    case 2:
        CHECK(calls == 0, "Loom ran %llu calls although the ranks' rules differ", calls);
        if (rank == 0) {
            CHECK(strstr(text, "holds other selection rules") != NULL &&
                  strstr(text, "MPI_COMM_WORLD") != NULL,
                  "no warning about differing rules in:\n%s", text);
        }
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
                            : RULES_CASE == 2 ? "mpi_rules_mismatch" : "mpi_rules_invalid");
}
