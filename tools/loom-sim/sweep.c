/* The sweep over rank counts, algorithms and sizes (sweep.h). */
#include "sweep.h"
#include "coll/sim/exec.h"
#include "coll/core/select/cost_links.h"
#include "coll/core/sparse/sparse.h"

#include <pthread.h>
#include <stdio.h>
#include <stdlib.h>
#include <time.h>
#include <unistd.h>

static double loom_sim_now(void)
{
    struct timespec ts;

    clock_gettime(CLOCK_MONOTONIC, &ts);
    return (double)ts.tv_sec + 1e-9 * (double)ts.tv_nsec;
}

void loom_sim_config(const loom_sim_model_t *m, loom_coll_config_t *cfg)
{
    double node_mbs = loom_sim_model_nic_bps(m) * m->nics_per_node / 1e6;

    loom_coll_config_init(cfg);
    cfg->cost_alpha_ns = (int)(m->alpha_us[LOOM_SIM_INTRA_NODE] * 1e3 + 0.5);
    cfg->cost_bandwidth_mbs = (int)(m->gbs[LOOM_SIM_INTRA_NODE] * 1e3 + 0.5);
    cfg->cost_reduce_mbs = (int)(m->reduce_gbs * 1e3 + 0.5);
    cfg->cost_rack_alpha_ns = (int)(m->alpha_us[LOOM_SIM_INTRA_RACK] * 1e3 + 0.5);
    cfg->cost_rack_bandwidth_mbs = (int)(node_mbs + 0.5);
    cfg->cost_spine_alpha_ns = (int)(m->alpha_us[LOOM_SIM_INTER_RACK] * 1e3 + 0.5);
    cfg->cost_spine_bandwidth_mbs = (int)(loom_sim_model_uplink_bps(m) / 1e6 + 0.5);
    cfg->cost_alpha_ns = cfg->cost_alpha_ns > 0 ? cfg->cost_alpha_ns : 1;
    cfg->cost_bandwidth_mbs = cfg->cost_bandwidth_mbs > 0 ? cfg->cost_bandwidth_mbs : 1;
    cfg->cost_reduce_mbs = cfg->cost_reduce_mbs > 0 ? cfg->cost_reduce_mbs : 1;
    cfg->cost_rack_bandwidth_mbs = cfg->cost_rack_bandwidth_mbs > 0 ? cfg->cost_rack_bandwidth_mbs : 1;
    cfg->cost_spine_bandwidth_mbs =
        cfg->cost_spine_bandwidth_mbs > 0 ? cfg->cost_spine_bandwidth_mbs : 1;
}

/* Never called: the simulator runs no compute step (exec.h), and a
 * modeled plan takes its selection from model_k.  The plan only asks
 * that there be one. */
static loom_status_t loom_sim_sparse_select(void *ctx, void *block, size_t *k_p)
{
    (void)ctx;
    (void)block;
    (void)k_p;
    return LOOM_ERR_UNSUPPORTED;
}

/* The sparse allreduce's args for size bytes of floats: every rank's
 * selection k = ceil(density * count), its bound the same, and the model
 * its switch to dense prices with the engine's, as a flat algorithm sees
 * the team's links (cost_links.h: both of its paths are flat rings). */
static void loom_sim_sparse_args(const loom_sim_sparse_t *sp, const loom_coll_config_t *cfg,
                                 const loom_team_t *team, size_t bytes,
                                 loom_sparse_args_t *args)
{
    loom_coll_config_t flat;
    loom_cost_links_t links;
    size_t k = loom_sim_sparse_k(sp->density, bytes / sizeof(float));

    *args = (loom_sparse_args_t){
        .select = loom_sim_sparse_select, .kmax = k,
        .cost = loom_cost_from_config(loom_cost_links_prepare(cfg, team, &links, &flat)),
        .path = (loom_sparse_path_t)sp->path, .modeled = 1, .model_k = k,
    };
}

/* Whether the sparse allreduce's plans fit in memory: each allocates a
 * block of kmax pairs for every rank (sparse_allgather.c; a pair of a
 * float is 8 bytes), and the scratch pool rounds it up to a power of two
 * and touches every page.  Two are alive at once while a folded run is
 * checked.  Refused, with a message, beyond half the machine's memory:
 * p x 2 n bytes at density 1 would take the machine down instead. */
static loom_status_t loom_sim_sparse_fits(int p, size_t bytes, const loom_sparse_args_t *sp)
{
    double block = (double)((sp->kmax * 8 + 63) / 64 * 64), need = 1, have;

    while (need < block * p) {
        need *= 2;
    }
    have = (double)sysconf(_SC_PHYS_PAGES) * (double)sysconf(_SC_PAGESIZE);
    if (have > 0 && 2 * need > have / 2) {
        fprintf(stderr, "loom-sim: sparse_allreduce on %d ranks of %zu bytes: each plan "
                "allocates a block of %zu pairs for every rank, %.1f GiB (twice while a "
                "folded run is checked), over half of this machine's %.1f GiB; lower -p, -e "
                "or --density\n", p, bytes, sp->kmax, need / (1 << 30), have / (1 << 30));
        return LOOM_ERR_NO_MEMORY;
    }
    return LOOM_OK;
}

/* One point on prog's layout; prog is rebuilt in place (exec.h). */
static loom_status_t loom_sim_predict_on(const loom_sim_coll_t *coll,
                                         const loom_sim_model_t *model, loom_sim_prog_t *prog,
                                         const loom_sim_layout_t *lay, size_t bytes, int alg,
                                         int in_place, int fold, const loom_sim_sparse_t *sp,
                                         loom_sim_row_t *row)
{
    static const loom_sim_sparse_t sp_default = { .density = LOOM_SIM_SPARSE_DENSITY,
                                                  .path = LOOM_SPARSE_PATH_MODEL };
    loom_choice_t choice, forced;
    loom_coll_config_t cfg;
    loom_sparse_args_t sparse;
    loom_sim_result_t res;
    loom_status_t status;
    loom_team_t *team;
    int p = lay->p;

    loom_sim_config(model, &cfg);
    status = loom_sim_layout_team(lay, &team);
    if (status != LOOM_OK) {
        return status;
    }
    if (coll->sparse) {
        loom_sim_sparse_args(sp != NULL ? sp : &sp_default, &cfg, team, bytes, &sparse);
    }
    loom_sim_select(coll, &cfg, team, bytes, 0, &choice);
    if (coll->engine->refine != NULL && coll->sparse) {
        /* What the selection adds from the call's arguments (collective.h). */
        loom_coll_args_t a = { .count = bytes / sizeof(float), .elem_size = sizeof(float),
                               .sparse = &sparse };

        coll->engine->refine(&a, team, &choice);
    }
    /* The segment and depth the engine uses when the algorithm is forced. */
    loom_sim_select(coll, &cfg, team, bytes, alg != 0 ? alg : choice.alg, &forced);
    loom_team_destroy(team);
    if (coll->sparse) {
        status = loom_sim_sparse_fits(p, bytes, &sparse);
        if (status != LOOM_OK) {
            return status;
        }
    }
    if (alg == 0) {
        forced = choice;
    }
    *row = (loom_sim_row_t){ .ranks = p, .nodes = lay->nodes, .racks = lay->racks,
                             .bytes = bytes, .alg = alg, .ran_alg = forced.alg,
                             .seg_bytes = forced.seg_bytes, .choice_alg = choice.alg,
                             .choice_seg = choice.seg_bytes };
    row->chosen = forced.alg == choice.alg && forced.seg_bytes == choice.seg_bytes;
    status = loom_sim_prog_plan(prog, &(loom_sim_build_params_t){
                                    .layout = lay,
                                    .plan = coll->engine->algorithms[forced.alg].plan,
                                    .bytes = bytes,
                                    .total = coll->total,
                                    .seg_bytes = forced.seg_bytes,
                                    .depth = forced.depth, .in_place = in_place,
                                    .fold = fold, .sparse = coll->sparse ? &sparse : NULL });
    if (status == LOOM_ERR_UNSUPPORTED) {
        return LOOM_OK;   /* the row says the plan refused */
    }
    if (status != LOOM_OK) {
        return status;
    }
    status = loom_sim_prog_run(prog, model, &res);
    if (status != LOOM_OK) {
        return status;
    }
    row->ok = 1;
    row->arm = loom_sim_prog_arm(prog);
    row->sent_bytes = loom_sim_prog_sent0(prog);
    row->time_s = res.time_s;
    row->algbw_gbs = res.time_s > 0 ? (double)bytes / res.time_s * 1e-9 : 0;
    row->busbw_gbs = loom_sim_coll_busbw(coll, row->algbw_gbs, p);
    return LOOM_OK;
}

loom_status_t loom_sim_predict(const loom_sim_coll_t *coll, const loom_sim_model_t *model, int p,
                               size_t bytes, int alg, int in_place, const loom_sim_sparse_t *sp,
                               loom_sim_row_t *row_p)
{
    loom_sim_layout_t *lay;
    loom_sim_prog_t *prog;
    loom_status_t status = loom_sim_layout_create(model, p, &lay);

    if (status != LOOM_OK) {
        return status;
    }
    status = loom_sim_prog_create(lay, &prog);
    if (status == LOOM_OK) {
        status = loom_sim_predict_on(coll, model, prog, lay, bytes, alg, in_place, 1, sp,
                                     row_p);
        loom_sim_prog_destroy(prog);
    }
    loom_sim_layout_destroy(lay);
    return status;
}

/* One rank count's points (size-major, then algorithm), handed out to
 * the workers one at a time, the last first; each worker rebuilds its
 * own program. */
typedef struct loom_sim_batch {
    const loom_sim_options_t *o;
    const loom_sim_layout_t *lay;
    loom_sim_row_t          *rows;      /* one per point */
    int                     npoints;
    pthread_mutex_t         lock;       /* guards the fields below */
    int                     next;       /* points taken so far */
    int                     done;
    loom_status_t           status;     /* the first error */
    FILE                    *progress;
    double                  t0;
} loom_sim_batch_t;

static void *loom_sim_batch_work(void *arg)
{
    loom_sim_batch_t *b = arg;
    const loom_sim_options_t *o = b->o;
    loom_sim_prog_t *prog;
    loom_status_t status = loom_sim_prog_create(b->lay, &prog);
    size_t bytes;
    int i, k;

    while (status == LOOM_OK) {
        /* Largest sizes first: they take longest, and a worker left with
         * one of them at the end would keep the others idle. */
        pthread_mutex_lock(&b->lock);
        i = b->status == LOOM_OK && b->next < b->npoints ? b->npoints - 1 - b->next++ : -1;
        pthread_mutex_unlock(&b->lock);
        if (i < 0) {
            break;
        }
        for (bytes = o->min_bytes, k = 0; k < i / o->nalgs; ++k) {
            bytes *= (size_t)o->factor;
        }
        status = loom_sim_predict_on(o->coll, &o->model, prog, b->lay, bytes,
                                     o->algs[i % o->nalgs],
                                     o->in_place, !o->no_fold, &o->sparse, &b->rows[i]);
        pthread_mutex_lock(&b->lock);
        b->done++;
        if (b->progress != NULL) {
            fprintf(b->progress, "loom-sim: %d ranks, %d of %d points, %.1f s\r", b->lay->p,
                    b->done, b->npoints, loom_sim_now() - b->t0);
            fflush(b->progress);
        }
        pthread_mutex_unlock(&b->lock);
    }
    pthread_mutex_lock(&b->lock);
    b->status = b->status == LOOM_OK ? status : b->status;
    pthread_mutex_unlock(&b->lock);
    loom_sim_prog_destroy(prog);
    return NULL;
}

/* The points of one rank count, on o->jobs threads (the calling one
 * among them); rows come out in point order whatever ran where. */
static loom_status_t loom_sim_batch_run(loom_sim_batch_t *b)
{
    pthread_t threads[LOOM_SIM_MAX_JOBS];
    int n = b->o->jobs < b->npoints ? b->o->jobs : b->npoints, started, t;

    if (pthread_mutex_init(&b->lock, NULL) != 0) {
        return LOOM_ERR_NO_MEMORY;
    }
    for (started = 0; started < n - 1; ++started) {
        if (pthread_create(&threads[started], NULL, loom_sim_batch_work, b) != 0) {
            break;   /* fewer workers, same results */
        }
    }
    loom_sim_batch_work(b);
    for (t = 0; t < started; ++t) {
        pthread_join(threads[t], NULL);
    }
    pthread_mutex_destroy(&b->lock);
    return b->status;
}

/* The rank order --order asks for, on lay's team. */
static loom_status_t loom_sim_sweep_order(const loom_sim_options_t *o, loom_sim_layout_t *lay)
{
    int *order = malloc(sizeof(int) * (size_t)lay->p);
    loom_status_t status = LOOM_ERR_NO_MEMORY;

    if (order != NULL) {
        status = loom_sim_order_fill(o, lay->p, order) ? loom_sim_layout_set_order(lay, order)
                                                       : LOOM_OK;
    }
    free(order);
    return status;
}

loom_status_t loom_sim_sweep_run(const loom_sim_options_t *o, FILE *progress,
                                 loom_sim_sweep_t *sweep_p)
{
    loom_sim_sweep_t sw = { NULL, 0, 0 };
    loom_sim_layout_t *lay;
    loom_status_t status = LOOM_OK;
    double t0 = loom_sim_now();
    int nsizes = 0, i;
    size_t bytes;

    for (bytes = o->min_bytes; bytes <= o->max_bytes; bytes *= (size_t)o->factor) {
        ++nsizes;
    }
    sw.rows = calloc((size_t)(o->nranks * nsizes * o->nalgs), sizeof(*sw.rows));
    if (sw.rows == NULL) {
        return LOOM_ERR_NO_MEMORY;
    }
    for (i = 0; i < o->nranks && status == LOOM_OK; ++i) {
        loom_sim_batch_t batch;

        status = loom_sim_layout_create(&o->model, o->ranks[i], &lay);
        if (status != LOOM_OK) {
            break;
        }
        status = loom_sim_sweep_order(o, lay);
        if (status != LOOM_OK) {
            loom_sim_layout_destroy(lay);
            break;
        }
        batch = (loom_sim_batch_t){ .o = o, .lay = lay, .rows = sw.rows + sw.nrows,
                                    .npoints = nsizes * o->nalgs, .status = LOOM_OK,
                                    .progress = progress, .t0 = t0 };
        status = loom_sim_batch_run(&batch);
        sw.nrows += status == LOOM_OK ? batch.npoints : 0;
        loom_sim_layout_destroy(lay);
    }
    if (progress != NULL) {
        fprintf(progress, "%60s\r", "");
    }
    sw.wall_s = loom_sim_now() - t0;
    if (status != LOOM_OK) {
        free(sw.rows);
        return status;
    }
    *sweep_p = sw;
    return LOOM_OK;
}

void loom_sim_sweep_free(loom_sim_sweep_t *sweep)
{
    free(sweep->rows);
    sweep->rows = NULL;
    sweep->nrows = 0;
}
