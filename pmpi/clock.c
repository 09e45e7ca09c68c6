/*
 * Clock offsets against rank 0 (docs/pmpi.md, "Clocks").
 *
 * Rank 0 plays a few ping-pong rounds with each rank in turn on the
 * library's communicator: it stamps t0, the rank answers with its own clock
 * tr, rank 0 stamps t1.  Assuming the two legs take equally long, the rank's
 * clock is ahead of rank 0's by tr - (t0 + t1) / 2, wrong by at most half
 * the round trip; the round with the shortest round trip is kept.  Done at
 * MPI_Init and again at MPI_Finalize: the difference is the drift.
 */
#include <stdint.h>
#include <time.h>

#include "pmpi.h"

#define LOOM_PMPI_CLOCK_ROUNDS 8
#define LOOM_PMPI_CLOCK_TAG 7301

uint64_t loom_pmpi_now(void)
{
    struct timespec ts;

    clock_gettime(CLOCK_MONOTONIC, &ts);
    return (uint64_t)ts.tv_sec * 1000000000u + (uint64_t)ts.tv_nsec;
}

/* Rank 0's side with one peer: the offset and round trip of the best round. */
static void loom_pmpi_clock_probe(int peer, int64_t *offset_p, int64_t *rtt_p)
{
    int64_t best_rtt = INT64_MAX, best_offset = 0;
    uint64_t t0, t1, tr;
    int i;

    for (i = 0; i < LOOM_PMPI_CLOCK_ROUNDS; ++i) {
        t0 = loom_pmpi_now();
        PMPI_Send(&t0, 1, MPI_UINT64_T, peer, LOOM_PMPI_CLOCK_TAG, loom_pmpi.lib_comm);
        PMPI_Recv(&tr, 1, MPI_UINT64_T, peer, LOOM_PMPI_CLOCK_TAG, loom_pmpi.lib_comm,
                  MPI_STATUS_IGNORE);
        t1 = loom_pmpi_now();
        if ((int64_t)(t1 - t0) < best_rtt) {
            best_rtt = (int64_t)(t1 - t0);
            best_offset = (int64_t)(tr - t0) - best_rtt / 2;
        }
    }
    *offset_p = best_offset;
    *rtt_p = best_rtt;
}

void loom_pmpi_clock_sync(int phase)
{
    int64_t pair[2] = { 0, 0 };
    uint64_t stamp;
    int r, i;

    if (loom_pmpi.world_rank == 0) {
        for (r = 1; r < loom_pmpi.world_size; ++r) {
            loom_pmpi_clock_probe(r, &pair[0], &pair[1]);
            PMPI_Send(pair, 2, MPI_INT64_T, r, LOOM_PMPI_CLOCK_TAG, loom_pmpi.lib_comm);
        }
        pair[0] = pair[1] = 0;
    } else {
        for (i = 0; i < LOOM_PMPI_CLOCK_ROUNDS; ++i) {
            PMPI_Recv(&stamp, 1, MPI_UINT64_T, 0, LOOM_PMPI_CLOCK_TAG, loom_pmpi.lib_comm,
                      MPI_STATUS_IGNORE);
            stamp = loom_pmpi_now();
            PMPI_Send(&stamp, 1, MPI_UINT64_T, 0, LOOM_PMPI_CLOCK_TAG, loom_pmpi.lib_comm);
        }
        PMPI_Recv(pair, 2, MPI_INT64_T, 0, LOOM_PMPI_CLOCK_TAG, loom_pmpi.lib_comm,
                  MPI_STATUS_IGNORE);
    }
    loom_pmpi.offset_ns[phase] = pair[0];
    loom_pmpi.rtt_ns[phase] = pair[1];
}
