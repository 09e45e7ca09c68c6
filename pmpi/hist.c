/*
 * Log-scale histograms of nanoseconds (pmpi.h, loom_pmpi_hist_bin): the
 * edges of a bin and a median read from the bins.  Pure functions, tested
 * by test/pmpi/hist_check.c.
 */
#include "pmpi.h"

void loom_pmpi_hist_edges(int bin, double *lo_p, double *hi_p)
{
    int lead = bin / 4, frac = bin % 4;

    if (bin < 4) {
        *lo_p = bin;
        *hi_p = bin + 1;
        return;
    }
    *lo_p = (double)(4 + frac) * (double)(1ull << (lead - 2));
    *hi_p = (double)(5 + frac) * (double)(1ull << (lead - 2));
}

double loom_pmpi_hist_median(const uint32_t *hist, uint64_t n)
{
    uint64_t want = (n + 1) / 2, seen = 0;
    double lo, hi;
    int b;

    if (n == 0) {
        return 0;
    }
    for (b = 0; b < LOOM_PMPI_HIST_BINS; ++b) {
        seen += hist[b];
        if (seen >= want) {
            break;
        }
    }
    if (b == LOOM_PMPI_HIST_BINS) {
        b = LOOM_PMPI_HIST_BINS - 1;
    }
    loom_pmpi_hist_edges(b, &lo, &hi);
    return (lo + hi) / 2;
}
