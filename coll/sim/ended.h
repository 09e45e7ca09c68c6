/*
 * The flows that ended in one batch of network changes (flow.c), by path
 * and cap.  A flow that starts in the same batch on exactly the path, and
 * with the cap, of one that ended leaves every link carrying what it
 * carried: it takes that flow's rate, and nothing is re-filled for it (a
 * pipeline's next segment on its connection).  Each ended flow is taken
 * at most once; the table is emptied at every settle.
 */
#ifndef LOOM_SIM_ENDED_H
#define LOOM_SIM_ENDED_H

typedef struct loom_sim_ended_flow loom_sim_ended_flow_t;

typedef struct loom_sim_ended {
    loom_sim_ended_flow_t   *flows;
    int                     n, cap;
    int                     *head;      /* hash buckets by path and cap, -1: empty */
    int                     nbuckets;
} loom_sim_ended_t;                     /* all zero: empty */

/* Keeps an ended flow's path, cap and rate; when memory runs out it is
 * simply not kept (a later flow on its path is then filled like any new
 * one). */
void loom_sim_ended_keep(loom_sim_ended_t *t, const int *links, int nlinks, double cap,
                         double rate);

/* Takes an ended flow on exactly this path with this cap, not yet taken:
 * 1 and its rate in *rate_p, or 0 when there is none. */
int loom_sim_ended_take(loom_sim_ended_t *t, const int *links, int nlinks, double cap,
                        double *rate_p);

/* Forgets every flow kept (the memory stays for the next batch). */
void loom_sim_ended_clear(loom_sim_ended_t *t);
void loom_sim_ended_free(loom_sim_ended_t *t);

#endif
