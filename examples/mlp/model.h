/*
 * The multilayer perceptron: fully connected layers, ReLU between them,
 * softmax cross-entropy on the last, SGD with momentum.  Everything is
 * double: the summed gradient of a batch split over P ranks must equal the
 * gradient of the whole batch on one rank up to rounding, and double keeps
 * that rounding (and its effect on which ReLUs fire) out of sight.
 *
 * All parameters live in one flat vector, layer by layer, each layer's
 * weights (out x in, row-major) followed by its biases, so one allreduce
 * can take all gradients and a layer's gradients are one contiguous bucket.
 */
#ifndef MLP_MODEL_H
#define MLP_MODEL_H

#include <stddef.h>
#include <stdint.h>

#include "common.h"

#define MLP_MAX_LAYERS 8

typedef struct mlp_layer {
    int    in, out;
    size_t offset;      /* of the weights in the flat vectors; biases follow */
    size_t count;       /* weights and biases: the layer's bucket */
} mlp_layer_t;

/* Called during backward: `layer_done` once a layer's gradient is final,
 * from the last layer to the first; `poke` between pieces of the gradient
 * products, where communication in flight can be progressed. */
typedef struct mlp_backward_hooks {
    void  (*layer_done)(void *ctx, int layer);
    void  (*poke)(void *ctx);
    void   *ctx;
} mlp_backward_hooks_t;

typedef struct mlp_model {
    int          num_layers;
    mlp_layer_t  layers[MLP_MAX_LAYERS];
    size_t       num_params;
    double      *params, *grads, *velocity;
    int          max_rows;                    /* samples per forward */
    double      *acts[MLP_MAX_LAYERS + 1];    /* [0] input, [l+1] output of layer l */
    double      *delta[2];                    /* backward scratch, rows x widest */
} mlp_model_t;

/* widths: input, hidden..., classes (num_widths >= 2). */
mlp_status_t mlp_model_create(const int *widths, int num_widths, int max_rows,
                              mlp_model_t **model_p, mlp_error_t *err);
void mlp_model_destroy(mlp_model_t *m);

/* He-normal weights from the seed, zero biases, zero momentum. */
void mlp_model_init_params(mlp_model_t *m, uint64_t seed);

/* The input rows go in mlp_model_input(m) (rows x input width). */
double *mlp_model_input(mlp_model_t *m);

/* Forward over `rows` inputs; the logits are in acts[num_layers]. */
void mlp_model_forward(mlp_model_t *m, int rows);

/* Softmax cross-entropy of the logits against labels: adds the loss sum
 * and the count of right answers, and leaves in delta[0] the gradient of
 * the loss sum times `scale` (1 / the samples of the whole optimizer step,
 * all ranks together, so that summing over ranks gives the mean). */
void mlp_model_loss(mlp_model_t *m, const uint8_t *labels, int rows, double scale,
                    double *loss_sum_p, long *correct_p);

/* Right answers among `rows` after a forward. */
long mlp_model_count_correct(const mlp_model_t *m, const uint8_t *labels, int rows);

/* Backward from delta[0]: adds to grads.  hooks may be NULL. */
void mlp_model_backward(mlp_model_t *m, int rows, const mlp_backward_hooks_t *hooks);

/* velocity = momentum * velocity + grads; params -= lr * velocity; grads = 0. */
void mlp_model_sgd_step(mlp_model_t *m, double lr, double momentum);

#endif
