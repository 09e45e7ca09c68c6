/*
 * The nonblocking collectives: each wrapper finds its site, charges its
 * bytes (bytes.c, docs/pmpi.md), starts the clock that the completion of its
 * request stops (wrap_complete.c), and calls the next definition (next.h).
 * Not profiling (before MPI_Init, after MPI_Finalize, or LOOM_PMPI_ENABLE=0),
 * a wrapper is a call through one pointer.
 */
#include "next.h"
#include "pmpi.h"

int MPI_Iallreduce(const void *sendbuf, void *recvbuf, int count, MPI_Datatype datatype, MPI_Op op,
                   MPI_Comm comm, MPI_Request *request)
{
    loom_pmpi_call_t call;
    int rc;

    if (!loom_pmpi_call_begin(&call, LOOM_PMPI_IALLREDUCE, comm, __builtin_return_address(0), -1)) {
        return loom_pmpi_next.Iallreduce(sendbuf, recvbuf, count, datatype, op, comm, request);
    }
    loom_pmpi_call_start(&call, loom_pmpi_bytes(datatype, count));
    rc = loom_pmpi_next.Iallreduce(sendbuf, recvbuf, count, datatype, op, comm, request);
    loom_pmpi_call_posted(&call, rc, request);
    return rc;
}

int MPI_Ireduce(const void *sendbuf, void *recvbuf, int count, MPI_Datatype datatype, MPI_Op op,
                int root, MPI_Comm comm, MPI_Request *request)
{
    loom_pmpi_call_t call;
    int rc;

    if (!loom_pmpi_call_begin(&call, LOOM_PMPI_IREDUCE, comm, __builtin_return_address(0), root)) {
        return loom_pmpi_next.Ireduce(sendbuf, recvbuf, count, datatype, op, root, comm, request);
    }
    loom_pmpi_call_start(&call, loom_pmpi_bytes(datatype, count));
    rc = loom_pmpi_next.Ireduce(sendbuf, recvbuf, count, datatype, op, root, comm, request);
    loom_pmpi_call_posted(&call, rc, request);
    return rc;
}

int MPI_Ibcast(void *buffer, int count, MPI_Datatype datatype, int root, MPI_Comm comm,
               MPI_Request *request)
{
    loom_pmpi_call_t call;
    int rc;

    if (!loom_pmpi_call_begin(&call, LOOM_PMPI_IBCAST, comm, __builtin_return_address(0), root)) {
        return loom_pmpi_next.Ibcast(buffer, count, datatype, root, comm, request);
    }
    loom_pmpi_call_start(&call, loom_pmpi_bytes(datatype, count));
    rc = loom_pmpi_next.Ibcast(buffer, count, datatype, root, comm, request);
    loom_pmpi_call_posted(&call, rc, request);
    return rc;
}

int MPI_Iallgather(const void *sendbuf, int sendcount, MPI_Datatype sendtype, void *recvbuf,
                   int recvcount, MPI_Datatype recvtype, MPI_Comm comm, MPI_Request *request)
{
    loom_pmpi_call_t call;
    int rc;

    if (!loom_pmpi_call_begin(&call, LOOM_PMPI_IALLGATHER, comm, __builtin_return_address(0), -1)) {
        return loom_pmpi_next.Iallgather(sendbuf, sendcount, sendtype, recvbuf, recvcount, recvtype,
                                         comm, request);
    }
    loom_pmpi_call_start(&call, sendbuf == MPI_IN_PLACE ? loom_pmpi_bytes(recvtype,
                         recvcount) : loom_pmpi_bytes(sendtype, sendcount));
    rc = loom_pmpi_next.Iallgather(sendbuf, sendcount, sendtype, recvbuf, recvcount, recvtype, comm,
                                   request);
    loom_pmpi_call_posted(&call, rc, request);
    return rc;
}

int MPI_Iallgatherv(const void *sendbuf, int sendcount, MPI_Datatype sendtype, void *recvbuf,
                    const int recvcounts[], const int displs[], MPI_Datatype recvtype,
                    MPI_Comm comm, MPI_Request *request)
{
    loom_pmpi_call_t call;
    int rc;

    if (!loom_pmpi_call_begin(&call, LOOM_PMPI_IALLGATHERV, comm, __builtin_return_address(0),
        -1)) {
        return loom_pmpi_next.Iallgatherv(sendbuf, sendcount, sendtype, recvbuf, recvcounts, displs,
                                          recvtype, comm, request);
    }
    loom_pmpi_call_start(&call, sendbuf == MPI_IN_PLACE ? loom_pmpi_bytes(recvtype,
                         recvcounts[call.comm->rank]) : loom_pmpi_bytes(sendtype, sendcount));
    rc = loom_pmpi_next.Iallgatherv(sendbuf, sendcount, sendtype, recvbuf, recvcounts, displs,
                                    recvtype, comm, request);
    loom_pmpi_call_posted(&call, rc, request);
    return rc;
}

int MPI_Igather(const void *sendbuf, int sendcount, MPI_Datatype sendtype, void *recvbuf,
                int recvcount, MPI_Datatype recvtype, int root, MPI_Comm comm,
                MPI_Request *request)
{
    loom_pmpi_call_t call;
    int rc;

    if (!loom_pmpi_call_begin(&call, LOOM_PMPI_IGATHER, comm, __builtin_return_address(0), root)) {
        return loom_pmpi_next.Igather(sendbuf, sendcount, sendtype, recvbuf, recvcount, recvtype,
                                      root, comm, request);
    }
    loom_pmpi_call_start(&call, sendbuf == MPI_IN_PLACE ? loom_pmpi_bytes(recvtype,
                         recvcount) : loom_pmpi_bytes(sendtype, sendcount));
    rc = loom_pmpi_next.Igather(sendbuf, sendcount, sendtype, recvbuf, recvcount, recvtype, root,
                                comm, request);
    loom_pmpi_call_posted(&call, rc, request);
    return rc;
}

int MPI_Igatherv(const void *sendbuf, int sendcount, MPI_Datatype sendtype, void *recvbuf,
                 const int recvcounts[], const int displs[], MPI_Datatype recvtype, int root,
                 MPI_Comm comm, MPI_Request *request)
{
    loom_pmpi_call_t call;
    int rc;

    if (!loom_pmpi_call_begin(&call, LOOM_PMPI_IGATHERV, comm, __builtin_return_address(0), root)) {
        return loom_pmpi_next.Igatherv(sendbuf, sendcount, sendtype, recvbuf, recvcounts, displs,
                                       recvtype, root, comm, request);
    }
    loom_pmpi_call_start(&call, sendbuf == MPI_IN_PLACE ? loom_pmpi_bytes(recvtype,
                         recvcounts[call.comm->rank]) : loom_pmpi_bytes(sendtype, sendcount));
    rc = loom_pmpi_next.Igatherv(sendbuf, sendcount, sendtype, recvbuf, recvcounts, displs,
                                 recvtype, root, comm, request);
    loom_pmpi_call_posted(&call, rc, request);
    return rc;
}

int MPI_Iscatter(const void *sendbuf, int sendcount, MPI_Datatype sendtype, void *recvbuf,
                 int recvcount, MPI_Datatype recvtype, int root, MPI_Comm comm,
                 MPI_Request *request)
{
    loom_pmpi_call_t call;
    int rc;

    if (!loom_pmpi_call_begin(&call, LOOM_PMPI_ISCATTER, comm, __builtin_return_address(0), root)) {
        return loom_pmpi_next.Iscatter(sendbuf, sendcount, sendtype, recvbuf, recvcount, recvtype,
                                       root, comm, request);
    }
    loom_pmpi_call_start(&call,
                         call.comm->rank == root && !call.comm->inter ? loom_pmpi_bytes(sendtype,
                         sendcount) * (uint64_t)call.comm->size : 0);
    rc = loom_pmpi_next.Iscatter(sendbuf, sendcount, sendtype, recvbuf, recvcount, recvtype, root,
                                 comm, request);
    loom_pmpi_call_posted(&call, rc, request);
    return rc;
}

int MPI_Iscatterv(const void *sendbuf, const int sendcounts[], const int displs[],
                  MPI_Datatype sendtype, void *recvbuf, int recvcount, MPI_Datatype recvtype,
                  int root, MPI_Comm comm, MPI_Request *request)
{
    loom_pmpi_call_t call;
    int rc;

    if (!loom_pmpi_call_begin(&call, LOOM_PMPI_ISCATTERV, comm, __builtin_return_address(0),
        root)) {
        return loom_pmpi_next.Iscatterv(sendbuf, sendcounts, displs, sendtype, recvbuf, recvcount,
                                        recvtype, root, comm, request);
    }
    loom_pmpi_call_start(&call,
                         call.comm->rank == root && !call.comm->inter
                             ? loom_pmpi_bytes_sum(sendcounts, call.comm->size, sendtype)
                             : 0);
    rc = loom_pmpi_next.Iscatterv(sendbuf, sendcounts, displs, sendtype, recvbuf, recvcount,
                                  recvtype, root, comm, request);
    loom_pmpi_call_posted(&call, rc, request);
    return rc;
}

int MPI_Ialltoall(const void *sendbuf, int sendcount, MPI_Datatype sendtype, void *recvbuf,
                  int recvcount, MPI_Datatype recvtype, MPI_Comm comm, MPI_Request *request)
{
    loom_pmpi_call_t call;
    int rc;

    if (!loom_pmpi_call_begin(&call, LOOM_PMPI_IALLTOALL, comm, __builtin_return_address(0), -1)) {
        return loom_pmpi_next.Ialltoall(sendbuf, sendcount, sendtype, recvbuf, recvcount, recvtype,
                                        comm, request);
    }
    loom_pmpi_call_start(&call, (sendbuf == MPI_IN_PLACE ? loom_pmpi_bytes(recvtype,
                         recvcount) : loom_pmpi_bytes(sendtype,
                         sendcount)) * (uint64_t)call.comm->size);
    rc = loom_pmpi_next.Ialltoall(sendbuf, sendcount, sendtype, recvbuf, recvcount, recvtype, comm,
                                  request);
    loom_pmpi_call_posted(&call, rc, request);
    return rc;
}

int MPI_Ialltoallv(const void *sendbuf, const int sendcounts[], const int sdispls[],
                   MPI_Datatype sendtype, void *recvbuf, const int recvcounts[],
                   const int rdispls[], MPI_Datatype recvtype, MPI_Comm comm, MPI_Request *request)
{
    loom_pmpi_call_t call;
    int rc;

    if (!loom_pmpi_call_begin(&call, LOOM_PMPI_IALLTOALLV, comm, __builtin_return_address(0), -1)) {
        return loom_pmpi_next.Ialltoallv(sendbuf, sendcounts, sdispls, sendtype, recvbuf,
                                         recvcounts, rdispls, recvtype, comm, request);
    }
    loom_pmpi_call_start(&call, sendbuf == MPI_IN_PLACE ? loom_pmpi_bytes_sum(recvcounts,
                         call.comm->size, recvtype) : loom_pmpi_bytes_sum(sendcounts,
                         call.comm->size, sendtype));
    rc = loom_pmpi_next.Ialltoallv(sendbuf, sendcounts, sdispls, sendtype, recvbuf, recvcounts,
                                   rdispls, recvtype, comm, request);
    loom_pmpi_call_posted(&call, rc, request);
    return rc;
}

int MPI_Ialltoallw(const void *sendbuf, const int sendcounts[], const int sdispls[],
                   const MPI_Datatype sendtypes[], void *recvbuf, const int recvcounts[],
                   const int rdispls[], const MPI_Datatype recvtypes[], MPI_Comm comm,
                   MPI_Request *request)
{
    loom_pmpi_call_t call;
    int rc;

    if (!loom_pmpi_call_begin(&call, LOOM_PMPI_IALLTOALLW, comm, __builtin_return_address(0), -1)) {
        return loom_pmpi_next.Ialltoallw(sendbuf, sendcounts, sdispls, sendtypes, recvbuf,
                                         recvcounts, rdispls, recvtypes, comm, request);
    }
    loom_pmpi_call_start(&call, sendbuf == MPI_IN_PLACE ? loom_pmpi_bytes_w(recvcounts, recvtypes,
                         call.comm->size) : loom_pmpi_bytes_w(sendcounts, sendtypes,
                         call.comm->size));
    rc = loom_pmpi_next.Ialltoallw(sendbuf, sendcounts, sdispls, sendtypes, recvbuf, recvcounts,
                                   rdispls, recvtypes, comm, request);
    loom_pmpi_call_posted(&call, rc, request);
    return rc;
}

int MPI_Ireduce_scatter(const void *sendbuf, void *recvbuf, const int recvcounts[],
                        MPI_Datatype datatype, MPI_Op op, MPI_Comm comm, MPI_Request *request)
{
    loom_pmpi_call_t call;
    int rc;

    if (!loom_pmpi_call_begin(&call, LOOM_PMPI_IREDUCE_SCATTER, comm, __builtin_return_address(0),
        -1)) {
        return loom_pmpi_next.Ireduce_scatter(sendbuf, recvbuf, recvcounts, datatype, op, comm,
                                              request);
    }
    loom_pmpi_call_start(&call, loom_pmpi_bytes_sum(recvcounts, call.comm->size, datatype));
    rc = loom_pmpi_next.Ireduce_scatter(sendbuf, recvbuf, recvcounts, datatype, op, comm, request);
    loom_pmpi_call_posted(&call, rc, request);
    return rc;
}

int MPI_Ireduce_scatter_block(const void *sendbuf, void *recvbuf, int recvcount,
                              MPI_Datatype datatype, MPI_Op op, MPI_Comm comm,
                              MPI_Request *request)
{
    loom_pmpi_call_t call;
    int rc;

    if (!loom_pmpi_call_begin(&call, LOOM_PMPI_IREDUCE_SCATTER_BLOCK, comm,
        __builtin_return_address(0), -1)) {
        return loom_pmpi_next.Ireduce_scatter_block(sendbuf, recvbuf, recvcount, datatype, op, comm,
                                                    request);
    }
    loom_pmpi_call_start(&call, loom_pmpi_bytes(datatype, recvcount) * (uint64_t)call.comm->size);
    rc = loom_pmpi_next.Ireduce_scatter_block(sendbuf, recvbuf, recvcount, datatype, op, comm,
                                              request);
    loom_pmpi_call_posted(&call, rc, request);
    return rc;
}

int MPI_Iscan(const void *sendbuf, void *recvbuf, int count, MPI_Datatype datatype, MPI_Op op,
              MPI_Comm comm, MPI_Request *request)
{
    loom_pmpi_call_t call;
    int rc;

    if (!loom_pmpi_call_begin(&call, LOOM_PMPI_ISCAN, comm, __builtin_return_address(0), -1)) {
        return loom_pmpi_next.Iscan(sendbuf, recvbuf, count, datatype, op, comm, request);
    }
    loom_pmpi_call_start(&call, loom_pmpi_bytes(datatype, count));
    rc = loom_pmpi_next.Iscan(sendbuf, recvbuf, count, datatype, op, comm, request);
    loom_pmpi_call_posted(&call, rc, request);
    return rc;
}

int MPI_Iexscan(const void *sendbuf, void *recvbuf, int count, MPI_Datatype datatype, MPI_Op op,
                MPI_Comm comm, MPI_Request *request)
{
    loom_pmpi_call_t call;
    int rc;

    if (!loom_pmpi_call_begin(&call, LOOM_PMPI_IEXSCAN, comm, __builtin_return_address(0), -1)) {
        return loom_pmpi_next.Iexscan(sendbuf, recvbuf, count, datatype, op, comm, request);
    }
    loom_pmpi_call_start(&call, loom_pmpi_bytes(datatype, count));
    rc = loom_pmpi_next.Iexscan(sendbuf, recvbuf, count, datatype, op, comm, request);
    loom_pmpi_call_posted(&call, rc, request);
    return rc;
}

int MPI_Ibarrier(MPI_Comm comm, MPI_Request *request)
{
    loom_pmpi_call_t call;
    int rc;

    if (!loom_pmpi_call_begin(&call, LOOM_PMPI_IBARRIER, comm, __builtin_return_address(0), -1)) {
        return loom_pmpi_next.Ibarrier(comm, request);
    }
    loom_pmpi_call_start(&call, 0);
    rc = loom_pmpi_next.Ibarrier(comm, request);
    loom_pmpi_call_posted(&call, rc, request);
    return rc;
}
