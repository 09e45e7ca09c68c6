/*
 * The step tracker (steps.h): the shortest period of the counts, found
 * online with the Knuth-Morris-Pratt failure function.
 */
#include "coll/core/filter/steps.h"

#include <stdlib.h>

struct loom_filter_steps {
    size_t      max_calls;
    size_t      *hist;      /* counts since learning began; the pattern when locked */
    size_t      *fail;      /* fail[i]: longest proper border of hist[0..i] */
    size_t      len;
    size_t      cap;
    int         locked;
    size_t      period;     /* locked: hist[0..period) is the pattern */
    size_t      pos;        /* locked: the next call's position */
    int         explicit_steps;
    uint64_t    base;       /* the step learning began in */
    uint64_t    step;       /* locked or explicit: the current step */
    uint64_t    last_step;  /* the step of the last call answered */
    int         answered;   /* a call was answered: last_step means something */
    uint64_t    resets;
};

loom_status_t loom_filter_steps_create(size_t max_calls,
                                       loom_filter_steps_t **steps_p)
{
    loom_filter_steps_t *steps;

    if (max_calls < 2) {
        return LOOM_ERR_INVALID_PARAM;
    }
    steps = calloc(1, sizeof(*steps));
    if (steps == NULL) {
        return LOOM_ERR_NO_MEMORY;
    }
    steps->max_calls = max_calls;
    *steps_p = steps;
    return LOOM_OK;
}

void loom_filter_steps_destroy(loom_filter_steps_t *steps)
{
    if (steps == NULL) {
        return;
    }
    free(steps->fail);
    free(steps->hist);
    free(steps);
}

/* Learning starts over at step, with an empty history. */
static void steps_relearn(loom_filter_steps_t *steps, uint64_t step)
{
    steps->locked = 0;
    steps->period = 0;
    steps->pos = 0;
    steps->len = 0;
    steps->base = step;
}

static int steps_reserve(loom_filter_steps_t *steps)
{
    size_t cap;
    size_t *hist, *fail;

    if (steps->len < steps->cap) {
        return 0;
    }
    cap = steps->cap == 0 ? 64 : 2 * steps->cap;
    if (cap > steps->max_calls) {
        cap = steps->max_calls;
    }
    hist = realloc(steps->hist, cap * sizeof(*hist));
    if (hist == NULL) {
        return -1;
    }
    steps->hist = hist;
    fail = realloc(steps->fail, cap * sizeof(*fail));
    if (fail == NULL) {
        return -1;
    }
    steps->fail = fail;
    steps->cap = cap;
    return 0;
}

/* One learning call: append, and lock if the history is >= 2 periods. */
static loom_status_t steps_learn(loom_filter_steps_t *steps, size_t count,
                                 loom_filter_call_t *call)
{
    size_t m, j, period;

    if (steps->len == steps->max_calls) {
        /* Failure mode 1: no period within max_calls; start over. */
        steps->resets++;
        steps_relearn(steps, steps->last_step + 1);
    }
    if (steps_reserve(steps) != 0) {
        call->step = steps->base;
        call->position = 0;
        steps_relearn(steps, steps->base);
        return LOOM_ERR_NO_MEMORY;
    }
    m = steps->len;
    steps->hist[m] = count;
    j = 0;
    if (m > 0) {
        j = steps->fail[m - 1];
        while (j > 0 && steps->hist[j] != count) {
            j = steps->fail[j - 1];
        }
        if (steps->hist[j] == count) {
            j++;
        }
    }
    steps->fail[m] = j;
    steps->len = m + 1;
    period = steps->len - j;

    call->step = steps->base + m / period;
    call->position = (uint32_t)(m % period);
    if (steps->len >= 2 * period && steps->len % period == 0) {
        steps->locked = 1;
        steps->period = period;
        steps->pos = 0;
        steps->step = steps->base + steps->len / period;
        call->locked = 1;
    }
    return LOOM_OK;
}

loom_status_t loom_filter_steps_next(loom_filter_steps_t *steps, size_t count,
                                     loom_filter_call_t *call_p)
{
    loom_filter_call_t call = { 0, 0, 0, 0 };
    loom_status_t status;

    if (steps->explicit_steps) {
        call.step = steps->step;
        call.position = (uint32_t)steps->pos;
        call.locked = steps->pos <= UINT32_MAX;
        steps->pos++;
        steps->last_step = call.step;
        steps->answered = 1;
        *call_p = call;
        return LOOM_OK;
    }
    steps->answered = 1;
    if (steps->locked) {
        if (steps->hist[steps->pos] == count) {
            call.step = steps->step;
            call.position = (uint32_t)steps->pos;
            call.locked = 1;
            if (++steps->pos == steps->period) {
                steps->pos = 0;
                steps->step++;
            }
            steps->last_step = call.step;
            *call_p = call;
            return LOOM_OK;
        }
        /* A pattern change: a new step, learned from this call. */
        steps->resets++;
        call.reset = 1;
        steps_relearn(steps, steps->pos == 0 ? steps->step
                                             : steps->step + 1);
    }
    status = steps_learn(steps, count, &call);
    steps->last_step = call.step;
    *call_p = call;
    return status;
}

void loom_filter_steps_mark(loom_filter_steps_t *steps)
{
    if (!steps->explicit_steps) {
        /* The calls so far were steps up to last_step; none: this is 0. */
        steps->explicit_steps = 1;
        steps->locked = 0;
        steps->step = steps->answered ? steps->last_step + 1 : 0;
    } else {
        steps->step++;
    }
    steps->pos = 0;
}

int loom_filter_steps_explicit(const loom_filter_steps_t *steps)
{
    return steps->explicit_steps;
}

uint64_t loom_filter_steps_current(const loom_filter_steps_t *steps)
{
    return steps->explicit_steps ? steps->step : steps->last_step;
}

uint64_t loom_filter_steps_resets(const loom_filter_steps_t *steps)
{
    return steps->resets;
}

size_t loom_filter_steps_period(const loom_filter_steps_t *steps)
{
    return steps->locked ? steps->period : 0;
}
