/*
 * train_mlp: data-parallel training of a multilayer perceptron on
 * Fashion-MNIST, the job Loom is for.  Launch it with mpirun; whether Loom
 * or Open MPI's default reduces the gradients is mpirun's setting, not the
 * program's.
 *
 *   mpirun -np 4 examples/train_mlp --epochs 3 --hidden 512,256
 *
 * The pieces: mlp/options.c (command line), mlp/data.c (IDX files),
 * mlp/model.c (the network), mlp/train.c (the loop and its allreduces),
 * mlp/loom_counter.c (Loom's MPI_T counters).
 *
 * --filter SPEC asks for gradient filtering the way any program can: the
 * gradient communicator is made with the info key loom_filter=SPEC, which
 * mca_coll_loomfilter reads; nothing else changes.  An unmodified program
 * gets the same with mpirun --mca coll_loomfilter_filter SPEC.
 */
#include <errno.h>
#include <mpi.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "mlp/data.h"
#include "mlp/loom_counter.h"
#include "mlp/model.h"
#include "mlp/options.h"
#include "mlp/train.h"

typedef struct job {
    mlp_options_t   opts;
    int             rank, size;
    mlp_dataset_t  *train, *test;
    mlp_model_t    *model;
    MPI_Comm        grad_comm;
} job_t;

/* Rank 0 reads the files and tells everyone whether it could; then every
 * rank gets a copy.  Only rank 0 reports a problem, once. */
static mlp_status_t load_data(job_t *job, mlp_error_t *err)
{
    mlp_status_t st = MLP_OK;
    int code;

    if (job->rank == 0) {
        st = mlp_dataset_load(job->opts.data_dir, "train", job->opts.train_limit, &job->train,
                              err);
        if (st == MLP_OK) {
            st = mlp_dataset_load(job->opts.data_dir, "t10k", job->opts.test_limit, &job->test,
                                  err);
        }
    }
    code = (int)st;
    MPI_Bcast(&code, 1, MPI_INT, 0, MPI_COMM_WORLD);
    if (code != MLP_OK) {
        return (mlp_status_t)code;
    }
    st = mlp_dataset_bcast(&job->train, 0, MPI_COMM_WORLD, err);
    if (st == MLP_OK) {
        st = mlp_dataset_bcast(&job->test, 0, MPI_COMM_WORLD, err);
    }
    if (st != MLP_OK) {
        /* Out of memory on one rank while the others wait in MPI_Bcast. */
        fprintf(stderr, "train_mlp: rank %d: %s\n", job->rank, err->msg);
        MPI_Abort(MPI_COMM_WORLD, 1);
    }
    return st;
}

/* The model, with rank 0's initial parameters on every rank. */
static mlp_status_t build_model(job_t *job, mlp_error_t *err)
{
    int widths[MLP_MAX_HIDDEN + 2], n = 0, i, max_rows;
    mlp_status_t st;

    widths[n++] = job->train->pixels;
    for (i = 0; i < job->opts.num_hidden; ++i) {
        widths[n++] = job->opts.hidden[i];
    }
    widths[n++] = MLP_NUM_CLASSES;
    /* Room for this rank's share of a batch, and test chunks of 256. */
    max_rows = (job->opts.batch + job->size - 1) / job->size;
    max_rows = max_rows > 256 ? max_rows : 256;
    st = mlp_model_create(widths, n, max_rows, &job->model, err);
    if (st != MLP_OK) {
        return st;
    }
    if (job->rank == 0) {
        mlp_model_init_params(job->model, job->opts.seed);
    }
    MPI_Bcast(job->model->params, (int)job->model->num_params, MPI_DOUBLE, 0, MPI_COMM_WORLD);
    return MLP_OK;
}

/* The communicator the gradients are reduced on, as in real frameworks:
 * MPI_COMM_WORLD's duplicate, asking for filtering when --filter is
 * given.  MPI_COMM_WORLD's error handler aborts on failure. */
static void make_grad_comm(job_t *job)
{
    MPI_Info info;

    if (job->opts.filter == NULL) {
        MPI_Comm_dup(MPI_COMM_WORLD, &job->grad_comm);
        return;
    }
    MPI_Info_create(&info);
    MPI_Info_set(info, "loom_filter", job->opts.filter);
    MPI_Comm_dup_with_info(MPI_COMM_WORLD, info, &job->grad_comm);
    MPI_Info_free(&info);
}

static void print_header(const job_t *job)
{
    const mlp_model_t *m = job->model;
    int l;

    printf("train_mlp: %d rank%s, model %d", job->size, job->size > 1 ? "s" : "",
           m->layers[0].in);
    for (l = 0; l < m->num_layers; ++l) {
        printf("-%d", m->layers[l].out);
    }
    printf(" (%zu parameters, %.2f MB of gradients per allreduce), %d train / %d test images\n",
           m->num_params, m->num_params * sizeof(double) / 1e6, job->train->count,
           job->test->count);
    printf("train_mlp: global batch %d (%d to %d per rank), lr %g, momentum %g, seed %llu, "
           "accum %d, overlap %s\n", job->opts.batch, job->opts.batch / job->size,
           (job->opts.batch + job->size - 1) / job->size, job->opts.lr, job->opts.momentum,
           (unsigned long long)job->opts.seed, job->opts.accum, job->opts.overlap ? "on" : "off");
    if (job->opts.filter != NULL) {
        printf("train_mlp: gradient communicator with info loom_filter=%s%s\n", job->opts.filter,
               mlp_filter_momentum(job->opts.filter) > 0
                   ? " (momentum in the filter: the optimizer's is off)"
                   : "");
    }
    fflush(stdout);
}

/* " filter_calls=N filter_sent_bytes=N ..." for the filter's variables
 * that are there (none: ""), with the bytes per optimizer step of this
 * run (the counters start with the process, after any resume). */
static void filter_summary(const mlp_loom_counter_t *lc, long steps, char *buf, size_t len)
{
    static const struct { mlp_counter_id_t id; const char *field; } vars[] = {
        { MLP_COUNTER_FILTER_CALLS, "filter_calls" },
        { MLP_COUNTER_FILTER_SENT_BYTES, "filter_sent_bytes" },
        { MLP_COUNTER_FILTER_DENSE_BYTES, "filter_dense_bytes" },
        { MLP_COUNTER_FILTER_DENSE_SWITCHES, "filter_dense_switches" },
        { MLP_COUNTER_FILTER_RESIDUAL_BYTES, "filter_residual_bytes" },
    };
    unsigned long long v, sent, dense;
    size_t i, used = 0;

    buf[0] = '\0';
    for (i = 0; i < sizeof(vars) / sizeof(vars[0]) && used < len; ++i) {
        if (mlp_loom_counter_get(lc, vars[i].id, &v)) {
            used += (size_t)snprintf(buf + used, len - used, " %s=%llu", vars[i].field, v);
        }
    }
    if (used < len && steps > 0 &&
        mlp_loom_counter_get(lc, MLP_COUNTER_FILTER_SENT_BYTES, &sent) &&
        mlp_loom_counter_get(lc, MLP_COUNTER_FILTER_DENSE_BYTES, &dense)) {
        snprintf(buf + used, len - used, " filter_sent_per_step=%.0f filter_dense_per_step=%.0f",
                 (double)sent / (double)steps, (double)dense / (double)steps);
    }
}

static void print_summary(const job_t *job, const mlp_result_t *r, const mlp_loom_counter_t *lc)
{
    unsigned long long calls;
    char loom[32], hidden[128], filter[512];

    if (mlp_loom_counter_read(lc, &calls)) {
        snprintf(loom, sizeof(loom), "%llu", calls);
    } else {
        snprintf(loom, sizeof(loom), "n/a");
    }
    mlp_options_hidden_str(&job->opts, hidden, sizeof(hidden));
    filter_summary(lc, r->steps_run, filter, sizeof(filter));
    printf("SUMMARY ranks=%d epochs=%d steps=%ld loss=%.4f train_acc=%.4f test_acc=%.4f "
           "img_per_s=%.0f comm_s=%.3f compute_s=%.3f bytes_sent=%llu loom_calls=%s "
           "grad_allreduces=%ld train_s=%.3f accum=%d overlap=%s batch=%d hidden=%s "
           "replicas=%s%s\n",
           job->size, r->epochs, r->steps, r->loss, r->train_acc, r->test_acc,
           r->train_s > 0 ? r->images / r->train_s : 0.0, r->comm_s, r->compute_s,
           r->bytes_sent, loom, r->grad_allreduces, r->train_s, job->opts.accum,
           job->opts.overlap ? "on" : "off", job->opts.batch, hidden,
           r->replicas_identical ? "identical" : "differ", filter);
    fflush(stdout);
}

static mlp_status_t dump_params(const job_t *job, mlp_error_t *err)
{
    const char *path = job->opts.dump_params;
    FILE *f = fopen(path, "wb");
    size_t n = job->model->num_params;

    if (f == NULL) {
        return mlp_fail(err, MLP_ERR_IO, "--dump-params: cannot open %s: %s", path,
                        strerror(errno));
    }
    if (fwrite(job->model->params, sizeof(double), n, f) != n || fclose(f) != 0) {
        return mlp_fail(err, MLP_ERR_IO, "--dump-params: cannot write %s: %s", path,
                        strerror(errno));
    }
    return MLP_OK;
}

/* Everything between parsing and the summary; every rank returns the same
 * status except for a failed dump, which only rank 0 does. */
static mlp_status_t run_job(job_t *job, const mlp_loom_counter_t *lc, mlp_error_t *err)
{
    mlp_trainer_t *trainer;
    mlp_result_t result;
    mlp_status_t st;

    st = load_data(job, err);
    if (st != MLP_OK) {
        return st;
    }
    st = build_model(job, err);
    if (st != MLP_OK) {
        return st;
    }
    if (job->rank == 0 && !job->opts.quiet) {
        print_header(job);
    }
    st = mlp_trainer_create(&job->opts, job->model, job->train, job->test, job->grad_comm,
                            &trainer, err);
    if (st != MLP_OK) {
        return st;
    }
    mlp_trainer_set_counter(trainer, lc);
    mlp_ckpt_t *ckpt = NULL;
    st = mlp_ckpt_open(&job->opts, job->model, job->grad_comm, &ckpt, err);
    if (st == MLP_OK) {
        mlp_trainer_set_checkpoint(trainer, ckpt);
        st = mlp_trainer_run(trainer, &result, err);
    }
    mlp_ckpt_close(ckpt);
    mlp_trainer_destroy(trainer);
    if (st == MLP_OK && job->rank == 0) {
        print_summary(job, &result, lc);
        if (job->opts.dump_params != NULL) {
            st = dump_params(job, err);
        }
    }
    return st;
}

int main(int argc, char **argv)
{
    job_t job = { .grad_comm = MPI_COMM_NULL };
    mlp_loom_counter_t loom_counter;
    mlp_error_t err = { "" };
    mlp_status_t st;

    MPI_Init(&argc, &argv);
    mlp_loom_counter_start(&loom_counter);
    MPI_Comm_rank(MPI_COMM_WORLD, &job.rank);
    MPI_Comm_size(MPI_COMM_WORLD, &job.size);

    st = mlp_options_parse(argc, argv, &job.opts, &err);
    if (st == MLP_OK) {
        make_grad_comm(&job);
        st = run_job(&job, &loom_counter, &err);
    }
    if (job.rank == 0 && st == MLP_HELP) {
        mlp_options_usage(stdout, argv[0]);
    } else if (job.rank == 0 && st != MLP_OK) {
        fprintf(stderr, "train_mlp: %s\n", err.msg);
    }

    mlp_model_destroy(job.model);
    mlp_dataset_destroy(job.train);
    mlp_dataset_destroy(job.test);
    if (job.grad_comm != MPI_COMM_NULL) {
        MPI_Comm_free(&job.grad_comm);
    }
    mlp_loom_counter_stop(&loom_counter);
    MPI_Finalize();
    return st == MLP_OK || st == MLP_HELP ? 0 : st == MLP_ERR_ARG ? 2 : 1;
}
