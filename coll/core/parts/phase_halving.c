/* Recursive halving, doubling and the binomial gather (phase.h). */
#include "coll/core/parts/phase.h"

void loom_phase_halving(loom_halving_phase_t *ph)
{
    loom_sched_t *sched = ph->sched;
    int k, mid, upper, peer, recv, red, reader = ph->tmp_free, last = ph->last;
    size_t kept_bytes, sent_bytes;
    char *kept, *sent;
    uint32_t tag;

    ph->rounds = loom_halving_rounds(ph->n);
    ph->lo = 0;
    ph->hi = ph->n;
    for (k = 0; k < ph->rounds; ++k) {
        peer = ph->ranks[ph->me ^ (1 << k)];
        upper = (ph->me & (1 << k)) != 0;
        tag = ph->tag_base + (uint32_t)k;
        mid = ph->lo + (ph->hi - ph->lo) / 2;
        ph->lo_at[k] = ph->lo;
        ph->hi_at[k] = ph->hi;
        if (!upper) {
            kept = ph->range(ph, ph->lo, mid, &kept_bytes);
            sent = ph->range(ph, mid, ph->hi, &sent_bytes);
            ph->hi = mid;
        } else {
            kept = ph->range(ph, mid, ph->hi, &kept_bytes);
            sent = ph->range(ph, ph->lo, mid, &sent_bytes);
            ph->lo = mid;
        }
        ph->sent[k] = loom_sched_send(sched, peer, tag, sent, sent_bytes, LOOM_DEPS(last));
        recv = loom_sched_recv(sched, peer, tag, ph->tmp, kept_bytes, LOOM_DEPS(reader));
        if (upper || !ph->ordered) {
            /* The partner's group is the lower one (or order does not
             * matter): its data is src. */
            red = loom_sched_reduce(sched, ph->tmp, kept, kept_bytes, LOOM_DEPS(recv, last));
        } else {
            /* kept = kept op theirs: into tmp, then back. */
            red = loom_sched_reduce(sched, kept, ph->tmp, kept_bytes, LOOM_DEPS(recv, last));
            red = loom_sched_copy(sched, ph->tmp, kept, kept_bytes, LOOM_DEPS(red));
        }
        /* An empty half leaves everything as it was (and every later
         * half, a part of it, is empty too). */
        if (red >= 0) {
            last = red;
            reader = red;
        }
    }
    ph->last = last;
}

/* Round k of the way back: the blocks held now (what this position
 * sends) and the half sent away in round k (what arrives); the range
 * becomes round k's again. */
static void loom_halving_back(loom_halving_phase_t *ph, int k, char **held_p,
                              size_t *held_bytes_p, char **back_p, size_t *back_bytes_p)
{
    *held_p = ph->range(ph, ph->lo, ph->hi, held_bytes_p);
    if (ph->lo == ph->lo_at[k]) {
        *back_p = ph->range(ph, ph->hi, ph->hi_at[k], back_bytes_p);
    } else {
        *back_p = ph->range(ph, ph->lo_at[k], ph->lo, back_bytes_p);
    }
    ph->lo = ph->lo_at[k];
    ph->hi = ph->hi_at[k];
}

void loom_phase_doubling(loom_halving_phase_t *ph)
{
    int k, peer, recv, last = ph->last;
    size_t held_bytes, back_bytes;
    char *held, *back;
    uint32_t tag;

    for (k = ph->rounds - 1; k >= 0; --k) {
        peer = ph->ranks[ph->me ^ (1 << k)];
        tag = ph->tag_base + (uint32_t)k;
        loom_halving_back(ph, k, &held, &held_bytes, &back, &back_bytes);
        loom_sched_send(ph->sched, peer, tag, held, held_bytes, LOOM_DEPS(last));
        /* Where the half arrives was read by round k's send. */
        recv = loom_sched_recv(ph->sched, peer, tag, back, back_bytes,
                               LOOM_DEPS(ph->sent[k], last));
        last = recv >= 0 ? recv : last;
    }
    ph->last = last;
}

void loom_phase_gather(loom_halving_phase_t *ph)
{
    int k, peer, recv, send, last = ph->last;
    size_t held_bytes, back_bytes;
    char *held, *back;
    uint32_t tag;

    for (k = ph->rounds - 1; k >= 0; --k) {
        peer = ph->ranks[ph->me ^ (1 << k)];
        tag = ph->tag_base + (uint32_t)k;
        loom_halving_back(ph, k, &held, &held_bytes, &back, &back_bytes);
        if (ph->me & (1 << k)) {
            /* This position's turn to hand its blocks down: done. */
            send = loom_sched_send(ph->sched, peer, tag, held, held_bytes, LOOM_DEPS(last));
            last = send >= 0 ? send : last;
            break;
        }
        recv = loom_sched_recv(ph->sched, peer, tag, back, back_bytes,
                               LOOM_DEPS(ph->sent[k], last));
        last = recv >= 0 ? recv : last;
    }
    ph->last = last;
}
