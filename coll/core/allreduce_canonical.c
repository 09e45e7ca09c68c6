/*
 * Reproducible allreduce: every element is combined in one canonical order,
 * a binary tree over rank ids, whatever arrives first and whatever the
 * message size, so floating sums are bitwise identical from run to run and
 * on every rank (for a given rank count).
 *
 * Block b of the vector belongs to rank b.  Each rank sends block b of its
 * input to rank b; rank b combines the p contributions pairwise in rank
 * order, then sends its finished block to everyone (reduce-scatter, then
 * allgather, both direct):
 *
 *   contributions to block b:  c0  c1  c2  c3  c4
 *   level 1:                   (c0 c1) (c2 c3) c4
 *   level 2:                   ((c0 c1)(c2 c3)) c4
 *   level 3:                   (((c0 c1)(c2 c3)) c4)
 *
 * The lower ranks' partial is always the left operand, so the same tree
 * serves non-commutative ops.
 *
 * Cost: 2(p-1) alpha + 2 (p-1)/p n beta + (p-1)/p n gamma: the bandwidth
 * of the ring, with direct messages instead of a pipeline.  It is chosen
 * only on request (coll_loom_reproducible), never by the cost model: the
 * ring and Rabenseifner reach the same volume with fewer or better
 * overlapped messages, but combine in an order that depends on p's
 * factorisation and the segment size.
 */
#include "allreduce.h"
#include "partition.h"

#define LOOM_CANONICAL_SCATTER 1   /* tag step of phase 1 */
#define LOOM_CANONICAL_GATHER  2   /* tag step of phase 3 */

loom_status_t loom_allreduce_canonical_plan(const loom_coll_args_t *args, loom_team_t *team,
                                            loom_sched_t **sched_p)
{
    const int p = team->size, r = team->rank;
    const size_t esize = args->elem_size;
    const char *input = args->in_place ? args->recvbuf : args->sendbuf;
    char *out = args->recvbuf, *slots;
    size_t mine = loom_block_count(args->count, p, r) * esize, off, len;
    int *sent, *slot_step, *part, nparts, q, j, k, done;
    loom_status_t status;
    loom_sched_t *sched;

    status = loom_sched_create(team, args, LOOM_ALLREDUCE_REPRODUCIBLE, &sched);
    if (status != LOOM_OK) {
        return status;
    }
    if (p == 1 || args->count == 0) {
        loom_sched_copy_input(sched);
        goto out;
    }
    slots = NULL;
    if ((mine > 0 &&
         loom_sched_alloc_scratch(sched, mine * (size_t)p, (void **)&slots) != LOOM_OK) ||
        loom_sched_alloc_ints(sched, 3 * p, &sent) != LOOM_OK) {
        goto out;   /* the build status holds the error */
    }
    slot_step = sent + p;
    part = slot_step + p;

    /* Phase 1: block q of my input to rank q; rank q's share of mine into
     * slot q; my own share copied into slot r. */
    for (q = 0; q < p; ++q) {
        off = loom_block_offset(args->count, p, q) * esize;
        len = loom_block_count(args->count, p, q) * esize;
        sent[q] = -1;
        if (q == r) {
            slot_step[q] = mine ? loom_sched_copy(sched, input + off, slots + (size_t)q * mine,
                                                  mine, LOOM_NO_DEPS) : -1;
            continue;
        }
        if (len > 0) {
            sent[q] = loom_sched_send(sched, q, LOOM_CANONICAL_SCATTER, input + off, len,
                                      LOOM_NO_DEPS);
        }
        slot_step[q] = mine ? loom_sched_recv(sched, q, LOOM_CANONICAL_SCATTER,
                                              slots + (size_t)q * mine, mine, LOOM_NO_DEPS)
                            : -1;
    }

    /* Phase 2: the canonical tree, adjacent partials paired level by level;
     * part[] lists the slots holding the current partials, in rank order. */
    done = -1;
    if (mine > 0) {
        for (q = 0; q < p; ++q) {
            part[q] = q;
        }
        for (nparts = p; nparts > 1; nparts = k) {
            for (j = 0, k = 0; j < nparts; j += 2, ++k) {
                if (j + 1 == nparts) {
                    part[k] = part[j];
                    continue;
                }
                slot_step[part[j + 1]] = loom_sched_reduce(
                    sched, slots + (size_t)part[j] * mine, slots + (size_t)part[j + 1] * mine,
                    mine, LOOM_DEPS(slot_step[part[j]], slot_step[part[j + 1]]));
                part[k] = part[j + 1];
            }
        }
        /* In place, block r of the output is my input, read by the copy
         * into slot r: that copy precedes every reduce, hence this copy. */
        done = loom_sched_copy(sched, slots + (size_t)part[0] * mine,
                               out + loom_block_offset(args->count, p, r) * esize, mine,
                               LOOM_DEPS(slot_step[part[0]]));
    }

    /* Phase 3: my finished block to everyone, theirs into place.  In place,
     * block q of the output is the input block q sent in phase 1. */
    for (q = 0; q < p; ++q) {
        if (q == r) {
            continue;
        }
        off = loom_block_offset(args->count, p, q) * esize;
        len = loom_block_count(args->count, p, q) * esize;
        if (mine > 0) {
            loom_sched_send(sched, q, LOOM_CANONICAL_GATHER,
                            out + loom_block_offset(args->count, p, r) * esize, mine,
                            LOOM_DEPS(done));
        }
        if (len > 0) {
            loom_sched_recv(sched, q, LOOM_CANONICAL_GATHER, out + off, len,
                            LOOM_DEPS(sent[q]));
        }
    }

out:
    return loom_sched_plan_done(sched, sched_p);
}
