/*
 * The node and rack keys of every world rank, from which each
 * communicator's team learns who shares a host and a rack.
 *
 * The engine never sees hosts or the topology (docs/LAYERS.md): it gets a
 * hashed key per rank.  The keys are computed once, in MPI_Init
 * (single-threaded, after the fence), so that communicator creation only
 * reads them (coll_loom_module.c).
 */
#include "coll_loom.h"
#include "coll_loom_wireup.h"

#include "opal/mca/pmix/pmix.h"
#include "ompi/proc/proc.h"

#include <stdlib.h>
#include <string.h>

/* The host PMIx reports for a world rank, or NULL. */
static char *loom_host_of(int world_rank)
{
    opal_process_name_t name = { .jobid = OMPI_PROC_MY_NAME->jobid,
                                 .vpid = (opal_vpid_t)world_rank };
    char *host = NULL;
    int ret;

    OPAL_MODEX_RECV_VALUE_OPTIONAL(ret, OPAL_PMIX_HOSTNAME, &name, &host, OPAL_STRING);
    return ret == OPAL_SUCCESS ? host : NULL;
}

/* Node keys of every world rank: the lowest world rank on the same host;
 * and rack keys from the topology file, when every rank read the same
 * one (topo_hashes). */
int mca_coll_loom_nodes_compute(mca_coll_loom_component_t *c, const uint64_t *topo_hashes)
{
    char **hosts = calloc((size_t)c->world_size, sizeof(char *));
    int i, j;

    c->node_keys = calloc((size_t)c->world_size, sizeof(uint64_t));
    if (hosts == NULL || c->node_keys == NULL) {
        free(hosts);
        return OMPI_ERR_OUT_OF_RESOURCE;
    }
    for (i = 0; i < c->world_size; ++i) {
        hosts[i] = loom_host_of(i);
        /* Unknown host: a node of its own, never merged with another. */
        c->node_keys[i] = UINT64_C(1) << 63 | (uint64_t)i;
        for (j = 0; hosts[i] != NULL && j <= i; ++j) {
            if (hosts[j] != NULL && strcmp(hosts[j], hosts[i]) == 0) {
                c->node_keys[i] = (uint64_t)j;
                break;
            }
        }
    }
    mca_coll_loom_topo_racks(c, hosts, topo_hashes);
    for (i = 0; i < c->world_size; ++i) {
        free(hosts[i]);
    }
    free(hosts);
    return OMPI_SUCCESS;
}

void mca_coll_loom_nodes_close(mca_coll_loom_component_t *c)
{
    free(c->node_keys);
    c->node_keys = NULL;
    mca_coll_loom_topo_close(c);
}
