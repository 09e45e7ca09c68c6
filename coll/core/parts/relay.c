/* The pipelined relay of chain bcasts (relay.h). */
#include "coll/core/parts/relay.h"
#include "coll/core/parts/partition.h"
#include "coll/core/engine/tag.h"

void loom_relay_add(loom_sched_t *sched, const loom_coll_args_t *args, size_t def_seg_bytes,
                    int up, const int *down, int ndown)
{
    size_t esize = args->elem_size, count = args->count, seg, nseg, j, n;
    char *at;
    int recv = -1, i;

    seg = loom_seg_elems(args->seg_bytes, def_seg_bytes, esize, count, LOOM_TAG_MAX_STEPS);
    nseg = (count + seg - 1) / seg;
    for (j = 0; j < nseg; ++j) {
        n = j + 1 < nseg ? seg : count - j * seg;
        at = (char *)args->recvbuf + j * seg * esize;
        if (up >= 0) {
            recv = loom_sched_recv(sched, up, (uint32_t)j, at, n * esize, LOOM_NO_DEPS);
        }
        for (i = 0; i < ndown; ++i) {
            if (down[i] >= 0) {
                loom_sched_send(sched, down[i], (uint32_t)j, at, n * esize, LOOM_DEPS(recv));
            }
        }
    }
}
