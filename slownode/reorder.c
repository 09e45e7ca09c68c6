/*
 * Mitigation through Loom's MPI_T variables only (docs/slownode.md,
 * "Rank order"; docs/rank_order.md for the variable).
 *
 * After a verdict, every rank writes the same value of coll_loom_rank_order
 * for the communicator whose window decided it: rank order with the slow
 * rank moved to the last position, the end of Loom's chains and, for a
 * tree rooted at the first position, a leaf.  A lossless collective cannot end before the last contribution
 * arrives, so the order may buy nothing: the next full window on that
 * communicator is a trial, judged against the window that flagged the
 * rank on what an order can change, the time collectives run after their
 * last rank arrived: unless that shrank by LOOM_SN_ORDER_TAIL_GAIN and the
 * step did not grow by more than LOOM_SN_ORDER_STEP_SLACK, every rank
 * writes the identity back.  Both windows come from the gathered
 * numbers, so every rank keeps or reverts alike.  A kept order goes back to
 * the identity when the rank clears.
 */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "slownode.h"

/* The share of the time after the last arrival an order must save, and the
 * growth of the step it may cost (window-to-window noise on 2 busy cores is
 * about 1% of a 20 ms step), to be kept. */
#define LOOM_SN_ORDER_TAIL_GAIN 0.20
#define LOOM_SN_ORDER_STEP_SLACK 0.01
/* comm_next_seq where Loom does not run the communicator's collectives. */
#define LOOM_SN_NO_SEQ 4294967295u

static int loom_sn_pvar_find(const char *name)
{
    int index;

    if (MPI_T_pvar_get_index(name, MPI_T_PVAR_CLASS_LEVEL, &index) == MPI_SUCCESS ||
        MPI_T_pvar_get_index(name, MPI_T_PVAR_CLASS_COUNTER, &index) == MPI_SUCCESS) {
        return index;
    }
    return -1;
}

void loom_sn_order_open(void)
{
    loom_sn_order_t *o = &loom_sn.order;
    int count;

    memset(o, 0, sizeof(*o));
    if (MPI_T_cvar_get_index("coll_loom_rank_order", &o->cvar_index) != MPI_SUCCESS) {
        return;                 /* Loom's component is not loaded: detect and report only */
    }
    o->ctx_index = loom_sn_pvar_find("coll_loom_comm_context_id");
    o->seq_index = loom_sn_pvar_find("coll_loom_comm_next_seq");
    o->accepted_index = loom_sn_pvar_find("coll_loom_rank_order_accepted");
    if (o->ctx_index < 0 || o->seq_index < 0 || o->accepted_index < 0 ||
        MPI_T_pvar_session_create(&o->session) != MPI_SUCCESS) {
        return;
    }
    o->session_open = 1;
    /* Loom's counters count only while a handle is started, so this one
     * lives from MPI_Init to MPI_Finalize. */
    if (MPI_T_pvar_handle_alloc(o->session, o->accepted_index, NULL, &o->accepted_handle,
                                &count) != MPI_SUCCESS) {
        return;
    }
    MPI_T_pvar_start(o->session, o->accepted_handle);
    o->available = 1;
}

/* Reads an unsigned pvar, bound to comm when comm is not NULL. */
static int loom_sn_pvar_read(int index, MPI_Comm *comm, int wide, unsigned long long *value_p)
{
    MPI_T_pvar_handle handle;
    unsigned long long wide_value = 0;
    unsigned narrow_value = 0;
    int count, ok;

    if (MPI_T_pvar_handle_alloc(loom_sn.order.session, index, comm, &handle, &count) !=
        MPI_SUCCESS) {
        return 0;
    }
    ok = MPI_T_pvar_read(loom_sn.order.session, handle,
                         wide ? (void *)&wide_value : (void *)&narrow_value) == MPI_SUCCESS;
    MPI_T_pvar_handle_free(loom_sn.order.session, &handle);
    *value_p = wide ? wide_value : narrow_value;
    return ok;
}

/* Writes "<context id>:<next seq>:<order>" for c; slow < 0 for the identity. */
static int loom_sn_order_write(const loom_sn_comm_t *c, int slow)
{
    MPI_Comm comm = c->comm;
    unsigned long long cid, seq;
    MPI_T_cvar_handle handle;
    size_t len, cap = 48 + 12 * (size_t)loom_sn.world_size;
    char *text;
    int r, count, ok;

    if (!loom_sn_pvar_read(loom_sn.order.ctx_index, &comm, 0, &cid) ||
        !loom_sn_pvar_read(loom_sn.order.seq_index, &comm, 0, &seq) || seq == LOOM_SN_NO_SEQ ||
        (text = malloc(cap)) == NULL) {
        return 0;
    }
    len = (size_t)snprintf(text, cap, "%llu:%llu:", cid, seq);
    if (slow < 0) {
        snprintf(text + len, cap - len, "identity");
    } else {
        for (r = 0; r < loom_sn.world_size; ++r) {
            if (r != slow) {
                len += (size_t)snprintf(text + len, cap - len, "%d,", r);
            }
        }
        snprintf(text + len, cap - len, "%d", slow);
    }
    ok = MPI_T_cvar_handle_alloc(loom_sn.order.cvar_index, NULL, &handle, &count) ==
         MPI_SUCCESS;
    if (ok) {
        ok = MPI_T_cvar_write(handle, text) == MPI_SUCCESS;
        MPI_T_cvar_handle_free(&handle);
    }
    free(text);
    return ok;
}

static void loom_sn_order_event(loom_sn_event_kind_t kind, const loom_sn_comm_t *c,
                                const loom_sn_detector_t *d)
{
    const loom_sn_order_t *o = &loom_sn.order;
    loom_sn_event_t ev = { .kind = kind, .rank = o->rank, .comm = c->index,
                           .collective = c->calls, .step_before_ms = o->step_before_ns / 1e6,
                           .step_after_ms = d->last_step_ns / 1e6,
                           .tail_before_ms = o->tail_before_ns / 1e6,
                           .tail_after_ms = d->last_tail_ns / 1e6 };

    loom_sn_event_add(&ev);
}

/* The lowest flagged rank, or -1. */
static int loom_sn_order_candidate(void)
{
    int r;

    for (r = 0; r < loom_sn.world_size; ++r) {
        if (loom_sn.detector.flagged[r]) {
            return r;
        }
    }
    return -1;
}

void loom_sn_order_after_window(const loom_sn_comm_t *c, const loom_sn_detector_t *d)
{
    loom_sn_order_t *o = &loom_sn.order;
    int slow = loom_sn_order_candidate(), pays;

    if (!o->available || loom_sn.settings.reorder == LOOM_SN_REORDER_OFF) {
        return;
    }
    if (o->state == LOOM_SN_ORDER_IDLE) {
        if (slow >= 0 && loom_sn_order_write(c, slow)) {
            o->state = LOOM_SN_ORDER_TRIAL;
            o->rank = slow;
            o->comm = c->index;
            o->step_before_ns = d->last_step_ns;
            o->tail_before_ns = d->last_tail_ns;
            loom_sn_order_event(LOOM_SN_EVENT_REORDER, c, d);
            if (loom_sn.settings.reorder == LOOM_SN_REORDER_ALWAYS) {
                o->state = LOOM_SN_ORDER_KEPT;
            }
        }
        return;
    }
    if (c->index != o->comm) {
        return;
    }
    if (o->state == LOOM_SN_ORDER_TRIAL) {
        pays = d->last_tail_ns <= (1.0 - LOOM_SN_ORDER_TAIL_GAIN) * o->tail_before_ns &&
               d->last_step_ns <= (1.0 + LOOM_SN_ORDER_STEP_SLACK) * o->step_before_ns;
        loom_sn_order_event(pays ? LOOM_SN_EVENT_KEEP : LOOM_SN_EVENT_REVERT, c, d);
        if (pays) {
            o->state = LOOM_SN_ORDER_KEPT;
            return;
        }
        loom_sn_order_write(c, -1);
        o->state = LOOM_SN_ORDER_DONE;
        return;
    }
    if (!d->flagged[o->rank]) {
        if (o->state == LOOM_SN_ORDER_KEPT && loom_sn_order_write(c, -1)) {
            loom_sn_order_event(LOOM_SN_EVENT_RESTORE, c, d);
        }
        o->state = LOOM_SN_ORDER_IDLE;
    }
}

void loom_sn_order_close(void)
{
    loom_sn_order_t *o = &loom_sn.order;

    if (o->available) {
        MPI_T_pvar_read(o->session, o->accepted_handle, &o->accepted);
        MPI_T_pvar_handle_free(o->session, &o->accepted_handle);
    }
    if (o->session_open) {
        MPI_T_pvar_session_free(&o->session);
        o->session_open = 0;
    }
}
