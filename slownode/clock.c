/*
 * Clock offsets against rank 0, once at MPI_Init (docs/slownode.md,
 * "Clocks").  Written here rather than taken from pmpi/clock.c, which
 * stores into libloom-pmpi's global state.
 *
 * Each rank in turn asks rank 0 for its time: it stamps t0, rank 0 answers
 * tm, it stamps t1.  If both legs take equally long, rank 0 read its clock
 * at (t0 + t1) / 2 on this rank's clock, so this rank is ahead by
 * (t0 + t1) / 2 - tm, wrong by at most half the round trip; the round with
 * the shortest round trip wins.  Ranks on one node share CLOCK_MONOTONIC
 * and measure about 0; across nodes it removes the boot-time difference.
 */
#include <time.h>

#include "slownode.h"

#define LOOM_SN_CLOCK_ROUNDS 6
#define LOOM_SN_CLOCK_TAG 7417

uint64_t loom_sn_now(void)
{
    struct timespec ts;

    clock_gettime(CLOCK_MONOTONIC, &ts);
    return (uint64_t)ts.tv_sec * 1000000000u + (uint64_t)ts.tv_nsec;
}

/* Rank 0 answers every round of every other rank, in rank order. */
static void loom_sn_clock_serve(MPI_Comm comm, int size)
{
    uint64_t stamp;
    int peer, round;

    for (peer = 1; peer < size; ++peer) {
        for (round = 0; round < LOOM_SN_CLOCK_ROUNDS; ++round) {
            PMPI_Recv(&stamp, 1, MPI_UINT64_T, peer, LOOM_SN_CLOCK_TAG, comm, MPI_STATUS_IGNORE);
            stamp = loom_sn_now();
            PMPI_Send(&stamp, 1, MPI_UINT64_T, peer, LOOM_SN_CLOCK_TAG, comm);
        }
    }
}

static int64_t loom_sn_clock_ask(MPI_Comm comm)
{
    uint64_t t0, t1, tm, rtt, best_rtt = UINT64_MAX;
    int64_t best = 0;
    int round;

    for (round = 0; round < LOOM_SN_CLOCK_ROUNDS; ++round) {
        t0 = loom_sn_now();
        PMPI_Send(&t0, 1, MPI_UINT64_T, 0, LOOM_SN_CLOCK_TAG, comm);
        PMPI_Recv(&tm, 1, MPI_UINT64_T, 0, LOOM_SN_CLOCK_TAG, comm, MPI_STATUS_IGNORE);
        t1 = loom_sn_now();
        rtt = t1 - t0;
        if (rtt < best_rtt) {
            best_rtt = rtt;
            best = (int64_t)(t0 + rtt / 2) - (int64_t)tm;
        }
    }
    return best;
}

int64_t loom_sn_clock_offset(MPI_Comm comm, int rank, int size)
{
    if (rank == 0) {
        loom_sn_clock_serve(comm, size);
        return 0;
    }
    return loom_sn_clock_ask(comm);
}
