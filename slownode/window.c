/*
 * Windows of arrivals (docs/slownode.md, "Windows").
 *
 * Only communicators that span MPI_COMM_WORLD are watched: the exchange
 * runs on the library's duplicate of MPI_COMM_WORLD, so every rank must
 * reach it, and a rank's K-th collective on such a communicator is every
 * rank's K-th.  When a window is full the rank gathers every rank's window
 * (K entry times and K times between collectives, 16 K bytes a rank) with
 * one blocking allgather, right after the user's K-th call returns.  It
 * blocks only until every rank has finished that same call, which a
 * correct MPI program reaches whether its collectives synchronize or not.
 */
#include <stdlib.h>
#include <string.h>

#include "slownode.h"

static loom_sn_comm_t *loom_sn_comm_find(MPI_Comm comm)
{
    int i;

    for (i = 0; i < loom_sn.comm_count; ++i) {
        if (loom_sn.comms[i].comm == comm) {
            return &loom_sn.comms[i];
        }
    }
    return NULL;
}

/* Adds comm if it spans the world; NULL when it does not or the table is full. */
static loom_sn_comm_t *loom_sn_comm_add(MPI_Comm comm)
{
    size_t k = (size_t)loom_sn.settings.detect.window;
    loom_sn_comm_t *c;
    int size, inter;

    if (loom_sn.comm_count == LOOM_SN_MAX_COMMS || PMPI_Comm_test_inter(comm, &inter) != MPI_SUCCESS ||
        inter || PMPI_Comm_size(comm, &size) != MPI_SUCCESS || size != loom_sn.world_size) {
        return NULL;
    }
    c = &loom_sn.comms[loom_sn.comm_count];
    memset(c, 0, sizeof(*c));
    c->entry = calloc(k, sizeof(double));
    c->gap = calloc(k, sizeof(double));
    if (c->entry == NULL || c->gap == NULL) {
        free(c->entry);
        free(c->gap);
        return NULL;
    }
    c->comm = comm;
    c->index = loom_sn.comms_met++;
    loom_sn.comm_count++;
    return c;
}

void loom_sn_event_add(const loom_sn_event_t *ev)
{
    if (loom_sn.event_count < LOOM_SN_MAX_EVENTS) {
        loom_sn.events[loom_sn.event_count++] = *ev;
    }
    loom_sn_report_event(ev);
}

/* Gathers every rank's window and runs the detector on it. */
static void loom_sn_window_exchange(loom_sn_comm_t *c)
{
    int k = loom_sn.settings.detect.window, n = loom_sn.world_size, r, i, count;
    size_t row = 2 * (size_t)k;
    double *mine = loom_sn.gathered + (size_t)n * row;          /* the send row */
    double *entry = mine + row, *gap = entry + (size_t)n * (size_t)k;
    loom_sn_change_t *changes = loom_sn.changes;

    memcpy(mine, c->entry, (size_t)k * sizeof(double));
    memcpy(mine + k, c->gap, (size_t)k * sizeof(double));
    c->n = 0;
    if (PMPI_Allgather(mine, (int)row, MPI_DOUBLE, loom_sn.gathered, (int)row, MPI_DOUBLE,
                       loom_sn.lib_comm) != MPI_SUCCESS) {
        return;
    }
    loom_sn.exchanges++;
    for (r = 0; r < n; ++r) {
        for (i = 0; i < k; ++i) {
            entry[(size_t)r * k + i] = loom_sn.gathered[(size_t)r * row + i];
            gap[(size_t)r * k + i] = loom_sn.gathered[(size_t)r * row + k + i];
        }
    }
    count = loom_sn_detector_window(&loom_sn.detector, entry, gap, k, changes);
    for (i = 0; i < count; ++i) {
        loom_sn_event_add(&(loom_sn_event_t){
            .kind = changes[i].flag ? LOOM_SN_EVENT_FLAG : LOOM_SN_EVENT_CLEAR,
            .rank = changes[i].rank, .comm = c->index, .collective = c->calls,
            .slower_pct = changes[i].slower_pct, .late_ms = changes[i].late_ms,
            .windows = changes[i].windows });
    }
    loom_sn_order_after_window(c, &loom_sn.detector);
}

/* Scratch for the exchange: the gathered rows, this rank's row, and the
 * entries and gaps unpacked rank by rank. */
int loom_sn_window_init(void)
{
    size_t n = (size_t)loom_sn.world_size, k = (size_t)loom_sn.settings.detect.window;

    loom_sn.gathered = calloc(2 * k * (n + 1) + 2 * k * n, sizeof(double));
    loom_sn.changes = calloc(n, sizeof(loom_sn_change_t));
    return loom_sn.gathered != NULL && loom_sn.changes != NULL &&
           loom_sn_detector_init(&loom_sn.detector, loom_sn.world_size,
                                 &loom_sn.settings.detect);
}

void loom_sn_window_record(MPI_Comm comm, uint64_t entry_ns, uint64_t gap_ns)
{
    loom_sn_comm_t *c = loom_sn_comm_find(comm);

    if (c == NULL && (c = loom_sn_comm_add(comm)) == NULL) {
        return;
    }
    c->calls++;
    c->entry[c->n] = (double)entry_ns - (double)loom_sn.clock_offset_ns;
    c->gap[c->n] = (double)gap_ns;
    if (++c->n == loom_sn.settings.detect.window) {
        loom_sn_window_exchange(c);
    }
}

/* A freed communicator's handle may come back for a new one. */
void loom_sn_window_forget(MPI_Comm comm)
{
    loom_sn_comm_t *c = loom_sn_comm_find(comm);

    if (c == NULL) {
        return;
    }
    free(c->entry);
    free(c->gap);
    *c = loom_sn.comms[--loom_sn.comm_count];
}

void loom_sn_window_free_all(void)
{
    while (loom_sn.comm_count > 0) {
        loom_sn_window_forget(loom_sn.comms[0].comm);
    }
    loom_sn_detector_fini(&loom_sn.detector);
    free(loom_sn.gathered);
    free(loom_sn.changes);
    loom_sn.gathered = NULL;
    loom_sn.changes = NULL;
}
