/* Resolving the next definitions (next.h). */
#define _GNU_SOURCE
#include <dlfcn.h>
#include <stddef.h>

#include "next.h"

loom_pmpi_next_t loom_pmpi_next;

typedef struct {
    const char *name;
    void **fn_p;
} loom_pmpi_next_entry_t;

const char *loom_pmpi_next_load(void)
{
    const loom_pmpi_next_entry_t entries[] = {
        { "MPI_Init", (void **)&loom_pmpi_next.Init },
        { "MPI_Init_thread", (void **)&loom_pmpi_next.Init_thread },
        { "MPI_Finalize", (void **)&loom_pmpi_next.Finalize },
        { "MPI_Allreduce", (void **)&loom_pmpi_next.Allreduce },
        { "MPI_Reduce", (void **)&loom_pmpi_next.Reduce },
        { "MPI_Bcast", (void **)&loom_pmpi_next.Bcast },
        { "MPI_Allgather", (void **)&loom_pmpi_next.Allgather },
        { "MPI_Allgatherv", (void **)&loom_pmpi_next.Allgatherv },
        { "MPI_Gather", (void **)&loom_pmpi_next.Gather },
        { "MPI_Gatherv", (void **)&loom_pmpi_next.Gatherv },
        { "MPI_Scatter", (void **)&loom_pmpi_next.Scatter },
        { "MPI_Scatterv", (void **)&loom_pmpi_next.Scatterv },
        { "MPI_Alltoall", (void **)&loom_pmpi_next.Alltoall },
        { "MPI_Alltoallv", (void **)&loom_pmpi_next.Alltoallv },
        { "MPI_Alltoallw", (void **)&loom_pmpi_next.Alltoallw },
        { "MPI_Reduce_scatter", (void **)&loom_pmpi_next.Reduce_scatter },
        { "MPI_Reduce_scatter_block", (void **)&loom_pmpi_next.Reduce_scatter_block },
        { "MPI_Scan", (void **)&loom_pmpi_next.Scan },
        { "MPI_Exscan", (void **)&loom_pmpi_next.Exscan },
        { "MPI_Barrier", (void **)&loom_pmpi_next.Barrier },
        { "MPI_Iallreduce", (void **)&loom_pmpi_next.Iallreduce },
        { "MPI_Ireduce", (void **)&loom_pmpi_next.Ireduce },
        { "MPI_Ibcast", (void **)&loom_pmpi_next.Ibcast },
        { "MPI_Iallgather", (void **)&loom_pmpi_next.Iallgather },
        { "MPI_Iallgatherv", (void **)&loom_pmpi_next.Iallgatherv },
        { "MPI_Igather", (void **)&loom_pmpi_next.Igather },
        { "MPI_Igatherv", (void **)&loom_pmpi_next.Igatherv },
        { "MPI_Iscatter", (void **)&loom_pmpi_next.Iscatter },
        { "MPI_Iscatterv", (void **)&loom_pmpi_next.Iscatterv },
        { "MPI_Ialltoall", (void **)&loom_pmpi_next.Ialltoall },
        { "MPI_Ialltoallv", (void **)&loom_pmpi_next.Ialltoallv },
        { "MPI_Ialltoallw", (void **)&loom_pmpi_next.Ialltoallw },
        { "MPI_Ireduce_scatter", (void **)&loom_pmpi_next.Ireduce_scatter },
        { "MPI_Ireduce_scatter_block", (void **)&loom_pmpi_next.Ireduce_scatter_block },
        { "MPI_Iscan", (void **)&loom_pmpi_next.Iscan },
        { "MPI_Iexscan", (void **)&loom_pmpi_next.Iexscan },
        { "MPI_Ibarrier", (void **)&loom_pmpi_next.Ibarrier },
        { "MPI_Wait", (void **)&loom_pmpi_next.Wait },
        { "MPI_Waitall", (void **)&loom_pmpi_next.Waitall },
        { "MPI_Waitany", (void **)&loom_pmpi_next.Waitany },
        { "MPI_Waitsome", (void **)&loom_pmpi_next.Waitsome },
        { "MPI_Test", (void **)&loom_pmpi_next.Test },
        { "MPI_Testall", (void **)&loom_pmpi_next.Testall },
        { "MPI_Testany", (void **)&loom_pmpi_next.Testany },
        { "MPI_Testsome", (void **)&loom_pmpi_next.Testsome },
        { "MPI_Request_free", (void **)&loom_pmpi_next.Request_free },
        { "MPI_Send", (void **)&loom_pmpi_next.Send },
        { "MPI_Ssend", (void **)&loom_pmpi_next.Ssend },
        { "MPI_Bsend", (void **)&loom_pmpi_next.Bsend },
        { "MPI_Rsend", (void **)&loom_pmpi_next.Rsend },
        { "MPI_Isend", (void **)&loom_pmpi_next.Isend },
        { "MPI_Issend", (void **)&loom_pmpi_next.Issend },
        { "MPI_Irecv", (void **)&loom_pmpi_next.Irecv },
        { "MPI_Recv", (void **)&loom_pmpi_next.Recv },
        { "MPI_Sendrecv", (void **)&loom_pmpi_next.Sendrecv },
        { "MPI_Sendrecv_replace", (void **)&loom_pmpi_next.Sendrecv_replace },
        { "MPI_Comm_set_name", (void **)&loom_pmpi_next.Comm_set_name },
        { "MPI_Comm_dup", (void **)&loom_pmpi_next.Comm_dup },
        { "MPI_Comm_split", (void **)&loom_pmpi_next.Comm_split },
        { "MPI_Comm_split_type", (void **)&loom_pmpi_next.Comm_split_type },
        { "MPI_Comm_create", (void **)&loom_pmpi_next.Comm_create },
        { "MPI_Comm_create_group", (void **)&loom_pmpi_next.Comm_create_group },
        { "MPI_Comm_free", (void **)&loom_pmpi_next.Comm_free },
    };
    const char *missing = NULL;
    size_t i;

    for (i = 0; i < sizeof(entries) / sizeof(entries[0]); ++i) {
        if (*entries[i].fn_p == NULL) {
            *entries[i].fn_p = dlsym(RTLD_NEXT, entries[i].name);
        }
        if (*entries[i].fn_p == NULL && missing == NULL) {
            missing = entries[i].name;
        }
    }
    return missing;
}

/* Resolved when the library is loaded, before any wrapper can run.  A
 * process without MPI (mpirun itself, when LD_PRELOAD reaches it) is left
 * alone: MPI_Init is where a missing function is an error. */
__attribute__((constructor)) static void loom_pmpi_next_init(void)
{
    (void)loom_pmpi_next_load();
}
