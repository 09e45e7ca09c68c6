/* Finding and checking the rotation a symmetric run folds by (fold.h). */
#include "fold.h"

#include <stdlib.h>
#include <string.h>

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

/* A message's peer as an offset from its rank: peer and r are ranks,
 * 0 .. p - 1, so no division. */
static int loom_sim_fold_offset(int peer, int r, int p)
{
    int off = peer - r;

    return off < 0 ? off + p : off;
}

int loom_sim_fold_same(const loom_sched_t *a, int ra, const loom_sched_t *b, int rb, int p)
{
    const loom_step_desc_t *x, *y;
    int i, k, dx, dy;

    if (a->nsteps != b->nsteps || loom_sched_taken_arm(a) != loom_sched_taken_arm(b)) {
        return 0;
    }
    for (i = 0; i < a->nsteps; ++i) {
        x = &a->steps[i].desc;
        y = &b->steps[i].desc;
        if (x->type != y->type || x->ndeps != y->ndeps || x->bytes != y->bytes) {
            return 0;
        }
        /* Steps the data decides: the same arm taken, the same lengths. */
        if (x->arm != y->arm || (x->len_at == NULL) != (y->len_at == NULL) ||
            (x->len_at != NULL && *x->len_at != *y->len_at)) {
            return 0;
        }
        if ((x->type == LOOM_STEP_SEND || x->type == LOOM_STEP_RECV) &&
            (x->tag_step != y->tag_step ||
             loom_sim_fold_offset(x->peer, ra, p) != loom_sim_fold_offset(y->peer, rb, p))) {
            return 0;
        }
        for (k = 0; k < x->ndeps && k < LOOM_STEP_MAX_DEPS; ++k) {
            dx = x->deps[k] >= 0 ? x->deps[k] : -1;
            dy = y->deps[k] >= 0 ? y->deps[k] : -1;
            if (dx != dy) {
                return 0;
            }
        }
    }
    return 1;
}
