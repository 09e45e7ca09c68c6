/*
 * Error feedback for one gradient slot, and the warm-up schedule.
 *
 * Without momentum correction (Deep Gradient Compression's plain form):
 *
 *     acc      = residual + input          elementwise, in the type
 *     send     = top-k of acc              (topk.h)
 *     residual = acc with the sent entries set to 0
 *
 * The residual is updated in place and is exactly what was not sent:
 * sent + residual == acc, bit for bit.  Nothing is dropped; small
 * gradients are delayed until they add up to something large enough.
 *
 * With momentum correction (DGC section 3.2, on request: momentum > 0):
 *
 *     u = m * u + input                    the momentum buffer
 *     v = v + u                            the residual buffer
 *     send = top-k of v;  u and v set to 0 at the sent entries
 *
 * which needs the second buffer u per slot (residual.h accounts it).
 *
 * Warm-up (DGC section 3.3, in steps instead of epochs): density at step
 * s is D^((s + 1) / (W + 1)) for s < W and D from step W on, so the
 * density falls geometrically from 1 (the step before 0) to D: with
 * W = 4 and D = 0.1% that is 25%, 6.3%, 1.6%, 0.4%, then 0.1%, DGC's
 * schedule.  The value is a pure function of (spec, step): every rank
 * computes the same k.
 */
#ifndef LOOM_FILTER_FEEDBACK_H
#define LOOM_FILTER_FEEDBACK_H

#include "coll/core/filter/filter_spec.h"
#include "coll/core/filter/filter_type.h"
#include "loom/status.h"

#include <stddef.h>
#include <stdint.h>

/* The density at step (see above); 1 when the spec is off. */
double loom_filter_density(const loom_filter_spec_t *spec, uint64_t step);

/* How many of count elements a density asks for: ceil(density * count),
 * at least 1 when count > 0, at most count. */
size_t loom_filter_k(double density, size_t count);

typedef struct loom_feedback_args {
    loom_filter_type_t  type;
    size_t              count;      /* elements, < 2^32 */
    const void          *input;     /* this call's gradient */
    void                *residual;  /* in/out, zero before the first call */
    void                *momentum;  /* NULL: no momentum correction */
    double              momentum_factor; /* m, used when momentum != NULL */
    size_t              k;          /* loom_filter_k(density, count) */
    size_t              exact_max;  /* as in the spec */
    uint32_t            *index_out; /* loom_topk_capacity(count, k,
                                       exact_max) entries */
    void                *value_out; /* as many elements of type */
} loom_feedback_args_t;

/*
 * Runs one step of error feedback as above; *selected_p is how many pairs
 * were written (in index order).  On LOOM_ERR_INVALID_PARAM (bad type,
 * count >= 2^32) nothing changed.  On LOOM_ERR_NO_MEMORY (the sample of a
 * large selection) the accumulation is already in the residual (and u)
 * but nothing was selected: the caller sends nothing from this rank or
 * sends the residual dense, and loses no gradient either way.
 */
loom_status_t loom_feedback_run(const loom_feedback_args_t *args,
                                size_t *selected_p);

#endif
