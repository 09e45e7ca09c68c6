/*
 * Peer and block arithmetic, apart from communication.
 *
 * count elements are cut into p blocks whose sizes differ by at most one
 * element, the larger ones first: block i has count/p + (i < count%p)
 * elements.  With count < p the last blocks are empty.
 */
#ifndef LOOM_PARTITION_H
#define LOOM_PARTITION_H

#include <stddef.h>
#include <stdint.h>

/*
 * The ring allreduce spreads the larger blocks out instead: block i is
 * [floor(i count / p), floor((i + 1) count / p)).  The sizes still differ
 * by at most one element, but they repeat every p / gcd(p, count % p)
 * blocks rather than falling into two runs, so rotating the ranks by a
 * multiple of that period gives every rank blocks of the sizes it had:
 * its schedule is its neighbour's, rotated.  loom-sim checks for that and
 * then simulates one rack for all (coll/sim/fold.h); with count < p the
 * first-rem cut would give the first count ranks all the data and break
 * the symmetry for every small vector.
 */
typedef struct loom_spread {
    size_t base, rem;
    int p;
} loom_spread_t;

static inline loom_spread_t loom_spread(size_t count, int p)
{
    return (loom_spread_t){ count / (size_t)p, count % (size_t)p, p };
}

static inline size_t loom_spread_offset(loom_spread_t c, int i)
{
    /* i * rem < 2^62: rem < p and i <= p, both below 2^31. */
    return (size_t)i * c.base + (c.rem ? (size_t)((uint64_t)i * c.rem / (uint64_t)c.p) : 0);
}

static inline size_t loom_spread_count(loom_spread_t c, int i)
{
    return loom_spread_offset(c, i + 1) - loom_spread_offset(c, i);
}

/* The largest block's elements. */
static inline size_t loom_spread_max(loom_spread_t c)
{
    return c.base + (c.rem ? 1 : 0);
}

static inline size_t loom_block_count(size_t count, int p, int i)
{
    return count / (size_t)p + ((size_t)i < count % (size_t)p ? 1 : 0);
}

static inline size_t loom_block_offset(size_t count, int p, int i)
{
    size_t base = count / (size_t)p, rem = count % (size_t)p;

    return (size_t)i * base + ((size_t)i < rem ? (size_t)i : rem);
}

/* A buffer of count elements of esize bytes cut into p blocks as above,
 * for the algorithms that halve and double ranges of blocks (the
 * recursive halving of Rabenseifner's allreduce and reduce, the binomial
 * scatter of bcast's scatter-allgather). */
typedef struct loom_cut {
    char    *buf;
    size_t  count;
    size_t  esize;
    int     p;
} loom_cut_t;

/* Blocks [lo, hi) of the cut: their address, and their bytes in *bytes_p. */
static inline char *loom_cut_range(const loom_cut_t *cut, int lo, int hi, size_t *bytes_p)
{
    size_t first = loom_block_offset(cut->count, cut->p, lo);

    *bytes_p = (loom_block_offset(cut->count, cut->p, hi) - first) * cut->esize;
    return cut->buf + first * cut->esize;
}

/* Elements per pipeline segment: seg_bytes (or def_bytes when 0) in whole
 * elements, at least one, and large enough that count elements make at
 * most max_segs segments (one message tag step each).  A function of the
 * count and the settings only, so every rank agrees. */
static inline size_t loom_seg_elems(size_t seg_bytes, size_t def_bytes, size_t esize,
                                    size_t count, size_t max_segs)
{
    size_t seg = (seg_bytes ? seg_bytes : def_bytes) / esize;

    if (seg == 0) {
        seg = 1;
    }
    if ((count + seg - 1) / seg > max_segs) {
        seg = (count + max_segs - 1) / max_segs;
    }
    return seg;
}

/* (a mod p) for any integer a, in 0..p-1. */
static inline int loom_mod(int a, int p)
{
    int m = a % p;

    return m < 0 ? m + p : m;
}

/* Rooted collectives renumber ranks so that the root is 0: virtual rank
 * (r - root) mod p, and back. */
static inline int loom_vrank(int r, int root, int p)
{
    return loom_mod(r - root, p);
}

static inline int loom_vrank_real(int v, int root, int p)
{
    return loom_mod(v + root, p);
}

/* Binomial tree over virtual ranks 0..p-1 rooted at 0: the parent of v > 0
 * is v without its lowest set bit; v's children are v + m for the powers
 * of two m below v's lowest set bit (below p for v = 0), and child v + m
 * heads the subtree [v + m, v + 2m) (clipped to p).  loom_binomial_top
 * gives the largest such m (0: a leaf); walk m down by halving. */
static inline int loom_binomial_parent(int v)
{
    return v & (v - 1);
}

static inline int loom_binomial_top(int v, int p)
{
    int m = 1;

    if (v == 0) {
        while (m * 2 < p) {
            m *= 2;
        }
        return p > 1 ? m : 0;
    }
    return (v & -v) / 2;
}

/* The end (exclusive) of the subtree headed by v: v + its lowest set bit,
 * or p for the root. */
static inline int loom_binomial_end(int v, int p)
{
    int end = v == 0 ? p : v + (v & -v);

    return end < p ? end : p;
}

/*
 * Folding a non-power-of-two rank count onto p2 = the largest power of two
 * <= p: the first 2*rem ranks (rem = p - p2) pair up as (even, odd); the
 * even one hands its data to the odd one and sits out until the result
 * comes back.  Virtual ranks 0..p2-1 are contiguous in rank order (v < rem
 * stands for ranks 2v and 2v+1), so an algorithm that combines virtual
 * ranks in order still reduces in rank order.
 */
typedef struct loom_fold {
    int p2;
    int rem;
    int vrank;   /* -1: this rank sits out */
    /* The rank order the fold pairs positions by (engine/team.h), NULL
     * for rank order: then virtual ranks stand for ranks, otherwise for
     * positions (loom_fold_make_ordered, allreduce.h). */
    const struct loom_order *order;
} loom_fold_t;

static inline loom_fold_t loom_fold_make(int p, int r)
{
    loom_fold_t f = { .p2 = 1 };

    while (f.p2 * 2 <= p) {
        f.p2 *= 2;
    }
    f.rem = p - f.p2;
    if (r < 2 * f.rem) {
        f.vrank = (r % 2 == 0) ? -1 : r / 2;
    } else {
        f.vrank = r - f.rem;
    }
    return f;
}

/* The real rank that virtual rank v stands for (the odd one of a pair). */
static inline int loom_fold_real(const loom_fold_t *f, int v)
{
    return v < f->rem ? 2 * v + 1 : v + f->rem;
}

/*
 * In-order binary tree over ranks 0..p-1: the root of [lo, hi) is
 * (lo + hi) / 2, its subtrees are [lo, root) and [root + 1, hi).  An
 * in-order walk visits ranks in order.  -1 where there is no such node.
 */
static inline void loom_bintree(int p, int r, int *parent_p, int *left_p, int *right_p)
{
    int lo = 0, hi = p, parent = -1, m;

    for (;;) {
        m = lo + (hi - lo) / 2;
        if (r == m) {
            break;
        }
        parent = m;
        if (r < m) {
            hi = m;
        } else {
            lo = m + 1;
        }
    }
    *parent_p = parent;
    *left_p = (lo < m) ? lo + (m - lo) / 2 : -1;
    *right_p = (m + 1 < hi) ? m + 1 + (hi - m - 1) / 2 : -1;
}

#endif
