/*
 * Completion calls: a nonblocking collective is timed until the Wait or
 * Test that sees it complete.  The next definition nulls the handles it
 * completes, so they are copied first; with no collective in flight
 * (loom_pmpi.tracked == 0) nothing is copied and a wrapper is one call.
 */
#include <stdlib.h>

#include "next.h"
#include "pmpi.h"

/* Room for the handles of one Waitall/Testall/Waitsome/Testsome without
 * allocating; longer arrays are copied to the heap (the slow path). */
#define LOOM_PMPI_COPY_CAP 1024

static MPI_Request loom_pmpi_copy_buf[LOOM_PMPI_COPY_CAP];

static MPI_Request *loom_pmpi_copy(int count, const MPI_Request *reqs)
{
    MPI_Request *copy = loom_pmpi_copy_buf;
    int i;

    if (count > LOOM_PMPI_COPY_CAP) {
        copy = malloc((size_t)count * sizeof(*copy));
        if (copy == NULL) {
            return NULL;
        }
    }
    for (i = 0; i < count; ++i) {
        copy[i] = reqs[i];
    }
    return copy;
}

static void loom_pmpi_copy_release(MPI_Request *copy)
{
    if (copy != loom_pmpi_copy_buf) {
        free(copy);
    }
}

/* Every non-null handle of the copy completed. */
static void loom_pmpi_done_all(int count, const MPI_Request *copy)
{
    int i;

    for (i = 0; i < count; ++i) {
        if (copy[i] != MPI_REQUEST_NULL) {
            loom_pmpi_request_done(copy[i], 1);
        }
    }
}

int MPI_Wait(MPI_Request *request, MPI_Status *status)
{
    MPI_Request copy;
    int rc;

    if (loom_pmpi.tracked == 0) {
        return loom_pmpi_next.Wait(request, status);
    }
    copy = *request;
    rc = loom_pmpi_next.Wait(request, status);
    if (rc == MPI_SUCCESS && copy != MPI_REQUEST_NULL) {
        loom_pmpi_request_done(copy, 1);
    }
    return rc;
}

int MPI_Test(MPI_Request *request, int *flag, MPI_Status *status)
{
    MPI_Request copy;
    int rc;

    if (loom_pmpi.tracked == 0) {
        return loom_pmpi_next.Test(request, flag, status);
    }
    copy = *request;
    rc = loom_pmpi_next.Test(request, flag, status);
    if (rc == MPI_SUCCESS && *flag && copy != MPI_REQUEST_NULL) {
        loom_pmpi_request_done(copy, 1);
    }
    return rc;
}

int MPI_Waitall(int count, MPI_Request array_of_requests[], MPI_Status *array_of_statuses)
{
    MPI_Request *copy;
    int rc;

    if (loom_pmpi.tracked == 0 || count <= 0 ||
        (copy = loom_pmpi_copy(count, array_of_requests)) == NULL) {
        return loom_pmpi_next.Waitall(count, array_of_requests, array_of_statuses);
    }
    rc = loom_pmpi_next.Waitall(count, array_of_requests, array_of_statuses);
    if (rc == MPI_SUCCESS) {
        loom_pmpi_done_all(count, copy);
    }
    loom_pmpi_copy_release(copy);
    return rc;
}

int MPI_Testall(int count, MPI_Request array_of_requests[], int *flag,
                MPI_Status array_of_statuses[])
{
    MPI_Request *copy;
    int rc;

    if (loom_pmpi.tracked == 0 || count <= 0 ||
        (copy = loom_pmpi_copy(count, array_of_requests)) == NULL) {
        return loom_pmpi_next.Testall(count, array_of_requests, flag, array_of_statuses);
    }
    rc = loom_pmpi_next.Testall(count, array_of_requests, flag, array_of_statuses);
    if (rc == MPI_SUCCESS && *flag) {
        loom_pmpi_done_all(count, copy);
    }
    loom_pmpi_copy_release(copy);
    return rc;
}

int MPI_Waitany(int count, MPI_Request array_of_requests[], int *index, MPI_Status *status)
{
    MPI_Request *copy;
    int rc;

    if (loom_pmpi.tracked == 0 || count <= 0 ||
        (copy = loom_pmpi_copy(count, array_of_requests)) == NULL) {
        return loom_pmpi_next.Waitany(count, array_of_requests, index, status);
    }
    rc = loom_pmpi_next.Waitany(count, array_of_requests, index, status);
    if (rc == MPI_SUCCESS && *index != MPI_UNDEFINED) {
        loom_pmpi_request_done(copy[*index], 1);
    }
    loom_pmpi_copy_release(copy);
    return rc;
}

int MPI_Testany(int count, MPI_Request array_of_requests[], int *index, int *flag,
                MPI_Status *status)
{
    MPI_Request *copy;
    int rc;

    if (loom_pmpi.tracked == 0 || count <= 0 ||
        (copy = loom_pmpi_copy(count, array_of_requests)) == NULL) {
        return loom_pmpi_next.Testany(count, array_of_requests, index, flag, status);
    }
    rc = loom_pmpi_next.Testany(count, array_of_requests, index, flag, status);
    if (rc == MPI_SUCCESS && *flag && *index != MPI_UNDEFINED) {
        loom_pmpi_request_done(copy[*index], 1);
    }
    loom_pmpi_copy_release(copy);
    return rc;
}

/* Waitsome and Testsome: the completed ones are listed by index. */
static void loom_pmpi_done_some(int outcount, const int *indices, const MPI_Request *copy)
{
    int i;

    for (i = 0; i < outcount; ++i) {
        loom_pmpi_request_done(copy[indices[i]], 1);
    }
}

int MPI_Waitsome(int incount, MPI_Request array_of_requests[], int *outcount,
                 int array_of_indices[], MPI_Status array_of_statuses[])
{
    MPI_Request *copy;
    int rc;

    if (loom_pmpi.tracked == 0 || incount <= 0 ||
        (copy = loom_pmpi_copy(incount, array_of_requests)) == NULL) {
        return loom_pmpi_next.Waitsome(incount, array_of_requests, outcount, array_of_indices,
                                       array_of_statuses);
    }
    rc = loom_pmpi_next.Waitsome(incount, array_of_requests, outcount, array_of_indices,
                                 array_of_statuses);
    if (rc == MPI_SUCCESS && *outcount != MPI_UNDEFINED) {
        loom_pmpi_done_some(*outcount, array_of_indices, copy);
    }
    loom_pmpi_copy_release(copy);
    return rc;
}

int MPI_Testsome(int incount, MPI_Request array_of_requests[], int *outcount,
                 int array_of_indices[], MPI_Status array_of_statuses[])
{
    MPI_Request *copy;
    int rc;

    if (loom_pmpi.tracked == 0 || incount <= 0 ||
        (copy = loom_pmpi_copy(incount, array_of_requests)) == NULL) {
        return loom_pmpi_next.Testsome(incount, array_of_requests, outcount, array_of_indices,
                                       array_of_statuses);
    }
    rc = loom_pmpi_next.Testsome(incount, array_of_requests, outcount, array_of_indices,
                                 array_of_statuses);
    if (rc == MPI_SUCCESS && *outcount != MPI_UNDEFINED) {
        loom_pmpi_done_some(*outcount, array_of_indices, copy);
    }
    loom_pmpi_copy_release(copy);
    return rc;
}

/* A freed collective request can no longer be timed: it is forgotten. */
int MPI_Request_free(MPI_Request *request)
{
    MPI_Request copy;
    int rc;

    if (loom_pmpi.tracked == 0) {
        return loom_pmpi_next.Request_free(request);
    }
    copy = *request;
    rc = loom_pmpi_next.Request_free(request);
    if (rc == MPI_SUCCESS) {
        loom_pmpi_request_done(copy, 0);
    }
    return rc;
}
