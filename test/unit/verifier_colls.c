/*
 * The collectives the verifier knows (see loom_verify_coll_t): each one's
 * buffers, what they hold before the call, and what they must hold after.
 */
#include "verifier.h"

/* ------------------------------------------------------------ allreduce */

static void vc_allreduce_layout(const loom_verify_params_t *pa, int rank,
                                loom_verify_layout_t *lay)
{
    (void)rank;
    *lay = (loom_verify_layout_t){ .has_recv = 1, .recv_elems = pa->count,
                                   .has_send = !pa->in_place, .send_elems = pa->count,
                                   .in_place = pa->in_place };
}

/* The input: in the send buffer, or in place in the receive buffer. */
static int vc_allreduce_initial(const loom_verify_params_t *pa, int rank, int in_send,
                                size_t i, void *elem)
{
    if (!in_send && !pa->in_place) {
        return 0;
    }
    if (elem != NULL) {
        loom_verify_input(pa->op, pa->seed, rank, i, elem);
    }
    return 1;
}

static int vc_fold_everywhere(const loom_verify_params_t *pa, int rank, size_t i,
                              void *elem)
{
    (void)rank;
    loom_verify_fold(pa, i, elem);
    return 1;
}

const loom_verify_coll_t loom_verify_allreduce = {
    .name = "allreduce", .rooted = 0,
    .layout = vc_allreduce_layout, .initial = vc_allreduce_initial,
    .expected = vc_fold_everywhere, .replicated = 1, .folds_elementwise = 1,
};

/* ---------------------------------------------------------------- bcast */

/* One buffer per rank; in_place and the send buffer are not used. */
static void vc_bcast_layout(const loom_verify_params_t *pa, int rank,
                            loom_verify_layout_t *lay)
{
    (void)rank;
    *lay = (loom_verify_layout_t){ .has_recv = 1, .recv_elems = pa->count };
}

/* Only the root's buffer holds data. */
static int vc_bcast_initial(const loom_verify_params_t *pa, int rank, int in_send,
                            size_t i, void *elem)
{
    if (in_send || rank != pa->root) {
        return 0;
    }
    if (elem != NULL) {
        loom_verify_input(pa->op, pa->seed, rank, i, elem);
    }
    return 1;
}

static int vc_bcast_expected(const loom_verify_params_t *pa, int rank, size_t i,
                             void *elem)
{
    (void)rank;
    loom_verify_input(pa->op, pa->seed, pa->root, i, elem);
    return 1;
}

const loom_verify_coll_t loom_verify_bcast = {
    .name = "bcast", .rooted = 1,
    .layout = vc_bcast_layout, .initial = vc_bcast_initial,
    .expected = vc_bcast_expected, .replicated = 1, .folds_elementwise = 0,
};

/* --------------------------------------------------------------- reduce */

/* Only the root has a receive buffer (the others pass NULL); in place
 * applies to the root alone, whose input is then in that buffer. */
static void vc_reduce_layout(const loom_verify_params_t *pa, int rank,
                             loom_verify_layout_t *lay)
{
    int root_in_place = pa->in_place && rank == pa->root;

    *lay = (loom_verify_layout_t){ .has_recv = rank == pa->root, .recv_elems = pa->count,
                                   .has_send = !root_in_place, .send_elems = pa->count,
                                   .in_place = root_in_place };
}

static int vc_reduce_initial(const loom_verify_params_t *pa, int rank, int in_send,
                             size_t i, void *elem)
{
    if (!in_send && !(pa->in_place && rank == pa->root)) {
        return 0;
    }
    if (elem != NULL) {
        loom_verify_input(pa->op, pa->seed, rank, i, elem);
    }
    return 1;
}

const loom_verify_coll_t loom_verify_reduce = {
    .name = "reduce", .rooted = 1,
    .layout = vc_reduce_layout, .initial = vc_reduce_initial,
    .expected = vc_fold_everywhere,   /* only the root has a receive buffer */
    .replicated = 0, .folds_elementwise = 1,
};

/* ------------------------------------------------- reduce_scatter_block */

/* p blocks of count elements in; block rank out.  In place the input
 * fills the receive buffer, whose first count elements get the result. */
static void vc_rs_block_layout(const loom_verify_params_t *pa, int rank,
                               loom_verify_layout_t *lay)
{
    size_t all = (size_t)pa->nranks * pa->count;

    (void)rank;
    *lay = (loom_verify_layout_t){ .has_recv = 1,
                                   .recv_elems = pa->in_place ? all : pa->count,
                                   .has_send = !pa->in_place, .send_elems = all,
                                   .in_place = pa->in_place };
}

static int vc_rs_block_expected(const loom_verify_params_t *pa, int rank, size_t i,
                                void *elem)
{
    if (i >= pa->count) {
        return 0;   /* in place, the rest of the input: undefined after the call */
    }
    loom_verify_fold(pa, (size_t)rank * pa->count + i, elem);
    return 1;
}

const loom_verify_coll_t loom_verify_reduce_scatter_block = {
    .name = "reduce_scatter_block", .rooted = 0,
    .layout = vc_rs_block_layout, .initial = vc_allreduce_initial,
    .expected = vc_rs_block_expected, .replicated = 0, .folds_elementwise = 0,
};
