/* The reduce-scatter and allgather rings (phase.h). */
#include "coll/core/parts/phase.h"

/* j mod n for j in -n .. 2n-1: the rings' i-k-1 and i-k-2, without a
 * division (a ring plans thousands of rounds). */
static int loom_ring_wrap(int j, int n)
{
    return j < 0 ? j + n : j >= n ? j - n : j;
}

static uint32_t loom_ring_tag(const loom_ring_phase_t *ph, int round, int s)
{
    return ph->tag_base + (uint32_t)round * (uint32_t)ph->segs.nseg_max + (uint32_t)s;
}

/* Send every segment of block j to the right: from its own data in round
 * 0, from where it was worked on later.  Each send waits for the last
 * step on its segment and becomes it. */
static void loom_ring_send(const loom_ring_phase_t *ph, int right, int round, int j)
{
    loom_phase_block_t blk = ph->cut.block(&ph->cut, j);
    const char *from = round == 0 ? blk.in : blk.at;
    size_t esize = ph->cut.esize;
    int *last = ph->last + (size_t)j * (size_t)ph->segs.nseg_max;
    int nseg = loom_segs_count(&ph->segs, blk.n), s;

    if (ph->len_at != NULL) {
        last[0] = loom_sched_send_len(ph->sched, right, loom_ring_tag(ph, round, 0), from,
                                      blk.n * esize, &ph->len_at[j], LOOM_DEPS(last[0]));
        return;
    }
    for (s = 0; s < nseg; ++s) {
        last[s] = loom_sched_send(ph->sched, right, loom_ring_tag(ph, round, s),
                                  from + (size_t)s * ph->segs.seg * esize,
                                  loom_segs_len(&ph->segs, blk.n, s) * esize,
                                  LOOM_DEPS(last[s]));
    }
}

void loom_phase_rs_ring(const loom_ring_phase_t *ph)
{
    int n = ph->n, me = ph->me, right, left, k, j, s, nseg, recv, local, red, slot_free;
    size_t esize = ph->cut.esize, off, bytes;
    loom_phase_block_t blk;
    char *slot;
    int *last;

    if (n < 2) {
        return;
    }
    right = ph->ranks[loom_ring_wrap(me + 1, n)];
    left = ph->ranks[loom_ring_wrap(me - 1, n)];
    for (k = 0; k < n - 1; ++k) {
        loom_ring_send(ph, right, k, loom_ring_wrap(me - k - 1, n));
        j = loom_ring_wrap(me - k - 2, n);
        blk = ph->cut.block(&ph->cut, j);
        nseg = loom_segs_count(&ph->segs, blk.n);
        last = ph->last + (size_t)j * (size_t)ph->segs.nseg_max;
        for (s = 0; s < nseg; ++s) {
            off = (size_t)s * ph->segs.seg * esize;
            bytes = loom_segs_len(&ph->segs, blk.n, s) * esize;
            slot = loom_slots_take(ph->slots, &slot_free);
            recv = loom_sched_recv(ph->sched, left, loom_ring_tag(ph, k, s), slot, bytes,
                                   LOOM_DEPS(slot_free));
            /* The own data joins the partial sum where it is worked on
             * (nothing to copy where it is there already), each segment
             * just before its reduction, while it is still in cache. */
            local = loom_sched_copy(ph->sched, blk.in + off, blk.at + off, bytes,
                                    LOOM_DEPS(last[s]));
            red = loom_sched_reduce(ph->sched, slot, blk.at + off, bytes,
                                    LOOM_DEPS(recv, local >= 0 ? local : last[s]));
            loom_slots_read(ph->slots, red);
            last[s] = red;
        }
    }
}

void loom_phase_ag_ring(const loom_ring_phase_t *ph)
{
    int n = ph->n, me = ph->me, right, left, k, j, s, nseg;
    size_t esize = ph->cut.esize;
    loom_phase_block_t blk;
    int *last;

    if (n < 2) {
        return;
    }
    right = ph->ranks[loom_ring_wrap(me + 1, n)];
    left = ph->ranks[loom_ring_wrap(me - 1, n)];
    for (k = 0; k < n - 1; ++k) {
        j = loom_ring_wrap(me - k, n);
        if (ph->held == NULL || !ph->held(ph, loom_ring_wrap(me + 1, n), j)) {
            loom_ring_send(ph, right, k, j);
        }
        j = loom_ring_wrap(me - k - 1, n);
        if (ph->held != NULL && ph->held(ph, me, j)) {
            continue;
        }
        blk = ph->cut.block(&ph->cut, j);
        nseg = loom_segs_count(&ph->segs, blk.n);
        last = ph->last + (size_t)j * (size_t)ph->segs.nseg_max;
        if (ph->len_at != NULL) {
            last[0] = loom_sched_recv_len(ph->sched, left, loom_ring_tag(ph, k, 0), blk.at,
                                          blk.n * esize, &ph->len_at[j], LOOM_DEPS(last[0]));
            continue;
        }
        for (s = 0; s < nseg; ++s) {
            /* Into place once the phase before is done with it. */
            last[s] = loom_sched_recv(ph->sched, left, loom_ring_tag(ph, k, s),
                                      blk.at + (size_t)s * ph->segs.seg * esize,
                                      loom_segs_len(&ph->segs, blk.n, s) * esize,
                                      LOOM_DEPS(last[s]));
        }
    }
}
