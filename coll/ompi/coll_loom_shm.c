/*
 * The node's shared segment of a communicator (coll/core/shm/shm.h), attached
 * at the first call that wants it.
 *
 * Attaching needs the segment's name on every rank, and creating a
 * communicator must not communicate, so it happens inside the first large
 * blocking call, which every rank makes: rank 0 creates the segment and
 * broadcasts its name, the others attach, and all agree through the module
 * below Loom (a MIN over "it worked") before anyone uses it; then rank 0
 * unlinks the name, so a killed job leaves nothing in /dev/shm.  If any
 * rank failed, every rank knows and the communicator keeps to messages.
 */
#include "coll_loom.h"
#include "coll_loom_call.h"
#include "coll_loom_request.h"

#include "common/log.h"
#include "coll/core/select/handoff.h"
#include "opal/runtime/opal_progress.h"

#include <sched.h>
#include <stdio.h>
#include <unistd.h>

/* A hang in the segment is reported like one in a schedule
 * (mca_coll_loom_watch): once per coll_loom_hang_timeout without a new
 * wait, naming the peer and the step it has not reached. */
static void loom_shm_watch(mca_coll_loom_module_t *module)
{
    uint64_t timeout = (uint64_t)mca_coll_loom_component.config.hang_timeout * 1000000000u;
    mca_coll_loom_op_t *op = module->shm_op;
    uint64_t now;
    char what[320], report[512];

    if (op == NULL || timeout == 0) {
        return;
    }
    now = mca_coll_loom_now_ns();
    if (op->watch_waits != module->shm->waits) {
        op->watch_waits = module->shm->waits;
        op->watch_since_ns = now;
        op->watch_reports = 0;
        return;
    }
    if (now - op->watch_since_ns < timeout) {
        return;
    }
    loom_shm_describe_wait(module->shm, what, sizeof(what));
    snprintf(report, sizeof(report), "%s (shm) on communicator %s (cid %u, %d ranks) has made "
             "no progress for %.1f s: %s", op->coll, op->comm->c_name, op->comm->c_contextid,
             ompi_comm_size(op->comm), (double)(now - op->watch_since_ns) * 1e-9, what);
    op->watch_since_ns = now;
    mca_coll_loom_hang_report(op, report);
}

/* While a rank waits for its peers in the segment, Open MPI keeps
 * progressing (a peer may need this rank's nonblocking operations to move
 * first), and the rank gives its core away: the peer it waits for may be
 * waiting for that very core (more ranks than cores, or other work on the
 * host), and when nothing else wants the core the call costs about a
 * microsecond per few hundred polls. */
static void loom_shm_idle(void *ctx)
{
    mca_coll_loom_module_t *module = ctx;

    opal_progress();
    sched_yield();
    if ((++module->shm_idles & 63) == 0) {
        loom_shm_watch(module);
    }
}

void mca_coll_loom_shm_run(mca_coll_loom_module_t *module, mca_coll_loom_op_t *op,
                           loom_segment_run_fn_t fn, const mca_coll_loom_shm_run_t *run)
{
    op->watch_waits = run->shm->waits;
    op->watch_reports = 0;
    op->watch_since_ns = mca_coll_loom_now_ns();
    module->shm_op = op;
    fn(run->shm, &run->args);
    module->shm_op = NULL;
}

static loom_shm_t *loom_shm_attach_module(mca_coll_loom_module_t *module)
{
    static unsigned serial; /* names this process's segments apart */
    ompi_communicator_t *comm = module->comm;
    const loom_coll_config_t *cfg = &mca_coll_loom_component.config;
    loom_shm_params_t params = {
        .size = ompi_comm_size(comm), .rank = ompi_comm_rank(comm),
        .slot_bytes = cfg->shm_slot, .depth = cfg->shm_depth,
        /* More ranks than cores (mpi_yield_when_idle). */
        .crowded = opal_progress_yield_when_idle,
        .idle = loom_shm_idle, .idle_ctx = module,
    };
    char name[64] = "";
    loom_shm_t *shm = NULL;
    int ok = 1, ret;

    if (params.rank == 0) {
        snprintf(name, sizeof(name), "/loom-%d-%u-%u", (int)getpid(),
                 (unsigned)ompi_comm_get_cid(comm), __atomic_fetch_add(&serial, 1,
                                                                      __ATOMIC_RELAXED));
        if (loom_shm_create(name, &params, &shm) != LOOM_OK) {
            name[0] = '\0';
        }
    }
    ret = module->previous_bcast.fn(name, (int)sizeof(name), MPI_CHAR, 0, comm,
                                    module->previous_bcast.module);
    if (ret != OMPI_SUCCESS || name[0] == '\0') {
        ok = 0;
    } else if (params.rank != 0 && loom_shm_attach(name, &params, &shm) != LOOM_OK) {
        ok = 0;
    }
    ret = module->previous_allreduce.fn(MPI_IN_PLACE, &ok, 1, MPI_INT, MPI_MIN, comm,
                                        module->previous_allreduce.module);
    if (params.rank == 0 && name[0] != '\0') {
        loom_shm_unlink(name);
    }
    if (ret != OMPI_SUCCESS || !ok) {
        loom_info("coll", "context %u: no shared segment (a rank could not map it); "
                  "large calls on this node stay messages", module->team->context_id);
        loom_shm_destroy(shm);
        return NULL;
    }
    /* Only a two-rank allgather reads a peer's memory (shm_cma.c); every
     * rank must have been able to, or none does. */
    if (cfg->shm_cma && params.size == 2) {
        int cma = loom_shm_cma_probe(shm);

        ret = module->previous_allreduce.fn(MPI_IN_PLACE, &cma, 1, MPI_INT, MPI_MIN, comm,
                                            module->previous_allreduce.module);
        shm->cma = ret == OMPI_SUCCESS && cma;
    }
    loom_debug("coll", "context %u: shared segment of %zu bytes attached%s",
               module->team->context_id, loom_shm_bytes(&params),
               shm->cma ? ", peers' buffers readable (CMA)" : "");
    return shm;
}

int mca_coll_loom_shm_take(mca_coll_loom_module_t *module, loom_coll_kind_t id,
                           const loom_coll_args_t *args, mca_coll_loom_op_t *info,
                           mca_coll_loom_shm_run_t *run)
{
    run->shm = NULL;
    if (module->shm_failed) {
        return 0;
    }
    if (module->shm == NULL) {
        module->shm = loom_shm_attach_module(module);
        if (module->shm == NULL) {
            module->shm_failed = 1;
            return 0;
        }
    }
    loom_shm_explain(module->team, id, info->coll, info->bytes);
    run->shm = module->shm;
    run->args = *args;
    info->alg = "shm";
    info->alg_index = LOOM_COLL_ALG_SHM;
    return 1;
}
