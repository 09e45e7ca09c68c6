/* loom-topo job (job.h).  The only file of loom-topo that speaks MPI. */
#include "tools/loom-topo/job.h"

#include <mpi.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

typedef struct job_rank {
    int  leader;        /* world rank of the first rank on this rank's node */
    int  numa, socket;
    char host[256];
} job_rank_t;

/* The node of the ranks led by leader: a node the file names after the
 * host, or a new one; two nodes that report one host name (containers)
 * stay apart as "host#leader". */
static loom_status_t node_for(loom_topo_t *topo, const job_rank_t *all, int leader,
                              size_t *leader_node, size_t *node_p)
{
    const char *host = all[leader].host;
    size_t n = loom_topo_node_find(topo, host);
    char name[300];

    if (leader_node[leader] != LOOM_TOPO_NONE) {
        *node_p = leader_node[leader];
        return LOOM_OK;
    }
    for (int l = 0; n != LOOM_TOPO_NONE && l < leader; l++) {
        if (leader_node[l] == n) {
            snprintf(name, sizeof(name), "%s#%d", host, leader);
            host = name;
            n = LOOM_TOPO_NONE;
        }
    }
    if (n == LOOM_TOPO_NONE) {
        loom_status_t st = loom_topo_node_add(topo, host, &n);
        if (st != LOOM_OK) {
            return st;
        }
    }
    leader_node[leader] = n;
    *node_p = n;
    return LOOM_OK;
}

int loom_topo_job_gather(const char *file, loom_topo_t **topo_p)
{
    int rank, size, node_rank, len;
    MPI_Comm node;
    job_rank_t me, *all = NULL;

    *topo_p = NULL;
    MPI_Init(NULL, NULL);
    MPI_Comm_rank(MPI_COMM_WORLD, &rank);
    MPI_Comm_size(MPI_COMM_WORLD, &size);
    MPI_Comm_split_type(MPI_COMM_WORLD, MPI_COMM_TYPE_SHARED, 0, MPI_INFO_NULL, &node);
    MPI_Comm_rank(node, &node_rank);
    memset(&me, 0, sizeof(me));
    me.leader = rank;
    MPI_Bcast(&me.leader, 1, MPI_INT, 0, node);
    MPI_Comm_free(&node);
    char host[MPI_MAX_PROCESSOR_NAME];
    MPI_Get_processor_name(host, &len);
    snprintf(me.host, sizeof(me.host), "%s", host);
    if (loom_topo_local_place(&me.numa, &me.socket) != LOOM_OK) {
        me.numa = me.socket = -1;
    }
    if (rank == 0 && (all = malloc(sizeof(*all) * (size_t)size)) == NULL) {
        fprintf(stderr, "loom-topo: out of memory for %d ranks\n", size);
        MPI_Abort(MPI_COMM_WORLD, 1);
    }
    MPI_Gather(&me, (int)sizeof(me), MPI_BYTE, all, (int)sizeof(me), MPI_BYTE, 0,
               MPI_COMM_WORLD);
    if (rank != 0) {
        return 0;
    }
    loom_topo_t *topo = NULL;
    loom_topo_error_t err = { 0 };
    loom_status_t st = file != NULL ? loom_topo_load(file, &topo, &err)
                                    : loom_topo_create(&topo);
    if (st != LOOM_OK) {
        fprintf(stderr, "loom-topo: %s\n", file != NULL ? err.msg : "out of memory");
        free(all);
        return 1;
    }
    /* The file's ranks, if any, describe another job: this one replaces them. */
    topo->nranks = 0;
    size_t *leader_node = malloc(sizeof(*leader_node) * (size_t)size);
    for (int r = 0; leader_node != NULL && r < size; r++) {
        leader_node[r] = LOOM_TOPO_NONE;
    }
    for (int r = 0; st == LOOM_OK && r < size; r++) {
        size_t n;
        st = leader_node == NULL ? LOOM_ERR_NO_MEMORY
                                 : node_for(topo, all, all[r].leader, leader_node, &n);
        if (st == LOOM_OK) {
            st = loom_topo_rank_add(topo, n, all[r].numa, all[r].socket);
        }
    }
    free(leader_node);
    free(all);
    if (st != LOOM_OK) {
        fprintf(stderr, "loom-topo: out of memory for the map of %d ranks\n", size);
        loom_topo_destroy(topo);
        return 1;
    }
    *topo_p = topo;
    return 0;
}

void loom_topo_job_end(void)
{
    MPI_Finalize();
}
