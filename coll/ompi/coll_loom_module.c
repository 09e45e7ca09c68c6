/*
 * The module: which communicators Loom joins, and what it keeps per
 * communicator (the engine team and the previous module to fall back to).
 *
 * Every test here reads only what all ranks of the communicator share
 * (size, context id, the job the processes belong to), so every rank
 * decides alike whether Loom joins.
 */
#include "coll_loom.h"

#include "coll/ompi/shared/loom_ompi.h"
#include "common/log.h"
#include "coll/core/select/handoff.h"
#include "ompi/proc/proc.h"

#include <stdlib.h>
#include <string.h>

static void loom_module_construct(mca_coll_loom_module_t *module)
{
    module->comm = NULL;
    module->team = NULL;
    memset(module->handoff_below, 0, sizeof(module->handoff_below));
    module->previous_allreduce.fn = NULL;
    module->previous_allreduce.module = NULL;
    module->previous_iallreduce.fn = NULL;
    module->previous_iallreduce.module = NULL;
    module->previous_allgather.fn = NULL;
    module->previous_allgather.module = NULL;
    module->previous_allgatherv.fn = NULL;
    module->previous_allgatherv.module = NULL;
    module->previous_iallgather.fn = NULL;
    module->previous_iallgather.module = NULL;
    module->previous_reduce_scatter_block.fn = NULL;
    module->previous_reduce_scatter_block.module = NULL;
    module->previous_reduce_scatter.fn = NULL;
    module->previous_reduce_scatter.module = NULL;
    module->previous_ireduce_scatter_block.fn = NULL;
    module->previous_ireduce_scatter_block.module = NULL;
    module->previous_bcast.fn = NULL;
    module->previous_bcast.module = NULL;
    module->previous_ibcast.fn = NULL;
    module->previous_ibcast.module = NULL;
    module->previous_reduce.fn = NULL;
    module->previous_reduce.module = NULL;
    module->previous_ireduce.fn = NULL;
    module->previous_ireduce.module = NULL;
    module->oldest = NULL;
    module->newest = NULL;
    module->shm = NULL;
    module->shm_failed = 0;
    module->shm_op = NULL;
    module->shm_idles = 0;
}

static void loom_module_destruct(mca_coll_loom_module_t *module)
{
    mca_coll_base_module_t **prev[] = {
        &module->previous_allreduce.module, &module->previous_iallreduce.module,
        &module->previous_allgather.module, &module->previous_allgatherv.module,
        &module->previous_iallgather.module, &module->previous_reduce_scatter_block.module,
        &module->previous_reduce_scatter.module, &module->previous_ireduce_scatter_block.module,
        &module->previous_bcast.module, &module->previous_ibcast.module,
        &module->previous_reduce.module, &module->previous_ireduce.module,
    };
    size_t i;

    for (i = 0; i < sizeof(prev) / sizeof(prev[0]); ++i) {
        if (*prev[i] != NULL) {
            OBJ_RELEASE(*prev[i]);
        }
    }
    loom_shm_destroy(module->shm);
    if (module->team != NULL) {
        /* An order waiting for this communicator must not reach the next
         * one that gets its context id. */
        mca_coll_loom_order_forget(module->team->context_id);
    }
    loom_team_destroy(module->team);
    loom_module_construct(module);
}

OBJ_CLASS_INSTANCE(mca_coll_loom_module_t, mca_coll_base_module_t,
                   loom_module_construct, loom_module_destruct);

/* Keep the function and module below Loom for one collective, or fail
 * enable (visibly: the macro returns) when there is none to hand calls to. */
#define LOOM_SAVE_PREVIOUS(mod, comm_, coll)                                      \
    do {                                                                          \
        (mod)->previous_##coll.fn = (comm_)->c_coll->coll_##coll;                 \
        (mod)->previous_##coll.module = (comm_)->c_coll->coll_##coll##_module;    \
        if ((mod)->previous_##coll.fn == NULL ||                                  \
            (mod)->previous_##coll.module == NULL) {                              \
            loom_error("coll", "communicator %s has no %s to fall back to",       \
                       (comm_)->c_name, #coll);                                   \
            return OMPI_ERROR;                                                    \
        }                                                                         \
        OBJ_RETAIN((mod)->previous_##coll.module);                                \
    } while (0)

/* Lower-priority modules are in c_coll when a module is enabled: keep
 * what they provide for the reductions, which every Loom module takes. */
static int loom_save_reductions(mca_coll_loom_module_t *module, ompi_communicator_t *comm)
{
    module->comm = comm;
    LOOM_SAVE_PREVIOUS(module, comm, allreduce);
    LOOM_SAVE_PREVIOUS(module, comm, iallreduce);
    LOOM_SAVE_PREVIOUS(module, comm, reduce_scatter_block);
    LOOM_SAVE_PREVIOUS(module, comm, reduce_scatter);
    LOOM_SAVE_PREVIOUS(module, comm, ireduce_scatter_block);
    LOOM_SAVE_PREVIOUS(module, comm, reduce);
    LOOM_SAVE_PREVIOUS(module, comm, ireduce);
    return OMPI_SUCCESS;
}

/* A communicator Loom does not run (see mca_coll_loom_comm_query) gets a
 * module that only takes the reductions, to hand them down with the
 * wrapping MPI_SUM (coll_loom_sum.c); it has no team. */
static int loom_guard_enable(mca_coll_base_module_t *base, ompi_communicator_t *comm)
{
    int ret = loom_save_reductions((mca_coll_loom_module_t *)base, comm);

    if (ret == OMPI_SUCCESS) {
        loom_debug("coll", "guarding the sums handed down on communicator %s (cid %u)",
                   comm->c_name, comm->c_contextid);
    }
    return ret;
}

static int loom_module_enable(mca_coll_base_module_t *base, ompi_communicator_t *comm)
{
    mca_coll_loom_module_t *module = (mca_coll_loom_module_t *)base;
    mca_coll_loom_component_t *c = &mca_coll_loom_component;
    loom_ompi_team_params_t params;
    loom_status_t status;
    int i, ret;

    ret = loom_save_reductions(module, comm);
    if (ret != OMPI_SUCCESS) {
        return ret;
    }
    LOOM_SAVE_PREVIOUS(module, comm, allgather);
    LOOM_SAVE_PREVIOUS(module, comm, allgatherv);
    LOOM_SAVE_PREVIOUS(module, comm, iallgather);
    LOOM_SAVE_PREVIOUS(module, comm, bcast);
    LOOM_SAVE_PREVIOUS(module, comm, ibcast);

    params = (loom_ompi_team_params_t){
        .space = LOOM_OMPI_SPACE_DENSE, .node_keys = c->node_keys, .rack_keys = c->rack_keys,
    };
    status = loom_ompi_team_create(comm, &params, &module->team);
    if (status != LOOM_OK) {
        return loom_ompi_status_to_ompi(status);
    }
    for (i = 0; i < LOOM_COLL_KIND_COUNT; ++i) {
        int pair;

        module->handoff_below[i] = loom_handoff_limit(&c->config, module->team,
                                                      (loom_coll_kind_t)i, &pair);
    }
    loom_debug("coll", "joined communicator %s (cid %u, %d ranks on %d nodes in %d racks)",
               comm->c_name, comm->c_contextid, module->team->size, module->team->num_nodes,
               module->team->num_racks);
    if (c->print_table) {
        mca_coll_loom_print_table(comm, base);
    }
    return OMPI_SUCCESS;
}

/* Open MPI calls this once per function slot the module still holds. */
static int loom_module_disable(mca_coll_base_module_t *base, ompi_communicator_t *comm)
{
    (void)base;
    (void)comm;
    return OMPI_SUCCESS;
}

/* Every member must hold the rules this rank holds, or some would choose
 * other algorithms than others: then Loom steps aside on the whole
 * communicator (every member sees the same hashes, so all decide alike). */
static bool loom_comm_rules_agree(ompi_communicator_t *comm)
{
    mca_coll_loom_component_t *c = &mca_coll_loom_component;
    int i, size = ompi_comm_size(comm), vpid, mine = OMPI_PROC_MY_NAME->vpid;

    for (i = 0; i < size; ++i) {
        vpid = (int)ompi_comm_peer_lookup(comm, i)->super.proc_name.vpid;
        if (c->rules_hashes[vpid] != c->rules_hashes[mine]) {
            if (ompi_comm_rank(comm) == 0) {
                loom_warn("coll", "communicator %s: world rank %d holds other selection "
                          "rules or coll_loom_calibrate (hash %016llx) than world rank %d "
                          "(%016llx); Loom steps aside on this communicator", comm->c_name, vpid,
                          (unsigned long long)c->rules_hashes[vpid], mine,
                          (unsigned long long)c->rules_hashes[mine]);
            }
            return false;
        }
    }
    return true;
}

/* Loom runs the collectives of an intra-communicator of two or more
 * processes of its own job within the tags' limits whose members hold
 * the same rules.  Any other communicator with more than one process
 * (intercommunicators above all) gets the guard module: its sums must not
 * meet Open MPI's saturating 8- and 16-bit code either. */
mca_coll_base_module_t *mca_coll_loom_comm_query(ompi_communicator_t *comm,
                                                 int *priority)
{
    mca_coll_loom_component_t *c = &mca_coll_loom_component;
    mca_coll_loom_module_t *module;
    int size = ompi_comm_size(comm), inter = OMPI_COMM_IS_INTER(comm), guard;

    if (c->ucx == NULL || c->priority < 0 || (!inter && size < 2)) {
        return NULL;
    }
    /* The context ids above LOOM_OMPI_MAX_CONTEXT are mca_coll_loomfilter's
     * tags (loom_ompi.h). */
    guard = inter || !loom_ompi_comm_fits(comm) || !loom_comm_rules_agree(comm);
    module = OBJ_NEW(mca_coll_loom_module_t);
    if (module == NULL) {
        return NULL;
    }
    module->super.coll_module_enable  = guard ? loom_guard_enable : loom_module_enable;
    module->super.coll_module_disable = loom_module_disable;
    module->super.coll_allreduce      = mca_coll_loom_allreduce;
    module->super.coll_iallreduce     = mca_coll_loom_iallreduce;
    module->super.coll_reduce_scatter_block  = mca_coll_loom_reduce_scatter_block;
    module->super.coll_reduce_scatter        = mca_coll_loom_reduce_scatter;
    module->super.coll_ireduce_scatter_block = mca_coll_loom_ireduce_scatter_block;
    module->super.coll_reduce         = mca_coll_loom_reduce;
    module->super.coll_ireduce        = mca_coll_loom_ireduce;
    if (!guard) {
        module->super.coll_allgather      = mca_coll_loom_allgather;
        module->super.coll_allgatherv     = mca_coll_loom_allgatherv;
        module->super.coll_iallgather     = mca_coll_loom_iallgather;
        module->super.coll_bcast          = mca_coll_loom_bcast;
        module->super.coll_ibcast         = mca_coll_loom_ibcast;
    }
    *priority = c->priority;
    return &module->super;
}
