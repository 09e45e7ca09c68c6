#include "sched.h"
#include "tag.h"
#include "common/log.h"

#include <stdlib.h>
#include <string.h>

loom_status_t loom_sched_create(loom_team_t *team, const loom_coll_args_t *args,
                                unsigned alg_id, loom_sched_t **sched_p)
{
    loom_sched_t *sched = calloc(1, sizeof(*sched));

    if (sched == NULL) {
        return LOOM_ERR_NO_MEMORY;
    }
    sched->team   = team;
    sched->args   = *args;
    sched->alg_id = alg_id;
    sched->seq    = loom_team_next_seq(team);
    sched->status = LOOM_INPROGRESS;
    *sched_p = sched;
    return LOOM_OK;
}

static int loom_sched_outstanding(const loom_sched_t *sched)
{
    int i;

    for (i = sched->first_pending; i < sched->nsteps; ++i) {
        if (sched->steps[i].state == LOOM_STEP_POSTED &&
            !loom_completion_is_done(&sched->steps[i].comp)) {
            return 1;
        }
    }
    return 0;
}

void loom_sched_destroy(loom_sched_t *sched)
{
    if (sched == NULL) {
        return;
    }
    if (loom_sched_outstanding(sched)) {
        loom_warn("coll", "schedule seq %u abandoned with posted operations; "
                  "leaking it so the transport cannot write to freed memory",
                  sched->seq);
        return;
    }
    free(sched->scratch);
    free(sched->steps);
    free(sched);
}

loom_status_t loom_sched_add(loom_sched_t *sched, const loom_step_desc_t *desc,
                             int *index_p)
{
    loom_step_t *steps;
    int capacity, i;

    if (desc->ndeps < 0 || desc->ndeps > LOOM_STEP_MAX_DEPS) {
        return LOOM_ERR_INVALID_PARAM;
    }
    for (i = 0; i < desc->ndeps; ++i) {
        if (desc->deps[i] >= sched->nsteps) {
            /* A step may only wait for steps added before it: no cycles. */
            return LOOM_ERR_INVALID_PARAM;
        }
    }
    if (sched->nsteps == sched->capacity) {
        capacity = sched->capacity ? 2 * sched->capacity : 16;
        steps = realloc(sched->steps, sizeof(*steps) * (size_t)capacity);
        if (steps == NULL) {
            return LOOM_ERR_NO_MEMORY;
        }
        sched->steps    = steps;
        sched->capacity = capacity;
    }
    memset(&sched->steps[sched->nsteps], 0, sizeof(sched->steps[0]));
    sched->steps[sched->nsteps].desc  = *desc;
    sched->steps[sched->nsteps].state = LOOM_STEP_WAITING;
    if (index_p != NULL) {
        *index_p = sched->nsteps;
    }
    ++sched->nsteps;
    return LOOM_OK;
}

loom_status_t loom_sched_alloc_scratch(loom_sched_t *sched, size_t bytes,
                                       void **scratch_p)
{
    if (sched->scratch != NULL) {
        return LOOM_ERR_INVALID_PARAM;
    }
    sched->scratch = malloc(bytes ? bytes : 1);
    if (sched->scratch == NULL) {
        loom_error("coll", "cannot allocate %zu bytes of scratch", bytes);
        return LOOM_ERR_NO_MEMORY;
    }
    *scratch_p = sched->scratch;
    return LOOM_OK;
}

static int loom_sched_deps_done(const loom_sched_t *sched, const loom_step_t *step)
{
    int i, dep;

    for (i = 0; i < step->desc.ndeps; ++i) {
        dep = step->desc.deps[i];
        if (dep >= 0 && sched->steps[dep].state != LOOM_STEP_DONE) {
            return 0;
        }
    }
    return 1;
}

static uint64_t loom_sched_tag(const loom_sched_t *sched, int src_rank,
                               uint32_t tag_step)
{
    return loom_tag_make(sched->team->context_id, src_rank, sched->seq,
                         sched->alg_id, tag_step);
}

/* Start one ready step.  Local steps finish here; messages are posted. */
static loom_status_t loom_sched_start(loom_sched_t *sched, loom_step_t *step)
{
    const loom_step_desc_t *d = &step->desc;
    loom_team_t *team = sched->team;
    loom_transport_t *tr = team->transport;
    loom_status_t status;

    loom_trace("coll", "seq %u alg %u: start step %d type %d peer %d bytes %zu",
               sched->seq, sched->alg_id, (int)(step - sched->steps), d->type,
               d->peer, d->bytes);

    switch (d->type) {
    case LOOM_STEP_SEND:
        loom_completion_init(&step->comp);
        status = tr->ops->send(tr, team->peers[d->peer],
                               loom_sched_tag(sched, team->rank, d->tag_step),
                               d->src, d->bytes, &step->comp);
        break;
    case LOOM_STEP_RECV:
        loom_completion_init(&step->comp);
        status = tr->ops->recv(tr, team->peers[d->peer],
                               loom_sched_tag(sched, d->peer, d->tag_step),
                               d->dst, d->bytes, &step->comp);
        break;
    case LOOM_STEP_REDUCE:
        sched->args.op.fn(d->src, d->dst, d->bytes / sched->args.elem_size,
                          sched->args.op.ctx);
        step->state = LOOM_STEP_DONE;
        return LOOM_OK;
    case LOOM_STEP_COPY:
        if (d->bytes > 0 && d->dst != d->src) {
            memcpy(d->dst, d->src, d->bytes);
        }
        step->state = LOOM_STEP_DONE;
        return LOOM_OK;
    default:
        return LOOM_ERR_INVALID_PARAM;
    }
    if (status == LOOM_OK) {
        step->state = LOOM_STEP_POSTED;
    }
    return status;
}

/* A posted step whose completion arrived: check it and mark it done. */
static loom_status_t loom_sched_finish(loom_sched_t *sched, loom_step_t *step)
{
    step->state = LOOM_STEP_DONE;
    if (step->comp.status != LOOM_OK) {
        loom_error("coll", "seq %u step %d (%s with rank %d) failed: %s",
                   sched->seq, (int)(step - sched->steps),
                   step->desc.type == LOOM_STEP_SEND ? "send" : "receive",
                   step->desc.peer, loom_status_string(step->comp.status));
        return step->comp.status;
    }
    if (step->desc.type == LOOM_STEP_RECV && step->comp.length != step->desc.bytes) {
        loom_error("coll", "seq %u: rank %d sent %zu bytes where %zu were expected; "
                   "do all ranks pass the same count and datatype?", sched->seq,
                   step->desc.peer, step->comp.length, step->desc.bytes);
        return LOOM_ERR_TRUNCATED;
    }
    return LOOM_OK;
}

/* One pass over the pending steps; *changed_p tells whether any moved. */
static loom_status_t loom_sched_sweep(loom_sched_t *sched, int *changed_p)
{
    loom_status_t status;
    loom_step_t *step;
    int i;

    *changed_p = 0;
    for (i = sched->first_pending; i < sched->nsteps; ++i) {
        step = &sched->steps[i];
        if (step->state == LOOM_STEP_POSTED && loom_completion_is_done(&step->comp)) {
            status = loom_sched_finish(sched, step);
            ++sched->ndone;
            *changed_p = 1;
            if (status != LOOM_OK) {
                return status;
            }
        } else if (step->state == LOOM_STEP_WAITING &&
                   loom_sched_deps_done(sched, step)) {
            status = loom_sched_start(sched, step);
            if (status != LOOM_OK) {
                loom_error("coll", "seq %u: cannot start step %d: %s", sched->seq,
                           i, loom_status_string(status));
                return status;
            }
            if (step->state == LOOM_STEP_DONE) {
                ++sched->ndone;
            }
            *changed_p = 1;
        }
    }
    while (sched->first_pending < sched->nsteps &&
           sched->steps[sched->first_pending].state == LOOM_STEP_DONE) {
        ++sched->first_pending;
    }
    return LOOM_OK;
}

loom_status_t loom_sched_progress(loom_sched_t *sched)
{
    loom_transport_t *tr = sched->team->transport;
    loom_status_t status;
    int changed;

    if (sched->status != LOOM_INPROGRESS || sched->busy) {
        return sched->status;
    }
    sched->busy = 1;
    do {
        status = loom_sched_sweep(sched, &changed);
        if (status != LOOM_OK) {
            sched->status = status;
            goto out;
        }
        if (sched->ndone == sched->nsteps) {
            sched->status = LOOM_OK;
            goto out;
        }
        if (!changed && tr->ops->progress(tr) > 0) {
            changed = 1;
        }
    } while (changed);
out:
    sched->busy = 0;
    return sched->status;
}
