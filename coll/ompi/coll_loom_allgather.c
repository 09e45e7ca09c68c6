/*
 * MPI_Allgather, MPI_Allgatherv and MPI_Iallgather through the engine.
 *
 * Nothing is reduced, so the engine moves bytes: an element is one byte and
 * a rank's block is its count times the type size.  Loom takes any
 * datatypes.  Flat ones (laid out contiguously from the buffer address
 * with extent equal to size) are used in place; a send datatype that is
 * not flat is packed into the rank's own receive block and the schedule
 * runs in place; a receive datatype that is not flat is staged through
 * packed scratch (coll_loom_stage.c).  Calls gathering fewer than
 * coll_loom_allgather_handoff bytes in all on one node (on two ranks,
 * coll_loom_allgather_pair_handoff where it is larger) go to the module
 * Open MPI selected before Loom, counted as hand-offs: the total comes from
 * the receive counts and the signature size, which every rank has alike.
 */
#include "coll_loom.h"
#include "coll_loom_call.h"
#include "coll_loom_count.h"
#include "coll_loom_data.h"
#include "coll_loom_request.h"

#include "coll/core/allgather/allgather.h"
#include "ompi/datatype/ompi_datatype.h"

#include <stdlib.h>

/* Where this rank's own block goes when its send data is not flat: packed
 * into its block of the flat receive bytes at mine_at, and the schedule
 * runs in place.  In place already: the block is in the user's receive
 * buffer, where the staged layout needs it packed too. */
static loom_status_t loom_allgather_pack_mine(const void *sbuf, int scount,
                                              ompi_datatype_t *sdtype, const void *rbuf,
                                              size_t mine, ptrdiff_t mine_displ,
                                              ompi_datatype_t *rdtype, char *mine_at)
{
    ptrdiff_t lb, extent;

    if (sbuf != MPI_IN_PLACE) {
        return mca_coll_loom_pack(sbuf, (size_t)scount, sdtype, mine_at);
    }
    ompi_datatype_get_extent(rdtype, &lb, &extent);
    return mca_coll_loom_pack((const char *)rbuf + mine_displ * extent, mine, rdtype, mine_at);
}

/* The call's MPI arguments; rcounts and displs per rank, in elements of
 * rdtype (NULL: the uniform form with rcount each). */
typedef struct loom_allgather_mpi {
    const void          *sbuf;
    int                 scount;
    ompi_datatype_t     *sdtype;
    void                *rbuf;
    int                 rcount;
    const int           *rcounts;
    const int           *displs;
    ompi_datatype_t     *rdtype;
} loom_allgather_mpi_t;

/* Decide and prepare (mca_coll_loom_take); *owned_p gets the byte arrays
 * the schedule uses.  A receive datatype that is not flat is staged
 * (*stage_p): the schedule gathers packed blocks into scratch, unpacked
 * when it finished.  shm_run NULL: a nonblocking call. */
static loom_status_t loom_allgather_prepare(const loom_allgather_mpi_t *mpi,
                                            mca_coll_loom_module_t *module,
                                            mca_coll_loom_op_t *info, size_t **owned_p,
                                            mca_coll_loom_stage_t **stage_p,
                                            loom_sched_t **sched_p,
                                            mca_coll_loom_shm_run_t *shm_run)
{
    mca_coll_loom_counters_t *n = mca_coll_loom_counters(LOOM_COLL_ALLGATHER);
    int p = ompi_comm_size(module->comm), r = ompi_comm_rank(module->comm), i;
    size_t rsig, ssig, *bytes = NULL, *offs = NULL, mine, total = 0, mine_off;
    int rflat, sflat, in_place = (mpi->sbuf == MPI_IN_PLACE);
    mca_coll_loom_stage_t *stage = NULL;
    loom_status_t status;
    char *data = mpi->rbuf;

    *owned_p = NULL;
    *stage_p = NULL;
    if (!mca_coll_loom_enabled(n)) {
        return LOOM_ERR_UNSUPPORTED;
    }
    mine = mpi->rcounts != NULL ? (size_t)mpi->rcounts[r] : (size_t)mpi->rcount;
    /* Signature sizes: equal on every rank whatever its layout, so they
     * alone decide whether Loom takes the call. */
    ompi_datatype_type_size(mpi->rdtype, &rsig);
    ssig = rsig;
    if (!in_place) {
        ompi_datatype_type_size(mpi->sdtype, &ssig);
    }
    if (module->team == NULL || (!in_place && (size_t)mpi->scount * ssig != mine * rsig)) {
        return mca_coll_loom_fallback(n);
    }
    for (i = 0; mpi->rcounts != NULL && i < p; ++i) {
        total += (size_t)mpi->rcounts[i] * rsig;
    }
    if (mpi->rcounts == NULL) {
        total = (size_t)mpi->rcount * rsig * (size_t)p;
    }
    /* Decided before anything is allocated: a small call handed down
     * costs its caller no more than the module below does. */
    if (mca_coll_loom_small(module, LOOM_COLL_ALLGATHER, total)) {
        return mca_coll_loom_hand_off(module, &loom_allgather_collective, total);
    }
    /* Layouts only matter to a call Loom takes; asking Open MPI about
     * them costs a handed-down call tens of nanoseconds. */
    rflat = mca_coll_loom_flat_size(mpi->rdtype) != 0;
    sflat = in_place ? rflat : mca_coll_loom_flat_size(mpi->sdtype) != 0;
    if (mpi->rcounts != NULL) {
        size_t at = 0;

        bytes = malloc(2 * sizeof(size_t) * (size_t)p);
        if (bytes == NULL) {
            return LOOM_ERR_NO_MEMORY;
        }
        offs = bytes + p;
        for (i = 0; i < p; ++i) {
            bytes[i] = (size_t)mpi->rcounts[i] * rsig;
            /* Staged blocks lie packed in rank order in scratch. */
            offs[i] = rflat ? (size_t)mpi->displs[i] * rsig : at;
            at += bytes[i];
        }
    }
    mine_off = mpi->rcounts != NULL ? offs[r] : (size_t)r * mine * rsig;
    status = LOOM_OK;
    if (!rflat) {
        status = mca_coll_loom_stage_create(mpi->rbuf, mpi->rdtype,
                                            mpi->rcounts != NULL ? p : 1, total, &stage);
        if (status != LOOM_OK) {
            free(bytes);
            return status;
        }
        for (i = 0; mpi->rcounts != NULL && i < p; ++i) {
            stage->block[i].count = (size_t)mpi->rcounts[i];
            stage->block[i].displ = mpi->displs[i];
            stage->block[i].offset = offs[i];
        }
        if (mpi->rcounts == NULL) {
            stage->block[0].count = (size_t)mpi->rcount * (size_t)p;
        }
        data = stage->scratch;
    }
    if (!rflat || !sflat) {
        ptrdiff_t mine_displ = mpi->rcounts != NULL ? mpi->displs[r]
                                                    : (ptrdiff_t)r * mpi->rcount;

        status = loom_allgather_pack_mine(mpi->sbuf, mpi->scount, mpi->sdtype, mpi->rbuf, mine,
                                          mine_displ, mpi->rdtype, data + mine_off);
        in_place = 1;
    }
    if (status != LOOM_OK) {
        mca_coll_loom_stage_destroy(stage);
        free(bytes);
        return status;
    }
    status = mca_coll_loom_take(module, &(mca_coll_loom_call_t){
        .coll = &loom_allgather_collective,
        .args = {
            .sendbuf = in_place ? MPI_IN_PLACE : mpi->sbuf, .recvbuf = data,
            .count = (size_t)mpi->rcount * rsig, .elem_size = 1, .in_place = in_place,
            .counts = bytes, .displs = offs,
        },
        .shm_run = shm_run }, info, sched_p);
    if (status != LOOM_OK) {
        mca_coll_loom_stage_destroy(stage);
        free(bytes);
        return status;
    }
    *owned_p = bytes;
    *stage_p = stage;
    return LOOM_OK;
}

int mca_coll_loom_allgather(const void *sbuf, int scount, struct ompi_datatype_t *sdtype,
                            void *rbuf, int rcount, struct ompi_datatype_t *rdtype,
                            struct ompi_communicator_t *comm, mca_coll_base_module_t *base)
{
    mca_coll_loom_module_t *module = (mca_coll_loom_module_t *)base;
    mca_coll_loom_shm_run_t shm_run;
    mca_coll_loom_stage_t *stage;
    mca_coll_loom_op_t info;
    loom_status_t status;
    loom_sched_t *sched;
    size_t *owned;

    shm_run.shm = NULL;
    status = loom_allgather_prepare(&(loom_allgather_mpi_t){ sbuf, scount, sdtype, rbuf, rcount,
                                                             NULL, NULL, rdtype },
                                    module, &info, &owned, &stage, &sched, &shm_run);
    if (status == LOOM_ERR_UNSUPPORTED) {
        return module->previous_allgather.fn(sbuf, scount, sdtype, rbuf, rcount, rdtype, comm,
                                             module->previous_allgather.module);
    }
    return mca_coll_loom_blocking_end(module, LOOM_COLL_ALLGATHER, status, &info, sched,
                                      &shm_run, stage, owned);
}

int mca_coll_loom_allgatherv(const void *sbuf, int scount, struct ompi_datatype_t *sdtype,
                             void *rbuf, const int *rcounts, const int *displs,
                             struct ompi_datatype_t *rdtype, struct ompi_communicator_t *comm,
                             mca_coll_base_module_t *base)
{
    mca_coll_loom_module_t *module = (mca_coll_loom_module_t *)base;
    mca_coll_loom_shm_run_t shm_run;
    mca_coll_loom_stage_t *stage;
    mca_coll_loom_op_t info;
    loom_status_t status;
    loom_sched_t *sched;
    size_t *owned;

    shm_run.shm = NULL;
    status = loom_allgather_prepare(&(loom_allgather_mpi_t){ sbuf, scount, sdtype, rbuf, 0,
                                                             rcounts, displs, rdtype },
                                    module, &info, &owned, &stage, &sched, &shm_run);
    if (status == LOOM_ERR_UNSUPPORTED) {
        return module->previous_allgatherv.fn(sbuf, scount, sdtype, rbuf, rcounts, displs,
                                              rdtype, comm, module->previous_allgatherv.module);
    }
    return mca_coll_loom_blocking_end(module, LOOM_COLL_ALLGATHER, status, &info, sched,
                                      &shm_run, stage, owned);
}

int mca_coll_loom_iallgather(const void *sbuf, int scount, struct ompi_datatype_t *sdtype,
                             void *rbuf, int rcount, struct ompi_datatype_t *rdtype,
                             struct ompi_communicator_t *comm, ompi_request_t **request,
                             mca_coll_base_module_t *base)
{
    mca_coll_loom_module_t *module = (mca_coll_loom_module_t *)base;
    mca_coll_loom_request_t *req;
    loom_status_t status;
    loom_sched_t *sched;

    req = mca_coll_loom_request_new(module, NULL, NULL);
    if (req == NULL) {
        return OMPI_ERR_OUT_OF_RESOURCE;
    }
    status = loom_allgather_prepare(&(loom_allgather_mpi_t){ sbuf, scount, sdtype, rbuf, rcount,
                                                             NULL, NULL, rdtype },
                                    module, &req->op, &req->owned, &req->stage, &sched, NULL);
    if (status == LOOM_ERR_UNSUPPORTED) {
        OBJ_RELEASE(req);
        return module->previous_iallgather.fn(sbuf, scount, sdtype, rbuf, rcount, rdtype,
                                              comm, request,
                                              module->previous_iallgather.module);
    }
    return mca_coll_loom_request_start(req, status, sched, request);
}
