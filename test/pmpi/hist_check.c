/*
 * hist_check: libloom-pmpi's time histogram (pmpi/hist.c) keeps the
 * promise docs/pmpi.md makes: every value lands in a bin whose edges hold
 * it, bins tile the line without gaps, a bin spans at most a factor 5/4
 * (at least 4 bins per power of two), and the median read from the bins is
 * within that factor of the true median of the values.
 */
#include <stdio.h>
#include <stdlib.h>

#include "pmpi/pmpi.h"

static int failures;

#define CHECK(cond, ...)                                         \
    do {                                                         \
        if (!(cond)) {                                           \
            fprintf(stderr, "hist_check: " __VA_ARGS__);         \
            fputc('\n', stderr);                                 \
            failures++;                                          \
        }                                                        \
    } while (0)

/* A value in [1, 2^41), spread over the powers of two. */
static uint64_t sample(unsigned *seed)
{
    int bits = rand_r(seed) % 41;

    return ((uint64_t)rand_r(seed) << 31 ^ (uint64_t)rand_r(seed)) % (1ull << bits) + (1ull << bits);
}

static int cmp_u64(const void *a, const void *b)
{
    uint64_t x = *(const uint64_t *)a, y = *(const uint64_t *)b;

    return x < y ? -1 : x > y;
}

static void check_bins(void)
{
    double lo, hi, prev_hi = 0;
    unsigned seed = 29;
    uint64_t v;
    int b, i;

    for (b = 0; b < LOOM_PMPI_HIST_BINS - 1; ++b) {
        if (b >= 4 && b < 8) {
            continue;                   /* unused: values under 4 have bins 0-3 */
        }
        loom_pmpi_hist_edges(b, &lo, &hi);
        CHECK(lo == prev_hi, "bin %d starts at %g, the previous ends at %g", b, lo, prev_hi);
        CHECK(b < 8 || hi / lo <= 1.25, "bin %d spans %g..%g, more than 5/4", b, lo, hi);
        prev_hi = hi;
    }
    for (i = 0; i < 1000000; ++i) {
        v = sample(&seed);
        b = loom_pmpi_hist_bin(v);
        loom_pmpi_hist_edges(b, &lo, &hi);
        CHECK(lo <= (double)v && (double)v < hi, "%llu in bin %d of %g..%g",
              (unsigned long long)v, b, lo, hi);
    }
    for (v = 0; v < 4; ++v) {
        CHECK(loom_pmpi_hist_bin(v) == (int)v, "%llu not in bin %llu", (unsigned long long)v,
              (unsigned long long)v);
    }
}

static void check_median(void)
{
    static uint64_t values[10001];
    uint32_t hist[LOOM_PMPI_HIST_BINS];
    unsigned seed = 7;
    double m, truth;
    int round, n, i;

    for (round = 0; round < 200; ++round) {
        n = 1 + rand_r(&seed) % 10001;
        for (i = 0; i < LOOM_PMPI_HIST_BINS; ++i) {
            hist[i] = 0;
        }
        for (i = 0; i < n; ++i) {
            values[i] = sample(&seed) >> (rand_r(&seed) % 20);
            values[i] += values[i] < 4 ? 4 : 0;
            hist[loom_pmpi_hist_bin(values[i])]++;
        }
        qsort(values, (size_t)n, sizeof(values[0]), cmp_u64);
        truth = (double)values[(n + 1) / 2 - 1];
        m = loom_pmpi_hist_median(hist, (uint64_t)n);
        CHECK(m / truth <= 1.25 && truth / m <= 1.25, "median %g of %d values, truly %g", m, n,
              truth);
    }
    CHECK(loom_pmpi_hist_median(hist, 0) == 0, "the median of nothing is not 0");
}

int main(void)
{
    check_bins();
    check_median();
    if (failures > 0) {
        fprintf(stderr, "hist_check: %d failures\n", failures);
        return 1;
    }
    printf("hist_check: bins hold their values, tile the line, span at most 5/4; medians within it\n");
    return 0;
}
