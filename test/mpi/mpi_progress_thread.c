/*
 * The UCX progress thread (coll_loom_progress_thread): nonblocking
 * collectives stay correct while a second thread runs UCX's completion
 * callbacks, and the thread really moves data while the application makes
 * no MPI call.
 *
 * Rounds of MPI_Iallreduce, MPI_Ibcast and MPI_Iallgather, all outstanding
 * at once on two communicators (a duplicate of MPI_COMM_WORLD and one with
 * the ranks reversed), completed in an order that differs per rank and per
 * round (Wait in a shuffled order, Waitany, Testsome); every result is
 * checked against values computed here.  Then, with one 8 MiB allreduce
 * posted, the rank sleeps without calling MPI: the thread's MPI_T counters
 * must grow meanwhile.  Run with the thread off (the parameter read through
 * MPI_T), the same program checks that the counters stay at 0.
 */
#include "loom_test.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

#define ROUNDS 3
#define NCOMMS 2
#define PER_COMM 9          /* three of each collective per communicator */
#define BIG (1 << 20)       /* doubles: the 8 MiB allreduce */

enum { ALLREDUCE, BCAST, ALLGATHER };

typedef struct op_case {
    int         kind, count, root;
    MPI_Comm    comm;
    long long   *buf, *out;
} op_case_t;

static int rank_of(MPI_Comm comm) { int r; MPI_Comm_rank(comm, &r); return r; }
static int size_of(MPI_Comm comm) { int s; MPI_Comm_size(comm, &s); return s; }

/* Element i of comm rank r in operation k: exact, distinct per operation. */
static long long input(int k, int r, int i) { return (long long)(k + 7) * (r + 1) * 1000 + i % 101; }

/* Whether the MCA parameter coll_loom_progress_thread is on here. */
static int thread_requested(void)
{
    unsigned char value[16] = { 0 };
    MPI_T_cvar_handle handle;
    int index, count;
    size_t i;

    if (MPI_T_cvar_get_index("coll_loom_progress_thread", &index) != MPI_SUCCESS ||
        MPI_T_cvar_handle_alloc(index, NULL, &handle, &count) != MPI_SUCCESS) {
        return -1;
    }
    MPI_T_cvar_read(handle, value);  /* a bool: whatever its width, nonzero is on */
    MPI_T_cvar_handle_free(&handle);
    for (i = 0; i < sizeof(value); ++i) {
        if (value[i] != 0) {
            return 1;
        }
    }
    return 0;
}

static void post(op_case_t *c, int k, MPI_Request *req)
{
    int r = rank_of(c->comm), p = size_of(c->comm), i;

    c->buf = malloc(sizeof(long long) * (size_t)c->count);
    c->out = malloc(sizeof(long long) * (size_t)c->count * (size_t)p);
    for (i = 0; i < c->count; ++i) {
        c->buf[i] = c->kind == BCAST && r != c->root ? -1 : input(k, r, i);
    }
    switch (c->kind) {
    case ALLREDUCE:
        CHECK(MPI_Iallreduce(c->buf, c->out, c->count, MPI_LONG_LONG, MPI_SUM, c->comm,
                             req) == MPI_SUCCESS, "iallreduce %d did not start", k);
        break;
    case BCAST:
        CHECK(MPI_Ibcast(c->buf, c->count, MPI_LONG_LONG, c->root, c->comm, req) ==
              MPI_SUCCESS, "ibcast %d did not start", k);
        break;
    default:
        CHECK(MPI_Iallgather(c->buf, c->count, MPI_LONG_LONG, c->out, c->count,
                             MPI_LONG_LONG, c->comm, req) == MPI_SUCCESS,
              "iallgather %d did not start", k);
        break;
    }
}

static void check(op_case_t *c, int k)
{
    static const char *const names[] = { "iallreduce", "ibcast", "iallgather" };
    int p = size_of(c->comm), i, r, bad = 0;
    long long expect, got;

    for (i = 0; i < c->count * (c->kind == ALLGATHER ? p : 1); ++i) {
        switch (c->kind) {
        case ALLREDUCE:
            for (expect = 0, r = 0; r < p; ++r) {
                expect += input(k, r, i);
            }
            got = c->out[i];
            break;
        case BCAST:
            expect = input(k, c->root, i);
            got = c->buf[i];
            break;
        default:
            expect = input(k, i / c->count, i % c->count);
            got = c->out[i];
            break;
        }
        bad += got != expect;
    }
    CHECK(bad == 0, "%s %d (%d elements, root %d): %d wrong", names[c->kind], k, c->count,
          c->root, bad);
    free(c->buf);
    free(c->out);
}

/* Fisher-Yates with a per-rank generator: ranks wait in different orders. */
static void shuffle(int *order, int n, unsigned *seed)
{
    int i, j, t;

    for (i = 0; i < n; ++i) {
        order[i] = i;
    }
    for (i = n - 1; i > 0; --i) {
        j = (int)(rand_r(seed) % (unsigned)(i + 1));
        t = order[i];
        order[i] = order[j];
        order[j] = t;
    }
}

static void complete(MPI_Request *reqs, int n, int round, unsigned *seed)
{
    int order[NCOMMS * PER_COMM], idx[NCOMMS * PER_COMM];
    int i, index, outcount, done = 0;

    switch (round % 3) {
    case 0:
        shuffle(order, n, seed);
        for (i = 0; i < n; ++i) {
            MPI_Wait(&reqs[order[i]], MPI_STATUS_IGNORE);
        }
        break;
    case 1:
        for (i = 0; i < n; ++i) {
            MPI_Waitany(n, reqs, &index, MPI_STATUS_IGNORE);
        }
        break;
    default:
        while (done < n) {
            MPI_Testsome(n, reqs, &outcount, idx, MPI_STATUSES_IGNORE);
            done += outcount > 0 ? outcount : 0;
        }
        break;
    }
}

/* Many collectives in flight at once, completed in arbitrary order. */
static void run_rounds(MPI_Comm comms[NCOMMS])
{
    op_case_t cases[NCOMMS * PER_COMM];
    MPI_Request reqs[NCOMMS * PER_COMM];
    unsigned seed = 12345u + 977u * (unsigned)rank_of(MPI_COMM_WORLD);
    static const int counts[] = { 1, 3000, 70000 };
    int round, j, n;

    for (round = 0; round < ROUNDS; ++round) {
        for (n = 0; n < NCOMMS * PER_COMM; ++n) {
            j = n % PER_COMM;
            cases[n] = (op_case_t){
                .kind = j % 3, .count = counts[(j / 3 + round) % 3],
                .root = (n + round) % size_of(comms[n / PER_COMM]),
                .comm = comms[n / PER_COMM],
            };
            post(&cases[n], round * 100 + n, &reqs[n]);
        }
        complete(reqs, n, round, &seed);
        for (n = 0; n < NCOMMS * PER_COMM; ++n) {
            check(&cases[n], round * 100 + n);
        }
    }
}

/* With one 8 MiB allreduce posted, sleep with no MPI call: only the
 * progress thread can poll UCX meanwhile. */
static void sleep_while_posted(int expect_thread)
{
    unsigned long long polls0, polls1, events0, events1;
    struct timespec nap = { 0, 300 * 1000 * 1000 };
    op_case_t c = { .kind = ALLREDUCE, .count = BIG, .comm = MPI_COMM_WORLD };
    MPI_Request req;

    polls0 = loom_test_pvar("coll_loom_progress_thread_polls");
    events0 = loom_test_pvar("coll_loom_progress_thread_events");
    MPI_Barrier(MPI_COMM_WORLD);
    post(&c, 999, &req);
    nanosleep(&nap, NULL);
    polls1 = loom_test_pvar("coll_loom_progress_thread_polls");
    events1 = loom_test_pvar("coll_loom_progress_thread_events");
    MPI_Wait(&req, MPI_STATUS_IGNORE);
    check(&c, 999);
    if (expect_thread) {
        CHECK(polls1 > polls0, "the progress thread did not poll while the rank slept "
              "(%llu then %llu polls)", polls0, polls1);
        CHECK(events1 > events0, "the progress thread handled no event while the rank "
              "slept (%llu then %llu)", events0, events1);
    } else {
        CHECK(polls1 == 0 && events1 == 0, "without the thread the counters read %llu "
              "polls and %llu events", polls1, events1);
    }
}

int main(int argc, char **argv)
{
    unsigned long long ar0, bc0, ag0;
    MPI_Comm comms[NCOMMS];
    int on;

    loom_test_init(&argc, &argv, MPI_THREAD_SINGLE);
    on = thread_requested();
    if (on < 0) {
        return loom_test_skip("mpi_progress_thread", "no coll_loom_progress_thread "
                              "parameter (is Loom loaded?)");
    }
    MPI_Comm_dup(MPI_COMM_WORLD, &comms[0]);
    MPI_Comm_split(MPI_COMM_WORLD, 0, size_of(MPI_COMM_WORLD) - rank_of(MPI_COMM_WORLD),
                   &comms[1]);
    /* After creating the communicators: Open MPI runs allreduces of its own
     * for that, which Loom serves too. */
    ar0 = loom_test_pvar("coll_loom_allreduce_calls");
    bc0 = loom_test_pvar("coll_loom_bcast_calls");
    ag0 = loom_test_pvar("coll_loom_allgather_calls");

    run_rounds(comms);
    sleep_while_posted(on);

    if (loom_test_expect_loom()) {
        /* Every collective of the test went through Loom, not the module below. */
        CHECK(loom_test_pvar("coll_loom_allreduce_calls") - ar0 ==
              (unsigned long long)(ROUNDS * NCOMMS * 3 + 1),
              "Loom ran %llu of %d allreduces", loom_test_pvar("coll_loom_allreduce_calls") - ar0,
              ROUNDS * NCOMMS * 3 + 1);
        CHECK(loom_test_pvar("coll_loom_bcast_calls") - bc0 ==
              (unsigned long long)(ROUNDS * NCOMMS * 3),
              "Loom ran %llu of %d bcasts", loom_test_pvar("coll_loom_bcast_calls") - bc0,
              ROUNDS * NCOMMS * 3);
        CHECK(loom_test_pvar("coll_loom_allgather_calls") - ag0 ==
              (unsigned long long)(ROUNDS * NCOMMS * 3),
              "Loom ran %llu of %d allgathers",
              loom_test_pvar("coll_loom_allgather_calls") - ag0, ROUNDS * NCOMMS * 3);
    }
    MPI_Comm_free(&comms[0]);
    MPI_Comm_free(&comms[1]);
    return loom_test_finish(on ? "mpi_progress_thread (thread on)"
                               : "mpi_progress_thread (thread off)");
}
