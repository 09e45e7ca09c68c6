/*
 * MPI_Allgather, MPI_Allgatherv and MPI_Iallgather through the engine.
 *
 * Nothing is reduced, so the engine moves bytes: an element is one byte and
 * a rank's block is its count times the type size.  Loom takes a call when
 * both datatypes lay their data out contiguously from the buffer address
 * with extent equal to size (so displacements in extents are byte offsets);
 * anything else goes to the module Open MPI selected before Loom, counted
 * as a fallback.  So do calls gathering fewer than coll_loom_allgather_handoff
 * bytes in all on one node, counted as hand-offs: the total comes from the
 * receive counts, which every rank passes alike.
 */
#include "coll_loom.h"

#include "coll/core/allgather.h"
#include "ompi/datatype/ompi_datatype.h"

#include <stdlib.h>

/* Decide and plan.  counts/displs: per rank, in elements of rdtype (NULL:
 * the uniform form); *owned_p gets the byte arrays the schedule uses. */
static loom_status_t loom_allgather_prepare(const void *sbuf, int scount, ompi_datatype_t *sdtype,
                                            void *rbuf, int rcount, const int *rcounts,
                                            const int *displs, ompi_datatype_t *rdtype,
                                            mca_coll_loom_module_t *module,
                                            mca_coll_loom_op_t *info, size_t **owned_p,
                                            loom_sched_t **sched_p)
{
    mca_coll_loom_component_t *c = &mca_coll_loom_component;
    mca_coll_loom_counters_t *n = &c->allgather;
    int p = ompi_comm_size(module->comm), r = ompi_comm_rank(module->comm), i;
    size_t rsize, ssize, *bytes = NULL, *offs = NULL, mine, total = 0;
    loom_allgather_choice_t choice;
    loom_coll_args_t args;
    loom_status_t status;

    *owned_p = NULL;
    if (!mca_coll_loom_enabled(n)) {
        return LOOM_ERR_UNSUPPORTED;
    }
    mine = rcounts != NULL ? (size_t)rcounts[r] : (size_t)rcount;
    rsize = mca_coll_loom_flat_size(rdtype);
    ssize = sbuf == MPI_IN_PLACE ? rsize : mca_coll_loom_flat_size(sdtype);
    if (rsize == 0 || ssize == 0 || module->team == NULL ||
        (sbuf != MPI_IN_PLACE && (size_t)scount * ssize != mine * rsize)) {
        return mca_coll_loom_fallback(n);
    }
    if (rcounts != NULL) {
        bytes = malloc(2 * sizeof(size_t) * (size_t)p);
        if (bytes == NULL) {
            return LOOM_ERR_NO_MEMORY;
        }
        offs = bytes + p;
        for (i = 0; i < p; ++i) {
            bytes[i] = (size_t)rcounts[i] * rsize;
            offs[i] = (size_t)displs[i] * rsize;
            total += bytes[i];
        }
    } else {
        total = (size_t)rcount * rsize * (size_t)p;
    }
    if (mca_coll_loom_hands_off(module, &(mca_coll_loom_handoff_t){
            .coll = "allgather", .threshold = c->config.allgather_handoff, .counters = n,
            .explained = &module->team->explained_allgather }, total)) {
        free(bytes);
        return LOOM_ERR_UNSUPPORTED;
    }
    *info = (mca_coll_loom_op_t){
        .coll = rcounts != NULL ? "allgatherv" : "allgather", .bytes = total, .counters = n,
        .comm = module->comm, .start_ns = mca_coll_loom_now_ns(),
    };
    args = (loom_coll_args_t){
        .sendbuf = sbuf, .recvbuf = rbuf, .count = (size_t)rcount * rsize, .elem_size = 1,
        .in_place = (sbuf == MPI_IN_PLACE), .counts = bytes, .displs = offs,
    };
    status = loom_allgather_plan(&args, module->team, &c->config, sched_p, &choice);
    if (status == LOOM_OK) {
        info->alg = loom_allgather_alg_names[choice.alg];
        info->alg_index = choice.alg;
        *owned_p = bytes;
        return LOOM_OK;
    }
    free(bytes);
    if (status == LOOM_ERR_UNSUPPORTED) {
        (void)mca_coll_loom_fallback(n);
    }
    return status;
}

static int loom_allgather_run(mca_coll_loom_op_t *info, loom_sched_t *sched, size_t *owned)
{
    loom_status_t status = mca_coll_loom_wait(info, sched);

    loom_sched_destroy(sched);
    free(owned);
    mca_coll_loom_account(info, status);
    return mca_coll_loom_status_to_ompi(status);
}

int mca_coll_loom_allgather(const void *sbuf, int scount, struct ompi_datatype_t *sdtype,
                            void *rbuf, int rcount, struct ompi_datatype_t *rdtype,
                            struct ompi_communicator_t *comm, mca_coll_base_module_t *base)
{
    mca_coll_loom_module_t *module = (mca_coll_loom_module_t *)base;
    mca_coll_loom_op_t info;
    loom_status_t status;
    loom_sched_t *sched;
    size_t *owned;

    status = loom_allgather_prepare(sbuf, scount, sdtype, rbuf, rcount, NULL, NULL, rdtype,
                                    module, &info, &owned, &sched);
    if (status == LOOM_ERR_UNSUPPORTED) {
        return module->previous_allgather.fn(sbuf, scount, sdtype, rbuf, rcount, rdtype, comm,
                                             module->previous_allgather.module);
    } else if (status != LOOM_OK) {
        return mca_coll_loom_status_to_ompi(status);
    }
    return loom_allgather_run(&info, sched, owned);
}

int mca_coll_loom_allgatherv(const void *sbuf, int scount, struct ompi_datatype_t *sdtype,
                             void *rbuf, const int *rcounts, const int *displs,
                             struct ompi_datatype_t *rdtype, struct ompi_communicator_t *comm,
                             mca_coll_base_module_t *base)
{
    mca_coll_loom_module_t *module = (mca_coll_loom_module_t *)base;
    mca_coll_loom_op_t info;
    loom_status_t status;
    loom_sched_t *sched;
    size_t *owned;

    status = loom_allgather_prepare(sbuf, scount, sdtype, rbuf, 0, rcounts, displs, rdtype,
                                    module, &info, &owned, &sched);
    if (status == LOOM_ERR_UNSUPPORTED) {
        return module->previous_allgatherv.fn(sbuf, scount, sdtype, rbuf, rcounts, displs,
                                              rdtype, comm, module->previous_allgatherv.module);
    } else if (status != LOOM_OK) {
        return mca_coll_loom_status_to_ompi(status);
    }
    return loom_allgather_run(&info, sched, owned);
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
    status = loom_allgather_prepare(sbuf, scount, sdtype, rbuf, rcount, NULL, NULL, rdtype,
                                    module, &req->op, &req->owned, &sched);
    if (status != LOOM_OK) {
        OBJ_RELEASE(req);
        if (status == LOOM_ERR_UNSUPPORTED) {
            return module->previous_iallgather.fn(sbuf, scount, sdtype, rbuf, rcount, rdtype,
                                                  comm, request,
                                                  module->previous_iallgather.module);
        }
        return mca_coll_loom_status_to_ompi(status);
    }
    return mca_coll_loom_request_start(req, sched, request);
}
