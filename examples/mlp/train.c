/*
 * The training loop and its communication.
 *
 * One optimizer step = `accum` global batches (micro-steps).  Each rank adds
 * the gradients of its shares into the model's gradient vector, scaled by
 * 1 / (samples of the whole step, all ranks), so that the allreduce's sum
 * is the mean gradient of the step, exactly as one rank would compute it.
 * Only the step's last micro-step communicates: with accum K, 1/K of the
 * allreduces and bytes.
 *
 * Without overlap the whole vector goes out in one MPI_Allreduce after the
 * backward pass.  With overlap each layer's bucket goes out with
 * MPI_Iallreduce as soon as backward has finished it (last layer first),
 * the backward pass tests the requests between pieces of its products so
 * that the reductions advance, and MPI_Waitall precedes the update.
 */
#include "train.h"

#include <limits.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

#include "rng.h"

struct mlp_trainer {
    const mlp_options_t *opts;
    mlp_model_t         *model;
    const mlp_dataset_t *train, *test;
    MPI_Comm             comm;
    int                  rank, size;
    double               lut[256];      /* pixel byte -> normalized input */
    uint32_t            *order;         /* this epoch's sample order */
    uint8_t             *labels;        /* labels of the rows in the model's input */
    MPI_Request          reqs[MLP_MAX_LAYERS];
    int                  num_reqs;
    /* this epoch so far, this rank */
    double               loss_sum, comm_s, compute_s;
    long                 correct, seen;
    /* the whole run, this rank */
    unsigned long long   bytes_sent;
    long                 grad_allreduces, steps;
    const mlp_loom_counter_t *counter;  /* NULL: no filter fields */
    mlp_ckpt_t          *ckpt;          /* NULL: no checkpoints */
    mlp_status_t         ckpt_status;   /* the first failed save */
    mlp_error_t          ckpt_err;
};

void mlp_trainer_set_checkpoint(mlp_trainer_t *t, mlp_ckpt_t *ck)
{
    t->ckpt = ck;
}

void mlp_trainer_set_counter(mlp_trainer_t *t, const mlp_loom_counter_t *counter)
{
    t->counter = counter;
}

void mlp_share(long total, int rank, int size, long *start, long *len)
{
    long base = total / size, extra = total % size;

    *start = rank * base + (rank < extra ? rank : extra);
    *len = base + (rank < extra ? 1 : 0);
}

mlp_status_t mlp_trainer_create(const mlp_options_t *opts, mlp_model_t *model,
                                const mlp_dataset_t *train, const mlp_dataset_t *test,
                                MPI_Comm comm, mlp_trainer_t **trainer_p, mlp_error_t *err)
{
    mlp_trainer_t *t;
    double mean, std;
    int i;

    if (model->num_params > INT_MAX) {
        return mlp_fail(err, MLP_ERR_ARG, "the model has %zu parameters, more than one MPI "
                        "call can reduce (%d); choose smaller --hidden widths",
                        model->num_params, INT_MAX);
    }
    t = calloc(1, sizeof(*t));
    if (t == NULL) {
        return mlp_fail(err, MLP_ERR_NOMEM, "cannot allocate the trainer");
    }
    t->opts = opts;
    t->model = model;
    t->train = train;
    t->test = test;
    t->comm = comm;
    MPI_Comm_rank(comm, &t->rank);
    MPI_Comm_size(comm, &t->size);
    t->order = malloc(sizeof(uint32_t) * (size_t)train->count);
    t->labels = malloc((size_t)model->max_rows);
    if (t->order == NULL || t->labels == NULL) {
        mlp_trainer_destroy(t);
        return mlp_fail(err, MLP_ERR_NOMEM, "cannot allocate the sample order");
    }
    /* Standardize with the training set's statistics, the same on all ranks. */
    mlp_dataset_pixel_stats(train, &mean, &std);
    for (i = 0; i < 256; ++i) {
        t->lut[i] = (i - mean) / (std > 0 ? std : 1.0);
    }
    *trainer_p = t;
    return MLP_OK;
}

void mlp_trainer_destroy(mlp_trainer_t *t)
{
    if (t != NULL) {
        free(t->order);
        free(t->labels);
        free(t);
    }
}

/* Fisher-Yates from the seed and the epoch: identical on every rank. */
static void shuffle(mlp_trainer_t *t, int epoch)
{
    mlp_rng_t rng = mlp_rng_make(t->opts->seed, 1 + (uint64_t)epoch);
    uint32_t i, j, tmp, n = (uint32_t)t->train->count;

    for (i = 0; i < n; ++i) {
        t->order[i] = i;
    }
    for (i = n - 1; i > 0; --i) {
        j = (uint32_t)mlp_rng_below(&rng, (uint64_t)i + 1);
        tmp = t->order[i];
        t->order[i] = t->order[j];
        t->order[j] = tmp;
    }
}

/* Copy samples (by index through `order`, or in sequence when NULL) into
 * the model's input rows and t->labels. */
static void load_rows(mlp_trainer_t *t, const mlp_dataset_t *ds, const uint32_t *order,
                      long first, int rows)
{
    double *in = mlp_model_input(t->model);
    const uint8_t *img;
    long idx;
    int r, p;

    for (r = 0; r < rows; ++r) {
        idx = order != NULL ? order[first + r] : first + r;
        img = ds->images + (size_t)idx * (size_t)ds->pixels;
        for (p = 0; p < ds->pixels; ++p) {
            in[(size_t)r * ds->pixels + p] = t->lut[img[p]];
        }
        t->labels[r] = ds->labels[idx];
    }
}

/* ------------------------------------------------------------ communication */

static void comm_post_bucket(void *ctx, int layer)
{
    mlp_trainer_t *t = ctx;
    const mlp_layer_t *ly = &t->model->layers[layer];
    double t0 = MPI_Wtime();

    MPI_Iallreduce(MPI_IN_PLACE, t->model->grads + ly->offset, (int)ly->count, MPI_DOUBLE,
                   MPI_SUM, t->comm, &t->reqs[t->num_reqs++]);
    t->bytes_sent += ly->count * sizeof(double);
    ++t->grad_allreduces;
    t->comm_s += MPI_Wtime() - t0;
}

/* MPI progresses nonblocking collectives only inside MPI calls: a test
 * between pieces of backward is what lets them advance meanwhile. */
static void comm_poke(void *ctx)
{
    mlp_trainer_t *t = ctx;
    double t0;
    int flag;

    if (t->num_reqs > 0) {
        t0 = MPI_Wtime();
        MPI_Testall(t->num_reqs, t->reqs, &flag, MPI_STATUSES_IGNORE);
        t->comm_s += MPI_Wtime() - t0;
    }
}

/* After the step's last backward: the mean gradient on every rank. */
static void comm_finish_step(mlp_trainer_t *t)
{
    double t0 = MPI_Wtime();
    size_t n = t->model->num_params;

    if (t->opts->overlap) {
        MPI_Waitall(t->num_reqs, t->reqs, MPI_STATUSES_IGNORE);
        t->num_reqs = 0;
    } else {
        MPI_Allreduce(MPI_IN_PLACE, t->model->grads, (int)n, MPI_DOUBLE, MPI_SUM, t->comm);
        t->bytes_sent += n * sizeof(double);
        ++t->grad_allreduces;
    }
    t->comm_s += MPI_Wtime() - t0;
}

/* ----------------------------------------------------------------- training */

/* One global batch [first, first + total) of the order; this rank's share
 * of it forward and backward.  `sync`: the step's last, which communicates. */
static void micro_step(mlp_trainer_t *t, long first, long total, double scale, int sync)
{
    mlp_backward_hooks_t hooks = { comm_post_bucket, comm_poke, t };
    double t0 = MPI_Wtime(), comm0 = t->comm_s;
    long start, len;

    mlp_share(total, t->rank, t->size, &start, &len);
    load_rows(t, t->train, t->order, first + start, (int)len);
    mlp_model_forward(t->model, (int)len);
    mlp_model_loss(t->model, t->labels, (int)len, scale, &t->loss_sum, &t->correct);
    mlp_model_backward(t->model, (int)len, sync && t->opts->overlap ? &hooks : NULL);
    t->seen += len;
    t->compute_s += MPI_Wtime() - t0 - (t->comm_s - comm0);
}

/* Micro-steps [b0, b0 + kb) of batch size `batch` over n samples, then the
 * update. */
static void optimizer_step(mlp_trainer_t *t, long b0, long kb, long n)
{
    long batch = t->opts->batch, j, first, total;
    long step_first = b0 * batch;
    long step_end = (b0 + kb) * batch < n ? (b0 + kb) * batch : n;
    double scale = 1.0 / (double)(step_end - step_first), t0;

    for (j = 0; j < kb; ++j) {
        first = (b0 + j) * batch;
        total = first + batch < n ? batch : n - first;
        micro_step(t, first, total, scale, j == kb - 1);
    }
    comm_finish_step(t);
    t0 = MPI_Wtime();
    mlp_model_sgd_step(t->model, t->opts->lr, t->opts->momentum);
    t->compute_s += MPI_Wtime() - t0;
    ++t->steps;
}

/* Test accuracy: each rank its contiguous share of the test set. */
static long evaluate(mlp_trainer_t *t, long *seen_p)
{
    long start, len, i, correct = 0;
    int rows;

    mlp_share(t->test->count, t->rank, t->size, &start, &len);
    for (i = 0; i < len; i += rows) {
        rows = (int)(len - i < t->model->max_rows ? len - i : t->model->max_rows);
        load_rows(t, t->test, NULL, start + i, rows);
        mlp_model_forward(t->model, rows);
        correct += mlp_model_count_correct(t->model, t->labels, rows);
    }
    *seen_p = len;
    return correct;
}

/* The filter's byte counters at one moment, this process. */
typedef struct filter_snap {
    int                 found;          /* both variables there */
    unsigned long long  sent, dense;
    long                steps;
} filter_snap_t;

static void filter_snap_take(const mlp_trainer_t *t, filter_snap_t *snap)
{
    snap->steps = t->steps;
    snap->found = t->counter != NULL &&
                  mlp_loom_counter_get(t->counter, MLP_COUNTER_FILTER_SENT_BYTES, &snap->sent) &&
                  mlp_loom_counter_get(t->counter, MLP_COUNTER_FILTER_DENSE_BYTES, &snap->dense);
}

/* " filter_sent_per_step=S filter_dense_per_step=D" for the epoch since
 * `from` (rank 0's bytes), or "" when the filter's counters are not
 * there. */
static void filter_fields(const mlp_trainer_t *t, const filter_snap_t *from, char *buf,
                          size_t len)
{
    filter_snap_t now;
    long steps;

    buf[0] = '\0';
    filter_snap_take(t, &now);
    if (!from->found || !now.found) {
        return;
    }
    steps = now.steps - from->steps > 0 ? now.steps - from->steps : 1;
    snprintf(buf, len, " filter_sent_per_step=%.0f filter_dense_per_step=%.0f",
             (double)(now.sent - from->sent) / (double)steps,
             (double)(now.dense - from->dense) / (double)steps);
}

enum { ST_LOSS, ST_CORRECT, ST_SEEN, ST_TEST_CORRECT, ST_TEST_SEEN, ST_COMPUTE, ST_COMM,
       ST_TRAIN, ST_COUNT };

/* Test the model, sum the epoch's counters over ranks into the result,
 * print the epoch's line. */
static void epoch_end(mlp_trainer_t *t, int epoch, double train_s, mlp_result_t *res,
                      unsigned long long epoch_bytes, const filter_snap_t *filter0)
{
    double st[ST_COUNT];
    long test_correct, test_seen;
    char filter[128];

    test_correct = evaluate(t, &test_seen);
    st[ST_LOSS] = t->loss_sum;
    st[ST_CORRECT] = (double)t->correct;
    st[ST_SEEN] = (double)t->seen;
    st[ST_TEST_CORRECT] = (double)test_correct;
    st[ST_TEST_SEEN] = (double)test_seen;
    st[ST_COMPUTE] = t->compute_s;
    st[ST_COMM] = t->comm_s;
    st[ST_TRAIN] = train_s;
    MPI_Allreduce(MPI_IN_PLACE, st, ST_COUNT, MPI_DOUBLE, MPI_SUM, MPI_COMM_WORLD);
    st[ST_COMPUTE] /= t->size;
    st[ST_COMM] /= t->size;
    st[ST_TRAIN] /= t->size;

    res->epochs = epoch + 1;
    res->loss = st[ST_LOSS] / st[ST_SEEN];
    res->train_acc = st[ST_CORRECT] / st[ST_SEEN];
    res->test_acc = st[ST_TEST_CORRECT] / st[ST_TEST_SEEN];
    res->images += st[ST_SEEN];
    res->train_s += st[ST_TRAIN];
    res->comm_s += st[ST_COMM];
    res->compute_s += st[ST_COMPUTE];
    if (t->rank == 0 && !t->opts->quiet) {
        filter_fields(t, filter0, filter, sizeof(filter));
        printf("epoch %d/%d loss=%.4f train_acc=%.4f test_acc=%.4f img_per_s=%.0f epoch_s=%.3f "
               "comm_s=%.3f compute_s=%.3f bytes_sent=%llu%s\n", epoch + 1, t->opts->epochs,
               res->loss, res->train_acc, res->test_acc, st[ST_SEEN] / st[ST_TRAIN],
               st[ST_TRAIN], st[ST_COMM], st[ST_COMPUTE], epoch_bytes, filter);
        fflush(stdout);
    }
}

/* Saves a checkpoint after the step that ends before batch `next` of
 * `epoch`, when one is due; 1 when a save failed (training stops). */
static int checkpoint_due(mlp_trainer_t *t, int epoch, long next, long num_batches)
{
    if (t->ckpt == NULL || t->opts->checkpoint_every <= 0 ||
        t->steps % t->opts->checkpoint_every != 0) {
        return 0;
    }
    mlp_progress_t p = { .epoch = next < num_batches ? epoch : epoch + 1,
                         .batch = next < num_batches ? next : 0, .steps = t->steps };
    t->ckpt_status = mlp_ckpt_save(t->ckpt, &p, &t->ckpt_err);
    return t->ckpt_status != MLP_OK;
}

/* One pass over the shuffled training set from batch `first`; 1 when
 * the step limit is hit or a checkpoint failed. */
static int train_epoch(mlp_trainer_t *t, int epoch, long first)
{
    long n = t->train->count, batch = t->opts->batch;
    long num_batches = (n + batch - 1) / batch, b0, kb;

    shuffle(t, epoch);
    for (b0 = first; b0 < num_batches; b0 += kb) {
        /* The epoch's last step may hold fewer micro-steps. */
        kb = num_batches - b0 < t->opts->accum ? num_batches - b0 : t->opts->accum;
        optimizer_step(t, b0, kb, n);
        if (t->opts->step_sleep_ms > 0) {
            struct timespec ts = { t->opts->step_sleep_ms / 1000,
                                   (t->opts->step_sleep_ms % 1000) * 1000000L };
            nanosleep(&ts, NULL);
        }
        if (checkpoint_due(t, epoch, b0 + kb, num_batches)) {
            return 1;
        }
        if (t->opts->steps > 0 && t->steps >= t->opts->steps) {
            return 1;
        }
    }
    return 0;
}

/* 1 when every rank holds the same parameter bits: a hash of them,
 * compared as its maximum and its complement's maximum (the minimum's
 * complement) in one allreduce of integers, which no filter touches. */
static int replicas_identical(const mlp_trainer_t *t)
{
    const unsigned char *p = (const unsigned char *)t->model->params;
    size_t i, n = t->model->num_params * sizeof(double);
    unsigned long long h = 14695981039346656037ULL, mm[2];

    for (i = 0; i < n; ++i) {
        h = (h ^ p[i]) * 1099511628211ULL;
    }
    mm[0] = h;
    mm[1] = ~h;
    MPI_Allreduce(MPI_IN_PLACE, mm, 2, MPI_UNSIGNED_LONG_LONG, MPI_MAX, MPI_COMM_WORLD);
    return mm[0] == h && mm[1] == ~h;
}

mlp_status_t mlp_trainer_run(mlp_trainer_t *t, mlp_result_t *res, mlp_error_t *err)
{
    filter_snap_t filter0;
    unsigned long long bytes0;
    double t0;
    int epoch, stop = 0;

    memset(res, 0, sizeof(*res));
    mlp_progress_t from = { 0, 0, 0 };
    if (t->ckpt != NULL) {
        int resumed = 0;
        mlp_status_t st = mlp_ckpt_resume(t->ckpt, &from, &resumed, err);
        if (st != MLP_OK) {
            return st;
        }
        t->steps = from.steps;
        if (resumed && t->rank == 0 && !t->opts->quiet) {
            printf("resumed from checkpoint step %ld (epoch %ld, batch %ld) on %d ranks\n",
                   from.steps, from.epoch + 1, from.batch, t->size);
            if (t->opts->filter != NULL) {
                printf("restored %zu bytes of filter residuals\n",
                       mlp_ckpt_restored_residual_bytes(t->ckpt));
            }
        }
        stop = t->opts->steps > 0 && t->steps >= t->opts->steps;
    }
    for (epoch = (int)from.epoch; epoch < t->opts->epochs && !stop; ++epoch) {
        t->loss_sum = t->comm_s = t->compute_s = 0.0;
        t->correct = t->seen = 0;
        bytes0 = t->bytes_sent;
        filter_snap_take(t, &filter0);
        t0 = MPI_Wtime();
        stop = train_epoch(t, epoch, epoch == from.epoch ? from.batch : 0);
        epoch_end(t, epoch, MPI_Wtime() - t0, res, t->bytes_sent - bytes0, &filter0);
    }
    res->replicas_identical = replicas_identical(t);
    if (t->ckpt_status != MLP_OK) {
        *err = t->ckpt_err;
        return t->ckpt_status;
    }
    res->steps = t->steps;
    res->steps_run = t->steps - from.steps;
    res->bytes_sent = t->bytes_sent;
    res->grad_allreduces = t->grad_allreduces;
    return MLP_OK;
}
