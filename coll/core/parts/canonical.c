/*
 * The canonical combination order and the reduce-scatter built on it
 * (see canonical.h for the picture).
 *
 * Cost of the reduce-scatter: (p-1) alpha + (p-1)/p n beta +
 * (p-1)/p n gamma, for n bytes of input: every rank sends p - 1 blocks and
 * combines p contributions of its own block.
 */
#include "coll/core/parts/canonical.h"
#include "coll/core/parts/partition.h"

void loom_canonical_block(const loom_canonical_rs_t *rs, int p, int q, size_t elem_size,
                          size_t *off_p, size_t *len_p)
{
    size_t off = 0;
    int i;

    if (rs->counts != NULL) {
        for (i = 0; i < q; ++i) {
            off += rs->counts[i];
        }
        *off_p = off * elem_size;
        *len_p = rs->counts[q] * elem_size;
    } else if (rs->split) {
        *off_p = loom_block_offset(rs->count, p, q) * elem_size;
        *len_p = loom_block_count(rs->count, p, q) * elem_size;
    } else {
        *off_p = (size_t)q * rs->count * elem_size;
        *len_p = rs->count * elem_size;
    }
}

int loom_canonical_combine_add(loom_sched_t *sched, char *slots, size_t bytes, int p,
                               int *slot_step, int *part)
{
    int nparts, j, k, q;

    for (q = 0; q < p; ++q) {
        part[q] = q;
    }
    /* part[] lists the slots holding the current partials, in rank order;
     * each level pairs neighbours, the lower ranks' partial as src, and
     * leaves the pair's result in the higher slot. */
    for (nparts = p; nparts > 1; nparts = k) {
        for (j = 0, k = 0; j < nparts; j += 2, ++k) {
            if (j + 1 == nparts) {
                part[k] = part[j];
                continue;
            }
            slot_step[part[j + 1]] = loom_sched_reduce(
                sched, slots + (size_t)part[j] * bytes, slots + (size_t)part[j + 1] * bytes,
                bytes, LOOM_DEPS(slot_step[part[j]], slot_step[part[j + 1]]));
            part[k] = part[j + 1];
        }
    }
    return part[0];
}

loom_status_t loom_canonical_reduce_scatter_add(loom_sched_t *sched, loom_canonical_rs_t *rs)
{
    const int p = sched->team->size, r = sched->team->rank;
    const size_t esize = sched->args.elem_size;
    size_t mine, off, len, my_off;
    int *slot_step, *part, q, last;
    char *slots = NULL;
    loom_status_t status;

    rs->result = NULL;
    rs->done = -1;
    status = loom_sched_alloc_ints(sched, 3 * p, &rs->sent);
    if (status != LOOM_OK) {
        return status;
    }
    slot_step = rs->sent + p;
    part = slot_step + p;
    loom_canonical_block(rs, p, r, esize, &my_off, &mine);
    if (mine > 0) {
        status = loom_sched_alloc_scratch(sched, mine * (size_t)p, (void **)&slots);
        if (status != LOOM_OK) {
            return status;
        }
    }

    /* Block q of my input to rank q; rank q's share of mine into slot q; my
     * own share copied into slot r, so that an in-place caller may write
     * its result over the input once the sends are done. */
    for (q = 0; q < p; ++q) {
        loom_canonical_block(rs, p, q, esize, &off, &len);
        rs->sent[q] = -1;
        if (q == r) {
            slot_step[q] = mine ? loom_sched_copy(sched, rs->input + my_off,
                                                  slots + (size_t)q * mine, mine, LOOM_NO_DEPS)
                                : -1;
            continue;
        }
        if (len > 0) {
            rs->sent[q] = loom_sched_send(sched, q, rs->tag_step, rs->input + off, len,
                                          LOOM_NO_DEPS);
        }
        slot_step[q] = mine ? loom_sched_recv(sched, q, rs->tag_step,
                                              slots + (size_t)q * mine, mine, LOOM_NO_DEPS)
                            : -1;
    }
    if (mine > 0) {
        last = loom_canonical_combine_add(sched, slots, mine, p, slot_step, part);
        rs->result = slots + (size_t)last * mine;
        rs->done = slot_step[last];
    }
    return loom_sched_build_status(sched);
}
