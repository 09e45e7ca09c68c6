/*
 * A small linear allreduce with switchable bugs, for the verifier's
 * self-tests.  Correct, it is
 *
 *   rank q > 0:  send input to 0 (tag q); then receive the result (tag p+q)
 *                into the same buffer, once the send is done
 *   rank 0:      receive every input into a slot of its own; in rank order,
 *                slot_q = acc (op) slot_q, acc = slot_q; send acc to all
 *
 * which reduces in rank order, so it is right for non-commutative ops too.
 * Each bug is one plausible mistake in such a plan; the tests check that
 * the verifier names it.
 */
#include "verifier_bugs.h"

#include <stdint.h>
#include <string.h>

/* Any id outside the table: only these schedules use it. */
#define VBUG_ALG_ID 9

static vbug_t vbug_current;

void vbug_set(vbug_t bug)
{
    vbug_current = bug;
}

static int vbug_is(vbug_t bug)
{
    return vbug_current == bug;
}

/* Appends a step unless an earlier one failed (the status is sticky, so
 * the plan reads as the list of its steps). */
static int vbug_add(loom_sched_t *sched, loom_status_t *status_p, loom_step_desc_t desc)
{
    int index = -1;

    if (*status_p == LOOM_OK) {
        *status_p = loom_sched_add(sched, &desc, &index);
    }
    return index;
}

static void vbug_root(loom_sched_t *sched, const loom_coll_args_t *args, int copy,
                      loom_status_t *st)
{
    int p = sched->team->size, q, prev = copy, red, recv[2], nrecv, dup, j;
    size_t esize = args->elem_size, bytes = args->count * esize, half;
    char *buf = args->recvbuf, *scratch = NULL, *slot, *dup_slot;
    loom_step_desc_t desc;

    *st = loom_sched_alloc_scratch(sched, bytes * (size_t)(p + 1), (void **)&scratch);
    if (*st != LOOM_OK) {
        return;
    }
    dup_slot = scratch + (size_t)p * bytes;
    for (q = 1; q < p; ++q) {
        slot = scratch + (size_t)q * bytes;
        nrecv = 0;
        if (vbug_is(VBUG_AMBIGUOUS) && q == p - 1) {
            half = args->count / 2 * esize;
            recv[nrecv++] = vbug_add(sched, st, (loom_step_desc_t){
                .type = LOOM_STEP_RECV, .peer = q, .tag_step = (uint32_t)q,
                .dst = slot, .bytes = half });
            recv[nrecv++] = vbug_add(sched, st, (loom_step_desc_t){
                .type = LOOM_STEP_RECV, .peer = q, .tag_step = (uint32_t)q,
                .dst = slot + half, .bytes = bytes - half });
        } else {
            recv[nrecv++] = vbug_add(sched, st, (loom_step_desc_t){
                .type = LOOM_STEP_RECV, .peer = q, .tag_step = (uint32_t)q,
                .dst = slot, .bytes = bytes });
        }
        if (vbug_is(VBUG_SKIP_REDUCE) && q == p / 2) {
            continue;
        }
        if (vbug_is(VBUG_WRONG_ORDER)) {
            /* acc = slot (op) acc: the higher rank lands on the src side. */
            prev = vbug_add(sched, st, (loom_step_desc_t){
                .type = LOOM_STEP_REDUCE, .src = slot, .dst = buf, .bytes = bytes,
                .deps = { recv[0], nrecv > 1 ? recv[1] : -1, prev }, .ndeps = 3 });
            continue;
        }
        desc = (loom_step_desc_t){ .type = LOOM_STEP_REDUCE, .src = buf, .dst = slot,
                                   .bytes = bytes, .deps = { prev }, .ndeps = 1 };
        if (!vbug_is(VBUG_READ_TOO_EARLY)) {
            for (j = 0; j < nrecv; ++j) {
                desc.deps[desc.ndeps++] = recv[j];
            }
        }
        red = vbug_add(sched, st, desc);
        prev = vbug_add(sched, st, (loom_step_desc_t){
            .type = LOOM_STEP_COPY, .src = slot, .dst = buf, .bytes = bytes,
            .deps = { red }, .ndeps = 1 });
        if (vbug_is(VBUG_DOUBLE_REDUCE) && q == p / 2) {
            dup = vbug_add(sched, st, (loom_step_desc_t){
                .type = LOOM_STEP_RECV, .peer = q, .tag_step = (uint32_t)(2 * p + q),
                .dst = dup_slot, .bytes = bytes });
            red = vbug_add(sched, st, (loom_step_desc_t){
                .type = LOOM_STEP_REDUCE, .src = buf, .dst = dup_slot, .bytes = bytes,
                .deps = { dup, prev }, .ndeps = 2 });
            prev = vbug_add(sched, st, (loom_step_desc_t){
                .type = LOOM_STEP_COPY, .src = dup_slot, .dst = buf, .bytes = bytes,
                .deps = { red }, .ndeps = 1 });
        }
    }
    for (q = 1; q < p; ++q) {
        vbug_add(sched, st, (loom_step_desc_t){
            .type = LOOM_STEP_SEND, .peer = q, .tag_step = (uint32_t)(p + q),
            .src = vbug_is(VBUG_OUT_OF_BOUNDS) ? buf + esize : buf, .bytes = bytes,
            .deps = { prev }, .ndeps = 1 });
    }
}

static void vbug_leaf(loom_sched_t *sched, const loom_coll_args_t *args, int copy,
                      loom_status_t *st)
{
    int p = sched->team->size, r = sched->team->rank, last = r == p - 1, recv;
    size_t esize = args->elem_size, bytes = args->count * esize, half;
    char *buf = args->recvbuf;
    loom_step_desc_t send = { .type = LOOM_STEP_SEND, .peer = 0,
                              .tag_step = (uint32_t)r, .src = buf, .bytes = bytes,
                              .deps = { copy }, .ndeps = 1 };
    loom_step_desc_t result = { .type = LOOM_STEP_RECV, .peer = 0,
                                .tag_step = (uint32_t)(p + r), .dst = buf,
                                .bytes = bytes };

    if (vbug_is(VBUG_DEADLOCK)) {
        result.deps[result.ndeps++] = copy;
        send.deps[0] = vbug_add(sched, st, result);
        vbug_add(sched, st, send);
        return;
    }
    if (last && vbug_is(VBUG_WRONG_TAG)) {
        send.tag_step += 1000;
    }
    if (last && vbug_is(VBUG_SIZE_MISMATCH)) {
        send.bytes -= esize;
    }
    if (last && vbug_is(VBUG_AMBIGUOUS)) {
        half = args->count / 2 * esize;
        send.bytes = half;
        result.deps[result.ndeps++] = vbug_add(sched, st, send);
        send.src = buf + half;
        send.bytes = bytes - half;
    }
    result.deps[result.ndeps++] = vbug_add(sched, st, send);
    if (vbug_is(VBUG_DOUBLE_REDUCE) && r == p / 2) {
        send.tag_step = (uint32_t)(2 * p + r);
        result.deps[result.ndeps++] = vbug_add(sched, st, send);
    }
    if (vbug_is(VBUG_OVERWRITE)) {
        /* Forgets that the send still reads buf. */
        result.deps[0] = copy;
        result.ndeps = 1;
    }
    recv = vbug_add(sched, st, result);
    if (last && vbug_is(VBUG_WRITE_SENDBUF) && !args->in_place) {
        vbug_add(sched, st, (loom_step_desc_t){
            .type = LOOM_STEP_COPY, .src = buf, .dst = (void *)args->sendbuf,
            .bytes = bytes, .deps = { recv }, .ndeps = 1 });
    }
}

loom_status_t vbug_linear_plan(const loom_coll_args_t *args, loom_team_t *team,
                               loom_sched_t **sched_p)
{
    int p = team->size, r = team->rank, last = r == p - 1, copy = -1;
    loom_sched_t *sched;
    loom_status_t status;

    if (last && p > 1 && vbug_is(VBUG_DISAGREE)) {
        return LOOM_ERR_UNSUPPORTED;
    }
    status = loom_sched_create(team, args, VBUG_ALG_ID, &sched);
    if (status != LOOM_OK) {
        return status;
    }
    if (last && vbug_is(VBUG_ALG_MISMATCH)) {
        sched->alg_id = VBUG_ALG_ID + 1;
    }
    if (last && vbug_is(VBUG_SCRIBBLE_INPUT) && !args->in_place && args->count > 0) {
        ((unsigned char *)(uintptr_t)args->sendbuf)[0] ^= 1;
    }
    if (!args->in_place && !vbug_is(VBUG_NO_COPY)) {
        copy = vbug_add(sched, &status, (loom_step_desc_t){
            .type = LOOM_STEP_COPY, .src = args->sendbuf, .dst = args->recvbuf,
            .bytes = args->count * args->elem_size });
    }
    if (p > 1) {
        if (r == 0) {
            vbug_root(sched, args, copy, &status);
        } else {
            vbug_leaf(sched, args, copy, &status);
        }
    }
    if (status != LOOM_OK) {
        goto err_sched;
    }
    if (last && vbug_is(VBUG_BAD_DEP) && sched->nsteps > 0) {
        loom_step_desc_t *d = &sched->steps[sched->nsteps - 1].desc;

        /* Past the executor's checks: as if the step array were corrupted. */
        d->deps[0] = sched->nsteps + 3;
        d->ndeps = d->ndeps > 0 ? d->ndeps : 1;
    }
    *sched_p = sched;
    return LOOM_OK;

err_sched:
    loom_sched_destroy(sched);
    return status;
}
