/*
 * Error feedback (feedback.h): accumulate, select, clear what was sent.
 */
#include "coll/core/filter/feedback.h"
#include "coll/core/filter/topk.h"

#include <math.h>
#include <string.h>

double loom_filter_density(const loom_filter_spec_t *spec, uint64_t step)
{
    if (!spec->enabled) {
        return 1.0;
    }
    if (step >= spec->warmup) {
        return spec->density;
    }
    return pow(spec->density,
               (double)(step + 1) / ((double)spec->warmup + 1.0));
}

size_t loom_filter_k(double density, size_t count)
{
    double want;

    if (count == 0) {
        return 0;
    }
    want = ceil(density * (double)count);
    if (!(want >= 1.0)) {
        return 1;
    }
    if (want >= (double)count) {
        return count;
    }
    return (size_t)want;
}

/* residual += input, or u = m u + input; v += u.  One function per type,
 * so each loop is plain arithmetic the compiler can vectorize. */
static void feedback_accumulate_float(const loom_feedback_args_t *args)
{
    float *v = args->residual, *u = args->momentum;
    const float *g = args->input;
    float m = (float)args->momentum_factor;
    size_t i;

    if (u == NULL) {
        for (i = 0; i < args->count; i++) {
            v[i] += g[i];
        }
        return;
    }
    for (i = 0; i < args->count; i++) {
        u[i] = m * u[i] + g[i];
        v[i] += u[i];
    }
}

static void feedback_accumulate_double(const loom_feedback_args_t *args)
{
    double *v = args->residual, *u = args->momentum;
    const double *g = args->input;
    double m = args->momentum_factor;
    size_t i;

    if (u == NULL) {
        for (i = 0; i < args->count; i++) {
            v[i] += g[i];
        }
        return;
    }
    for (i = 0; i < args->count; i++) {
        u[i] = m * u[i] + g[i];
        v[i] += u[i];
    }
}

loom_status_t loom_feedback_run(const loom_feedback_args_t *args,
                                size_t *selected_p)
{
    size_t size = loom_filter_type_size(args->type);
    loom_topk_args_t topk = {
        .type = args->type,
        .acc = args->residual,
        .count = args->count,
        .k = args->k,
        .exact_max = args->exact_max,
        .index_out = args->index_out,
        .value_out = args->value_out,
    };
    loom_status_t status;
    size_t selected, j;

    if (size == 0 || (uint64_t)args->count > UINT32_MAX) {
        return LOOM_ERR_INVALID_PARAM;
    }
    if (args->type == LOOM_FILTER_FLOAT) {
        feedback_accumulate_float(args);
    } else {
        feedback_accumulate_double(args);
    }
    status = loom_topk_select(&topk, &selected);
    if (status != LOOM_OK) {
        return status;
    }
    for (j = 0; j < selected; j++) {
        size_t at = (size_t)args->index_out[j] * size;
        memset((char *)args->residual + at, 0, size);
        if (args->momentum != NULL) {
            memset((char *)args->momentum + at, 0, size);
        }
    }
    *selected_p = selected;
    return LOOM_OK;
}
