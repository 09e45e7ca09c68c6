/*
 * MPI_Bcast and MPI_Ibcast through the engine.
 *
 * Bcast moves bytes: Loom takes any datatype, directly when it lays count
 * elements out contiguously from the buffer address with extent equal to
 * size, staged through packed scratch otherwise (coll_loom_stage.c).
 * Small messages on one node go to the module Open MPI selected before
 * Loom (coll_loom_bcast_handoff: the size of the type signature, equal on
 * every rank, decides).  Open MPI runs ibcast itself while creating
 * communicators: that path only plans and posts, it never blocks.
 */
#include "coll_loom.h"
#include "coll_loom_call.h"
#include "coll_loom_count.h"
#include "coll_loom_data.h"
#include "coll_loom_request.h"

#include "coll/core/bcast/bcast.h"
#include "ompi/datatype/ompi_datatype.h"

/* The call's MPI arguments. */
typedef struct loom_bcast_mpi {
    void                *buf;
    int                 count;
    ompi_datatype_t     *dtype;
    int                 root;
} loom_bcast_mpi_t;

/* A datatype that is not flat goes through packed scratch: the root packs
 * before the schedule, the others unpack after it. */
static loom_status_t loom_bcast_stage(const loom_bcast_mpi_t *mpi, mca_coll_loom_module_t *module,
                                      size_t bytes, mca_coll_loom_stage_t **stage_p)
{
    int at_root = ompi_comm_rank(module->comm) == mpi->root;
    mca_coll_loom_stage_t *stage;
    loom_status_t status;

    status = mca_coll_loom_stage_create(mpi->buf, mpi->dtype, at_root ? 0 : 1, bytes, &stage);
    if (status != LOOM_OK) {
        return status;
    }
    if (at_root) {
        status = mca_coll_loom_pack(mpi->buf, (size_t)mpi->count, mpi->dtype, stage->scratch);
    } else {
        stage->block[0].count = (size_t)mpi->count;
    }
    if (status != LOOM_OK) {
        mca_coll_loom_stage_destroy(stage);
        return status;
    }
    *stage_p = stage;
    return LOOM_OK;
}

/* Decide and prepare (mca_coll_loom_take); *stage_p: the staging, if
 * any.  shm_run NULL: a nonblocking call. */
static loom_status_t loom_bcast_prepare(const loom_bcast_mpi_t *mpi,
                                        mca_coll_loom_module_t *module, mca_coll_loom_op_t *info,
                                        mca_coll_loom_stage_t **stage_p, loom_sched_t **sched_p,
                                        mca_coll_loom_shm_run_t *shm_run)
{
    mca_coll_loom_counters_t *n = mca_coll_loom_counters(LOOM_COLL_BCAST);
    loom_status_t status;
    size_t size, bytes;

    *stage_p = NULL;
    if (!mca_coll_loom_enabled(n)) {
        return LOOM_ERR_UNSUPPORTED;
    }
    if (module->team == NULL) {
        return mca_coll_loom_fallback(n);
    }
    /* The signature's bytes, equal on every rank whatever its layout. */
    ompi_datatype_type_size(mpi->dtype, &size);
    bytes = (size_t)mpi->count * size;
    if (mca_coll_loom_small(module, LOOM_COLL_BCAST, bytes)) {
        return mca_coll_loom_hand_off(module, &loom_bcast_collective, bytes);
    }
    if (mca_coll_loom_flat_size(mpi->dtype) == 0) {
        status = loom_bcast_stage(mpi, module, bytes, stage_p);
        if (status != LOOM_OK) {
            return status;
        }
    }
    status = mca_coll_loom_take(module, &(mca_coll_loom_call_t){
        .coll = &loom_bcast_collective,
        .args = {
            .recvbuf = *stage_p != NULL ? (*stage_p)->scratch : mpi->buf, .count = bytes,
            .elem_size = 1, .root = mpi->root,
        },
        .shm_run = shm_run }, info, sched_p);
    if (status != LOOM_OK) {
        mca_coll_loom_stage_destroy(*stage_p);
        *stage_p = NULL;
    }
    return status;
}

int mca_coll_loom_bcast(void *buf, int count, struct ompi_datatype_t *dtype, int root,
                        struct ompi_communicator_t *comm, mca_coll_base_module_t *base)
{
    mca_coll_loom_module_t *module = (mca_coll_loom_module_t *)base;
    mca_coll_loom_shm_run_t shm_run;
    mca_coll_loom_stage_t *stage;
    mca_coll_loom_op_t info;
    loom_status_t status;
    loom_sched_t *sched;

    shm_run.shm = NULL;
    status = loom_bcast_prepare(&(loom_bcast_mpi_t){ buf, count, dtype, root }, module, &info,
                                &stage, &sched, &shm_run);
    if (status == LOOM_ERR_UNSUPPORTED) {
        return module->previous_bcast.fn(buf, count, dtype, root, comm,
                                         module->previous_bcast.module);
    }
    return mca_coll_loom_blocking_end(module, LOOM_COLL_BCAST, status, &info, sched, &shm_run,
                                      stage, NULL);
}

int mca_coll_loom_ibcast(void *buf, int count, struct ompi_datatype_t *dtype, int root,
                         struct ompi_communicator_t *comm, ompi_request_t **request,
                         mca_coll_base_module_t *base)
{
    mca_coll_loom_module_t *module = (mca_coll_loom_module_t *)base;
    mca_coll_loom_request_t *req;
    loom_status_t status;
    loom_sched_t *sched;

    req = mca_coll_loom_request_new(module, NULL, dtype);
    if (req == NULL) {
        return OMPI_ERR_OUT_OF_RESOURCE;
    }
    status = loom_bcast_prepare(&(loom_bcast_mpi_t){ buf, count, dtype, root }, module,
                                &req->op, &req->stage, &sched, NULL);
    if (status == LOOM_ERR_UNSUPPORTED) {
        OBJ_RELEASE(req);
        return module->previous_ibcast.fn(buf, count, dtype, root, comm, request,
                                          module->previous_ibcast.module);
    }
    return mca_coll_loom_request_start(req, status, sched, request);
}
