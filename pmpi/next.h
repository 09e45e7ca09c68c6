/*
 * The next definition of every MPI function libloom-pmpi intercepts, found
 * with dlsym(RTLD_NEXT) when the library is loaded: another tool preloaded
 * after this one, or the MPI library itself.  Calling these rather than
 * PMPI_ lets two tools stack in either order (docs/pmpi.md).
 */
#ifndef LOOM_PMPI_NEXT_H
#define LOOM_PMPI_NEXT_H

#include <mpi.h>

typedef struct {
    __typeof__(&MPI_Init) Init;
    __typeof__(&MPI_Init_thread) Init_thread;
    __typeof__(&MPI_Finalize) Finalize;
    __typeof__(&MPI_Allreduce) Allreduce;
    __typeof__(&MPI_Reduce) Reduce;
    __typeof__(&MPI_Bcast) Bcast;
    __typeof__(&MPI_Allgather) Allgather;
    __typeof__(&MPI_Allgatherv) Allgatherv;
    __typeof__(&MPI_Gather) Gather;
    __typeof__(&MPI_Gatherv) Gatherv;
    __typeof__(&MPI_Scatter) Scatter;
    __typeof__(&MPI_Scatterv) Scatterv;
    __typeof__(&MPI_Alltoall) Alltoall;
    __typeof__(&MPI_Alltoallv) Alltoallv;
    __typeof__(&MPI_Alltoallw) Alltoallw;
    __typeof__(&MPI_Reduce_scatter) Reduce_scatter;
    __typeof__(&MPI_Reduce_scatter_block) Reduce_scatter_block;
    __typeof__(&MPI_Scan) Scan;
    __typeof__(&MPI_Exscan) Exscan;
    __typeof__(&MPI_Barrier) Barrier;
    __typeof__(&MPI_Iallreduce) Iallreduce;
    __typeof__(&MPI_Ireduce) Ireduce;
    __typeof__(&MPI_Ibcast) Ibcast;
    __typeof__(&MPI_Iallgather) Iallgather;
    __typeof__(&MPI_Iallgatherv) Iallgatherv;
    __typeof__(&MPI_Igather) Igather;
    __typeof__(&MPI_Igatherv) Igatherv;
    __typeof__(&MPI_Iscatter) Iscatter;
    __typeof__(&MPI_Iscatterv) Iscatterv;
    __typeof__(&MPI_Ialltoall) Ialltoall;
    __typeof__(&MPI_Ialltoallv) Ialltoallv;
    __typeof__(&MPI_Ialltoallw) Ialltoallw;
    __typeof__(&MPI_Ireduce_scatter) Ireduce_scatter;
    __typeof__(&MPI_Ireduce_scatter_block) Ireduce_scatter_block;
    __typeof__(&MPI_Iscan) Iscan;
    __typeof__(&MPI_Iexscan) Iexscan;
    __typeof__(&MPI_Ibarrier) Ibarrier;
    __typeof__(&MPI_Wait) Wait;
    __typeof__(&MPI_Waitall) Waitall;
    __typeof__(&MPI_Waitany) Waitany;
    __typeof__(&MPI_Waitsome) Waitsome;
    __typeof__(&MPI_Test) Test;
    __typeof__(&MPI_Testall) Testall;
    __typeof__(&MPI_Testany) Testany;
    __typeof__(&MPI_Testsome) Testsome;
    __typeof__(&MPI_Request_free) Request_free;
    __typeof__(&MPI_Send) Send;
    __typeof__(&MPI_Ssend) Ssend;
    __typeof__(&MPI_Bsend) Bsend;
    __typeof__(&MPI_Rsend) Rsend;
    __typeof__(&MPI_Isend) Isend;
    __typeof__(&MPI_Issend) Issend;
    __typeof__(&MPI_Irecv) Irecv;
    __typeof__(&MPI_Recv) Recv;
    __typeof__(&MPI_Sendrecv) Sendrecv;
    __typeof__(&MPI_Sendrecv_replace) Sendrecv_replace;
    __typeof__(&MPI_Comm_set_name) Comm_set_name;
    __typeof__(&MPI_Comm_dup) Comm_dup;
    __typeof__(&MPI_Comm_split) Comm_split;
    __typeof__(&MPI_Comm_split_type) Comm_split_type;
    __typeof__(&MPI_Comm_create) Comm_create;
    __typeof__(&MPI_Comm_create_group) Comm_create_group;
    __typeof__(&MPI_Comm_free) Comm_free;
} loom_pmpi_next_t;

extern loom_pmpi_next_t loom_pmpi_next;

/* Resolves the table; returns the name of the first function without a next
 * definition (the process has no MPI library), or NULL. */
const char *loom_pmpi_next_load(void);

#endif
