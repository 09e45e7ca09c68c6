#include "coll/core/engine/sched.h"
#include "coll/core/engine/pool.h"
#include "coll/core/engine/tag.h"
#include "common/log.h"

#include <limits.h>
#include <stdlib.h>
#include <string.h>

loom_status_t loom_sched_create(loom_team_t *team, const loom_coll_args_t *args,
                                unsigned alg_id, loom_sched_t **sched_p)
{
    loom_sched_t *sched;

    pthread_mutex_lock(&team->spare_lock);
    sched = team->spare_scheds;
    if (sched != NULL) {
        team->spare_scheds = sched->next_spare;
    }
    pthread_mutex_unlock(&team->spare_lock);
    if (sched == NULL) {
        sched = calloc(1, sizeof(*sched));
        if (sched == NULL) {
            return LOOM_ERR_NO_MEMORY;
        }
    }
    /* Keep the step and int arrays of a reused schedule, reset the rest. */
    sched->next_spare    = NULL;
    sched->nsteps        = 0;
    sched->ndone         = 0;
    sched->prepared      = 0;
    sched->nposted       = 0;
    sched->scratch       = NULL;
    sched->scratch_bytes = 0;
    sched->build_status  = LOOM_OK;
    sched->busy          = 0;
    sched->build_arm     = 0;
    sched->taken_arm     = 0;
    sched->arm_status    = LOOM_OK;
    sched->naccess       = 0;
    sched->team   = team;
    sched->args   = *args;
    sched->alg_id = alg_id;
    sched->seq    = loom_team_next_seq(team);
    sched->order  = loom_order_ref(team->order);
    sched->status = LOOM_INPROGRESS;
    *sched_p = sched;
    return LOOM_OK;
}

static int loom_sched_outstanding(const loom_sched_t *sched)
{
    int i;

    for (i = 0; i < sched->nposted; ++i) {
        if (!loom_completion_is_done(&sched->steps[sched->posted[i]].comp)) {
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
    loom_pool_put(sched->scratch);
    sched->scratch = NULL;
    loom_order_unref(sched->order);
    sched->order = NULL;
    pthread_mutex_lock(&sched->team->spare_lock);
    sched->next_spare = sched->team->spare_scheds;
    sched->team->spare_scheds = sched;
    pthread_mutex_unlock(&sched->team->spare_lock);
}

void loom_sched_free_spares(loom_team_t *team)
{
    loom_sched_t *sched, *next;

    for (sched = team->spare_scheds; sched != NULL; sched = next) {
        next = sched->next_spare;
        free(sched->ints);
        free(sched->access);
        free(sched->exec);
        free(sched->steps);
        free(sched);
    }
    team->spare_scheds = NULL;
}

/* The place of the next step, the array grown to hold it, once its
 * dependencies are checked; NULL with *status_p set when they are bad or
 * memory runs out.  The caller fills the step and counts it. */
static loom_step_t *loom_sched_next(loom_sched_t *sched, const int *deps, int ndeps,
                                    loom_status_t *status_p)
{
    loom_step_t *steps;
    int capacity, i;

    if (ndeps < 0 || ndeps > LOOM_STEP_MAX_DEPS) {
        *status_p = LOOM_ERR_INVALID_PARAM;
        return NULL;
    }
    for (i = 0; i < ndeps; ++i) {
        if (deps[i] >= sched->nsteps) {
            /* A step may only wait for steps added before it: no cycles. */
            *status_p = LOOM_ERR_INVALID_PARAM;
            return NULL;
        }
    }
    if (sched->nsteps == sched->capacity) {
        capacity = sched->capacity ? 2 * sched->capacity : 16;
        steps = realloc(sched->steps, sizeof(*steps) * (size_t)capacity);
        if (steps == NULL) {
            *status_p = LOOM_ERR_NO_MEMORY;
            return NULL;
        }
        sched->steps    = steps;
        sched->capacity = capacity;
    }
    return &sched->steps[sched->nsteps];
}

loom_status_t loom_sched_add(loom_sched_t *sched, const loom_step_desc_t *desc,
                             int *index_p)
{
    loom_status_t status = LOOM_OK;
    loom_step_t *st = loom_sched_next(sched, desc->deps, desc->ndeps, &status);

    if (st == NULL) {
        return status;
    }
    memset(st, 0, sizeof(*st));
    st->desc  = *desc;
    st->state = LOOM_STEP_WAITING;
    if (index_p != NULL) {
        *index_p = sched->nsteps;
    }
    ++sched->nsteps;
    return LOOM_OK;
}

loom_status_t loom_sched_alloc_scratch(loom_sched_t *sched, size_t bytes,
                                       void **scratch_p)
{
    loom_status_t status;

    if (sched->scratch != NULL) {
        return LOOM_ERR_INVALID_PARAM;
    }
    status = loom_pool_get(bytes, &sched->scratch);
    if (status != LOOM_OK) {
        sched->build_status = status;
        return status;
    }
    sched->scratch_bytes = bytes;
    *scratch_p = sched->scratch;
    return LOOM_OK;
}

loom_status_t loom_sched_alloc_ints(loom_sched_t *sched, int n, int **ints_p)
{
    int *ints;

    if (n > sched->ints_capacity) {
        ints = realloc(sched->ints, sizeof(int) * (size_t)n);
        if (ints == NULL) {
            sched->build_status = LOOM_ERR_NO_MEMORY;
            return LOOM_ERR_NO_MEMORY;
        }
        sched->ints = ints;
        sched->ints_capacity = n;
    }
    *ints_p = sched->ints;
    return LOOM_OK;
}

int loom_sched_copy_input(loom_sched_t *sched)
{
    const loom_coll_args_t *a = &sched->args;

    if (a->in_place) {
        return -1;
    }
    return loom_sched_copy(sched, a->sendbuf, a->recvbuf, a->count * a->elem_size,
                           LOOM_NO_DEPS);
}

loom_status_t loom_sched_plan_done(loom_sched_t *sched, loom_sched_t **sched_p)
{
    loom_status_t status = sched->build_status;

    if (status != LOOM_OK) {
        loom_sched_destroy(sched);
        return status;
    }
    *sched_p = sched;
    return LOOM_OK;
}

/*
 * Appends a step, written in place, unless an earlier one failed;
 * remembers the first failure.  Plans call this once per step, and a
 * descriptor built on the stack and copied twice on its way cost more
 * than the plan's own work (stores of one width read back at another
 * stall): loom-sim plans every rank of 4096-rank rings with it.
 */
int loom_sched_step(loom_sched_t *sched, loom_step_type_t type, int peer, uint32_t tag_step,
                    const void *src, void *dst, size_t bytes, const loom_deps_t *deps)
{
    loom_status_t status = LOOM_OK;
    loom_step_t *st;
    int i;

    if (sched->build_status != LOOM_OK) {
        return -1;
    }
    st = loom_sched_next(sched, deps->d, deps->n, &status);
    if (st == NULL) {
        sched->build_status = status;
        return -1;
    }
    st->desc = (loom_step_desc_t){ .type = type, .peer = peer, .tag_step = tag_step,
                                   .src = src, .dst = dst, .bytes = bytes, .ndeps = deps->n,
                                   .arm = (unsigned char)sched->build_arm };
    for (i = 0; i < deps->n; ++i) {
        st->desc.deps[i] = deps->d[i];
    }
    st->state = LOOM_STEP_WAITING;
    st->comp = (loom_completion_t){ .status = LOOM_OK };
    return sched->nsteps++;
}

int loom_sched_compute(loom_sched_t *sched, loom_compute_fn_t fn, void *arg, size_t bytes,
                       loom_deps_t deps)
{
    int index;

    if (fn == NULL) {
        sched->build_status = LOOM_ERR_INVALID_PARAM;
        return -1;
    }
    index = loom_sched_step(sched, LOOM_STEP_COMPUTE, 0, 0, NULL, arg, bytes, &deps);
    if (index >= 0) {
        sched->steps[index].desc.fn = fn;
    }
    return index;
}

void loom_sched_compute_access(loom_sched_t *sched, const loom_compute_access_t *access)
{
    loom_compute_access_t *table;
    int capacity;

    if (sched->build_status != LOOM_OK || access->step < 0 || access->bytes == 0) {
        return;
    }
    if (access->step >= sched->nsteps ||
        sched->steps[access->step].desc.type != LOOM_STEP_COMPUTE) {
        loom_error("coll", "seq %u: step %d declares what it %s, but is not a compute step",
                   sched->seq, access->step, access->writes ? "writes" : "reads");
        sched->build_status = LOOM_ERR_INVALID_PARAM;
        return;
    }
    if (access->writes && access->len_at != NULL) {
        loom_error("coll", "seq %u: compute step %d declares a write of run-time length; "
                   "only reads take one", sched->seq, access->step);
        sched->build_status = LOOM_ERR_INVALID_PARAM;
        return;
    }
    if (sched->naccess == sched->access_capacity) {
        capacity = sched->access_capacity ? 2 * sched->access_capacity : 8;
        table = realloc(sched->access, sizeof(*table) * (size_t)capacity);
        if (table == NULL) {
            sched->build_status = LOOM_ERR_NO_MEMORY;
            return;
        }
        sched->access = table;
        sched->access_capacity = capacity;
    }
    sched->access[sched->naccess++] = *access;
}

/* A step of run-time length: the plain step with its bound, then where its
 * length is read (the plain builders' one store stays as it is). */
static int loom_sched_step_len(loom_sched_t *sched, loom_step_type_t type, int peer,
                               uint32_t tag_step, const void *src, void *dst, size_t bound,
                               const size_t *len_at, const loom_deps_t *deps)
{
    int index;

    if (bound == 0) {
        return -1;
    }
    if (len_at == NULL) {
        sched->build_status = LOOM_ERR_INVALID_PARAM;
        return -1;
    }
    index = loom_sched_step(sched, type, peer, tag_step, src, dst, bound, deps);
    if (index >= 0) {
        sched->steps[index].desc.len_at = len_at;
    }
    return index;
}

int loom_sched_send_len(loom_sched_t *sched, int peer, uint32_t tag_step, const void *buf,
                        size_t bound, const size_t *len_at, loom_deps_t deps)
{
    return loom_sched_step_len(sched, LOOM_STEP_SEND, peer, tag_step, buf, NULL, bound,
                               len_at, &deps);
}

int loom_sched_recv_len(loom_sched_t *sched, int peer, uint32_t tag_step, void *buf,
                        size_t bound, const size_t *len_at, loom_deps_t deps)
{
    return loom_sched_step_len(sched, LOOM_STEP_RECV, peer, tag_step, NULL, buf, bound,
                               len_at, &deps);
}

int loom_sched_copy_len(loom_sched_t *sched, const void *src, void *dst, size_t bound,
                        const size_t *len_at, loom_deps_t deps)
{
    if (src == dst) {
        return -1;
    }
    return loom_sched_step_len(sched, LOOM_STEP_COPY, 0, 0, src, dst, bound, len_at, &deps);
}

void loom_sched_build_arm(loom_sched_t *sched, int arm)
{
    if (arm < 0 || arm > UCHAR_MAX) {
        loom_error("coll", "seq %u: arm %d is out of range (0 to %d)", sched->seq, arm,
                   UCHAR_MAX);
        sched->build_status = LOOM_ERR_INVALID_PARAM;
        return;
    }
    sched->build_arm = arm;
}

void loom_sched_take_arm(loom_sched_t *sched, int arm)
{
    if (arm < 1 || arm > UCHAR_MAX) {
        loom_error("coll", "seq %u: a compute step took arm %d, out of range (1 to %d)",
                   sched->seq, arm, UCHAR_MAX);
        sched->arm_status = LOOM_ERR_INVALID_PARAM;
        return;
    }
    if (sched->taken_arm != 0 && sched->taken_arm != arm) {
        loom_error("coll", "seq %u: a compute step took arm %d after arm %d was taken",
                   sched->seq, arm, sched->taken_arm);
        sched->arm_status = LOOM_ERR_INVALID_PARAM;
        return;
    }
    sched->taken_arm = arm;
}

static uint64_t loom_sched_tag(const loom_sched_t *sched, int src_rank,
                               uint32_t tag_step)
{
    return loom_tag_make(sched->team->context_id, src_rank, sched->seq,
                         sched->alg_id, tag_step);
}

/*
 * What a step of an arm or of run-time length does before it may run:
 * LOOM_OK with *bytes_p its length (0: the step is done without running,
 * state set), or an error, logged here.
 */
static loom_status_t loom_sched_start_runtime(loom_sched_t *sched, loom_step_t *step,
                                              size_t *bytes_p)
{
    const loom_step_desc_t *d = &step->desc;
    int index = (int)(step - sched->steps);

    if (d->arm != 0) {
        if (sched->taken_arm == 0) {
            loom_error("coll", "seq %u: step %d of arm %d became ready before any arm "
                       "was taken; the plan must make an arm's steps wait for the "
                       "compute step that decides", sched->seq, index, d->arm);
            return LOOM_ERR_INVALID_PARAM;
        }
        if (sched->taken_arm != d->arm) {
            step->state = LOOM_STEP_DONE;
            *bytes_p = 0;
            return LOOM_OK;
        }
    }
    *bytes_p = d->bytes;
    if (d->len_at != NULL) {
        step->len = *d->len_at;
        if (step->len > d->bytes) {
            loom_error("coll", "seq %u: step %d (%s) has run-time length %zu, over its "
                       "bound of %zu bytes", sched->seq, index,
                       d->type == LOOM_STEP_SEND ? "send" :
                       d->type == LOOM_STEP_RECV ? "receive" : "copy", step->len, d->bytes);
            return LOOM_ERR_TRUNCATED;
        }
        if (step->len == 0) {
            step->state = LOOM_STEP_DONE;
        }
        *bytes_p = step->len;
    }
    return LOOM_OK;
}

/* A compute step: call its function, then fail on its error or on a
 * second arm it took. */
static loom_status_t loom_sched_start_compute(loom_sched_t *sched, loom_step_t *step)
{
    loom_status_t status = step->desc.fn(sched, step->desc.dst);

    if (status == LOOM_OK) {
        status = sched->arm_status;
    } else {
        loom_error("coll", "seq %u: compute step %d failed: %s", sched->seq,
                   (int)(step - sched->steps), loom_status_string(status));
    }
    step->state = LOOM_STEP_DONE;
    return status;
}

/* Start one ready step.  Local steps finish here; messages are posted.
 * An error is logged here. */
static loom_status_t loom_sched_start(loom_sched_t *sched, loom_step_t *step)
{
    const loom_step_desc_t *d = &step->desc;
    loom_team_t *team = sched->team;
    loom_transport_t *tr = team->transport;
    loom_status_t status;
    size_t bytes = d->bytes;

    loom_trace("coll", "seq %u alg %u: start step %d type %d peer %d bytes %zu",
               sched->seq, sched->alg_id, (int)(step - sched->steps), d->type,
               d->peer, d->bytes);

    /* Steps of plain plans take neither: one predictable branch. */
    if (__builtin_expect(d->arm != 0 || d->len_at != NULL, 0)) {
        status = loom_sched_start_runtime(sched, step, &bytes);
        if (status != LOOM_OK || step->state == LOOM_STEP_DONE) {
            return status;
        }
    }
    switch (d->type) {
    case LOOM_STEP_SEND:
        loom_completion_init(&step->comp);
        status = tr->ops->send(tr, team->peers[d->peer],
                               loom_sched_tag(sched, team->rank, d->tag_step),
                               d->src, bytes, &step->comp);
        break;
    case LOOM_STEP_RECV:
        loom_completion_init(&step->comp);
        status = tr->ops->recv(tr, team->peers[d->peer],
                               loom_sched_tag(sched, d->peer, d->tag_step),
                               d->dst, bytes, &step->comp);
        break;
    case LOOM_STEP_REDUCE:
        sched->args.op.fn(d->src, d->dst, d->bytes / sched->args.elem_size,
                          sched->args.op.ctx);
        step->state = LOOM_STEP_DONE;
        return LOOM_OK;
    case LOOM_STEP_COPY:
        if (bytes > 0 && d->dst != d->src) {
            memcpy(d->dst, d->src, bytes);
        }
        step->state = LOOM_STEP_DONE;
        return LOOM_OK;
    case LOOM_STEP_COMPUTE:
        return loom_sched_start_compute(sched, step);
    default:
        status = LOOM_ERR_INVALID_PARAM;
        break;
    }
    if (status == LOOM_OK) {
        step->state = LOOM_STEP_POSTED;
    } else {
        loom_error("coll", "seq %u: cannot start step %d: %s", sched->seq,
                   (int)(step - sched->steps), loom_status_string(status));
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
    if (step->desc.type == LOOM_STEP_RECV &&
        step->comp.length != (step->desc.len_at != NULL ? step->len : step->desc.bytes)) {
        loom_error("coll", "seq %u: rank %d sent %zu bytes where %zu were expected; "
                   "do all ranks pass the same count and datatype?", sched->seq,
                   step->desc.peer, step->comp.length,
                   step->desc.len_at != NULL ? step->len : step->desc.bytes);
        return LOOM_ERR_TRUNCATED;
    }
    return LOOM_OK;
}

/* Count each step's unfinished deps and invert the dependency lists. */
static loom_status_t loom_sched_prepare(loom_sched_t *sched)
{
    int n = sched->nsteps, i, j, dep, total = 0, need, *fill;

    for (i = 0; i < n; ++i) {
        total += sched->steps[i].desc.ndeps;
    }
    need = n + (n + 1) + total + n + n;
    if (need > sched->exec_capacity) {
        int *exec = realloc(sched->exec, sizeof(int) * (size_t)need);

        if (exec == NULL) {
            return LOOM_ERR_NO_MEMORY;
        }
        sched->exec = exec;
        sched->exec_capacity = need;
    }
    sched->pending_deps  = sched->exec;
    sched->dependents_at = sched->pending_deps + n;
    sched->dependents    = sched->dependents_at + n + 1;
    sched->ready         = sched->dependents + total;
    sched->posted        = sched->ready + n;
    sched->ready_head = sched->ready_tail = 0;
    sched->nposted = 0;

    for (i = 0; i <= n; ++i) {
        sched->dependents_at[i] = 0;
    }
    for (i = 0; i < n; ++i) {
        sched->pending_deps[i] = 0;
        for (j = 0; j < sched->steps[i].desc.ndeps; ++j) {
            dep = sched->steps[i].desc.deps[j];
            if (dep >= 0) {
                ++sched->pending_deps[i];
                ++sched->dependents_at[dep + 1];
            }
        }
    }
    for (i = 0; i < n; ++i) {
        sched->dependents_at[i + 1] += sched->dependents_at[i];
    }
    /* Fill with a cursor per step, borrowed from the ready array. */
    fill = sched->ready;
    for (i = 0; i < n; ++i) {
        fill[i] = sched->dependents_at[i];
    }
    for (i = 0; i < n; ++i) {
        for (j = 0; j < sched->steps[i].desc.ndeps; ++j) {
            dep = sched->steps[i].desc.deps[j];
            if (dep >= 0) {
                sched->dependents[fill[dep]++] = i;
            }
        }
    }
    for (i = 0; i < n; ++i) {
        if (sched->pending_deps[i] == 0) {
            sched->ready[sched->ready_tail++] = i;
        }
    }
    sched->prepared = 1;
    return LOOM_OK;
}

/* A step is done: count it and wake the steps that waited on it. */
static void loom_sched_release(loom_sched_t *sched, int index)
{
    int k, d;

    sched->steps[index].state = LOOM_STEP_DONE;
    ++sched->ndone;
    for (k = sched->dependents_at[index]; k < sched->dependents_at[index + 1]; ++k) {
        d = sched->dependents[k];
        if (--sched->pending_deps[d] == 0) {
            sched->ready[sched->ready_tail++] = d;
        }
    }
}

/* Finish the posted steps that completed, start the ready ones;
 * *changed_p tells whether any moved. */
static loom_status_t loom_sched_sweep(loom_sched_t *sched, int *changed_p)
{
    loom_status_t status;
    loom_step_t *step;
    int i, index;

    *changed_p = 0;
    for (i = 0; i < sched->nposted;) {
        index = sched->posted[i];
        step = &sched->steps[index];
        if (!loom_completion_is_done(&step->comp)) {
            ++i;
            continue;
        }
        sched->posted[i] = sched->posted[--sched->nposted];
        status = loom_sched_finish(sched, step);
        loom_sched_release(sched, index);
        *changed_p = 1;
        if (status != LOOM_OK) {
            return status;
        }
    }
    while (sched->ready_head < sched->ready_tail) {
        index = sched->ready[sched->ready_head++];
        step = &sched->steps[index];
        status = loom_sched_start(sched, step);
        if (status != LOOM_OK) {
            return status;
        }
        if (step->state == LOOM_STEP_DONE) {
            loom_sched_release(sched, index);
        } else {
            sched->posted[sched->nposted++] = index;
        }
        *changed_p = 1;
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
    if (!sched->prepared) {
        status = loom_sched_prepare(sched);
        if (status != LOOM_OK) {
            sched->status = status;
            goto out;
        }
    }
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
