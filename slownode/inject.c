/*
 * Fault injection (LOOM_SLOWNODE_INJECT): the chosen rank sleeps before
 * each blocking collective, either (factor - 1) times the time since it
 * left its previous one (its compute looks factor times slower) or a fixed
 * stall.  Sleeping, never spinning: on a machine with fewer cores than
 * ranks a spinning rank would slow its neighbours too and blur the rank
 * the test expects to be named.
 */
#include <errno.h>
#include <time.h>

#include "slownode.h"

static void loom_sn_sleep_ns(uint64_t ns)
{
    struct timespec ts = { .tv_sec = (time_t)(ns / 1000000000u),
                           .tv_nsec = (long)(ns % 1000000000u) };

    while (nanosleep(&ts, &ts) != 0 && errno == EINTR) {
    }
}

void loom_sn_inject(uint64_t now_ns)
{
    const loom_sn_settings_t *s = &loom_sn.settings;
    uint64_t since;

    if (s->inject == LOOM_SN_INJECT_NONE || s->inject_rank != loom_sn.world_rank) {
        return;
    }
    if (s->inject == LOOM_SN_INJECT_STALL) {
        loom_sn_sleep_ns((uint64_t)(s->inject_stall_ms * 1e6));
        return;
    }
    if (loom_sn.last_exit_ns == 0 || now_ns <= loom_sn.last_exit_ns) {
        return;                 /* the first collective: no compute to stretch yet */
    }
    since = now_ns - loom_sn.last_exit_ns;
    loom_sn_sleep_ns((uint64_t)((s->inject_factor - 1.0) * (double)since));
}
