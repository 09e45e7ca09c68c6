/* Order statistics (stats.h). */
#include "stats.h"

#include <math.h>
#include <stdlib.h>

static int loom_bench_cmp(const void *a, const void *b)
{
    double x = *(const double *)a, y = *(const double *)b;

    return (x > y) - (x < y);
}

double loom_bench_median(double *v, size_t n)
{
    qsort(v, n, sizeof(double), loom_bench_cmp);
    return n % 2 ? v[n / 2] : 0.5 * (v[n / 2 - 1] + v[n / 2]);
}

double loom_bench_percentile(double *v, size_t n, double p)
{
    size_t rank;

    qsort(v, n, sizeof(double), loom_bench_cmp);
    rank = (size_t)ceil(p / 100.0 * (double)n);
    return v[rank == 0 ? 0 : rank > n ? n - 1 : rank - 1];
}

double loom_bench_min(const double *v, size_t n)
{
    double m = v[0];
    size_t i;

    for (i = 1; i < n; ++i) {
        m = v[i] < m ? v[i] : m;
    }
    return m;
}

double loom_bench_max(const double *v, size_t n)
{
    double m = v[0];
    size_t i;

    for (i = 1; i < n; ++i) {
        m = v[i] > m ? v[i] : m;
    }
    return m;
}
