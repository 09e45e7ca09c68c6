/*
 * Ping-pong bandwidth from rank 0 to chosen peers, on the emulated
 * cluster (test/cluster/measure.sh): which link each pair crosses is the
 * caller's layout, named by the labels.
 *
 *   pingpong [-s BYTES] [-n ITERS] PEER:LABEL...
 *
 * Per pair: ITERS round trips of BYTES each way after two warm-up trips;
 * bandwidth = 2 * BYTES / median round trip, in MB/s (1e6 bytes).
 * Waiting ranks sleep in a nonblocking barrier so that they leave the
 * shared cores to the pair.  Output, one line per pair:
 *   LABEL rank 0 (HOST) <-> rank P (HOST): BYTES bytes, X MB/s
 */
#include "test/perf/bench_common.h"

#include <mpi.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

int main(int argc, char **argv)
{
    long bytes = 4L << 20;
    int iters = 10, rank, size, first = 1;
    char host[MPI_MAX_PROCESSOR_NAME], *hosts;

    MPI_Init(&argc, &argv);
    MPI_Comm_rank(MPI_COMM_WORLD, &rank);
    MPI_Comm_size(MPI_COMM_WORLD, &size);
    while (first + 1 < argc && argv[first][0] == '-') {
        if (strcmp(argv[first], "-s") == 0) {
            bytes = atol(argv[first + 1]);
        } else if (strcmp(argv[first], "-n") == 0) {
            iters = atoi(argv[first + 1]);
        } else {
            break;
        }
        first += 2;
    }
    if (bytes < 1 || iters < 1 || first >= argc) {
        if (rank == 0) {
            fprintf(stderr, "usage: pingpong [-s BYTES] [-n ITERS] PEER:LABEL...\n");
        }
        MPI_Abort(MPI_COMM_WORLD, 2);
    }
    int len;
    memset(host, 0, sizeof(host));
    MPI_Get_processor_name(host, &len);
    hosts = malloc((size_t)size * MPI_MAX_PROCESSOR_NAME);
    MPI_Gather(host, MPI_MAX_PROCESSOR_NAME, MPI_CHAR, hosts, MPI_MAX_PROCESSOR_NAME,
               MPI_CHAR, 0, MPI_COMM_WORLD);
    char *buf = malloc((size_t)bytes);
    double *t = malloc(sizeof(*t) * (size_t)iters);
    memset(buf, 1, (size_t)bytes);
    for (int a = first; a < argc; a++) {
        int peer = atoi(argv[a]);
        const char *label = strchr(argv[a], ':');
        if (peer <= 0 || peer >= size || label == NULL) {
            if (rank == 0) {
                fprintf(stderr, "pingpong: '%s': expected PEER:LABEL with 0 < PEER < %d\n",
                        argv[a], size);
            }
            MPI_Abort(MPI_COMM_WORLD, 2);
        }
        bench_sleepy_barrier(MPI_COMM_WORLD);
        if (rank == 0 || rank == peer) {
            int other = rank == 0 ? peer : 0;
            for (int i = -2; i < iters; i++) {
                double t0 = MPI_Wtime();
                if (rank == 0) {
                    MPI_Send(buf, (int)bytes, MPI_CHAR, other, 0, MPI_COMM_WORLD);
                    MPI_Recv(buf, (int)bytes, MPI_CHAR, other, 0, MPI_COMM_WORLD,
                             MPI_STATUS_IGNORE);
                } else {
                    MPI_Recv(buf, (int)bytes, MPI_CHAR, other, 0, MPI_COMM_WORLD,
                             MPI_STATUS_IGNORE);
                    MPI_Send(buf, (int)bytes, MPI_CHAR, other, 0, MPI_COMM_WORLD);
                }
                if (i >= 0) {
                    t[i] = MPI_Wtime() - t0;
                }
            }
            if (rank == 0) {
                double rtt = bench_median(t, iters);
                printf("%s rank 0 (%s) <-> rank %d (%s): %ld bytes, %.1f MB/s\n", label + 1,
                       hosts, peer, hosts + (size_t)peer * MPI_MAX_PROCESSOR_NAME, bytes,
                       2.0 * (double)bytes / rtt / 1e6);
                fflush(stdout);
            }
        }
    }
    bench_sleepy_barrier(MPI_COMM_WORLD);
    free(t);
    free(buf);
    free(hosts);
    MPI_Finalize();
    return 0;
}
