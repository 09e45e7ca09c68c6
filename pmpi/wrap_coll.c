/*
 * The blocking collectives: each wrapper finds its site, charges its bytes
 * (bytes.c, docs/pmpi.md), times the call and calls the next definition
 * (next.h).  Not profiling (before MPI_Init, after MPI_Finalize, or
 * LOOM_PMPI_ENABLE=0), a wrapper is a call through one pointer.
 */
#include "next.h"
#include "pmpi.h"

int MPI_Allreduce(const void *sendbuf, void *recvbuf, int count, MPI_Datatype datatype, MPI_Op op,
                  MPI_Comm comm)
{
    loom_pmpi_call_t call;
    int rc;

    if (!loom_pmpi_call_begin(&call, LOOM_PMPI_ALLREDUCE, comm, __builtin_return_address(0), -1)) {
        return loom_pmpi_next.Allreduce(sendbuf, recvbuf, count, datatype, op, comm);
    }
    loom_pmpi_call_start(&call, loom_pmpi_bytes(datatype, count));
    rc = loom_pmpi_next.Allreduce(sendbuf, recvbuf, count, datatype, op, comm);
    loom_pmpi_call_end(&call);
    return rc;
}

int MPI_Reduce(const void *sendbuf, void *recvbuf, int count, MPI_Datatype datatype, MPI_Op op,
               int root, MPI_Comm comm)
{
    loom_pmpi_call_t call;
    int rc;

    if (!loom_pmpi_call_begin(&call, LOOM_PMPI_REDUCE, comm, __builtin_return_address(0), root)) {
        return loom_pmpi_next.Reduce(sendbuf, recvbuf, count, datatype, op, root, comm);
    }
    loom_pmpi_call_start(&call, loom_pmpi_bytes(datatype, count));
    rc = loom_pmpi_next.Reduce(sendbuf, recvbuf, count, datatype, op, root, comm);
    loom_pmpi_call_end(&call);
    return rc;
}

int MPI_Bcast(void *buffer, int count, MPI_Datatype datatype, int root, MPI_Comm comm)
{
    loom_pmpi_call_t call;
    int rc;

    if (!loom_pmpi_call_begin(&call, LOOM_PMPI_BCAST, comm, __builtin_return_address(0), root)) {
        return loom_pmpi_next.Bcast(buffer, count, datatype, root, comm);
    }
    loom_pmpi_call_start(&call, loom_pmpi_bytes(datatype, count));
    rc = loom_pmpi_next.Bcast(buffer, count, datatype, root, comm);
    loom_pmpi_call_end(&call);
    return rc;
}

int MPI_Allgather(const void *sendbuf, int sendcount, MPI_Datatype sendtype, void *recvbuf,
                  int recvcount, MPI_Datatype recvtype, MPI_Comm comm)
{
    loom_pmpi_call_t call;
    int rc;

    if (!loom_pmpi_call_begin(&call, LOOM_PMPI_ALLGATHER, comm, __builtin_return_address(0), -1)) {
        return loom_pmpi_next.Allgather(sendbuf, sendcount, sendtype, recvbuf, recvcount, recvtype,
                                        comm);
    }
    loom_pmpi_call_start(&call, sendbuf == MPI_IN_PLACE ? loom_pmpi_bytes(recvtype,
                         recvcount) : loom_pmpi_bytes(sendtype, sendcount));
    rc = loom_pmpi_next.Allgather(sendbuf, sendcount, sendtype, recvbuf, recvcount, recvtype, comm);
    loom_pmpi_call_end(&call);
    return rc;
}

int MPI_Allgatherv(const void *sendbuf, int sendcount, MPI_Datatype sendtype, void *recvbuf,
                   const int recvcounts[], const int displs[], MPI_Datatype recvtype,
                   MPI_Comm comm)
{
    loom_pmpi_call_t call;
    int rc;

    if (!loom_pmpi_call_begin(&call, LOOM_PMPI_ALLGATHERV, comm, __builtin_return_address(0), -1)) {
        return loom_pmpi_next.Allgatherv(sendbuf, sendcount, sendtype, recvbuf, recvcounts, displs,
                                         recvtype, comm);
    }
    loom_pmpi_call_start(&call, sendbuf == MPI_IN_PLACE ? loom_pmpi_bytes(recvtype,
                         recvcounts[call.comm->rank]) : loom_pmpi_bytes(sendtype, sendcount));
    rc = loom_pmpi_next.Allgatherv(sendbuf, sendcount, sendtype, recvbuf, recvcounts, displs,
                                   recvtype, comm);
    loom_pmpi_call_end(&call);
    return rc;
}

int MPI_Gather(const void *sendbuf, int sendcount, MPI_Datatype sendtype, void *recvbuf,
               int recvcount, MPI_Datatype recvtype, int root, MPI_Comm comm)
{
    loom_pmpi_call_t call;
    int rc;

    if (!loom_pmpi_call_begin(&call, LOOM_PMPI_GATHER, comm, __builtin_return_address(0), root)) {
        return loom_pmpi_next.Gather(sendbuf, sendcount, sendtype, recvbuf, recvcount, recvtype,
                                     root, comm);
    }
    loom_pmpi_call_start(&call, sendbuf == MPI_IN_PLACE ? loom_pmpi_bytes(recvtype,
                         recvcount) : loom_pmpi_bytes(sendtype, sendcount));
    rc = loom_pmpi_next.Gather(sendbuf, sendcount, sendtype, recvbuf, recvcount, recvtype, root,
                               comm);
    loom_pmpi_call_end(&call);
    return rc;
}

int MPI_Gatherv(const void *sendbuf, int sendcount, MPI_Datatype sendtype, void *recvbuf,
                const int recvcounts[], const int displs[], MPI_Datatype recvtype, int root,
                MPI_Comm comm)
{
    loom_pmpi_call_t call;
    int rc;

    if (!loom_pmpi_call_begin(&call, LOOM_PMPI_GATHERV, comm, __builtin_return_address(0), root)) {
        return loom_pmpi_next.Gatherv(sendbuf, sendcount, sendtype, recvbuf, recvcounts, displs,
                                      recvtype, root, comm);
    }
    loom_pmpi_call_start(&call, sendbuf == MPI_IN_PLACE ? loom_pmpi_bytes(recvtype,
                         recvcounts[call.comm->rank]) : loom_pmpi_bytes(sendtype, sendcount));
    rc = loom_pmpi_next.Gatherv(sendbuf, sendcount, sendtype, recvbuf, recvcounts, displs, recvtype,
                                root, comm);
    loom_pmpi_call_end(&call);
    return rc;
}

int MPI_Scatter(const void *sendbuf, int sendcount, MPI_Datatype sendtype, void *recvbuf,
                int recvcount, MPI_Datatype recvtype, int root, MPI_Comm comm)
{
    loom_pmpi_call_t call;
    int rc;

    if (!loom_pmpi_call_begin(&call, LOOM_PMPI_SCATTER, comm, __builtin_return_address(0), root)) {
        return loom_pmpi_next.Scatter(sendbuf, sendcount, sendtype, recvbuf, recvcount, recvtype,
                                      root, comm);
    }
    loom_pmpi_call_start(&call,
                         call.comm->rank == root && !call.comm->inter ? loom_pmpi_bytes(sendtype,
                         sendcount) * (uint64_t)call.comm->size : 0);
    rc = loom_pmpi_next.Scatter(sendbuf, sendcount, sendtype, recvbuf, recvcount, recvtype, root,
                                comm);
    loom_pmpi_call_end(&call);
    return rc;
}

int MPI_Scatterv(const void *sendbuf, const int sendcounts[], const int displs[],
                 MPI_Datatype sendtype, void *recvbuf, int recvcount, MPI_Datatype recvtype,
                 int root, MPI_Comm comm)
{
    loom_pmpi_call_t call;
    int rc;

    if (!loom_pmpi_call_begin(&call, LOOM_PMPI_SCATTERV, comm, __builtin_return_address(0), root)) {
        return loom_pmpi_next.Scatterv(sendbuf, sendcounts, displs, sendtype, recvbuf, recvcount,
                                       recvtype, root, comm);
    }
    loom_pmpi_call_start(&call,
                         call.comm->rank == root && !call.comm->inter
                             ? loom_pmpi_bytes_sum(sendcounts, call.comm->size, sendtype)
                             : 0);
    rc = loom_pmpi_next.Scatterv(sendbuf, sendcounts, displs, sendtype, recvbuf, recvcount,
                                 recvtype, root, comm);
    loom_pmpi_call_end(&call);
    return rc;
}

int MPI_Alltoall(const void *sendbuf, int sendcount, MPI_Datatype sendtype, void *recvbuf,
                 int recvcount, MPI_Datatype recvtype, MPI_Comm comm)
{
    loom_pmpi_call_t call;
    int rc;

    if (!loom_pmpi_call_begin(&call, LOOM_PMPI_ALLTOALL, comm, __builtin_return_address(0), -1)) {
        return loom_pmpi_next.Alltoall(sendbuf, sendcount, sendtype, recvbuf, recvcount, recvtype,
                                       comm);
    }
    loom_pmpi_call_start(&call, (sendbuf == MPI_IN_PLACE ? loom_pmpi_bytes(recvtype,
                         recvcount) : loom_pmpi_bytes(sendtype,
                         sendcount)) * (uint64_t)call.comm->size);
    rc = loom_pmpi_next.Alltoall(sendbuf, sendcount, sendtype, recvbuf, recvcount, recvtype, comm);
    loom_pmpi_call_end(&call);
    return rc;
}

int MPI_Alltoallv(const void *sendbuf, const int sendcounts[], const int sdispls[],
                  MPI_Datatype sendtype, void *recvbuf, const int recvcounts[], const int rdispls[],
                  MPI_Datatype recvtype, MPI_Comm comm)
{
    loom_pmpi_call_t call;
    int rc;

    if (!loom_pmpi_call_begin(&call, LOOM_PMPI_ALLTOALLV, comm, __builtin_return_address(0), -1)) {
        return loom_pmpi_next.Alltoallv(sendbuf, sendcounts, sdispls, sendtype, recvbuf, recvcounts,
                                        rdispls, recvtype, comm);
    }
    loom_pmpi_call_start(&call, sendbuf == MPI_IN_PLACE ? loom_pmpi_bytes_sum(recvcounts,
                         call.comm->size, recvtype) : loom_pmpi_bytes_sum(sendcounts,
                         call.comm->size, sendtype));
    rc = loom_pmpi_next.Alltoallv(sendbuf, sendcounts, sdispls, sendtype, recvbuf, recvcounts,
                                  rdispls, recvtype, comm);
    loom_pmpi_call_end(&call);
    return rc;
}

int MPI_Alltoallw(const void *sendbuf, const int sendcounts[], const int sdispls[],
                  const MPI_Datatype sendtypes[], void *recvbuf, const int recvcounts[],
                  const int rdispls[], const MPI_Datatype recvtypes[], MPI_Comm comm)
{
    loom_pmpi_call_t call;
    int rc;

    if (!loom_pmpi_call_begin(&call, LOOM_PMPI_ALLTOALLW, comm, __builtin_return_address(0), -1)) {
        return loom_pmpi_next.Alltoallw(sendbuf, sendcounts, sdispls, sendtypes, recvbuf,
                                        recvcounts, rdispls, recvtypes, comm);
    }
    loom_pmpi_call_start(&call, sendbuf == MPI_IN_PLACE ? loom_pmpi_bytes_w(recvcounts, recvtypes,
                         call.comm->size) : loom_pmpi_bytes_w(sendcounts, sendtypes,
                         call.comm->size));
    rc = loom_pmpi_next.Alltoallw(sendbuf, sendcounts, sdispls, sendtypes, recvbuf, recvcounts,
                                  rdispls, recvtypes, comm);
    loom_pmpi_call_end(&call);
    return rc;
}

int MPI_Reduce_scatter(const void *sendbuf, void *recvbuf, const int recvcounts[],
                       MPI_Datatype datatype, MPI_Op op, MPI_Comm comm)
{
    loom_pmpi_call_t call;
    int rc;

    if (!loom_pmpi_call_begin(&call, LOOM_PMPI_REDUCE_SCATTER, comm, __builtin_return_address(0),
        -1)) {
        return loom_pmpi_next.Reduce_scatter(sendbuf, recvbuf, recvcounts, datatype, op, comm);
    }
    loom_pmpi_call_start(&call, loom_pmpi_bytes_sum(recvcounts, call.comm->size, datatype));
    rc = loom_pmpi_next.Reduce_scatter(sendbuf, recvbuf, recvcounts, datatype, op, comm);
    loom_pmpi_call_end(&call);
    return rc;
}

int MPI_Reduce_scatter_block(const void *sendbuf, void *recvbuf, int recvcount,
                             MPI_Datatype datatype, MPI_Op op, MPI_Comm comm)
{
    loom_pmpi_call_t call;
    int rc;

    if (!loom_pmpi_call_begin(&call, LOOM_PMPI_REDUCE_SCATTER_BLOCK, comm,
        __builtin_return_address(0), -1)) {
        return loom_pmpi_next.Reduce_scatter_block(sendbuf, recvbuf, recvcount, datatype, op, comm);
    }
    loom_pmpi_call_start(&call, loom_pmpi_bytes(datatype, recvcount) * (uint64_t)call.comm->size);
    rc = loom_pmpi_next.Reduce_scatter_block(sendbuf, recvbuf, recvcount, datatype, op, comm);
    loom_pmpi_call_end(&call);
    return rc;
}

int MPI_Scan(const void *sendbuf, void *recvbuf, int count, MPI_Datatype datatype, MPI_Op op,
             MPI_Comm comm)
{
    loom_pmpi_call_t call;
    int rc;

    if (!loom_pmpi_call_begin(&call, LOOM_PMPI_SCAN, comm, __builtin_return_address(0), -1)) {
        return loom_pmpi_next.Scan(sendbuf, recvbuf, count, datatype, op, comm);
    }
    loom_pmpi_call_start(&call, loom_pmpi_bytes(datatype, count));
    rc = loom_pmpi_next.Scan(sendbuf, recvbuf, count, datatype, op, comm);
    loom_pmpi_call_end(&call);
    return rc;
}

int MPI_Exscan(const void *sendbuf, void *recvbuf, int count, MPI_Datatype datatype, MPI_Op op,
               MPI_Comm comm)
{
    loom_pmpi_call_t call;
    int rc;

    if (!loom_pmpi_call_begin(&call, LOOM_PMPI_EXSCAN, comm, __builtin_return_address(0), -1)) {
        return loom_pmpi_next.Exscan(sendbuf, recvbuf, count, datatype, op, comm);
    }
    loom_pmpi_call_start(&call, loom_pmpi_bytes(datatype, count));
    rc = loom_pmpi_next.Exscan(sendbuf, recvbuf, count, datatype, op, comm);
    loom_pmpi_call_end(&call);
    return rc;
}

int MPI_Barrier(MPI_Comm comm)
{
    loom_pmpi_call_t call;
    int rc;

    if (!loom_pmpi_call_begin(&call, LOOM_PMPI_BARRIER, comm, __builtin_return_address(0), -1)) {
        return loom_pmpi_next.Barrier(comm);
    }
    loom_pmpi_call_start(&call, 0);
    rc = loom_pmpi_next.Barrier(comm);
    loom_pmpi_call_end(&call);
    return rc;
}
