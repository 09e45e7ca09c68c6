/*
 * Folding a symmetric run onto one rack.
 *
 * When rotating every rank by d (r -> r + d mod p) maps the cluster onto
 * itself (nodes onto nodes, racks onto racks, NICs onto NICs) and moves
 * every rack, and every rank's schedule is rank (r mod d)'s with its peers
 * rotated the same way, then the run is symmetric: step k of rank r ends
 * at the time step k of rank r mod d does.  So only ranks 0..d-1 need to
 * run.  A message to a rank q outside them stands for its whole orbit:
 * it leaves by the sender's own NIC and uplink, and enters by the NIC and
 * uplink of q mod d, which stand for q's.  Max-min sharing is the same,
 * because a free rotation puts exactly one member of a message's orbit on
 * each link of its orbit.
 *
 * Nothing here is assumed of an algorithm: the layout is checked rank by
 * rank, and every rank's schedule is built and compared, step for step as
 * the rank sees it (peers as offsets), with its representative's before a
 * program is folded.  At 4096 ranks in 32 racks the ring's 84
 * million steps become 2.6 million.
 */
#ifndef LOOM_SIM_FOLD_H
#define LOOM_SIM_FOLD_H

#include "model.h"
#include "coll/core/engine/sched.h"

/* The smallest d < p dividing p whose rotation maps the layout onto
 * itself and leaves no rack in place; p when there is none (one rack, an
 * uneven layout, ranks dealt over nodes round-robin). */
int loom_sim_fold_distance(const loom_sim_layout_t *lay);

/* Whether schedule a of rank ra and schedule b of rank rb are the same
 * as their ranks see them: step for step, every field the simulator uses
 * (type, bytes, tag, dependencies), with peers as offsets (peer - rank
 * mod p). */
int loom_sim_fold_same(const loom_sched_t *a, int ra, const loom_sched_t *b, int rb, int p);

#endif
