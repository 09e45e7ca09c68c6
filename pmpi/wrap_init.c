/*
 * MPI_Init, MPI_Init_thread and MPI_Finalize: profiling starts after the
 * next MPI_Init returns and is reported before the next MPI_Finalize runs.
 */
#include "next.h"
#include "pmpi.h"

int MPI_Init(int *argc, char ***argv)
{
    int rc, provided = MPI_THREAD_SINGLE;

    if (loom_pmpi_next.Init == NULL && loom_pmpi_next_load() != NULL) {
        return MPI_ERR_INTERN;          /* no MPI below: nothing can run */
    }
    rc = loom_pmpi_next.Init(argc, argv);
    if (rc == MPI_SUCCESS) {
        PMPI_Query_thread(&provided);
        loom_pmpi_start(provided);
    }
    return rc;
}

int MPI_Init_thread(int *argc, char ***argv, int required, int *provided)
{
    int rc;

    if (loom_pmpi_next.Init_thread == NULL && loom_pmpi_next_load() != NULL) {
        return MPI_ERR_INTERN;
    }
    rc = loom_pmpi_next.Init_thread(argc, argv, required, provided);
    if (rc == MPI_SUCCESS) {
        loom_pmpi_start(*provided);
    }
    return rc;
}

int MPI_Finalize(void)
{
    loom_pmpi_stop();
    return loom_pmpi_next.Finalize();
}
