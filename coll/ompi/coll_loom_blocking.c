/*
 * The end every blocking entry point shares once its call is prepared:
 * an error becomes Open MPI's code; a call Loom took runs (through the
 * node's segment or its schedule), its staged data is unpacked, what the
 * schedule used is freed, and the call is counted.  Only the hand-down,
 * whose arguments differ per collective, stays in the entry points.
 */
#include "coll_loom.h"
#include "coll_loom_call.h"
#include "coll_loom_data.h"

#include <stdlib.h>

int mca_coll_loom_blocking_end(mca_coll_loom_module_t *module, loom_coll_kind_t id,
                               loom_status_t prepared, mca_coll_loom_op_t *info,
                               loom_sched_t *sched, const mca_coll_loom_shm_run_t *shm_run,
                               mca_coll_loom_stage_t *stage, size_t *owned)
{
    loom_status_t status;

    if (prepared != LOOM_OK) {
        return mca_coll_loom_status_to_ompi(prepared);
    }
    status = mca_coll_loom_run(module, id, info, sched, shm_run);
    if (stage != NULL) {
        status = mca_coll_loom_stage_finish(stage, status);
    }
    free(owned);
    return mca_coll_loom_done(info, status);
}
