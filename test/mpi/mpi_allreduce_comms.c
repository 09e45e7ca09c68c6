/*
 * Allreduce on the communicators an application makes: world, uneven
 * splits, dups (blocking and not), a split of a dup, and a dup whose info
 * asks Open MPI to leave Loom out.  Each rank knows from the split rules
 * which world ranks share its communicator, so it computes the expected
 * results without communicating.
 */
#include "loom_test.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#define INT_COUNT 13
#define DOUBLE_COUNT 1000
#define MAX_COUNT 5
#define CALLS_PER_COMM 3
/* Twice: the second round reuses the context ids the first one freed. */
#define ROUNDS 2

static int world_rank, world_size;

typedef int (*color_fn_t)(int world_rank);

static int color_all(int r) { (void)r; return 0; }
static int color_first_alone(int r) { return r < 1 ? 0 : 1; }
static int color_mod3(int r) { return r % 3; }
static int color_mod2(int r) { return r % 2; }

/* World ranks in this rank's communicator, in world order (every split
 * here uses the world rank as key). */
static int members_of(color_fn_t color, int *members)
{
    int r, n = 0;

    for (r = 0; r < world_size; ++r) {
        if (color(r) == color(world_rank)) {
            members[n++] = r;
        }
    }
    return n;
}

static int int_input(int r, int i) { return (r + 1) * (i + 1) - 3 * r; }
static double double_input(int r, int i) { return (double)r * 1000.0 + i; }
static int max_input(int r, int i) { return (r * 7 + i * 3) % 11; }

static void check_int_sum(MPI_Comm comm, const char *what, const int *members, int n)
{
    int in[INT_COUNT], out[INT_COUNT], i, m, expected;

    for (i = 0; i < INT_COUNT; ++i) {
        in[i] = int_input(world_rank, i);
        out[i] = -12345;
    }
    CHECK(MPI_Allreduce(in, out, INT_COUNT, MPI_INT, MPI_SUM, comm) == MPI_SUCCESS,
          "%s: int sum failed", what);
    for (i = 0; i < INT_COUNT; ++i) {
        for (expected = 0, m = 0; m < n; ++m) {
            expected += int_input(members[m], i);
        }
        CHECK(out[i] == expected, "%s: int sum [%d] = %d, expected %d", what, i, out[i],
              expected);
    }
}

static void check_double_sum_in_place(MPI_Comm comm, const char *what, const int *members,
                                      int n)
{
    double *buf = malloc(sizeof(double) * DOUBLE_COUNT), expected;
    int i, m;

    for (i = 0; i < DOUBLE_COUNT; ++i) {
        buf[i] = double_input(world_rank, i);
    }
    CHECK(MPI_Allreduce(MPI_IN_PLACE, buf, DOUBLE_COUNT, MPI_DOUBLE, MPI_SUM, comm) ==
          MPI_SUCCESS, "%s: in-place double sum failed", what);
    for (i = 0; i < DOUBLE_COUNT; ++i) {
        for (expected = 0, m = 0; m < n; ++m) {
            expected += double_input(members[m], i);
        }
        CHECK(buf[i] == expected, "%s: in-place double sum [%d] = %g, expected %g", what,
              i, buf[i], expected);
    }
    free(buf);
}

static void check_int_max(MPI_Comm comm, const char *what, const int *members, int n)
{
    int in[MAX_COUNT], out[MAX_COUNT], i, m, expected;

    for (i = 0; i < MAX_COUNT; ++i) {
        in[i] = max_input(world_rank, i);
        out[i] = -1;
    }
    CHECK(MPI_Allreduce(in, out, MAX_COUNT, MPI_INT, MPI_MAX, comm) == MPI_SUCCESS,
          "%s: int max failed", what);
    for (i = 0; i < MAX_COUNT; ++i) {
        for (expected = -1, m = 0; m < n; ++m) {
            if (max_input(members[m], i) > expected) {
                expected = max_input(members[m], i);
            }
        }
        CHECK(out[i] == expected, "%s: int max [%d] = %d, expected %d", what, i, out[i],
              expected);
    }
}

/* The allreduces of one communicator, with Loom's counters around them.
 * Loom never joins a communicator of one rank, nor one whose info
 * excludes it. */
static void check_comm(MPI_Comm comm, const char *what, color_fn_t color, int loom_allowed)
{
    int *members = malloc(sizeof(int) * (size_t)world_size);
    int n = members_of(color, members), size, rank, my_index;
    loom_test_counters_t before;

    MPI_Comm_size(comm, &size);
    MPI_Comm_rank(comm, &rank);
    for (my_index = 0; members[my_index] != world_rank; ++my_index) {
    }
    CHECK(size == n, "%s: %d ranks, expected %d", what, size, n);
    CHECK(rank == my_index, "%s: rank %d, expected %d", what, rank, my_index);

    before = loom_test_counters();
    check_int_sum(comm, what, members, n);
    check_double_sum_in_place(comm, what, members, n);
    check_int_max(comm, what, members, n);
    CHECK_LOOM_COUNTERS(before, (loom_allowed && n >= 2) ? CALLS_PER_COMM : 0, 0, what);
    free(members);
}

static void check_split(MPI_Comm parent, const char *what, color_fn_t color)
{
    MPI_Comm comm;

    MPI_Comm_split(parent, color(world_rank), world_rank, &comm);
    check_comm(comm, what, color, 1);
    MPI_Comm_free(&comm);
}

static void check_dups(void)
{
    MPI_Comm dup, idup;
    MPI_Request req;

    MPI_Comm_dup(MPI_COMM_WORLD, &dup);
    check_comm(dup, "dup", color_all, 1);
    MPI_Comm_idup(MPI_COMM_WORLD, &idup, &req);
    MPI_Wait(&req, MPI_STATUS_IGNORE);
    check_comm(idup, "idup", color_all, 1);
    /* Calls alternate between the two, so a fast rank's messages on one
     * can arrive while a slow rank is still in the other. */
    check_comm(dup, "dup again", color_all, 1);
    check_comm(idup, "idup again", color_all, 1);
    check_split(dup, "split of dup (rank % 2)", color_mod2);
    MPI_Comm_free(&idup);
    MPI_Comm_free(&dup);
}

static void check_excluded(void)
{
    MPI_Comm comm;
    MPI_Info info;

    MPI_Info_create(&info);
    MPI_Info_set(info, "ompi_comm_coll_preference", "^loom");
    MPI_Comm_dup_with_info(MPI_COMM_WORLD, info, &comm);
    MPI_Info_free(&info);
    check_comm(comm, "dup_with_info ^loom", color_all, 0);
    MPI_Comm_free(&comm);
}

int main(int argc, char **argv)
{
    int round;

    loom_test_init(&argc, &argv, MPI_THREAD_SINGLE);
    MPI_Comm_rank(MPI_COMM_WORLD, &world_rank);
    MPI_Comm_size(MPI_COMM_WORLD, &world_size);
    for (round = 0; round < ROUNDS; ++round) {
        check_comm(MPI_COMM_WORLD, "world", color_all, 1);
        check_split(MPI_COMM_WORLD, "split (rank < 1)", color_first_alone);
        check_split(MPI_COMM_WORLD, "split (rank % 3)", color_mod3);
        check_dups();
        check_excluded();
    }
    return loom_test_finish("mpi_allreduce_comms");
}
