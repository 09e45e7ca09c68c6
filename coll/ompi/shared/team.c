/*
 * Teams made from communicators (loom_ompi.h), for either component.
 *
 * A team is the engine's view of a communicator: its size and rank, the
 * transport peer (world rank) of each member, node and rack keys, and the
 * context id its tags carry.  Every test here reads only what all members
 * of the communicator share, so every rank decides alike.
 */
#include "loom_ompi.h"

#include "ompi/proc/proc.h"

#include <stdlib.h>

bool loom_ompi_comm_fits(ompi_communicator_t *comm)
{
    int i, size = ompi_comm_size(comm);
    ompi_proc_t *proc;

    if (OMPI_COMM_IS_INTER(comm) || size > LOOM_TAG_MAX_RANKS ||
        comm->c_contextid > LOOM_OMPI_MAX_CONTEXT) {
        return false;
    }
    for (i = 0; i < size; ++i) {
        proc = ompi_comm_peer_lookup(comm, i);
        if (proc == NULL || proc->super.proc_name.jobid != OMPI_PROC_MY_NAME->jobid ||
            (int)proc->super.proc_name.vpid >= loom_ompi_proc_world_size()) {
            return false;
        }
    }
    return true;
}

loom_status_t loom_ompi_team_create(ompi_communicator_t *comm,
                                    const loom_ompi_team_params_t *params,
                                    loom_team_t **team_p)
{
    int i, size = ompi_comm_size(comm);
    loom_team_params_t team_params;
    loom_ucx_t *ucx = loom_ompi_proc_ucx();
    loom_status_t status;
    uint64_t *keys;
    int *peers;

    if (ucx == NULL || params->node_keys == NULL) {
        return LOOM_ERR_UNSUPPORTED;
    }
    peers = malloc(sizeof(*peers) * (size_t)size);
    keys = malloc(sizeof(*keys) * 2 * (size_t)size);
    if (peers == NULL || keys == NULL) {
        free(peers);
        free(keys);
        return LOOM_ERR_NO_MEMORY;
    }
    for (i = 0; i < size; ++i) {
        peers[i] = (int)ompi_comm_peer_lookup(comm, i)->super.proc_name.vpid;
        keys[i] = params->node_keys[peers[i]];
        keys[size + i] = params->rack_keys != NULL ? params->rack_keys[peers[i]] : 0;
    }
    team_params = (loom_team_params_t){
        .size = size, .rank = ompi_comm_rank(comm), .peers = peers,
        .node_keys = keys, .rack_keys = params->rack_keys != NULL ? keys + size : NULL,
        .context_id = comm->c_contextid | (uint32_t)params->space << LOOM_OMPI_SPACE_SHIFT,
        .transport = loom_ucx_transport(ucx),
    };
    status = loom_team_create(&team_params, team_p);
    free(peers);
    free(keys);
    return status;
}
