/* Bruck's allgather (phase.h). */
#include "coll/core/parts/phase.h"
#include "coll/core/parts/partition.h"

void loom_phase_bruck(loom_bruck_phase_t *ph)
{
    int n = ph->n, me = ph->me, d, m, k, recv, last = ph->last;

    for (d = 1, k = 0; d < n; d *= 2, ++k) {
        m = d < n - d ? d : n - d;
        loom_sched_send(ph->sched, ph->ranks[loom_mod(me - d, n)], ph->tag_base + (uint32_t)k,
                        ph->tmp, ph->run(ph, me, m), LOOM_DEPS(last));
        recv = loom_sched_recv(ph->sched, ph->ranks[loom_mod(me + d, n)],
                               ph->tag_base + (uint32_t)k, ph->tmp + ph->run(ph, me, d),
                               ph->run(ph, loom_mod(me + d, n), m), LOOM_DEPS(last));
        last = recv >= 0 ? recv : last;
    }
    ph->last = last;
}
