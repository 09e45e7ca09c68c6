/*
 * The collectives the verifier knows (see loom_verify_coll_t): each one's
 * buffers, what they hold before the call, and what they must hold after.
 */
#include "verifier.h"
#include "verifier_internal.h"
#include "coll/core/parts/reduce_kernels.h"

#include <string.h>

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

/* ------------------------------------------------------------ allgather */

/* Allgatherv and reduce_scatter give rank r vc_v_count(pa, r) elements:
 * uneven, some empty, packed in rank order (a function of count and r
 * only, so every part of the verifier computes the same). */
#define VC_V_MAX_RANKS 1024

static size_t vc_v_counts[VC_V_MAX_RANKS];

static size_t vc_v_count(const loom_verify_params_t *pa, int r)
{
    return (pa->count + 3 * (size_t)r) % (pa->count + 2);
}

/* Elements of ranks 0..r-1: rank r's packed offset (r = p: the total). */
static size_t vc_v_offset(const loom_verify_params_t *pa, int r)
{
    size_t off = 0;
    int q;

    for (q = 0; q < r; ++q) {
        off += vc_v_count(pa, q);
    }
    return off;
}

/* Rank r's block of the uniform (v = 0) or uneven (v = 1) shape. */
static size_t vc_block_count(const loom_verify_params_t *pa, int v, int r)
{
    return v ? vc_v_count(pa, r) : pa->count;
}

static size_t vc_block_offset(const loom_verify_params_t *pa, int v, int r)
{
    return v ? vc_v_offset(pa, r) : (size_t)r * pa->count;
}

/* The rank whose block holds element i of the packed whole. */
static int vc_block_of(const loom_verify_params_t *pa, int v, size_t i)
{
    int q;

    for (q = 0; q + 1 < pa->nranks && i >= vc_block_offset(pa, v, q + 1); ++q) {
    }
    return q;
}

static void vc_ag_layout_v(const loom_verify_params_t *pa, int v, int rank,
                           loom_verify_layout_t *lay)
{
    *lay = (loom_verify_layout_t){ .has_recv = 1,
                                   .recv_elems = vc_block_offset(pa, v, pa->nranks),
                                   .has_send = !pa->in_place,
                                   .send_elems = vc_block_count(pa, v, rank),
                                   .in_place = pa->in_place };
}

/* The own block: in the send buffer, or in place at its spot. */
static int vc_ag_initial_v(const loom_verify_params_t *pa, int v, int rank, int in_send,
                           size_t i, void *elem)
{
    size_t off = vc_block_offset(pa, v, rank);

    if (!in_send) {
        if (!pa->in_place || i < off || i >= off + vc_block_count(pa, v, rank)) {
            return 0;
        }
        i -= off;
    }
    if (elem != NULL) {
        loom_verify_input(pa->op, pa->seed, rank, i, elem);
    }
    return 1;
}

static int vc_ag_expected_v(const loom_verify_params_t *pa, int v, size_t i, void *elem)
{
    int q = vc_block_of(pa, v, i);

    loom_verify_input(pa->op, pa->seed, q, i - vc_block_offset(pa, v, q), elem);
    return 1;
}

static void vc_ag_layout(const loom_verify_params_t *pa, int rank, loom_verify_layout_t *lay)
{
    vc_ag_layout_v(pa, 0, rank, lay);
}

static int vc_ag_initial(const loom_verify_params_t *pa, int rank, int in_send, size_t i,
                         void *elem)
{
    return vc_ag_initial_v(pa, 0, rank, in_send, i, elem);
}

static int vc_ag_expected(const loom_verify_params_t *pa, int rank, size_t i, void *elem)
{
    (void)rank;
    return vc_ag_expected_v(pa, 0, i, elem);
}

const loom_verify_coll_t loom_verify_allgather = {
    .name = "allgather", .rooted = 0,
    .layout = vc_ag_layout, .initial = vc_ag_initial,
    .expected = vc_ag_expected, .replicated = 1, .folds_elementwise = 0,
};

static void vc_agv_layout(const loom_verify_params_t *pa, int rank, loom_verify_layout_t *lay)
{
    vc_ag_layout_v(pa, 1, rank, lay);
}

static int vc_agv_initial(const loom_verify_params_t *pa, int rank, int in_send, size_t i,
                          void *elem)
{
    return vc_ag_initial_v(pa, 1, rank, in_send, i, elem);
}

static int vc_agv_expected(const loom_verify_params_t *pa, int rank, size_t i, void *elem)
{
    (void)rank;
    return vc_ag_expected_v(pa, 1, i, elem);
}

/* counts (packed: displs NULL), the same array for every rank. */
static void vc_v_args(const loom_verify_params_t *pa, int rank, loom_coll_args_t *args)
{
    int q;

    (void)rank;
    for (q = 0; q < pa->nranks && q < VC_V_MAX_RANKS; ++q) {
        vc_v_counts[q] = vc_v_count(pa, q);
    }
    args->counts = vc_v_counts;
    args->count = 0;
}

const loom_verify_coll_t loom_verify_allgatherv = {
    .name = "allgatherv", .rooted = 0,
    .layout = vc_agv_layout, .initial = vc_agv_initial,
    .expected = vc_agv_expected, .args = vc_v_args, .replicated = 1,
    .folds_elementwise = 0,
};

/* ------------------------------------------------------- reduce_scatter */
/* Uneven blocks (vc_v_count) in, block rank out; in place the input fills
 * the receive buffer, whose first elements get the result. */
static void vc_rsv_layout(const loom_verify_params_t *pa, int rank, loom_verify_layout_t *lay)
{
    size_t all = vc_v_offset(pa, pa->nranks);

    *lay = (loom_verify_layout_t){ .has_recv = 1,
                                   .recv_elems = pa->in_place ? all : vc_v_count(pa, rank),
                                   .has_send = !pa->in_place, .send_elems = all,
                                   .in_place = pa->in_place };
}

static int vc_rsv_expected(const loom_verify_params_t *pa, int rank, size_t i, void *elem)
{
    if (i >= vc_v_count(pa, rank)) {
        return 0;   /* in place, the rest of the input: undefined after the call */
    }
    loom_verify_fold(pa, vc_v_offset(pa, rank) + i, elem);
    return 1;
}

const loom_verify_coll_t loom_verify_reduce_scatter = {
    .name = "reduce_scatter", .rooted = 0,
    .layout = vc_rsv_layout, .initial = vc_allreduce_initial,
    .expected = vc_rsv_expected, .args = vc_v_args, .replicated = 0,
    .folds_elementwise = 0,
};

/* ------------------------------------------------------ sparse allreduce */

#define VC_SPARSE_MAX_RANKS 64

/* Each rank's select context and arguments (the plan copies the
 * arguments; the select runs later, with its context). */
typedef struct vc_sparse_rank {
    const loom_verify_params_t *pa;
    int                 rank;
} vc_sparse_rank_t;

static vc_sparse_rank_t vc_sparse_ranks[VC_SPARSE_MAX_RANKS];
static loom_sparse_args_t vc_sparse_args[VC_SPARSE_MAX_RANKS];

static const loom_verify_sparse_t vc_sparse_default = { .support = LOOM_VERIFY_SUPPORT_RANDOM };

/* Doubles in the vector, and the most a rank selects. */
static size_t vc_sparse_n(const loom_verify_params_t *pa)
{
    return 2 * pa->count;
}

static size_t vc_sparse_kmax(const loom_verify_params_t *pa)
{
    size_t n = vc_sparse_n(pa), kmax = pa->sparse ? pa->sparse->kmax : 0;

    return kmax == 0 || kmax > n ? n : kmax;
}

/* How many pairs rank selects. */
static size_t vc_sparse_k(const loom_verify_params_t *pa, int rank)
{
    const loom_verify_sparse_t *sp = pa->sparse ? pa->sparse : &vc_sparse_default;
    size_t kmax = vc_sparse_kmax(pa);

    switch (sp->support) {
    case LOOM_VERIFY_SUPPORT_EMPTY:
        return 0;
    case LOOM_VERIFY_SUPPORT_FULL:
        return kmax;
    case LOOM_VERIFY_SUPPORT_RANDOM:
        break;
    }
    return (size_t)(vf_hash(pa->seed, rank, 0, 12) % (kmax + 1));
}

/*
 * Rank's selection, walked in ascending index order: Knuth's selection
 * sampling takes index d with probability (wanted - taken) / (n - d), so
 * exactly k indices come out, ascending.  Calls fn for each (index,
 * value) up to index last; values are integers in [-100, 100].
 */
static void vc_sparse_walk(const loom_verify_params_t *pa, int rank, size_t last,
                           void (*fn)(void *acc, size_t j, uint32_t index, double value),
                           void *acc)
{
    size_t n = vc_sparse_n(pa), k = vc_sparse_k(pa, rank), taken = 0, d;

    for (d = 0; d < n && d <= last && taken < k; ++d) {
        if (vf_hash(pa->seed, rank, d, 13) % (n - d) < k - taken) {
            fn(acc, taken++, (uint32_t)d,
               (double)(int)(vf_hash(pa->seed, rank, d, 14) % 201) - 100.0);
        }
    }
}

/* A block of k pairs as coll/core/filter/pairs.h lays it out: k values,
 * then k indices. */
typedef struct vc_sparse_block {
    unsigned char   *at;
    size_t          k;
} vc_sparse_block_t;

static void vc_sparse_put(void *acc, size_t j, uint32_t index, double value)
{
    vc_sparse_block_t *b = acc;

    memcpy(b->at + j * sizeof(double), &value, sizeof(value));
    memcpy(b->at + b->k * sizeof(double) + j * sizeof(uint32_t), &index, sizeof(index));
}

static loom_status_t vc_sparse_select(void *ctx, void *block, size_t *k_p)
{
    const vc_sparse_rank_t *me = ctx;
    vc_sparse_block_t b = { .at = block, .k = vc_sparse_k(me->pa, me->rank) };

    vc_sparse_walk(me->pa, me->rank, SIZE_MAX, vc_sparse_put, &b);
    *k_p = b.k;
    return LOOM_OK;
}

/* Adds a rank's values at two indices, the doubles of one element. */
typedef struct vc_sparse_sum {
    size_t  first;
    double  v[2];
} vc_sparse_sum_t;

static void vc_sparse_add(void *acc, size_t j, uint32_t index, double value)
{
    vc_sparse_sum_t *s = acc;

    (void)j;
    if (index >= s->first) {
        s->v[index - s->first] += value;
    }
}

static void vc_sparse_layout(const loom_verify_params_t *pa, int rank,
                             loom_verify_layout_t *lay)
{
    vc_allreduce_layout(pa, rank, lay);
}

/* The dense sum of every rank's selection at doubles 2i and 2i + 1. */
static int vc_sparse_expected(const loom_verify_params_t *pa, int rank, size_t i,
                              void *elem)
{
    vc_sparse_sum_t s = { .first = 2 * i };
    int q;

    (void)rank;
    for (q = 0; q < pa->nranks; ++q) {
        vc_sparse_walk(pa, q, 2 * i + 1, vc_sparse_add, &s);
    }
    memcpy(elem, s.v, sizeof(s.v));
    return 1;
}

/* Doubles, summed; the selection of this rank. */
static void vc_sparse_args_set(const loom_verify_params_t *pa, int rank,
                               loom_coll_args_t *args)
{
    args->count = vc_sparse_n(pa);
    args->elem_size = sizeof(double);
    args->op = (loom_reduce_op_t){ .fn = loom_reduce_kernel(LOOM_OP_SUM, LOOM_DTYPE_DOUBLE),
                                   .commutative = 1 };
    args->sparse = NULL;   /* the plan refuses: too many ranks for the tables above */
    if (rank >= VC_SPARSE_MAX_RANKS) {
        return;
    }
    vc_sparse_ranks[rank] = (vc_sparse_rank_t){ .pa = pa, .rank = rank };
    vc_sparse_args[rank] = (loom_sparse_args_t){
        .select = vc_sparse_select, .ctx = &vc_sparse_ranks[rank],
        .kmax = vc_sparse_kmax(pa),
        /* Cheap messages: the model takes the dense path once the pairs
         * outweigh the vector, so its choice goes both ways. */
        .cost = { .alpha = 1e-9, .beta = 1e-9, .gamma = 1e-9 },
        .path = pa->sparse ? pa->sparse->path : LOOM_SPARSE_PATH_MODEL,
    };
    args->sparse = &vc_sparse_args[rank];
}

const loom_verify_coll_t loom_verify_sparse_allreduce = {
    .name = "sparse_allreduce", .rooted = 0,
    .layout = vc_sparse_layout, .initial = vc_allreduce_initial,
    .expected = vc_sparse_expected, .args = vc_sparse_args_set, .replicated = 1,
    .folds_elementwise = 0, .grain = 1,   /* encoded blocks (filter/encode.h) end at any byte */
};
