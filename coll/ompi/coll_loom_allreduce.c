/*
 * MPI_Allreduce through the engine.
 *
 * Loom takes a call when the data is contiguous and made of one predefined
 * type; anything else goes to the module Open MPI selected before Loom, and
 * is counted, and so are small messages on one node, where Open MPI's
 * shared-memory fast path beats UCX's latency.  Non-commutative ops are reduced in rank order by the
 * algorithms that can (the selection only picks those).
 */
#include "coll_loom.h"

#include "common/log.h"
#include "coll/core/allreduce.h"
#include "ompi/datatype/ompi_datatype.h"
#include "ompi/op/op.h"
#include "opal/runtime/opal_progress.h"

typedef struct loom_ompi_reduce_ctx {
    ompi_op_t           *op;
    ompi_datatype_t     *dtype;  /* the predefined element type */
} loom_ompi_reduce_ctx_t;

/* Open MPI's own reduction: dst = src op dst. */
static void loom_ompi_reduce(const void *src, void *dst, size_t count, void *ctx)
{
    loom_ompi_reduce_ctx_t *c = ctx;

    ompi_op_reduce(c->op, (void *)src, dst, count, c->dtype);
}

/* The element type Loom moves and reduces, with the element count, or NULL
 * when Loom cannot take the data as raw bytes from the buffer address.  A
 * contiguous derived type stays itself: only user ops reach here with one
 * (Open MPI refuses predefined ops on derived types), and MPI gives a user
 * function the caller's datatype and whole elements of it. */
static ompi_datatype_t *loom_element_type(ompi_datatype_t *dtype, size_t count,
                                          size_t *elems_p)
{
    ptrdiff_t true_lb, true_extent;

    ompi_datatype_get_true_extent(dtype, &true_lb, &true_extent);
    if (true_lb != 0 ||
        !ompi_datatype_is_contiguous_memory_layout(dtype, count > 1 ? 2 : 1)) {
        return NULL;
    }
    *elems_p = count;
    return dtype;
}

loom_status_t mca_coll_loom_wait(loom_sched_t *sched)
{
    loom_status_t status;

    /* opal_progress drives Loom's UCX worker through the registered hook,
     * other Open MPI transports, and yields when idle if asked to. */
    while ((status = loom_sched_progress(sched)) == LOOM_INPROGRESS) {
        opal_progress();
    }
    return status;
}

int mca_coll_loom_allreduce(const void *sbuf, void *rbuf, int count,
                            struct ompi_datatype_t *dtype, struct ompi_op_t *op,
                            struct ompi_communicator_t *comm,
                            mca_coll_base_module_t *base)
{
    mca_coll_loom_module_t *module = (mca_coll_loom_module_t *)base;
    mca_coll_loom_component_t *c = &mca_coll_loom_component;
    loom_ompi_reduce_ctx_t reduce_ctx = { .op = op };
    loom_coll_args_t args;
    loom_sched_t *sched;
    loom_status_t status;
    size_t elems, esize;

    reduce_ctx.dtype = loom_element_type(dtype, (size_t)count, &elems);
    if (reduce_ctx.dtype == NULL || module->team == NULL) {
        goto fallback;
    }
    ompi_datatype_type_size(reduce_ctx.dtype, &esize);
    if (loom_allreduce_hands_off(&c->config, module->team, elems * esize)) {
        __atomic_add_fetch(&c->allreduce_handoffs, 1, __ATOMIC_RELAXED);
        goto hand_down;
    }
    args = (loom_coll_args_t){
        .sendbuf = sbuf, .recvbuf = rbuf, .count = elems, .elem_size = esize,
        .in_place = (sbuf == MPI_IN_PLACE),
        .op = { .fn = mca_coll_loom_kernel(op, reduce_ctx.dtype),
                .ctx = &reduce_ctx, .commutative = ompi_op_is_commute(op) },
    };
    if (args.op.fn == NULL) {
        args.op.fn = loom_ompi_reduce; /* user ops and the rarer types */
    }
    status = loom_allreduce_plan(&args, module->team, &c->config, &sched);
    if (status == LOOM_ERR_UNSUPPORTED) {
        goto fallback;
    } else if (status != LOOM_OK) {
        return mca_coll_loom_status_to_ompi(status);
    }
    status = mca_coll_loom_wait(sched);
    loom_sched_destroy(sched);
    __atomic_add_fetch(&c->allreduce_calls, 1, __ATOMIC_RELAXED);
    return mca_coll_loom_status_to_ompi(status);

fallback:
    __atomic_add_fetch(&c->allreduce_fallbacks, 1, __ATOMIC_RELAXED);
hand_down:
    return module->previous_allreduce(sbuf, rbuf, count, dtype, op, comm,
                                      module->previous_allreduce_module);
}
