/*
 * Staging: Loom's schedules move flat bytes, so data whose datatype does
 * not lay it out flat from the buffer address (a vector, an indexed type,
 * a lower bound other than 0) goes through a contiguous scratch buffer,
 * packed before the schedule runs and unpacked after it finished.
 *
 * Only collectives that move data without reducing it stage: every rank's
 * packed stream is its type signature's bytes, equal on every rank by
 * MPI's matching rules, so ranks with flat and ranks with staged layouts
 * run one schedule together and the choice to take a call never depends
 * on a rank's own layout.  A reduction cannot stage the same way: MPI
 * hands a user op (the only kind Open MPI accepts on derived types) the
 * caller's datatype, which describes the layout, not the packed bytes.
 */
#include "coll_loom.h"
#include "coll_loom_data.h"

#include "ompi/datatype/ompi_datatype.h"
#include "opal/datatype/opal_convertor.h"

#include <stdlib.h>
#include <sys/uio.h>

/* One direction of Open MPI's local (same-architecture) convertor over
 * count elements of dtype at buf, through bytes at flat. */
static loom_status_t loom_stage_convert(int unpack, void *buf, size_t count,
                                        ompi_datatype_t *dtype, void *flat, size_t bytes)
{
    struct iovec iov = { .iov_base = flat, .iov_len = bytes };
    uint32_t iov_count = 1;
    size_t max_data = bytes;
    opal_convertor_t conv;
    int32_t rc;

    if (bytes == 0) {
        return LOOM_OK;
    }
    OBJ_CONSTRUCT(&conv, opal_convertor_t);
    rc = unpack ? opal_convertor_copy_and_prepare_for_recv(ompi_mpi_local_convertor,
                                                           &dtype->super, count, buf, 0, &conv)
                : opal_convertor_copy_and_prepare_for_send(ompi_mpi_local_convertor,
                                                           &dtype->super, count, buf, 0, &conv);
    if (rc == OPAL_SUCCESS) {
        rc = unpack ? opal_convertor_unpack(&conv, &iov, &iov_count, &max_data)
                    : opal_convertor_pack(&conv, &iov, &iov_count, &max_data);
    }
    OBJ_DESTRUCT(&conv);
    /* pack and unpack return 1 once the whole of the data went through. */
    return rc == 1 && max_data == bytes ? LOOM_OK : LOOM_ERR_INVALID_PARAM;
}

loom_status_t mca_coll_loom_pack(const void *buf, size_t count, ompi_datatype_t *dtype,
                                 void *flat)
{
    size_t size;

    ompi_datatype_type_size(dtype, &size);
    return loom_stage_convert(0, (void *)buf, count, dtype, flat, count * size);
}

loom_status_t mca_coll_loom_stage_create(void *user, ompi_datatype_t *dtype, int nblocks,
                                         size_t bytes, mca_coll_loom_stage_t **stage_p)
{
    mca_coll_loom_stage_t *stage;

    stage = calloc(1, sizeof(*stage) + sizeof(stage->block[0]) * (size_t)nblocks);
    if (stage == NULL) {
        return LOOM_ERR_NO_MEMORY;
    }
    stage->scratch = malloc(bytes > 0 ? bytes : 1);
    if (stage->scratch == NULL) {
        free(stage);
        return LOOM_ERR_NO_MEMORY;
    }
    /* The application may free its datatype handle before a nonblocking
     * call completes. */
    OBJ_RETAIN(dtype);
    stage->user = user;
    stage->dtype = dtype;
    stage->nblocks = nblocks;
    *stage_p = stage;
    return LOOM_OK;
}

void mca_coll_loom_stage_destroy(mca_coll_loom_stage_t *stage)
{
    if (stage == NULL) {
        return;
    }
    OBJ_RELEASE(stage->dtype);
    free(stage->scratch);
    free(stage);
}

loom_status_t mca_coll_loom_stage_finish(mca_coll_loom_stage_t *stage, loom_status_t status)
{
    ptrdiff_t lb, extent;
    size_t size;
    int i;

    ompi_datatype_get_extent(stage->dtype, &lb, &extent);
    ompi_datatype_type_size(stage->dtype, &size);
    for (i = 0; status == LOOM_OK && i < stage->nblocks; ++i) {
        status = loom_stage_convert(1, (char *)stage->user + stage->block[i].displ * extent,
                                    stage->block[i].count, stage->dtype,
                                    stage->scratch + stage->block[i].offset,
                                    stage->block[i].count * size);
    }
    mca_coll_loom_stage_destroy(stage);
    return status;
}
