/* Finding and checking the rotation a symmetric run folds by (fold.h). */
#include "fold.h"

#include <stdlib.h>
#include <string.h>
#include <xxhash.h>

/* Whether rotating by d maps one of the layout's maps (node, rack or NIC
 * of each rank, values below n) onto itself: the image of a value must
 * not depend on the rank it is read at, and two values never share one.
 * image and preimage hold n ints each. */
static int loom_sim_fold_maps(const int *of, int p, int d, int n, int *image, int *preimage)
{
    int r, a, b;

    for (a = 0; a < n; ++a) {
        image[a] = preimage[a] = -1;
    }
    for (r = 0; r < p; ++r) {
        a = of[r];
        b = of[(r + d) % p];
        if ((image[a] >= 0 && image[a] != b) || (preimage[b] >= 0 && preimage[b] != a)) {
            return 0;
        }
        image[a] = b;
        preimage[b] = a;
    }
    return 1;
}

/* Whether no power of the rotation but the identity keeps a rack: the
 * racks of r, r + d, r + 2d, ... are all different.  seen holds one
 * stamp per rack. */
static int loom_sim_fold_free(const loom_sim_layout_t *lay, int d, int *seen)
{
    int p = lay->p, r, q;

    for (q = 0; q < lay->racks; ++q) {
        seen[q] = -1;
    }
    for (r = 0; r < d; ++r) {
        for (q = r; q < p; q += d) {
            if (seen[lay->rack_of[q]] == r) {
                return 0;
            }
            seen[lay->rack_of[q]] = r;
        }
    }
    return 1;
}

int loom_sim_fold_distance(const loom_sim_layout_t *lay)
{
    int p = lay->p, d, n = p, found = p, nnics = 0, r;
    int *buf;

    if (lay->racks < 2) {
        return p;
    }
    for (r = 0; r < p; ++r) {
        nnics = lay->nic_of[r] >= nnics ? lay->nic_of[r] + 1 : nnics;
    }
    n = lay->nodes > n ? lay->nodes : n;
    n = nnics > n ? nnics : n;
    buf = malloc(sizeof(int) * 2 * (size_t)n);
    if (buf == NULL) {
        return p;   /* not folding is always right */
    }
    for (d = 1; d < p; ++d) {
        if (p % d == 0 && loom_sim_fold_free(lay, d, buf) &&
            loom_sim_fold_maps(lay->node_of, p, d, lay->nodes, buf, buf + n) &&
            loom_sim_fold_maps(lay->rack_of, p, d, lay->racks, buf, buf + n) &&
            loom_sim_fold_maps(lay->nic_of, p, d, nnics, buf, buf + n)) {
            found = d;
            break;
        }
    }
    free(buf);
    return found;
}

/* Steps hashed at once: a call per step would cost more than its hash.
 * A step's record: type and dependency count, tag, peer offset, bytes
 * (two words), dependencies: 36 bytes, half of 64-bit words. */
#define LOOM_SIM_FOLD_BLOCK 64
#define LOOM_SIM_FOLD_WORDS (5 + LOOM_STEP_MAX_DEPS)

uint64_t loom_sim_fold_hash(const loom_sched_t *sched, int r, int p)
{
    uint32_t rec[LOOM_SIM_FOLD_BLOCK][LOOM_SIM_FOLD_WORDS];
    uint64_t h = (uint64_t)sched->nsteps;
    const loom_step_desc_t *d;
    int i, k, n = 0, msg, off;

    for (i = 0; i < sched->nsteps; ++i) {
        d = &sched->steps[i].desc;
        msg = d->type == LOOM_STEP_SEND || d->type == LOOM_STEP_RECV;
        rec[n][0] = (uint32_t)d->type | (uint32_t)d->ndeps << 8;
        rec[n][1] = msg ? d->tag_step : 0;
        /* peer and r are ranks, 0 .. p - 1: no division for the offset. */
        off = d->peer - r;
        rec[n][2] = msg ? (uint32_t)(off < 0 ? off + p : off) : 0;
        rec[n][3] = (uint32_t)d->bytes;
        rec[n][4] = (uint32_t)((uint64_t)d->bytes >> 32);
        for (k = 0; k < LOOM_STEP_MAX_DEPS; ++k) {
            rec[n][5 + k] = k < d->ndeps && d->deps[k] >= 0 ? (uint32_t)d->deps[k] : UINT32_MAX;
        }
        /* Chained: each block's hash seeds the next one's. */
        if (++n == LOOM_SIM_FOLD_BLOCK || i == sched->nsteps - 1) {
            h = XXH3_64bits_withSeed(rec, sizeof(rec[0]) * (size_t)n, h);
            n = 0;
        }
    }
    return h;
}
