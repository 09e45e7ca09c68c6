/*
 * MPI_Allreduce through the engine.
 *
 * Loom takes a call when the data is contiguous and made of one predefined
 * type.  It hands a call to the module Open MPI selected before it, counted
 * by reason, when the data is anything else, when the message is small and
 * the communicator lives on one node (Open MPI's shared-memory fast path
 * beats UCX's latency there), or while coll_loom_enable is 0.
 * Non-commutative ops are reduced in rank order by the algorithms that can
 * (the selection only picks those).
 */
#include "coll_loom.h"

#include "common/log.h"
#include "coll/core/allreduce.h"
#include "ompi/datatype/ompi_datatype.h"
#include "ompi/op/op.h"
#include "opal/runtime/opal_progress.h"

#include <stdint.h>
#include <time.h>

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

static uint64_t loom_now_ns(void)
{
    struct timespec ts;

    clock_gettime(CLOCK_MONOTONIC, &ts);
    return (uint64_t)ts.tv_sec * 1000000000u + (uint64_t)ts.tv_nsec;
}

static inline void loom_count(unsigned long long *counter, unsigned long long n)
{
    __atomic_add_fetch(counter, n, __ATOMIC_RELAXED);
}

int mca_coll_loom_allreduce(const void *sbuf, void *rbuf, int count,
                            struct ompi_datatype_t *dtype, struct ompi_op_t *op,
                            struct ompi_communicator_t *comm,
                            mca_coll_base_module_t *base)
{
    mca_coll_loom_module_t *module = (mca_coll_loom_module_t *)base;
    mca_coll_loom_component_t *c = &mca_coll_loom_component;
    mca_coll_loom_counters_t *n = &c->allreduce;
    loom_ompi_reduce_ctx_t reduce_ctx = { .op = op };
    loom_allreduce_choice_t choice;
    loom_coll_args_t args;
    loom_sched_t *sched;
    loom_status_t status;
    size_t elems, esize;
    uint64_t t0;

    /* Every rank reads the same value here: the user writes it on all
     * ranks at one point between collectives (see coll_loom_mpit.c). */
    if (!__atomic_load_n(&c->enable, __ATOMIC_RELAXED)) {
        loom_count(&n->disabled, 1);
        goto hand_down;
    }
    reduce_ctx.dtype = loom_element_type(dtype, (size_t)count, &elems);
    if (reduce_ctx.dtype == NULL || module->team == NULL) {
        loom_count(&n->fallbacks, 1);
        goto hand_down;
    }
    ompi_datatype_type_size(reduce_ctx.dtype, &esize);
    if (loom_allreduce_hands_off(&c->config, module->team, elems * esize)) {
        loom_count(&n->handoffs, 1);
        loom_allreduce_explain_handoff(module->team, &c->config, elems * esize);
        goto hand_down;
    }
    t0 = loom_now_ns();
    args = (loom_coll_args_t){
        .sendbuf = sbuf, .recvbuf = rbuf, .count = elems, .elem_size = esize,
        .in_place = (sbuf == MPI_IN_PLACE),
        .op = { .fn = mca_coll_loom_kernel(op, reduce_ctx.dtype),
                .ctx = &reduce_ctx, .commutative = ompi_op_is_commute(op) },
    };
    if (args.op.fn == NULL) {
        args.op.fn = loom_ompi_reduce; /* user ops and the rarer types */
    }
    status = loom_allreduce_plan(&args, module->team, &c->config, &sched, &choice);
    if (status == LOOM_ERR_UNSUPPORTED) {
        loom_count(&n->fallbacks, 1);
        goto hand_down;
    } else if (status != LOOM_OK) {
        return mca_coll_loom_status_to_ompi(status);
    }
    status = mca_coll_loom_wait(sched);
    loom_sched_destroy(sched);
    loom_count(&n->calls, 1);
    loom_count(&n->bytes, elems * esize);
    loom_count(&n->alg[choice.alg], 1);
    loom_count(&n->time_ns, loom_now_ns() - t0);
    return mca_coll_loom_status_to_ompi(status);

hand_down:
    return module->previous_allreduce(sbuf, rbuf, count, dtype, op, comm,
                                      module->previous_allreduce_module);
}
