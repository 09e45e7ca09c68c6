/*
 * Communicator calls: creation gives the new communicator an id that is the
 * same on every member (comms.c), MPI_Comm_set_name its name in the report,
 * and MPI_Comm_free (collective) flushes its last-arrival windows first.
 */
#include "next.h"
#include "pmpi.h"

/* create_group's salt: its tag, never 0 (0 means "count the call"). */
static uint64_t loom_pmpi_group_salt(int tag)
{
    return loom_pmpi_hash(0x67726f7570ull, (uint64_t)(unsigned)tag) | 1;
}

int MPI_Comm_dup(MPI_Comm comm, MPI_Comm *newcomm)
{
    int rc = loom_pmpi_next.Comm_dup(comm, newcomm);

    if (rc == MPI_SUCCESS && loom_pmpi.active) {
        loom_pmpi_comm_created(comm, *newcomm, 0);
    }
    return rc;
}

int MPI_Comm_split(MPI_Comm comm, int color, int key, MPI_Comm *newcomm)
{
    int rc = loom_pmpi_next.Comm_split(comm, color, key, newcomm);

    if (rc == MPI_SUCCESS && loom_pmpi.active) {
        loom_pmpi_comm_created(comm, *newcomm, 0);
    }
    return rc;
}

int MPI_Comm_split_type(MPI_Comm comm, int split_type, int key, MPI_Info info, MPI_Comm *newcomm)
{
    int rc = loom_pmpi_next.Comm_split_type(comm, split_type, key, info, newcomm);

    if (rc == MPI_SUCCESS && loom_pmpi.active) {
        loom_pmpi_comm_created(comm, *newcomm, 0);
    }
    return rc;
}

int MPI_Comm_create(MPI_Comm comm, MPI_Group group, MPI_Comm *newcomm)
{
    int rc = loom_pmpi_next.Comm_create(comm, group, newcomm);

    if (rc == MPI_SUCCESS && loom_pmpi.active) {
        loom_pmpi_comm_created(comm, *newcomm, 0);
    }
    return rc;
}

int MPI_Comm_create_group(MPI_Comm comm, MPI_Group group, int tag, MPI_Comm *newcomm)
{
    int rc = loom_pmpi_next.Comm_create_group(comm, group, tag, newcomm);

    if (rc == MPI_SUCCESS && loom_pmpi.active) {
        loom_pmpi_comm_created(comm, *newcomm, loom_pmpi_group_salt(tag));
    }
    return rc;
}

int MPI_Comm_set_name(MPI_Comm comm, const char *comm_name)
{
    int rc = loom_pmpi_next.Comm_set_name(comm, comm_name);

    if (rc == MPI_SUCCESS && loom_pmpi.active) {
        loom_pmpi_comm_set_name(comm, comm_name);
    }
    return rc;
}

int MPI_Comm_free(MPI_Comm *comm)
{
    if (loom_pmpi.active && comm != NULL) {
        loom_pmpi_comm_release(*comm);
    }
    return loom_pmpi_next.Comm_free(comm);
}
