/*
 * libloom_ompi: what Loom's Open MPI components share in one process.
 *
 * mca_coll_loom and mca_coll_loomfilter are two components loaded into one
 * process; both run schedules on the same engine over the same UCX context
 * and worker.  This library holds that engine and the process-level part
 * of the adapter, once per process:
 *
 *   - the UCX transport, created by whichever component opens first during
 *     MPI_Init and destroyed when the last one closes (a reference count);
 *   - its worker address, published in the PMIx modex at that first open
 *     (before MPI_Init's fence) and read back from the modex when a peer is
 *     first talked to, so creating a communicator never communicates;
 *   - the progress callback that advances the worker inside opal_progress;
 *   - the node key of every world rank (who shares a host), computed once
 *     after the fence;
 *   - teams made from communicators, in a context-id space per component,
 *     so that the messages of two components on one communicator never
 *     match each other's.
 *
 * The library exports exactly the symbols the components' objects leave
 * undefined, these and the engine's they call (Makefile.am generates the
 * list from the objects at build time): a function here that no component
 * calls yet (loom_ompi_proc_ucx) stays hidden until one does.
 */
#ifndef LOOM_OMPI_H
#define LOOM_OMPI_H

#include "ompi_config.h"

#include "ompi/communicator/communicator.h"

#include "coll/core/engine/tag.h"
#include "coll/core/engine/team.h"
#include "coll/core/transport/transport_ucx.h"

#include <stdbool.h>
#include <stdint.h>

BEGIN_C_DECLS

/* Takes a reference on the process's UCX transport, creating it (and
 * publishing its address, and registering its progress) at the first
 * reference.  Call it from a component's open, and only during MPI_Init
 * (ompi_info and MPI_T open components too: they get no transport).
 * The progress thread follows coll_loom_progress_thread whichever
 * component opens first.  LOOM_OK: *ucx_p is the transport, or NULL when
 * UCX is not usable here (said once at level warn; the component steps
 * aside, and must still call loom_ompi_proc_close);
 * LOOM_ERR_NO_MEMORY: nothing was taken. */
loom_status_t loom_ompi_proc_open(loom_ucx_t **ucx_p);

/* Drops a reference taken by loom_ompi_proc_open; the last one closes
 * every endpoint and the worker. */
void loom_ompi_proc_close(void);

/* After MPI_Init's fence (a component's init_query): the node key of
 * every world rank (the lowest world rank on its host; an unknown host is
 * a node of its own), computed at the first call; owned by the library
 * until the last close.  LOOM_ERR_NO_MEMORY: none. */
loom_status_t loom_ompi_proc_node_keys(const uint64_t **keys_p);

/* The host PMIx reports for a world rank (the caller frees it), or NULL. */
char *loom_ompi_proc_host(int world_rank);

/* The transport loom_ompi_proc_open handed out (NULL: none). */
loom_ucx_t *loom_ompi_proc_ucx(void);

/* Processes of this job (world size); 0 before loom_ompi_proc_open. */
int loom_ompi_proc_world_size(void);

/* Which component's messages a team carries.  A tag holds 16 bits of
 * context id (coll/core/engine/tag.h): the top one says whose team it
 * is, the rest is the communicator's context id, so loom's and
 * loomfilter's teams of one communicator never match each other. */
typedef enum loom_ompi_space {
    LOOM_OMPI_SPACE_DENSE  = 0,     /* mca_coll_loom */
    LOOM_OMPI_SPACE_FILTER = 1,     /* mca_coll_loomfilter */
} loom_ompi_space_t;

#define LOOM_OMPI_SPACE_SHIFT  (LOOM_TAG_CONTEXT_BITS - 1)
/* The largest communicator context id a team can be made for. */
#define LOOM_OMPI_MAX_CONTEXT  ((uint32_t)(LOOM_TAG_MAX_CONTEXT >> 1))

/* Whether a team can be made for comm: an intra-communicator of at most
 * LOOM_TAG_MAX_RANKS processes, all of this job (spawned or connected
 * ones have no address in its modex), whose context id is at most
 * LOOM_OMPI_MAX_CONTEXT.  Reads only what every member shares. */
bool loom_ompi_comm_fits(ompi_communicator_t *comm);

typedef struct loom_ompi_team_params {
    loom_ompi_space_t   space;
    const uint64_t      *node_keys;     /* per world rank (loom_ompi_proc_node_keys) */
    const uint64_t      *rack_keys;     /* per world rank, or NULL: no racks */
} loom_ompi_team_params_t;

/* A team for comm (which loom_ompi_comm_fits) on the process's transport;
 * never communicates.  Destroy it with loom_team_destroy. */
loom_status_t loom_ompi_team_create(ompi_communicator_t *comm,
                                    const loom_ompi_team_params_t *params,
                                    loom_team_t **team_p);

/* The one conversion from Loom statuses to Open MPI error codes. */
int loom_ompi_status_to_ompi(loom_status_t status);

END_C_DECLS

#endif
