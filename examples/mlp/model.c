/*
 * The perceptron's arithmetic: matrix products through CBLAS, the rest in
 * plain loops.  Row-major throughout: a batch is rows x features.
 */
#include "model.h"

#include <cblas.h>
#include <math.h>
#include <stdlib.h>
#include <string.h>

#include "rng.h"

/* Weight-gradient products go in pieces of this many output units, with a
 * chance to progress communication between pieces.  Both overlap modes use
 * the same pieces, so that they compute the same numbers. */
#define GRAD_CHUNK 64

static mlp_status_t model_alloc_buffers(mlp_model_t *m, const int *widths, int num_widths,
                                        mlp_error_t *err)
{
    int l, widest = 0;
    int ok;

    for (l = 1; l < num_widths; ++l) {
        widest = widths[l] > widest ? widths[l] : widest;
    }
    m->params = calloc(m->num_params, sizeof(double));
    m->grads = calloc(m->num_params, sizeof(double));
    m->velocity = calloc(m->num_params, sizeof(double));
    ok = m->params != NULL && m->grads != NULL && m->velocity != NULL;
    for (l = 0; l < num_widths; ++l) {
        m->acts[l] = malloc(sizeof(double) * (size_t)m->max_rows * (size_t)widths[l]);
        ok = ok && m->acts[l] != NULL;
    }
    m->delta[0] = malloc(sizeof(double) * (size_t)m->max_rows * (size_t)widest);
    m->delta[1] = malloc(sizeof(double) * (size_t)m->max_rows * (size_t)widest);
    ok = ok && m->delta[0] != NULL && m->delta[1] != NULL;
    if (!ok) {
        return mlp_fail(err, MLP_ERR_NOMEM, "cannot allocate a model of %zu parameters for "
                        "batches of %d samples per rank", m->num_params, m->max_rows);
    }
    return MLP_OK;
}

mlp_status_t mlp_model_create(const int *widths, int num_widths, int max_rows,
                              mlp_model_t **model_p, mlp_error_t *err)
{
    mlp_model_t *m;
    mlp_status_t st;
    size_t offset = 0;
    int l;

    if (num_widths < 2 || num_widths > MLP_MAX_LAYERS + 1 || max_rows < 1) {
        return mlp_fail(err, MLP_ERR_ARG, "a model needs 2 to %d layer widths (got %d) and "
                        "room for at least one sample", MLP_MAX_LAYERS + 1, num_widths);
    }
    m = calloc(1, sizeof(*m));
    if (m == NULL) {
        return mlp_fail(err, MLP_ERR_NOMEM, "cannot allocate a model");
    }
    m->num_layers = num_widths - 1;
    m->max_rows = max_rows;
    for (l = 0; l < m->num_layers; ++l) {
        m->layers[l].in = widths[l];
        m->layers[l].out = widths[l + 1];
        m->layers[l].offset = offset;
        m->layers[l].count = (size_t)widths[l] * (size_t)widths[l + 1] + (size_t)widths[l + 1];
        offset += m->layers[l].count;
    }
    m->num_params = offset;
    st = model_alloc_buffers(m, widths, num_widths, err);
    if (st != MLP_OK) {
        mlp_model_destroy(m);
        return st;
    }
    *model_p = m;
    return MLP_OK;
}

void mlp_model_destroy(mlp_model_t *m)
{
    int l;

    if (m == NULL) {
        return;
    }
    free(m->params);
    free(m->grads);
    free(m->velocity);
    for (l = 0; l <= m->num_layers; ++l) {
        free(m->acts[l]);
    }
    free(m->delta[0]);
    free(m->delta[1]);
    free(m);
}

void mlp_model_init_params(mlp_model_t *m, uint64_t seed)
{
    mlp_rng_t rng = mlp_rng_make(seed, 0);
    const mlp_layer_t *ly;
    size_t i, nw;
    double scale;
    int l;

    for (l = 0; l < m->num_layers; ++l) {
        ly = &m->layers[l];
        nw = (size_t)ly->in * (size_t)ly->out;
        scale = sqrt(2.0 / ly->in);   /* He: keeps ReLU activations' variance */
        for (i = 0; i < nw; ++i) {
            m->params[ly->offset + i] = scale * mlp_rng_normal(&rng);
        }
        memset(m->params + ly->offset + nw, 0, sizeof(double) * (size_t)ly->out);
    }
    memset(m->grads, 0, sizeof(double) * m->num_params);
    memset(m->velocity, 0, sizeof(double) * m->num_params);
}

double *mlp_model_input(mlp_model_t *m)
{
    return m->acts[0];
}

/* out = in W^T + b, then ReLU unless it is the last layer. */
static void layer_forward(const mlp_model_t *m, int l, int rows)
{
    const mlp_layer_t *ly = &m->layers[l];
    const double *w = m->params + ly->offset;
    const double *b = w + (size_t)ly->in * ly->out;
    double *out = m->acts[l + 1];
    int relu = l + 1 < m->num_layers;
    int r, o;

    cblas_dgemm(CblasRowMajor, CblasNoTrans, CblasTrans, rows, ly->out, ly->in, 1.0,
                m->acts[l], ly->in, w, ly->in, 0.0, out, ly->out);
    for (r = 0; r < rows; ++r) {
        double *row = out + (size_t)r * ly->out;

        for (o = 0; o < ly->out; ++o) {
            row[o] += b[o];
            if (relu && row[o] < 0.0) {
                row[o] = 0.0;
            }
        }
    }
}

void mlp_model_forward(mlp_model_t *m, int rows)
{
    int l;

    for (l = 0; rows > 0 && l < m->num_layers; ++l) {
        layer_forward(m, l, rows);
    }
}

static int argmax(const double *v, int n)
{
    int i, best = 0;

    for (i = 1; i < n; ++i) {
        best = v[i] > v[best] ? i : best;
    }
    return best;
}

void mlp_model_loss(mlp_model_t *m, const uint8_t *labels, int rows, double scale,
                    double *loss_sum_p, long *correct_p)
{
    const int classes = m->layers[m->num_layers - 1].out;
    const double *logits = m->acts[m->num_layers];
    double *d = m->delta[0], max, sum;
    int r, c;

    for (r = 0; r < rows; ++r) {
        const double *z = logits + (size_t)r * classes;
        double *dz = d + (size_t)r * classes;

        /* Subtracting the max keeps exp() finite whatever the logits. */
        max = z[argmax(z, classes)];
        sum = 0.0;
        for (c = 0; c < classes; ++c) {
            dz[c] = exp(z[c] - max);
            sum += dz[c];
        }
        *loss_sum_p += log(sum) - (z[labels[r]] - max);
        *correct_p += argmax(z, classes) == labels[r];
        for (c = 0; c < classes; ++c) {
            dz[c] = (dz[c] / sum - (c == labels[r])) * scale;
        }
    }
}

long mlp_model_count_correct(const mlp_model_t *m, const uint8_t *labels, int rows)
{
    const int classes = m->layers[m->num_layers - 1].out;
    const double *logits = m->acts[m->num_layers];
    long correct = 0;
    int r;

    for (r = 0; r < rows; ++r) {
        correct += argmax(logits + (size_t)r * classes, classes) == labels[r];
    }
    return correct;
}

/* grad W += delta^T A and grad b += column sums of delta. */
static void layer_grads(mlp_model_t *m, int l, int rows, const double *delta,
                        const mlp_backward_hooks_t *hooks)
{
    const mlp_layer_t *ly = &m->layers[l];
    double *gw = m->grads + ly->offset;
    double *gb = gw + (size_t)ly->in * ly->out;
    int o0, n, r, o;

    for (o0 = 0; o0 < ly->out; o0 += GRAD_CHUNK) {
        n = ly->out - o0 < GRAD_CHUNK ? ly->out - o0 : GRAD_CHUNK;
        cblas_dgemm(CblasRowMajor, CblasTrans, CblasNoTrans, n, ly->in, rows, 1.0,
                    delta + o0, ly->out, m->acts[l], ly->in, 1.0, gw + (size_t)o0 * ly->in,
                    ly->in);
        if (hooks != NULL && hooks->poke != NULL) {
            hooks->poke(hooks->ctx);
        }
    }
    for (r = 0; r < rows; ++r) {
        for (o = 0; o < ly->out; ++o) {
            gb[o] += delta[(size_t)r * ly->out + o];
        }
    }
}

/* The delta of layer l-1's output: delta W, zero where ReLU was off. */
static void layer_delta_back(const mlp_model_t *m, int l, int rows, const double *delta,
                             double *prev)
{
    const mlp_layer_t *ly = &m->layers[l];
    const double *a = m->acts[l];
    size_t i, n = (size_t)rows * ly->in;

    cblas_dgemm(CblasRowMajor, CblasNoTrans, CblasNoTrans, rows, ly->in, ly->out, 1.0, delta,
                ly->out, m->params + ly->offset, ly->in, 0.0, prev, ly->in);
    for (i = 0; i < n; ++i) {
        if (a[i] <= 0.0) {
            prev[i] = 0.0;
        }
    }
}

void mlp_model_backward(mlp_model_t *m, int rows, const mlp_backward_hooks_t *hooks)
{
    int l, cur = 0;

    for (l = m->num_layers - 1; l >= 0; --l) {
        /* A rank with no samples still reports every layer, so that all
         * ranks post the same collectives in the same order. */
        if (rows > 0) {
            layer_grads(m, l, rows, m->delta[cur], hooks);
        }
        if (hooks != NULL && hooks->layer_done != NULL) {
            hooks->layer_done(hooks->ctx, l);
        }
        if (rows > 0 && l > 0) {
            layer_delta_back(m, l, rows, m->delta[cur], m->delta[1 - cur]);
            cur = 1 - cur;
        }
    }
}

void mlp_model_sgd_step(mlp_model_t *m, double lr, double momentum)
{
    size_t i;

    for (i = 0; i < m->num_params; ++i) {
        m->velocity[i] = momentum * m->velocity[i] + m->grads[i];
        m->params[i] -= lr * m->velocity[i];
        m->grads[i] = 0.0;
    }
}
