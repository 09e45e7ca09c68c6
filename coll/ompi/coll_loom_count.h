/*
 * The counters MPI_T reads and the checks every call passes before Loom
 * decides anything: enabled, a fallback, the small-message hand-off.
 * They are on the path of a small handed-off call, measured to the
 * nanosecond, so they stay inline here.
 */
#ifndef MCA_COLL_LOOM_COUNT_H
#define MCA_COLL_LOOM_COUNT_H

#include "coll_loom.h"

#include "coll/core/select/handoff.h"
#include "common/log.h"

BEGIN_C_DECLS

/* The counters of collective id. */
static inline mca_coll_loom_counters_t *mca_coll_loom_counters(loom_coll_kind_t id)
{
    return &mca_coll_loom_component.counters[id];
}

/* Adds n to one of the counters MPI_T reads.  Unless the job asked for
 * MPI_THREAD_MULTIPLE, one thread at a time calls into MPI (MPI_T
 * included), so a plain add is exact and spares the locked instruction
 * that otherwise costs a small hand-off call a few percent of its time. */
static inline void mca_coll_loom_count(unsigned long long *counter, unsigned long long n)
{
    if (opal_using_threads()) {
        __atomic_add_fetch(counter, n, __ATOMIC_RELAXED);
    } else {
        __atomic_store_n(counter, __atomic_load_n(counter, __ATOMIC_RELAXED) + n,
                         __ATOMIC_RELAXED);
    }
}

/* Whether Loom takes calls now (coll_loom_enable); a call it does not take
 * is counted as disabled.  Every rank reads the same value: the user writes
 * it on all ranks at one point between collectives (coll_loom_mpit.c). */
static inline int mca_coll_loom_enabled(mca_coll_loom_counters_t *counters)
{
    if (__atomic_load_n(&mca_coll_loom_component.enable, __ATOMIC_RELAXED)) {
        return 1;
    }
    mca_coll_loom_count(&counters->disabled, 1);
    return 0;
}

/* Count a call handed down because Loom cannot take its data. */
static inline loom_status_t mca_coll_loom_fallback(mca_coll_loom_counters_t *counters)
{
    mca_coll_loom_count(&counters->fallbacks, 1);
    return LOOM_ERR_UNSUPPORTED;
}

/* The small-message hand-off, one rule for every collective the adapters
 * take: on a communicator inside one node, a call below the collective's
 * coll_loom_<coll>_handoff goes to the module Open MPI selected before
 * Loom, whose shared-memory fast boxes have lower latency than UCX there.
 * Blocking and nonblocking forms follow the same rule, on bytes every rank
 * computes alike (loom_handoff_limit), so a rank never waits in Loom for a
 * peer whose call went below.  The limit was worked out when the module
 * joined the communicator and sits next to the functions below Loom: a
 * call handed down between barriers finds the caches cold, and each
 * further line the decision touched (the settings, the team) cost a miss
 * the module below does not pay. */
static inline int mca_coll_loom_small(const mca_coll_loom_module_t *module, loom_coll_kind_t id,
                                      size_t bytes)
{
    return bytes < module->handoff_below[id];
}

/* Count and explain a call of coll that mca_coll_loom_small sends below;
 * returns LOOM_ERR_UNSUPPORTED, which sends it. */
static inline loom_status_t mca_coll_loom_hand_off(const mca_coll_loom_module_t *module,
                                                   const loom_collective_t *coll, size_t bytes)
{
    mca_coll_loom_count(&mca_coll_loom_counters(coll->id)->handoffs, 1);
    if (loom_log_enabled(LOOM_LOG_INFO)) {
        loom_handoff_explain(module->team, &mca_coll_loom_component.config, coll->id, bytes);
    }
    return LOOM_ERR_UNSUPPORTED;
}

END_C_DECLS

#endif
