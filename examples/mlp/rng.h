/*
 * A small seeded generator (splitmix64), so that initial weights and the
 * sample order depend on the seed alone: the same on every rank, every
 * machine and every run, whatever the C library.
 */
#ifndef MLP_RNG_H
#define MLP_RNG_H

#include <math.h>
#include <stdint.h>

typedef struct mlp_rng {
    uint64_t state;
} mlp_rng_t;

/* Streams for different purposes (weights, epoch e's order) from one seed. */
static inline mlp_rng_t mlp_rng_make(uint64_t seed, uint64_t stream)
{
    mlp_rng_t r = { seed ^ (stream * 0xd1342543de82ef95ULL) };

    return r;
}

static inline uint64_t mlp_rng_next(mlp_rng_t *r)
{
    uint64_t z = (r->state += 0x9e3779b97f4a7c15ULL);

    z = (z ^ (z >> 30)) * 0xbf58476d1ce4e5b9ULL;
    z = (z ^ (z >> 27)) * 0x94d049bb133111ebULL;
    return z ^ (z >> 31);
}

/* Uniform in [0, n); the bias, at most n / 2^64, is far below noticing. */
static inline uint64_t mlp_rng_below(mlp_rng_t *r, uint64_t n)
{
    return (uint64_t)(((unsigned __int128)mlp_rng_next(r) * n) >> 64);
}

/* Uniform in (0, 1]. */
static inline double mlp_rng_unit(mlp_rng_t *r)
{
    return (double)((mlp_rng_next(r) >> 11) + 1) * 0x1.0p-53;
}

/* Standard normal (Box-Muller; the second value is dropped for brevity). */
static inline double mlp_rng_normal(mlp_rng_t *r)
{
    double u = mlp_rng_unit(r), v = mlp_rng_unit(r);

    return sqrt(-2.0 * log(u)) * cos(2.0 * M_PI * v);
}

#endif
