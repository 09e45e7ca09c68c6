/* loom-topo job: the map of the running job, gathered with MPI. */
#ifndef LOOM_TOPO_TOOL_JOB_H
#define LOOM_TOPO_TOOL_JOB_H

#include "topo/topo.h"

/* Under mpirun, on every rank: each rank reports its node (Open MPI's
 * locality: the ranks that share memory, MPI_Comm_split_type), the node's
 * host name, and its NUMA node and socket (hwloc); rank 0 builds the job's
 * topology, with racks from the topology file when one is given (NULL:
 * none).  MPI is initialized here and finalized by loom_topo_job_end.
 * Returns 0, or 1 after saying why on stderr; *topo_p is the topology on
 * rank 0 and NULL on the others. */
int loom_topo_job_gather(const char *file, loom_topo_t **topo_p);
void loom_topo_job_end(void);

#endif
