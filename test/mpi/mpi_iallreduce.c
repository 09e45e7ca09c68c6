/*
 * MPI_Iallreduce through Loom: many operations outstanding on several
 * communicators at once, completed in different orders (Waitall, Wait in
 * reverse, Test in a rotating order, Waitany), in place and not, mixed with
 * blocking allreduces and with MPI_Comm_idup (Open MPI runs its own
 * nonblocking collectives, which Loom serves, from inside progress while
 * creating the communicator).  More operations than a tag's sequence
 * numbers can tell apart are posted on one communicator.  Every result is
 * checked, and Loom's counters show that Loom ran every operation.
 */
#include "loom_test.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#define NCOMMS 3
#define PER_COMM 24
#define MANY 1500   /* more than the 1024 sequence numbers of a tag */

typedef struct op_case {
    MPI_Comm    comm;
    int         count, in_place, is_double;
    void        *in, *out;
} op_case_t;

static int rank_of(MPI_Comm comm) { int r; MPI_Comm_rank(comm, &r); return r; }
static int size_of(MPI_Comm comm) { int s; MPI_Comm_size(comm, &s); return s; }

/* Input element i of comm rank r for operation k: exact in double. */
static long long input(int k, int r, int i) { return (long long)(k + 1) * (r + 3) + i % 97; }

static void post(op_case_t *c, int k, MPI_Request *req)
{
    int r = rank_of(c->comm), i;
    size_t esize = c->is_double ? sizeof(double) : sizeof(long long);

    c->in = malloc(esize * (size_t)c->count + 1);
    c->out = malloc(esize * (size_t)c->count + 1);
    for (i = 0; i < c->count; ++i) {
        if (c->is_double) {
            ((double *)(c->in_place ? c->out : c->in))[i] = (double)input(k, r, i);
        } else {
            ((long long *)(c->in_place ? c->out : c->in))[i] = input(k, r, i);
        }
    }
    CHECK(MPI_Iallreduce(c->in_place ? MPI_IN_PLACE : c->in, c->out, c->count,
                         c->is_double ? MPI_DOUBLE : MPI_LONG_LONG, MPI_SUM, c->comm,
                         req) == MPI_SUCCESS, "iallreduce %d failed to start", k);
}

static void check(op_case_t *c, int k)
{
    int p = size_of(c->comm), i, r, bad = 0;
    long long expect;

    for (i = 0; i < c->count; ++i) {
        for (expect = 0, r = 0; r < p; ++r) {
            expect += input(k, r, i);
        }
        bad += c->is_double ? ((double *)c->out)[i] != (double)expect
                            : ((long long *)c->out)[i] != expect;
    }
    CHECK(bad == 0, "operation %d (%d %s, %s): %d wrong elements", k, c->count,
          c->is_double ? "doubles" : "long longs", c->in_place ? "in place" : "apart", bad);
    free(c->in);
    free(c->out);
}

/* Complete reqs[0..n) in the order the round asks for. */
static void complete(MPI_Request *reqs, int n, int round)
{
    int i, done = 0, flag, index;

    switch (round % 4) {
    case 0:
        MPI_Waitall(n, reqs, MPI_STATUSES_IGNORE);
        break;
    case 1:
        for (i = n - 1; i >= 0; --i) {
            MPI_Wait(&reqs[i], MPI_STATUS_IGNORE);
        }
        break;
    case 2:
        for (i = 0; done < n; i = (i + 7) % n) {
            if (reqs[i] != MPI_REQUEST_NULL) {
                MPI_Test(&reqs[i], &flag, MPI_STATUS_IGNORE);
                done += flag;
            }
        }
        break;
    default:
        for (i = 0; i < n; ++i) {
            MPI_Waitany(n, reqs, &index, MPI_STATUS_IGNORE);
            CHECK(index != MPI_UNDEFINED, "waitany found nothing to complete");
        }
        break;
    }
    for (i = 0; i < n; ++i) {
        CHECK(reqs[i] == MPI_REQUEST_NULL, "request %d not freed by completion", i);
    }
}

int main(int argc, char **argv)
{
    static op_case_t cases[NCOMMS * PER_COMM];
    static MPI_Request reqs[MANY];
    MPI_Comm comms[NCOMMS];
    MPI_Request idup_req;
    loom_test_counters_t before;
    long long *many_out, total;
    unsigned long long loom_calls;
    int rank, size, round, k, j, n;
    double blocking_in[300], blocking_out[300];

    loom_test_init(&argc, &argv, MPI_THREAD_SINGLE);
    MPI_Comm_rank(MPI_COMM_WORLD, &rank);
    MPI_Comm_size(MPI_COMM_WORLD, &size);
    MPI_Comm_dup(MPI_COMM_WORLD, &comms[0]);
    MPI_Comm_split(MPI_COMM_WORLD, rank % 2, size - rank, &comms[1]); /* reversed order */
    /* idup: Open MPI's nonblocking context-id agreement runs Loom's
     * iallreduce from inside progress. */
    MPI_Comm_idup(MPI_COMM_WORLD, &comms[2], &idup_req);
    MPI_Wait(&idup_req, MPI_STATUS_IGNORE);

    for (round = 0; round < 4; ++round) {
        before = loom_test_counters();
        n = 0;
        for (k = 0; k < PER_COMM; ++k) {
            for (j = 0; j < NCOMMS; ++j, ++n) {
                cases[n] = (op_case_t){
                    .comm = comms[j], .in_place = (k % 3 == 0), .is_double = (k % 2),
                    .count = 1 + (k * 7919 + j * 104729 + round * 31) % 20000,
                };
                post(&cases[n], n, &reqs[n]);
            }
            if (k == PER_COMM / 2) {
                /* A blocking allreduce on world while all of these fly. */
                for (j = 0; j < 300; ++j) {
                    blocking_in[j] = rank + j;
                }
                MPI_Allreduce(blocking_in, blocking_out, 300, MPI_DOUBLE, MPI_SUM,
                              MPI_COMM_WORLD);
                for (j = 0; j < 300; ++j) {
                    CHECK(blocking_out[j] == (double)size * (size - 1) / 2 + (double)size * j,
                          "blocking allreduce wrong at %d", j);
                }
            }
        }
        complete(reqs, n, round);
        /* Loom joins communicators of 2 ranks or more. */
        for (k = 0, loom_calls = size > 1; k < n; ++k) {
            loom_calls += size_of(cases[k].comm) > 1;
            check(&cases[k], k);
        }
        CHECK_LOOM_COUNTERS(before, loom_calls, 0, "outstanding iallreduces");
    }

    /* More in flight on one communicator than a tag's sequence numbers. */
    before = loom_test_counters();
    many_out = malloc(sizeof(long long) * MANY);
    for (k = 0; k < MANY; ++k) {
        many_out[k] = k + rank;
        MPI_Iallreduce(MPI_IN_PLACE, &many_out[k], 1, MPI_LONG_LONG, MPI_SUM, comms[0],
                       &reqs[k]);
    }
    MPI_Waitall(MANY, reqs, MPI_STATUSES_IGNORE);
    for (k = 0, n = 0; k < MANY; ++k) {
        total = (long long)k * size + (long long)size * (size - 1) / 2;
        n += many_out[k] != total;
    }
    CHECK(n == 0, "%d of %d small iallreduces wrong", n, MANY);
    CHECK_LOOM_COUNTERS(before, size > 1 ? MANY : 0, 0, "many in flight");
    free(many_out);

    for (j = 0; j < NCOMMS; ++j) {
        MPI_Comm_free(&comms[j]);
    }
    return loom_test_finish("mpi_iallreduce");
}
