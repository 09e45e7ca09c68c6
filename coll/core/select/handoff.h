/*
 * The small-message hand-off: on a team that lives inside one node, a
 * collective below its threshold goes to the implementation below Loom
 * (in Open MPI, the module selected before Loom, whose shared-memory fast
 * path has lower latency than UCX's there).  One rule for every
 * collective; each has its own threshold (coll_config.h).
 */
#ifndef LOOM_HANDOFF_H
#define LOOM_HANDOFF_H

#include "coll/core/select/coll_config.h"
#include "coll/core/engine/team.h"

#include <stddef.h>
#include <stdint.h>

/* The bytes below which a call of collective id on team is handed off:
 * the collective's coll_loom_<coll>_handoff, or on two ranks its
 * <coll>_pair_handoff where that is larger (*pair_p says which); 0 on a
 * team across nodes, so that Loom keeps every size there.  The settings
 * are fixed once the job runs, so an adapter asks once per team and a
 * call compares its bytes with one number.  Those bytes must be a
 * quantity every rank computes alike (a type signature size, a total over
 * counts every rank passes), never a rank's own buffer layout: then every
 * rank decides the same and no rank waits for a peer that handed the call
 * off.
 *
 * Two ranks are a case of their own: every algorithm is then one
 * exchange, so Loom has no fewer steps to offer than the module below,
 * whose fast boxes carry a small exchange with lower latency than UCX.
 * Allgather: 1.31 against 1.42 us at 4 KiB on this project's machine,
 * while from three ranks on Loom's Bruck wins from 2 KiB.  Bcast: a single
 * 1 KiB call costs 1.6 to 1.9 times the module below's on two ranks,
 * while on four Loom's binomial tree takes 0.44 to 0.95 of its time from
 * 512 B (docs/benchmarks.md). */
size_t loom_handoff_limit(const loom_coll_config_t *cfg, const loom_team_t *team,
                          loom_coll_kind_t id, int *pair_p);

/* Whether a blocking call of bytes on team goes through the node's shared
 * segment (shm.h): the same kind of decision as the hand-off, on inputs
 * every rank shares.  forced: the settings or a rule named an algorithm,
 * which then runs as asked. */
static inline int loom_shm_applies(const loom_team_t *team, const loom_coll_config_t *cfg,
                                   size_t bytes, int forced)
{
    return cfg->shm && !forced && team->num_nodes == 1 && team->size > 1 &&
           bytes >= cfg->shm_min_bytes && bytes > 0;
}

/* At verbose level info, say once per size class of collective id on
 * team that calls of bytes go through the shared segment. */
void loom_shm_explain(loom_team_t *team, loom_coll_kind_t id, const char *coll, size_t bytes);

/* At verbose level info, say once per size class of collective id on
 * team (shared with the collective's own explain lines) that calls of
 * bytes go to the module below Loom, naming the setting of cfg that
 * decided (<coll>_pair_handoff or <coll>_handoff, loom_handoff_limit). */
void loom_handoff_explain(loom_team_t *team, const loom_coll_config_t *cfg,
                          loom_coll_kind_t id, size_t bytes);

#endif
