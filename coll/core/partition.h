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

static inline size_t loom_block_count(size_t count, int p, int i)
{
    return count / (size_t)p + ((size_t)i < count % (size_t)p ? 1 : 0);
}

static inline size_t loom_block_offset(size_t count, int p, int i)
{
    size_t base = count / (size_t)p, rem = count % (size_t)p;

    return (size_t)i * base + ((size_t)i < rem ? (size_t)i : rem);
}

/* (a mod p) for any integer a, in 0..p-1. */
static inline int loom_mod(int a, int p)
{
    int m = a % p;

    return m < 0 ? m + p : m;
}

#endif
