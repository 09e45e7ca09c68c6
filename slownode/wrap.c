/*
 * The MPI functions libloom-slownode intercepts.  Each calls the next
 * definition (pmpi/next.c, shared with libloom-pmpi: another tool preloaded
 * after this one, or MPI itself), so the two tools stack in either order.
 * A blocking collective is timed around that call: injection and the entry
 * stamp before it, the window after it (where a full window is exchanged),
 * and the exit stamp last so the exchange never counts as the program's
 * time between collectives.  Nonblocking collectives are only counted:
 * their start says nothing about when the rank is ready.
 */
#include "pmpi/next.h"
#include "slownode.h"

typedef struct {
    uint64_t entry_ns;
    uint64_t gap_ns;
} loom_sn_call_t;

static void loom_sn_call_begin(loom_sn_call_t *call)
{
    *call = (loom_sn_call_t){ 0, 0 };
    if (!loom_sn.active) {
        return;
    }
    loom_sn_inject(loom_sn_now());
    call->entry_ns = loom_sn_now();
    call->gap_ns = loom_sn.last_exit_ns != 0 ? call->entry_ns - loom_sn.last_exit_ns : 0;
}

static int loom_sn_call_end(MPI_Comm comm, const loom_sn_call_t *call, int rc)
{
    if (!loom_sn.active) {
        return rc;
    }
    loom_sn.blocking_calls++;
    if (rc == MPI_SUCCESS) {
        loom_sn_window_record(comm, call->entry_ns, call->gap_ns);
    }
    loom_sn.last_exit_ns = loom_sn_now();
    return rc;
}

static int loom_sn_count_nonblocking(int rc)
{
    loom_sn.nonblocking_calls += loom_sn.active;
    return rc;
}

/* ------------------------------------------------------ init and finalize */

/* The table is resolved when the library loads; a program that reaches
 * MPI_Init with no MPI library below gets an error, not a crash. */
static int loom_sn_next_missing(void)
{
    return loom_pmpi_next.Init == NULL && loom_pmpi_next_load() != NULL;
}

int MPI_Init(int *argc, char ***argv)
{
    int provided = MPI_THREAD_SINGLE;
    int rc = loom_sn_next_missing() ? MPI_ERR_INTERN : loom_pmpi_next.Init(argc, argv);

    if (rc == MPI_SUCCESS && PMPI_Query_thread(&provided) == MPI_SUCCESS) {
        loom_sn_start(provided);
    }
    return rc;
}

int MPI_Init_thread(int *argc, char ***argv, int required, int *provided)
{
    int rc = loom_sn_next_missing() ? MPI_ERR_INTERN
                                    : loom_pmpi_next.Init_thread(argc, argv, required, provided);

    if (rc == MPI_SUCCESS) {
        loom_sn_start(*provided);
    }
    return rc;
}

int MPI_Finalize(void)
{
    loom_sn_stop();
    return loom_pmpi_next.Finalize();
}

int MPI_Comm_free(MPI_Comm *comm)
{
    if (loom_sn.active && comm != NULL) {
        loom_sn_window_forget(*comm);
    }
    return loom_pmpi_next.Comm_free(comm);
}

/* ------------------------------------------------- blocking collectives */

int MPI_Barrier(MPI_Comm comm)
{
    loom_sn_call_t call;

    loom_sn_call_begin(&call);
    return loom_sn_call_end(comm, &call, loom_pmpi_next.Barrier(comm));
}

int MPI_Allreduce(const void *sbuf, void *rbuf, int count, MPI_Datatype type, MPI_Op op,
                  MPI_Comm comm)
{
    loom_sn_call_t call;

    loom_sn_call_begin(&call);
    return loom_sn_call_end(comm, &call,
                            loom_pmpi_next.Allreduce(sbuf, rbuf, count, type, op, comm));
}

int MPI_Reduce(const void *sbuf, void *rbuf, int count, MPI_Datatype type, MPI_Op op, int root,
               MPI_Comm comm)
{
    loom_sn_call_t call;

    loom_sn_call_begin(&call);
    return loom_sn_call_end(comm, &call,
                            loom_pmpi_next.Reduce(sbuf, rbuf, count, type, op, root, comm));
}

int MPI_Bcast(void *buf, int count, MPI_Datatype type, int root, MPI_Comm comm)
{
    loom_sn_call_t call;

    loom_sn_call_begin(&call);
    return loom_sn_call_end(comm, &call, loom_pmpi_next.Bcast(buf, count, type, root, comm));
}

int MPI_Allgather(const void *sbuf, int scount, MPI_Datatype stype, void *rbuf, int rcount,
                  MPI_Datatype rtype, MPI_Comm comm)
{
    loom_sn_call_t call;

    loom_sn_call_begin(&call);
    return loom_sn_call_end(comm, &call, loom_pmpi_next.Allgather(sbuf, scount, stype, rbuf,
                                                                  rcount, rtype, comm));
}

int MPI_Allgatherv(const void *sbuf, int scount, MPI_Datatype stype, void *rbuf,
                   const int rcounts[], const int displs[], MPI_Datatype rtype, MPI_Comm comm)
{
    loom_sn_call_t call;

    loom_sn_call_begin(&call);
    return loom_sn_call_end(comm, &call, loom_pmpi_next.Allgatherv(sbuf, scount, stype, rbuf,
                                                                   rcounts, displs, rtype,
                                                                   comm));
}

int MPI_Gather(const void *sbuf, int scount, MPI_Datatype stype, void *rbuf, int rcount,
               MPI_Datatype rtype, int root, MPI_Comm comm)
{
    loom_sn_call_t call;

    loom_sn_call_begin(&call);
    return loom_sn_call_end(comm, &call, loom_pmpi_next.Gather(sbuf, scount, stype, rbuf,
                                                               rcount, rtype, root, comm));
}

int MPI_Gatherv(const void *sbuf, int scount, MPI_Datatype stype, void *rbuf,
                const int rcounts[], const int displs[], MPI_Datatype rtype, int root,
                MPI_Comm comm)
{
    loom_sn_call_t call;

    loom_sn_call_begin(&call);
    return loom_sn_call_end(comm, &call, loom_pmpi_next.Gatherv(sbuf, scount, stype, rbuf,
                                                                rcounts, displs, rtype, root,
                                                                comm));
}

int MPI_Scatter(const void *sbuf, int scount, MPI_Datatype stype, void *rbuf, int rcount,
                MPI_Datatype rtype, int root, MPI_Comm comm)
{
    loom_sn_call_t call;

    loom_sn_call_begin(&call);
    return loom_sn_call_end(comm, &call, loom_pmpi_next.Scatter(sbuf, scount, stype, rbuf,
                                                                rcount, rtype, root, comm));
}

int MPI_Scatterv(const void *sbuf, const int scounts[], const int displs[], MPI_Datatype stype,
                 void *rbuf, int rcount, MPI_Datatype rtype, int root, MPI_Comm comm)
{
    loom_sn_call_t call;

    loom_sn_call_begin(&call);
    return loom_sn_call_end(comm, &call, loom_pmpi_next.Scatterv(sbuf, scounts, displs, stype,
                                                                 rbuf, rcount, rtype, root,
                                                                 comm));
}

int MPI_Alltoall(const void *sbuf, int scount, MPI_Datatype stype, void *rbuf, int rcount,
                 MPI_Datatype rtype, MPI_Comm comm)
{
    loom_sn_call_t call;

    loom_sn_call_begin(&call);
    return loom_sn_call_end(comm, &call, loom_pmpi_next.Alltoall(sbuf, scount, stype, rbuf,
                                                                 rcount, rtype, comm));
}

int MPI_Alltoallv(const void *sbuf, const int scounts[], const int sdispls[], MPI_Datatype stype,
                  void *rbuf, const int rcounts[], const int rdispls[], MPI_Datatype rtype,
                  MPI_Comm comm)
{
    loom_sn_call_t call;

    loom_sn_call_begin(&call);
    return loom_sn_call_end(comm, &call, loom_pmpi_next.Alltoallv(sbuf, scounts, sdispls, stype,
                                                                  rbuf, rcounts, rdispls, rtype,
                                                                  comm));
}

int MPI_Reduce_scatter(const void *sbuf, void *rbuf, const int rcounts[], MPI_Datatype type,
                       MPI_Op op, MPI_Comm comm)
{
    loom_sn_call_t call;

    loom_sn_call_begin(&call);
    return loom_sn_call_end(comm, &call, loom_pmpi_next.Reduce_scatter(sbuf, rbuf, rcounts, type,
                                                                       op, comm));
}

int MPI_Reduce_scatter_block(const void *sbuf, void *rbuf, int rcount, MPI_Datatype type,
                             MPI_Op op, MPI_Comm comm)
{
    loom_sn_call_t call;

    loom_sn_call_begin(&call);
    return loom_sn_call_end(comm, &call, loom_pmpi_next.Reduce_scatter_block(sbuf, rbuf, rcount,
                                                                             type, op, comm));
}

int MPI_Scan(const void *sbuf, void *rbuf, int count, MPI_Datatype type, MPI_Op op,
             MPI_Comm comm)
{
    loom_sn_call_t call;

    loom_sn_call_begin(&call);
    return loom_sn_call_end(comm, &call, loom_pmpi_next.Scan(sbuf, rbuf, count, type, op, comm));
}

int MPI_Exscan(const void *sbuf, void *rbuf, int count, MPI_Datatype type, MPI_Op op,
               MPI_Comm comm)
{
    loom_sn_call_t call;

    loom_sn_call_begin(&call);
    return loom_sn_call_end(comm, &call,
                            loom_pmpi_next.Exscan(sbuf, rbuf, count, type, op, comm));
}

/* ----------------------------------------------- nonblocking, counted only */

int MPI_Iallreduce(const void *sbuf, void *rbuf, int count, MPI_Datatype type, MPI_Op op,
                   MPI_Comm comm, MPI_Request *req)
{
    return loom_sn_count_nonblocking(
        loom_pmpi_next.Iallreduce(sbuf, rbuf, count, type, op, comm, req));
}

int MPI_Ireduce(const void *sbuf, void *rbuf, int count, MPI_Datatype type, MPI_Op op, int root,
                MPI_Comm comm, MPI_Request *req)
{
    return loom_sn_count_nonblocking(
        loom_pmpi_next.Ireduce(sbuf, rbuf, count, type, op, root, comm, req));
}

int MPI_Ibcast(void *buf, int count, MPI_Datatype type, int root, MPI_Comm comm,
               MPI_Request *req)
{
    return loom_sn_count_nonblocking(loom_pmpi_next.Ibcast(buf, count, type, root, comm, req));
}

int MPI_Iallgather(const void *sbuf, int scount, MPI_Datatype stype, void *rbuf, int rcount,
                   MPI_Datatype rtype, MPI_Comm comm, MPI_Request *req)
{
    return loom_sn_count_nonblocking(
        loom_pmpi_next.Iallgather(sbuf, scount, stype, rbuf, rcount, rtype, comm, req));
}

int MPI_Ireduce_scatter_block(const void *sbuf, void *rbuf, int rcount, MPI_Datatype type,
                              MPI_Op op, MPI_Comm comm, MPI_Request *req)
{
    return loom_sn_count_nonblocking(
        loom_pmpi_next.Ireduce_scatter_block(sbuf, rbuf, rcount, type, op, comm, req));
}

int MPI_Ibarrier(MPI_Comm comm, MPI_Request *req)
{
    return loom_sn_count_nonblocking(loom_pmpi_next.Ibarrier(comm, req));
}
