/*
 * The small-message hand-off, one rule for every collective the adapters
 * take: on a communicator inside one node, a call below the collective's
 * coll_loom_<coll>_handoff goes to the module Open MPI selected before
 * Loom, whose shared-memory fast boxes have lower latency than UCX there.
 * Blocking and nonblocking forms follow the same rule: the decision rests
 * on bytes every rank computes alike, so a rank never waits in Loom for a
 * peer whose call went below.
 */
#include "coll_loom.h"

#include "coll/core/handoff.h"

int mca_coll_loom_hands_off(const mca_coll_loom_module_t *module,
                            const mca_coll_loom_handoff_t *rule, size_t bytes)
{
    if (!loom_handoff_applies(module->team, bytes, rule->threshold)) {
        return 0;
    }
    __atomic_add_fetch(&rule->counters->handoffs, 1, __ATOMIC_RELAXED);
    loom_handoff_explain(module->team, rule->explained, rule->coll, rule->threshold, bytes);
    return 1;
}
