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

#include "coll/ompi/shared/loom_ompi.h"

#include <stdlib.h>
#include <string.h>

/* Node keys of every world rank: the lowest world rank on the same host;
 * and rack keys from the topology file, when every rank read the same
 * one (topo_hashes). */
int mca_coll_loom_nodes_compute(mca_coll_loom_component_t *c, const uint64_t *topo_hashes)
{
    char **hosts = calloc((size_t)c->world_size, sizeof(char *));
    int i;

    if (hosts == NULL || loom_ompi_proc_node_keys(&c->node_keys) != LOOM_OK) {
        free(hosts);
        return OMPI_ERR_OUT_OF_RESOURCE;
    }
    for (i = 0; i < c->world_size; ++i) {
        hosts[i] = loom_ompi_proc_host(i);
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
    c->node_keys = NULL;
    mca_coll_loom_topo_close(c);
}
