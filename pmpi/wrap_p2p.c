/*
 * Point-to-point calls: timed per site like the collectives (no last
 * arrival), and the bytes of every send added to the row of the traffic
 * matrix for its destination's world rank.  Receives are charged the
 * capacity of their buffer, which is all a receive knows before it matches.
 */
#include "next.h"
#include "pmpi.h"

typedef __typeof__(&MPI_Send) loom_pmpi_send_fn_t;

/* Send, Ssend, Bsend and Rsend differ only in their next definition. */
static int loom_pmpi_send(loom_pmpi_send_fn_t next, int fn, const void *ret, const void *buf,
                          int count, MPI_Datatype datatype, int dest, int tag, MPI_Comm comm)
{
    loom_pmpi_call_t call;
    uint64_t bytes;
    int rc;

    if (!loom_pmpi_call_begin(&call, fn, comm, ret, -1)) {
        return next(buf, count, datatype, dest, tag, comm);
    }
    bytes = loom_pmpi_bytes(datatype, count);
    loom_pmpi_call_start(&call, bytes);
    rc = next(buf, count, datatype, dest, tag, comm);
    loom_pmpi_call_end(&call);
    loom_pmpi_p2p_sent(comm, dest, bytes);
    return rc;
}

int MPI_Send(const void *buf, int count, MPI_Datatype datatype, int dest, int tag, MPI_Comm comm)
{
    return loom_pmpi_send(loom_pmpi_next.Send, LOOM_PMPI_SEND, __builtin_return_address(0), buf,
                          count, datatype, dest, tag, comm);
}

int MPI_Ssend(const void *buf, int count, MPI_Datatype datatype, int dest, int tag, MPI_Comm comm)
{
    return loom_pmpi_send(loom_pmpi_next.Ssend, LOOM_PMPI_SSEND, __builtin_return_address(0), buf,
                          count, datatype, dest, tag, comm);
}

int MPI_Bsend(const void *buf, int count, MPI_Datatype datatype, int dest, int tag, MPI_Comm comm)
{
    return loom_pmpi_send(loom_pmpi_next.Bsend, LOOM_PMPI_BSEND, __builtin_return_address(0), buf,
                          count, datatype, dest, tag, comm);
}

int MPI_Rsend(const void *buf, int count, MPI_Datatype datatype, int dest, int tag, MPI_Comm comm)
{
    return loom_pmpi_send(loom_pmpi_next.Rsend, LOOM_PMPI_RSEND, __builtin_return_address(0), buf,
                          count, datatype, dest, tag, comm);
}

typedef __typeof__(&MPI_Isend) loom_pmpi_isend_fn_t;

/* Isend and Issend: the post is timed; the bytes count when posted. */
static int loom_pmpi_isend(loom_pmpi_isend_fn_t next, int fn, const void *ret, const void *buf,
                           int count, MPI_Datatype datatype, int dest, int tag, MPI_Comm comm,
                           MPI_Request *request)
{
    loom_pmpi_call_t call;
    uint64_t bytes;
    int rc;

    if (!loom_pmpi_call_begin(&call, fn, comm, ret, -1)) {
        return next(buf, count, datatype, dest, tag, comm, request);
    }
    bytes = loom_pmpi_bytes(datatype, count);
    loom_pmpi_call_start(&call, bytes);
    rc = next(buf, count, datatype, dest, tag, comm, request);
    loom_pmpi_call_end(&call);
    loom_pmpi_p2p_sent(comm, dest, bytes);
    return rc;
}

int MPI_Isend(const void *buf, int count, MPI_Datatype datatype, int dest, int tag, MPI_Comm comm,
              MPI_Request *request)
{
    return loom_pmpi_isend(loom_pmpi_next.Isend, LOOM_PMPI_ISEND, __builtin_return_address(0),
                           buf, count, datatype, dest, tag, comm, request);
}

int MPI_Issend(const void *buf, int count, MPI_Datatype datatype, int dest, int tag,
               MPI_Comm comm, MPI_Request *request)
{
    return loom_pmpi_isend(loom_pmpi_next.Issend, LOOM_PMPI_ISSEND, __builtin_return_address(0),
                           buf, count, datatype, dest, tag, comm, request);
}

int MPI_Irecv(void *buf, int count, MPI_Datatype datatype, int source, int tag, MPI_Comm comm,
              MPI_Request *request)
{
    loom_pmpi_call_t call;
    int rc;

    if (!loom_pmpi_call_begin(&call, LOOM_PMPI_IRECV, comm, __builtin_return_address(0), -1)) {
        return loom_pmpi_next.Irecv(buf, count, datatype, source, tag, comm, request);
    }
    loom_pmpi_call_start(&call, loom_pmpi_bytes(datatype, count));
    rc = loom_pmpi_next.Irecv(buf, count, datatype, source, tag, comm, request);
    loom_pmpi_call_end(&call);
    return rc;
}

int MPI_Recv(void *buf, int count, MPI_Datatype datatype, int source, int tag, MPI_Comm comm,
             MPI_Status *status)
{
    loom_pmpi_call_t call;
    int rc;

    if (!loom_pmpi_call_begin(&call, LOOM_PMPI_RECV, comm, __builtin_return_address(0), -1)) {
        return loom_pmpi_next.Recv(buf, count, datatype, source, tag, comm, status);
    }
    loom_pmpi_call_start(&call, loom_pmpi_bytes(datatype, count));
    rc = loom_pmpi_next.Recv(buf, count, datatype, source, tag, comm, status);
    loom_pmpi_call_end(&call);
    return rc;
}

int MPI_Sendrecv(const void *sendbuf, int sendcount, MPI_Datatype sendtype, int dest, int sendtag,
                 void *recvbuf, int recvcount, MPI_Datatype recvtype, int source, int recvtag,
                 MPI_Comm comm, MPI_Status *status)
{
    loom_pmpi_call_t call;
    uint64_t bytes;
    int rc;

    if (!loom_pmpi_call_begin(&call, LOOM_PMPI_SENDRECV, comm, __builtin_return_address(0), -1)) {
        return loom_pmpi_next.Sendrecv(sendbuf, sendcount, sendtype, dest, sendtag, recvbuf,
                                       recvcount, recvtype, source, recvtag, comm, status);
    }
    bytes = loom_pmpi_bytes(sendtype, sendcount);
    loom_pmpi_call_start(&call, bytes);
    rc = loom_pmpi_next.Sendrecv(sendbuf, sendcount, sendtype, dest, sendtag, recvbuf, recvcount,
                                 recvtype, source, recvtag, comm, status);
    loom_pmpi_call_end(&call);
    loom_pmpi_p2p_sent(comm, dest, bytes);
    return rc;
}

int MPI_Sendrecv_replace(void *buf, int count, MPI_Datatype datatype, int dest, int sendtag,
                         int source, int recvtag, MPI_Comm comm, MPI_Status *status)
{
    loom_pmpi_call_t call;
    uint64_t bytes;
    int rc;

    if (!loom_pmpi_call_begin(&call, LOOM_PMPI_SENDRECV_REPLACE, comm,
                              __builtin_return_address(0), -1)) {
        return loom_pmpi_next.Sendrecv_replace(buf, count, datatype, dest, sendtag, source,
                                               recvtag, comm, status);
    }
    bytes = loom_pmpi_bytes(datatype, count);
    loom_pmpi_call_start(&call, bytes);
    rc = loom_pmpi_next.Sendrecv_replace(buf, count, datatype, dest, sendtag, source, recvtag,
                                         comm, status);
    loom_pmpi_call_end(&call);
    loom_pmpi_p2p_sent(comm, dest, bytes);
    return rc;
}
