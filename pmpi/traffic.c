/*
 * The bytes collectives move between ranks, for the traffic matrix
 * (docs/pmpi.md, "Traffic matrix").  A site's bytes (the rank's send
 * buffer, bytes.c) are spread over its peers by the pattern of the
 * algorithm Loom reported for their size class:
 *   allreduce ring:               2 n (p-1)/p to the right neighbour;
 *   allreduce recursive doubling: n to each partner rank ^ 2^k (k < log2 p);
 *   bcast binomial:               n to each child in the binomial tree;
 *   reduce binomial:              n to the parent in the binomial tree;
 * and otherwise (another algorithm, or no Loom) by a fixed volume per
 * collective spread evenly over the ranks it goes to:
 *   allreduce: 2 n (p-1)/p over all others;  bcast: root sends n to each;
 *   reduce, gather(v): n to the root;  allgather(v): n to each other rank;
 *   scatter(v): root sends n/p to each;  alltoall(v,w), reduce_scatter
 *   (block): n (p-1)/p over all others;  scan, exscan: n to rank + 1;
 *   barrier: nothing.
 * Ranks are the communicator's; the matrix is indexed by world rank.
 */
#include "pmpi.h"

#include <string.h>

typedef struct {
    const loom_pmpi_comm_t *c;
    int root;
} loom_pmpi_spread_t;

static void loom_pmpi_to(const loom_pmpi_comm_t *c, int peer, double bytes)
{
    if (peer >= 0 && peer < c->size && peer != c->rank && bytes > 0) {
        loom_pmpi.coll_traffic[c->world[peer]] += (uint64_t)(bytes + 0.5);
    }
}

static void loom_pmpi_to_others(const loom_pmpi_comm_t *c, double total)
{
    int peer;

    for (peer = 0; peer < c->size && c->size > 1; ++peer) {
        loom_pmpi_to(c, peer, total / (c->size - 1));
    }
}

static int loom_pmpi_high_bit(int v)
{
    return v == 0 ? 0 : 1 << (31 - __builtin_clz((unsigned)v));
}

/* The binomial tree rooted at root: a rank's parent is its relative rank
 * minus its highest bit; its children add each power of two above it. */
static void loom_pmpi_binomial(const loom_pmpi_comm_t *c, int root, double n, int down)
{
    int p = c->size, v = (c->rank - root + p) % p, k;

    if (!down) {
        if (v != 0) {
            loom_pmpi_to(c, (v - loom_pmpi_high_bit(v) + root) % p, n);
        }
        return;
    }
    for (k = v == 0 ? 1 : loom_pmpi_high_bit(v) << 1; v + k < p; k <<= 1) {
        loom_pmpi_to(c, (v + k + root) % p, n);
    }
}

static void loom_pmpi_by_alg(int fn, const char *alg, const loom_pmpi_comm_t *c, int root,
                             double n)
{
    int p = c->size, r = c->rank, k;

    if (fn == LOOM_PMPI_ALLREDUCE && alg != NULL && strcmp(alg, "ring") == 0) {
        loom_pmpi_to(c, (r + 1) % p, 2.0 * n * (p - 1) / p);
    } else if (fn == LOOM_PMPI_ALLREDUCE && alg != NULL &&
               strcmp(alg, "recursive_doubling") == 0) {
        for (k = 1; k < p; k <<= 1) {
            loom_pmpi_to(c, r ^ k, n);
        }
    } else if ((fn == LOOM_PMPI_BCAST || fn == LOOM_PMPI_REDUCE) && alg != NULL &&
               strcmp(alg, "binomial") == 0) {
        loom_pmpi_binomial(c, root, n, fn == LOOM_PMPI_BCAST);
    } else {
        switch (fn) {
        case LOOM_PMPI_ALLREDUCE:
            loom_pmpi_to_others(c, 2.0 * n * (p - 1) / p);
            break;
        case LOOM_PMPI_BCAST:
            if (r == root) {
                loom_pmpi_to_others(c, n * (p - 1));
            }
            break;
        case LOOM_PMPI_REDUCE: case LOOM_PMPI_GATHER: case LOOM_PMPI_GATHERV:
            loom_pmpi_to(c, root, n);
            break;
        case LOOM_PMPI_ALLGATHER: case LOOM_PMPI_ALLGATHERV:
            loom_pmpi_to_others(c, n * (p - 1));
            break;
        case LOOM_PMPI_SCATTER: case LOOM_PMPI_SCATTERV:
            loom_pmpi_to_others(c, n * (p - 1) / p);
            break;
        case LOOM_PMPI_ALLTOALL: case LOOM_PMPI_ALLTOALLV: case LOOM_PMPI_ALLTOALLW:
        case LOOM_PMPI_REDUCE_SCATTER: case LOOM_PMPI_REDUCE_SCATTER_BLOCK:
            loom_pmpi_to_others(c, n * (p - 1) / p);
            break;
        case LOOM_PMPI_SCAN: case LOOM_PMPI_EXSCAN:
            loom_pmpi_to(c, r + 1, n);
            break;
        default:
            break;
        }
    }
}

void loom_pmpi_traffic_add_site(loom_pmpi_site_t *s, const loom_pmpi_comm_t *c)
{
    int fn = loom_pmpi_fn_blocking(s->fn), cls;

    if (!loom_pmpi_fn_is_coll(s->fn) || c->world == NULL || c->inter || c->size < 2) {
        return;
    }
    for (cls = 0; cls < LOOM_PMPI_SIZE_CLASSES; ++cls) {
        if (s->class_bytes[cls] == 0) {
            continue;
        }
        loom_pmpi_by_alg(fn, loom_pmpi_mpit_alg_name(s->alg[cls]), c, s->root,
                         (double)s->class_bytes[cls]);
        /* Counted once: a later communicator with the same id adds only
         * what its own calls add. */
        s->class_bytes[cls] = 0;
    }
}
