/* The sparse allreduce: its algorithm table, its selection and its
 * descriptor (collective.h, sparse.h). */
#include "coll/core/sparse/sparse.h"
#include "common/log.h"

#include <stddef.h>
#include <stdint.h>

const char *const loom_sparse_alg_names[] = {
    [LOOM_SPARSE_AUTO] = "auto",
    [LOOM_SPARSE_ALLGATHER] = "allgather",
    [LOOM_SPARSE_MERGE] = "merge",
    [LOOM_SPARSE_SPLIT] = "split",
    [LOOM_SPARSE_ALG_COUNT] = NULL,
};

const loom_algorithm_t loom_sparse_algorithms[LOOM_SPARSE_ALG_COUNT] = {
    [LOOM_SPARSE_ALLGATHER] = { .name = "allgather", .plan = loom_sparse_allgather_plan,
                                .segmented = 1 },
    [LOOM_SPARSE_MERGE] = { .name = "merge", .plan = loom_sparse_merge_plan },
    [LOOM_SPARSE_SPLIT] = { .name = "split", .plan = loom_sparse_split_plan, .segmented = 1 },
};

/* The bytes alone do not decide: what is chosen here is the dense ring's
 * segments, as the ring allreduce's settings say, and allgather until
 * loom_sparse_refine prices the algorithms for the selection's size. */
void loom_sparse_select_team(const loom_coll_config_t *cfg, const loom_team_t *team,
                             size_t bytes, int commutative, loom_choice_t *choice_p)
{
    int forced = cfg->sparse_allreduce_algorithm;

    (void)team;
    (void)bytes;
    (void)commutative;
    *choice_p = (loom_choice_t){
        .alg = forced != 0 ? forced : LOOM_SPARSE_ALLGATHER, .forced = forced != 0,
        .rule = -1, .seg_bytes = cfg->allreduce_segment > 0 ? cfg->allreduce_segment : 256 << 10,
        .depth = cfg->allreduce_depth,
    };
}

/* Every algorithm's prediction for every rank selecting k of n (each
 * takes its own switches to dense into account: sparse_*.c). */
static double loom_sparse_predict(int alg, const loom_cost_t *m, int p, size_t n, size_t esize,
                                  size_t k)
{
    size_t bytes;
    int encoding;

    switch (alg) {
    case LOOM_SPARSE_ALLGATHER:
        return loom_sparse_allgather_model(m, p, n, esize, k, &encoding, &bytes);
    case LOOM_SPARSE_MERGE:
        return loom_sparse_merge_model(m, p, n, esize, k, &bytes);
    case LOOM_SPARSE_SPLIT:
        return loom_sparse_split_model(m, p, n, esize, k, &bytes);
    default:
        return -1;
    }
}

size_t loom_sparse_k_of(const loom_sparse_args_t *sp)
{
    if (sp->modeled) {
        return sp->model_k;
    }
    return sp->k > 0 && sp->k < sp->kmax ? sp->k : sp->kmax;
}

/* The cheapest algorithm under the caller's model for its selection's
 * bound (kmax: the k every rank plans for; the same on every rank, so
 * every rank chooses alike). */
void loom_sparse_refine(const loom_coll_args_t *args, const loom_team_t *team,
                        loom_choice_t *choice_p)
{
    const loom_sparse_args_t *sp = args->sparse;
    size_t k;
    int alg;

    if (sp == NULL || args->count == 0) {
        return;
    }
    k = loom_sparse_k_of(sp) < args->count ? loom_sparse_k_of(sp) : args->count;
    choice_p->cost_s = -1;
    choice_p->next_alg = 0;
    for (alg = 1; alg < LOOM_SPARSE_ALG_COUNT; ++alg) {
        double t = loom_sparse_predict(alg, &sp->cost, team->size, args->count,
                                       args->elem_size, k);

        if (t < 0) {
            continue;
        }
        if (choice_p->cost_s < 0 || t < choice_p->cost_s) {
            if (choice_p->cost_s >= 0) {
                choice_p->next_alg = choice_p->alg;
                choice_p->next_cost_s = choice_p->cost_s;
            }
            choice_p->alg = alg;
            choice_p->cost_s = t;
        } else if (choice_p->next_alg == 0 || t < choice_p->next_cost_s) {
            choice_p->next_alg = alg;
            choice_p->next_cost_s = t;
        }
    }
}

const loom_collective_t loom_sparse_allreduce_collective = {
    .id = LOOM_COLL_SPARSE_ALLREDUCE, .name = "sparse_allreduce",
    .call_names = { "sparse_allreduce", "sparse_allreduce" },
    .alg_names = loom_sparse_alg_names, .algorithms = loom_sparse_algorithms,
    .alg_count = LOOM_SPARSE_ALG_COUNT, .reproducible = 0,
    .reduces = 1, .rooted = 0, .vector = 0,
    .select = loom_sparse_select_team,
    .refine = loom_sparse_refine,
    .segment = { .run = NULL },
    .setting = offsetof(loom_coll_config_t, sparse_allreduce_algorithm),
    .handoff = LOOM_COLL_NO_SETTING,
    .pair_handoff = LOOM_COLL_NO_SETTING,
};

loom_status_t loom_sparse_outcome(const loom_sched_t *sched, loom_sparse_outcome_t *out_p)
{
    if (sched->status != LOOM_OK || sched->alg_id <= LOOM_SPARSE_AUTO ||
        sched->alg_id >= LOOM_SPARSE_ALG_COUNT) {
        return LOOM_ERR_INVALID_PARAM;
    }
    if (sched->scratch == NULL) {
        *out_p = (loom_sparse_outcome_t){ .alg = sched->alg_id, .dense_stage = -1 };
        return LOOM_OK;
    }
    *out_p = ((const loom_sparse_head_t *)sched->scratch)->out;
    return LOOM_OK;
}

loom_status_t loom_sparse_check_args(const loom_coll_args_t *args, const char *alg)
{
    const loom_sparse_args_t *sp = args->sparse;

    if (sp == NULL || sp->select == NULL) {
        loom_error("coll", "sparse allreduce (%s): no selection (args->sparse and its select "
                   "are required)", alg);
        return LOOM_ERR_INVALID_PARAM;
    }
    if (args->elem_size != 4 && args->elem_size != 8) {
        loom_error("coll", "sparse allreduce (%s): elements of %zu bytes; float (4) and "
                   "double (8) are accepted", alg, args->elem_size);
        return LOOM_ERR_INVALID_PARAM;
    }
    if (args->count > UINT32_MAX) {
        loom_error("coll", "sparse allreduce (%s): %zu elements; pairs index at most 2^32",
                   alg, args->count);
        return LOOM_ERR_INVALID_PARAM;
    }
    if (sp->path < LOOM_SPARSE_PATH_MODEL || sp->path > LOOM_SPARSE_PATH_DENSE) {
        loom_error("coll", "sparse allreduce (%s): path %d; 0 (model), 1 (sparse) and 2 "
                   "(dense) are accepted", alg, (int)sp->path);
        return LOOM_ERR_INVALID_PARAM;
    }
    return LOOM_OK;
}

static void loom_sparse_reverse(int *a, int n)
{
    int i, t;

    for (i = 0; i < n / 2; ++i) {
        t = a[i];
        a[i] = a[n - 1 - i];
        a[n - 1 - i] = t;
    }
}

void loom_sparse_rotate(int *a, int n, int k)
{
    loom_sparse_reverse(a, k);
    loom_sparse_reverse(a + k, n - k);
    loom_sparse_reverse(a, n);
}
