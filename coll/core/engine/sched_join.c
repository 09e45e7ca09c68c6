#include "coll/core/engine/sched_join.h"

int loom_sched_join(loom_sched_t *sched, int from, int to)
{
    loom_step_desc_t d = { .type = LOOM_STEP_COPY, .bytes = 0 };
    loom_status_t status;
    int i, j, level_start;

    if (sched->build_status != LOOM_OK || from >= to) {
        return -1;
    }
    /* Each level joins the previous one in groups; a level's steps are
     * appended contiguously, so the next level is again a range. */
    while (to - from > 1) {
        level_start = sched->nsteps;
        for (i = from; i < to; i += LOOM_STEP_MAX_DEPS) {
            d.ndeps = 0;
            for (j = i; j < to && j < i + LOOM_STEP_MAX_DEPS; ++j) {
                d.deps[d.ndeps++] = j;
            }
            status = loom_sched_add(sched, &d, NULL);
            if (status != LOOM_OK) {
                sched->build_status = status;
                return -1;
            }
        }
        from = level_start;
        to = sched->nsteps;
    }
    return from;
}

int loom_sched_join_steps(loom_sched_t *sched, const int *steps, int n)
{
    loom_step_desc_t d = { .type = LOOM_STEP_COPY, .bytes = 0 };
    loom_status_t status;
    int i, last = -1;

    if (sched->build_status != LOOM_OK) {
        return -1;
    }
    for (i = 0; i < n; ++i) {
        if (steps[i] < 0) {
            continue;
        }
        if (last < 0) {
            last = steps[i];
            continue;
        }
        /* Start a new link of the chain with what it joins so far. */
        if (d.ndeps == 0) {
            d.deps[d.ndeps++] = last;
        }
        d.deps[d.ndeps++] = steps[i];
        if (d.ndeps == LOOM_STEP_MAX_DEPS) {
            status = loom_sched_add(sched, &d, &last);
            if (status != LOOM_OK) {
                sched->build_status = status;
                return -1;
            }
            d.ndeps = 0;
        }
    }
    if (d.ndeps > 0) {
        status = loom_sched_add(sched, &d, &last);
        if (status != LOOM_OK) {
            sched->build_status = status;
            return -1;
        }
    }
    return last;
}
