/*
 * Wait for the last arrival (docs/pmpi.md, "Who arrives last").
 *
 * Each rank writes its corrected entry time of every collective on a
 * communicator into a window; collectives on a communicator are numbered
 * alike on all members, so entry i of a window is the same call everywhere.
 * When a window is full the rank starts, on the communicator's shadow (a
 * duplicate made where every member is: in the call that created the
 * communicator, or at its first collective for one the library did not see
 * created), one
 * nonblocking MAXLOC reduction of it over (time, rank) pairs: the times give
 * the latest entry and who made it, their negations (a second half of the
 * same message, so one exchange instead of two) the earliest.  They complete at a later
 * collective on the communicator or when the other window fills: a blocking
 * exchange inside the user's call could deadlock a legal program (a bcast
 * root returns early and then sends to a rank that has not entered yet).
 * Two windows per communicator bound the memory.
 */
#include <stdlib.h>
#include <string.h>

#include "pmpi.h"

static int loom_pmpi_window_alloc(loom_pmpi_window_t *w, int n)
{
    w->in = calloc(2 * (size_t)n, sizeof(*w->in));
    w->out = calloc(2 * (size_t)n, sizeof(*w->out));
    w->site = calloc((size_t)n, sizeof(int));
    w->req = MPI_REQUEST_NULL;
    w->n = 0;
    w->inflight = 0;
    return w->in != NULL && w->out != NULL && w->site != NULL;
}

static void loom_pmpi_window_release(loom_pmpi_window_t *w)
{
    free(w->in);
    free(w->out);
    free(w->site);
    memset(w, 0, sizeof(*w));
}

/* A communicator's shadow and windows: made inside the call that created
 * it, where every member is, or failing that (a communicator the library
 * met first in a call) at its first collective.  Intercommunicators and
 * single ranks have no last arrival to measure. */
int loom_pmpi_arrival_setup(loom_pmpi_comm_t *c)
{
    int ok;

    if (c->shadow_ready != 0) {
        return c->shadow_ready > 0;
    }
    c->shadow_ready = -1;
    if (c->inter || c->size < 2) {
        return 0;
    }
    if (PMPI_Comm_dup(c->comm, &c->shadow) != MPI_SUCCESS) {
        return 0;
    }
    ok = loom_pmpi_window_alloc(&c->win[0], loom_pmpi.settings.window) &&
         loom_pmpi_window_alloc(&c->win[1], loom_pmpi.settings.window);
    if (!ok) {
        loom_pmpi_window_release(&c->win[0]);
        loom_pmpi_window_release(&c->win[1]);
        PMPI_Comm_free(&c->shadow);
        return 0;
    }
    c->shadow_ready = 1;
    return 1;
}

static void loom_pmpi_window_start(loom_pmpi_comm_t *c, loom_pmpi_window_t *w)
{
    int i;

    /* The negations go right after the n entries written: a partial window
     * (a flush) sends 2n pairs, like a full one. */
    for (i = 0; i < w->n; ++i) {
        w->in[w->n + i].t = -w->in[i].t;
        w->in[w->n + i].rank = c->rank;
    }
    PMPI_Iallreduce(w->in, w->out, 2 * w->n, MPI_DOUBLE_INT, MPI_MAXLOC, c->shadow, &w->req);
    w->inflight = 1;
    c->pending++;
}

/* The results: each call's wait goes to its site, and this rank's lateness
 * (times last, time behind the earliest entry) to the rank's totals. */
static void loom_pmpi_window_finish(loom_pmpi_comm_t *c, loom_pmpi_window_t *w)
{
    loom_pmpi_site_t *s;
    double wait, own, earliest;
    uint64_t wait_ns;
    int i;

    for (i = 0; i < w->n; ++i) {
        s = &loom_pmpi.sites[w->site[i]];
        own = w->in[i].t;
        earliest = -w->out[w->n + i].t;
        wait = w->out[i].t - own;
        wait_ns = wait > 0 ? (uint64_t)(wait * 1e9) : 0;
        s->wait_n++;
        s->wait_sum += wait_ns;
        s->wait_hist[loom_pmpi_hist_bin(wait_ns)]++;
        if (w->out[i].rank == c->rank) {
            s->times_last++;
            loom_pmpi.times_last++;
        }
        if (own > earliest) {
            loom_pmpi.lateness_sum += own - earliest;
        }
        loom_pmpi.arrivals++;
    }
    w->n = 0;
    w->inflight = 0;
    c->pending--;
}

/* Completes one window's exchange when it is done (test) or always (wait). */
static void loom_pmpi_window_complete(loom_pmpi_comm_t *c, loom_pmpi_window_t *w, int wait)
{
    MPI_Status st;
    int done = 1;

    if (!w->inflight) {
        return;
    }
    if (wait) {
        PMPI_Wait(&w->req, &st);
    } else {
        PMPI_Test(&w->req, &done, &st);
    }
    if (done) {
        loom_pmpi_window_finish(c, w);
    }
}

void loom_pmpi_arrival_progress(loom_pmpi_comm_t *c, int wait)
{
    loom_pmpi_window_complete(c, &c->win[0], wait);
    loom_pmpi_window_complete(c, &c->win[1], wait);
}

void loom_pmpi_arrival_record(loom_pmpi_comm_t *c, int site, uint64_t entry_ns)
{
    loom_pmpi_window_t *w;

    if (c->shadow_ready <= 0 && !loom_pmpi_arrival_setup(c)) {
        return;
    }
    w = &c->win[c->cur];
    /* Testing an exchange in flight costs a turn of MPI's progress engine:
     * every 16th collective is often enough for it to finish long before
     * the window it races with fills. */
    if (c->pending > 0 && (w->n & 15) == 0) {
        loom_pmpi_arrival_progress(c, 0);
    }
    w->in[w->n].t = loom_pmpi_corrected(entry_ns);
    w->in[w->n].rank = c->rank;
    w->site[w->n] = site;
    if (++w->n < loom_pmpi.settings.window) {
        return;
    }
    loom_pmpi_window_start(c, w);
    c->cur ^= 1;
    /* If both windows are in flight, the older one, started W collectives
     * ago by every member, must end before its memory is refilled. */
    loom_pmpi_window_complete(c, &c->win[c->cur], 1);
}

void loom_pmpi_arrival_flush_start(loom_pmpi_comm_t *c)
{
    loom_pmpi_window_t *w;

    if (c->shadow_ready <= 0) {
        return;
    }
    w = &c->win[c->cur];
    if (w->n > 0 && !w->inflight) {
        loom_pmpi_window_start(c, w);
        c->cur ^= 1;
    }
}

void loom_pmpi_arrival_free(loom_pmpi_comm_t *c)
{
    if (c->shadow_ready <= 0) {
        return;
    }
    loom_pmpi_arrival_progress(c, 1);
    loom_pmpi_window_release(&c->win[0]);
    loom_pmpi_window_release(&c->win[1]);
    PMPI_Comm_free(&c->shadow);
    c->shadow_ready = 0;
}
