/*
 * The detector (detect.h).  Per window, each rank's lateness at a
 * collective is its entry time minus the median entry of that collective
 * over the ranks; a rank's window lateness is the median of those (one
 * descheduled entry does not make a rank late).  A rank is late in a window
 * when its lateness exceeds the median over the ranks by more than the
 * largest of three floors: mad_k scaled MADs (the ranks' own spread), an
 * absolute floor_ms, and floor_pct of the median time between collectives
 * (a few percent of a long step is noise, not a straggler).  Late in M
 * windows in a row flags it; on time in M windows in a row clears it.  A
 * flagged rank is on time only when it is back within the two floors: the
 * MAD term guards against flagging on a noisy machine, and must not clear
 * a rank that is still late because the other ranks got noisier around it.
 * Both changes also wait until the streak has lasted min_ms of the job's
 * time: at 1 ms steps on a loaded machine a rank can lose the processor for
 * a few windows (tens of ms) without being a straggler.
 */
#include <math.h>
#include <stdlib.h>
#include <string.h>

#include "detect.h"

/* The constant that makes a MAD estimate a normal distribution's sigma. */
#define LOOM_SN_MAD_SIGMA 1.4826

int loom_sn_detector_init(loom_sn_detector_t *d, int n, const loom_sn_detect_params_t *params)
{
    size_t un = (size_t)n, uk = (size_t)params->window;

    memset(d, 0, sizeof(*d));
    d->n = n;
    d->params = *params;
    d->late_streak = calloc(un, sizeof(int));
    d->ok_streak = calloc(un, sizeof(int));
    d->streak_since = calloc(un, sizeof(double));
    d->flagged = calloc(un, 1);
    d->pct_sum = calloc(un, sizeof(double));
    d->late_sum = calloc(un, sizeof(double));
    d->scratch = calloc(un + (uk > un ? uk : un), sizeof(double));
    d->med = calloc(uk, sizeof(double));
    d->rank_late = calloc(un, sizeof(double));
    d->rank_gap = calloc(un, sizeof(double));
    if (d->late_streak == NULL || d->ok_streak == NULL || d->streak_since == NULL ||
        d->flagged == NULL ||
        d->pct_sum == NULL || d->late_sum == NULL || d->scratch == NULL || d->med == NULL ||
        d->rank_late == NULL || d->rank_gap == NULL) {
        loom_sn_detector_fini(d);
        return 0;
    }
    return 1;
}

void loom_sn_detector_fini(loom_sn_detector_t *d)
{
    free(d->late_streak);
    free(d->ok_streak);
    free(d->streak_since);
    free(d->flagged);
    free(d->pct_sum);
    free(d->late_sum);
    free(d->scratch);
    free(d->med);
    free(d->rank_late);
    free(d->rank_gap);
    memset(d, 0, sizeof(*d));
}

static int loom_sn_cmp_double(const void *a, const void *b)
{
    double x = *(const double *)a, y = *(const double *)b;

    return (x > y) - (x < y);
}

double loom_sn_median(double *v, int n)
{
    if (n <= 0) {
        return 0.0;
    }
    qsort(v, (size_t)n, sizeof(double), loom_sn_cmp_double);
    return n % 2 ? v[n / 2] : 0.5 * (v[n / 2 - 1] + v[n / 2]);
}

/* d->med[i]: the median entry of collective i over the ranks. */
static void loom_sn_collective_medians(loom_sn_detector_t *d, const double *entry, int k)
{
    int r, i;

    for (i = 0; i < k; ++i) {
        for (r = 0; r < d->n; ++r) {
            d->scratch[r] = entry[(size_t)r * (size_t)k + (size_t)i];
        }
        d->med[i] = loom_sn_median(d->scratch, d->n);
    }
    d->last_step_ns = k > 1 ? (d->med[k - 1] - d->med[0]) / (k - 1) : 0.0;
}

/*
 * d->last_tail_ns: how long collectives ran after their last rank arrived,
 * the only part a rank order can shorten.  Rank r left collective i when
 * its next entry minus its next gap says: i + 1 < k only.
 */
static void loom_sn_collective_tails(loom_sn_detector_t *d, const double *entry,
                                     const double *gap, int k)
{
    double *tails = d->scratch + d->n, last;
    size_t at;
    int r, i;

    for (i = 0; i + 1 < k; ++i) {
        last = entry[i];
        for (r = 0; r < d->n; ++r) {
            at = (size_t)r * (size_t)k + (size_t)i;
            last = entry[at] > last ? entry[at] : last;
            d->scratch[r] = entry[at + 1] - gap[at + 1];
        }
        tails[i] = loom_sn_median(d->scratch, d->n) - last;
    }
    d->last_tail_ns = loom_sn_median(tails, k - 1);
}

/* d->rank_late[r] and d->rank_gap[r]: rank r's medians over the window. */
static void loom_sn_rank_medians(loom_sn_detector_t *d, const double *entry, const double *gap,
                                 int k)
{
    const double *e, *g;
    int r, i;

    for (r = 0; r < d->n; ++r) {
        e = entry + (size_t)r * (size_t)k;
        g = gap + (size_t)r * (size_t)k;
        for (i = 0; i < k; ++i) {
            d->scratch[i] = e[i] - d->med[i];
        }
        d->rank_late[r] = loom_sn_median(d->scratch, k);
        memcpy(d->scratch, g, (size_t)k * sizeof(double));
        d->rank_gap[r] = loom_sn_median(d->scratch, k);
    }
}

/* Updates rank r's streaks; returns 1 and fills *ch when its verdict flips. */
static int loom_sn_rank_update(loom_sn_detector_t *d, int r, double threshold, double floor,
                               double pct, double late_ns, loom_sn_change_t *ch)
{
    int m = d->params.windows, k = d->params.window;
    int late = late_ns > (d->flagged[r] ? floor : threshold);
    int *streak = late ? &d->late_streak[r] : &d->ok_streak[r];
    int lasted;

    if (*streak == 0) {
        d->streak_since[r] = d->med[0];
    }
    lasted = d->med[k - 1] - d->streak_since[r] >= d->params.min_ms * 1e6;
    if (late) {
        d->ok_streak[r] = 0;
        d->late_streak[r]++;
        d->pct_sum[r] += pct;
        d->late_sum[r] += late_ns;
    } else {
        d->late_streak[r] = 0;
        d->pct_sum[r] = d->late_sum[r] = 0.0;
        d->ok_streak[r]++;
    }
    if (!d->flagged[r] && d->late_streak[r] >= m && lasted) {
        d->flagged[r] = 1;
        *ch = (loom_sn_change_t){ .flag = 1, .rank = r, .windows = d->late_streak[r],
                                  .slower_pct = d->pct_sum[r] / d->late_streak[r],
                                  .late_ms = d->late_sum[r] / d->late_streak[r] / 1e6 };
        return 1;
    }
    if (d->flagged[r] && d->ok_streak[r] >= m && lasted) {
        d->flagged[r] = 0;
        *ch = (loom_sn_change_t){ .flag = 0, .rank = r, .windows = d->ok_streak[r] };
        return 1;
    }
    return 0;
}

int loom_sn_detector_window(loom_sn_detector_t *d, const double *entry, const double *gap, int k,
                            loom_sn_change_t *changes)
{
    double mid_late, mad, mid_gap, floor, threshold, excess, pct;
    int r, count = 0;

    loom_sn_collective_medians(d, entry, k);
    loom_sn_collective_tails(d, entry, gap, k);
    loom_sn_rank_medians(d, entry, gap, k);
    memcpy(d->scratch, d->rank_late, (size_t)d->n * sizeof(double));
    mid_late = loom_sn_median(d->scratch, d->n);
    for (r = 0; r < d->n; ++r) {
        d->scratch[r] = fabs(d->rank_late[r] - mid_late);
    }
    mad = loom_sn_median(d->scratch, d->n);
    memcpy(d->scratch, d->rank_gap, (size_t)d->n * sizeof(double));
    mid_gap = loom_sn_median(d->scratch, d->n);
    floor = fmax(d->params.floor_ms * 1e6, d->params.floor_pct / 100.0 * mid_gap);
    threshold = fmax(d->params.mad_k * LOOM_SN_MAD_SIGMA * mad, floor);
    d->last_threshold_ns = threshold;
    for (r = 0; r < d->n; ++r) {
        excess = d->rank_late[r] - mid_late;
        if (excess > d->max_excess_ns) {
            d->max_excess_ns = excess;
            d->max_excess_rank = r;
        }
        pct = mid_gap > 0.0 ? (d->rank_gap[r] / mid_gap - 1.0) * 100.0 : 0.0;
        count += loom_sn_rank_update(d, r, threshold, floor, pct, excess, &changes[count]);
    }
    return count;
}
