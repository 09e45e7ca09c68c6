/*
 * The library's life (docs/slownode.md): it starts when the next MPI_Init
 * returns and stops before the next MPI_Finalize runs, ending its MPI_T
 * session there (Open MPI 4.1.4 crashes in MPI_T_finalize after
 * MPI_Finalize).
 */
#include <stdlib.h>
#include <string.h>

#include "slownode.h"

loom_sn_state_t loom_sn;

/* Every rank's host name, for the report. */
static int loom_sn_hosts_gather(void)
{
    char mine[MPI_MAX_PROCESSOR_NAME + 1] = "";
    char host[LOOM_SN_HOST_LEN] = "";
    int len = 0;

    loom_sn.hosts = calloc((size_t)loom_sn.world_size, LOOM_SN_HOST_LEN);
    if (loom_sn.hosts == NULL) {
        return 0;
    }
    PMPI_Get_processor_name(mine, &len);
    snprintf(host, sizeof(host), "%s", mine);
    return PMPI_Allgather(host, LOOM_SN_HOST_LEN, MPI_CHAR, loom_sn.hosts, LOOM_SN_HOST_LEN,
                          MPI_CHAR, loom_sn.lib_comm) == MPI_SUCCESS;
}

/* Settings every rank can check only once it knows the world. */
static int loom_sn_settings_check(void)
{
    loom_sn_settings_t *s = &loom_sn.settings;

    if (s->inject != LOOM_SN_INJECT_NONE && s->inject_rank >= loom_sn.world_size) {
        snprintf(s->error, sizeof(s->error),
                 "loom-slownode: LOOM_SLOWNODE_INJECT names rank %d, but the job has ranks 0 "
                 "to %d; the program runs without slow-node detection", s->inject_rank,
                 loom_sn.world_size - 1);
        return 0;
    }
    return 1;
}

void loom_sn_start(int thread_level)
{
    int provided;

    memset(&loom_sn, 0, sizeof(loom_sn));
    PMPI_Comm_rank(MPI_COMM_WORLD, &loom_sn.world_rank);
    PMPI_Comm_size(MPI_COMM_WORLD, &loom_sn.world_size);
    loom_sn_settings_read(&loom_sn.settings);
    if (loom_sn.settings.error[0] == '\0' && !loom_sn_settings_check()) {
        loom_sn.settings.enable = 0;
    }
    if (loom_sn.settings.error[0] != '\0' && loom_sn.world_rank == 0) {
        fprintf(stderr, "%s\n", loom_sn.settings.error);
    }
    if (thread_level == MPI_THREAD_MULTIPLE && loom_sn.settings.enable) {
        /* Two threads in collectives at once would interleave their windows. */
        if (loom_sn.world_rank == 0) {
            fprintf(stderr, "loom-slownode: MPI_THREAD_MULTIPLE is not supported; the program "
                    "runs without slow-node detection\n");
        }
        loom_sn.settings.enable = 0;
    }
    if (!loom_sn.settings.enable || loom_sn.world_size < 2 ||
        PMPI_Comm_dup(MPI_COMM_WORLD, &loom_sn.lib_comm) != MPI_SUCCESS) {
        return;
    }
    loom_sn.clock_offset_ns = loom_sn_clock_offset(loom_sn.lib_comm, loom_sn.world_rank,
                                                   loom_sn.world_size);
    if (!loom_sn_hosts_gather() || !loom_sn_window_init()) {
        loom_sn_window_free_all();
        free(loom_sn.hosts);
        loom_sn.hosts = NULL;
        PMPI_Comm_free(&loom_sn.lib_comm);
        return;
    }
    if (MPI_T_init_thread(MPI_THREAD_SINGLE, &provided) == MPI_SUCCESS) {
        loom_sn.mpit_open = 1;
        loom_sn_order_open();
    }
    loom_sn.active = 1;
}

void loom_sn_stop(void)
{
    if (!loom_sn.active) {
        return;
    }
    loom_sn.active = 0;
    loom_sn_order_close();
    if (loom_sn.mpit_open) {
        MPI_T_finalize();
        loom_sn.mpit_open = 0;
    }
    loom_sn_report_json();
    loom_sn_window_free_all();
    free(loom_sn.hosts);
    loom_sn.hosts = NULL;
    PMPI_Comm_free(&loom_sn.lib_comm);
}
