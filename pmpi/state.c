/*
 * The process's profiling state: set up after the next MPI_Init, reported
 * and torn down before the next MPI_Finalize, in this order:
 *   start: settings, tables, the library's communicator, clock offsets,
 *          Loom's MPI_T counters;
 *   stop:  last windows flushed, clocks re-checked, MPI_T closed (Open MPI
 *          4.1.4 crashes if that happens after MPI_Finalize), the report
 *          gathered and written, tables freed.
 */
#include <stdio.h>
#include <stdlib.h>

#include "next.h"
#include "pmpi.h"

loom_pmpi_state_t loom_pmpi;

static void loom_pmpi_tables_free(void)
{
    free(loom_pmpi.sites);
    free(loom_pmpi.comms);
    free(loom_pmpi.traffic);
    free(loom_pmpi.coll_traffic);
    loom_pmpi.sites = NULL;
    loom_pmpi.comms = NULL;
    loom_pmpi.traffic = loom_pmpi.coll_traffic = NULL;
}

static int loom_pmpi_tables_alloc(void)
{
    loom_pmpi.sites = calloc(LOOM_PMPI_SITE_CAP, sizeof(*loom_pmpi.sites));
    loom_pmpi.comms = calloc(LOOM_PMPI_COMM_CAP, sizeof(*loom_pmpi.comms));
    loom_pmpi.traffic = calloc((size_t)loom_pmpi.world_size, sizeof(uint64_t));
    loom_pmpi.coll_traffic = calloc((size_t)loom_pmpi.world_size, sizeof(uint64_t));
    if (loom_pmpi.sites == NULL || loom_pmpi.comms == NULL || loom_pmpi.traffic == NULL ||
        loom_pmpi.coll_traffic == NULL) {
        loom_pmpi_tables_free();
        return 0;
    }
    return 1;
}

/* Whether to profile: every rank reaches the same answer, so that the
 * collective set-up below runs on all or none. */
static int loom_pmpi_wanted(int thread_level)
{
    const char *missing = loom_pmpi_next_load();

    loom_pmpi_settings_read(&loom_pmpi.settings);
    if (missing != NULL) {
        snprintf(loom_pmpi.settings.error, sizeof(loom_pmpi.settings.error),
                 "libloom-pmpi: no next definition of %s: the program runs unprofiled", missing);
        loom_pmpi.settings.enable = 0;
    } else if (thread_level == MPI_THREAD_MULTIPLE && loom_pmpi.settings.enable) {
        snprintf(loom_pmpi.settings.error, sizeof(loom_pmpi.settings.error),
                 "libloom-pmpi: the program runs with MPI_THREAD_MULTIPLE, which the profiler's "
                 "tables do not support: the program runs unprofiled");
        loom_pmpi.settings.enable = 0;
    }
    if (loom_pmpi.settings.error[0] != '\0' && loom_pmpi.world_rank == 0) {
        fprintf(stderr, "%s\n", loom_pmpi.settings.error);
    }
    return loom_pmpi.settings.enable;
}

void loom_pmpi_start(int thread_level)
{
    loom_pmpi_comm_t *world;
    uint64_t t0;

    PMPI_Comm_rank(MPI_COMM_WORLD, &loom_pmpi.world_rank);
    PMPI_Comm_size(MPI_COMM_WORLD, &loom_pmpi.world_size);
    if (!loom_pmpi_wanted(thread_level) || !loom_pmpi_tables_alloc()) {
        return;
    }
    PMPI_Comm_dup(MPI_COMM_WORLD, &loom_pmpi.lib_comm);
    PMPI_Comm_set_name(loom_pmpi.lib_comm, "libloom-pmpi");
    loom_pmpi_clock_sync(0);
    /* Time 0 is rank 0's clock now; every rank reads it through its offset. */
    t0 = loom_pmpi_now();
    PMPI_Bcast(&t0, 1, MPI_UINT64_T, 0, loom_pmpi.lib_comm);
    loom_pmpi.t0_local = t0;
    loom_pmpi_mpit_open();
    loom_pmpi.active = 1;
    world = loom_pmpi_comm_get(MPI_COMM_WORLD);
    if (world != NULL) {
        (void)loom_pmpi_arrival_setup(world);   /* here, where every rank is */
    }
    (void)loom_pmpi_comm_get(MPI_COMM_SELF);
}

void loom_pmpi_stop(void)
{
    if (!loom_pmpi.active) {
        return;
    }
    loom_pmpi.active = 0;
    loom_pmpi_comm_release_all();
    loom_pmpi_clock_sync(1);
    loom_pmpi_mpit_close();
    loom_pmpi_report_write();
    PMPI_Comm_free(&loom_pmpi.lib_comm);
    loom_pmpi_tables_free();
}
