/*
 * The detector's promise (slownode/detect.c) on made-up windows, no MPI:
 * a rank that arrives late in M windows in a row is flagged in the M-th,
 * with its slowness taken from its time between collectives; noise under
 * the floors flags nobody; M windows on time clear it; one late window
 * alone does not flag.  The noise comes from a fixed seed, and the
 * expected slowness is computed here from the gaps the test made up.
 */
#include <math.h>
#include <stdio.h>
#include <stdlib.h>

#include "slownode/detect.h"

#define N 8
#define K 10

static double step_ns = 20e6;   /* each rank's compute between collectives */
static int failures;
static uint64_t rng_state = 0x9e3779b97f4a7c15ull;

#define CHECK(cond, ...)                                                              \
    do {                                                                              \
        if (!(cond)) {                                                                \
            fprintf(stderr, "detect_check:%d: ", __LINE__);                           \
            fprintf(stderr, __VA_ARGS__);                                             \
            fputc('\n', stderr);                                                      \
            failures++;                                                               \
        }                                                                             \
    } while (0)

/* Uniform in [-1, 1). */
static double noise(void)
{
    rng_state ^= rng_state << 13;
    rng_state ^= rng_state >> 7;
    rng_state ^= rng_state << 17;
    return (double)(rng_state >> 11) / (double)(1ull << 52) - 1.0;
}

/*
 * One window of a step loop: every rank computes step_ns (times slow_factor
 * on rank slow) plus up to jitter_ns of noise, then every rank enters the
 * collective; the collective ends when the last rank arrives.
 */
static void make_window(double *entry, double *gap, double *clock, int slow, double slow_factor,
                        double jitter_ns)
{
    double last;
    int r, i;

    for (i = 0; i < K; ++i) {
        last = 0;
        for (r = 0; r < N; ++r) {
            gap[r * K + i] = step_ns * (r == slow ? slow_factor : 1.0) + jitter_ns * fabs(noise());
            entry[r * K + i] = *clock + gap[r * K + i];
            last = fmax(last, entry[r * K + i]);
        }
        *clock = last + 50e3;    /* the collective itself */
    }
}

static int run_window(loom_sn_detector_t *d, double *clock, int slow, double factor,
                      double jitter_ns, loom_sn_change_t *ch)
{
    double entry[N * K], gap[N * K];

    make_window(entry, gap, clock, slow, factor, jitter_ns);
    return loom_sn_detector_window(d, entry, gap, K, ch);
}

int main(void)
{
    const loom_sn_detect_params_t params = { .window = K, .windows = 2, .floor_ms = 2,
                                             .floor_pct = 10, .mad_k = 5, .min_ms = 300 };
    loom_sn_change_t ch[N];
    loom_sn_detector_t d;
    double clock = 0, v[5] = { 5, 1, 4, 2, 3 }, w[4] = { 4, 1, 3, 2 };
    int n, i;

    CHECK(loom_sn_median(v, 5) == 3, "median of 1..5 is 3");
    CHECK(loom_sn_median(w, 4) == 2.5, "median of 1..4 is 2.5");
    CHECK(loom_sn_detector_init(&d, N, &params), "init");

    /* 100 windows of jitter up to 1 ms (5% of a step): nobody. */
    for (i = 0; i < 100; ++i) {
        n = run_window(&d, &clock, -1, 1.0, 1e6, ch);
        CHECK(n == 0, "window %d: %d changes with no slow rank", i, n);
    }

    /* Every collective made up here ends 50 us after its last arrival, and
     * every rank leaves it then. */
    CHECK(fabs(d.last_tail_ns - 50e3) < 1.0, "time after the last arrival %.1f ns, made 50000",
          d.last_tail_ns);

    /* Rank 5 at 1.3x: not after one window, flagged after the second. */
    n = run_window(&d, &clock, 5, 1.3, 1e6, ch);
    CHECK(n == 0, "one late window flagged %d ranks", n);
    n = run_window(&d, &clock, 5, 1.3, 1e6, ch);
    CHECK(n == 1 && ch[0].flag == 1 && ch[0].rank == 5,
          "second late window: %d changes, first rank %d flag %d", n, n ? ch[0].rank : -1,
          n ? ch[0].flag : -1);
    /* Its gaps were 26 ms + |noise| against 20 ms + |noise|: 30% give or take
     * the noise's share (1 ms of 20). */
    CHECK(n == 1 && fabs(ch[0].slower_pct - 30.0) < 5.0, "slower by %.1f%%, expected 30 +- 5",
          n ? ch[0].slower_pct : 0);
    CHECK(n == 1 && fabs(ch[0].late_ms - 6.0) < 1.0, "late by %.2f ms, expected 6 +- 1",
          n ? ch[0].late_ms : 0);
    CHECK(d.flagged[5] == 1, "rank 5 flagged");

    /* Still slow: no new change, even when the other ranks' noise grows to
     * up to 20 ms, whose MADs alone would hide a new straggler 6 ms late. */
    n = run_window(&d, &clock, 5, 1.3, 1e6, ch);
    CHECK(n == 0, "a flagged rank still late changed %d verdicts", n);
    for (i = 0; i < 3; ++i) {
        n = run_window(&d, &clock, 5, 1.3, 20e6, ch);
        CHECK(n == 0, "noise around a flagged rank changed %d verdicts (window %d)", n, i);
    }
    CHECK(d.last_threshold_ns > 6e6, "20 ms of noise gave a threshold of only %.2f ms",
          d.last_threshold_ns / 1e6);
    /* Then on time: cleared in the second window. */
    n = run_window(&d, &clock, -1, 1.0, 1e6, ch);
    CHECK(n == 0, "one window on time cleared %d ranks", n);
    n = run_window(&d, &clock, -1, 1.0, 1e6, ch);
    CHECK(n == 1 && ch[0].flag == 0 && ch[0].rank == 5, "second window on time: %d changes", n);

    /* Late by less than the floors (5% of the step, 1 ms): never flagged. */
    for (i = 0; i < 10; ++i) {
        n = run_window(&d, &clock, 2, 1.05, 0, ch);
        CHECK(n == 0, "a rank 5%% slow was flagged (window %d)", i);
    }
    loom_sn_detector_fini(&d);

    /* 1 ms steps, one rank 6 ms late (as a rank starved of the processor
     * is): each step lasts about 7.05 ms, so a window 70.5 ms, and the rank
     * is not named while its streak is under 300 ms of the job (2 windows:
     * about 134 ms from the first window's median entry to the second's
     * last; 4 windows: about 275 ms), and is named at the 5th (345 ms). */
    CHECK(loom_sn_detector_init(&d, N, &params), "init");
    step_ns = 1e6;
    for (i = 0; i < 4; ++i) {
        n = run_window(&d, &clock, 3, 7.0, 0, ch);
        CHECK(n == 0, "1 ms steps: flagged after %d windows, %.0f ms", i + 1,
              (i + 1) * K * 7.05);
    }
    n = run_window(&d, &clock, 3, 7.0, 0, ch);
    CHECK(n == 1 && ch[0].flag == 1 && ch[0].rank == 3 && ch[0].windows == 5,
          "1 ms steps: not flagged after 5 windows (%d changes)", n);
    loom_sn_detector_fini(&d);
    if (failures == 0) {
        printf("detect_check: all checks passed\n");
    }
    return failures != 0;
}
