/*
 * Flow-level network: max-min fair sharing of link capacities.
 *
 * Each message in flight is a flow over up to LOOM_SIM_FLOW_LINKS links
 * (a NIC out, an uplink out, an uplink in, a NIC in) with a cap of its
 * own (the speed one stream reaches alone).  Rates are max-min fair: no
 * flow can go faster without slowing one that is no faster than it.
 * That is what long transfers sharing a link through TCP or a fabric's
 * credit-based flow control converge to, at a fraction of a packet
 * model's cost: a packet model of 4096 ranks would move billions of
 * packets per collective.
 *
 * Rates change only when flows start or end, and only in the connected
 * part of the network those flows touch: after each batch of changes
 * (net_settle) the flows reachable from a touched link are re-filled,
 * the others keep their rates and their finish times, to the bit.  Two
 * things keep the parts small, neither changing a rate:
 *
 *   - a link that its flows, each at its own cap, could not fill (a
 *     spine uplink carrying a few of a tree's flows) limits nobody, so
 *     parts do not connect through it;
 *   - a flow that starts on exactly the path, and with the cap, of one
 *     that ended in the same batch (a pipeline's next segment on its
 *     connection) leaves every link carrying what it carried: it takes
 *     the ended flow's rate and nothing is re-filled for it (ended.h).
 *
 * Finish times sit in an indexed heap, so an event costs O(log flows)
 * plus the size of its connected part.
 */
#ifndef LOOM_SIM_FLOW_H
#define LOOM_SIM_FLOW_H

#include "loom/status.h"

#define LOOM_SIM_FLOW_LINKS 4   /* ports or NICs out and in, uplinks out and in */

typedef struct loom_sim_net loom_sim_net_t;

/* A network of nlinks links with capacities cap_bps[] in bytes/s
 * (<= 0: unlimited, the link is never a bottleneck). */
loom_status_t loom_sim_net_create(int nlinks, const double *cap_bps, loom_sim_net_t **net_p);
void loom_sim_net_destroy(loom_sim_net_t *net);

/* Starts a flow of bytes (> 0) at time now over links[0..nlinks-1], at
 * most cap_bps alone; user comes back when it finishes.  Rates are
 * brought up to date at the next loom_sim_net_settle. */
loom_status_t loom_sim_net_add(loom_sim_net_t *net, double now, double bytes, double cap_bps,
                               const int *links, int nlinks, long user);

/* Re-fills the rates of every flow connected to a link touched since the
 * last call. */
void loom_sim_net_settle(loom_sim_net_t *net, double now);

/* The earliest finish time among the flows (HUGE_VAL when none). */
double loom_sim_net_next(const loom_sim_net_t *net);

/* The user of the flow that finishes first (-1 when none). */
long loom_sim_net_next_user(const loom_sim_net_t *net);

/* Removes one flow finished by time t and hands out its user; 0 when none. */
int loom_sim_net_pop(loom_sim_net_t *net, double t, long *user_p);

/* Flows in flight. */
int loom_sim_net_active(const loom_sim_net_t *net);

/* The current rate of the flow of user (bytes/s), for tests; -1 if none. */
double loom_sim_net_rate_of(const loom_sim_net_t *net, long user);

#endif
