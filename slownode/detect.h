/*
 * The slow-rank detector (docs/slownode.md, "The detector"): pure
 * arithmetic on one window of every rank's arrival times, no MPI, so that
 * every rank that feeds it the same gathered numbers gets the same verdict,
 * and so that test/slownode/detect_check.c can drive it with made-up
 * windows.
 */
#ifndef LOOM_SLOWNODE_DETECT_H
#define LOOM_SLOWNODE_DETECT_H

#include <stdint.h>

typedef struct {
    int window;                 /* K: collectives per window */
    int windows;                /* M: windows late in a row to flag, on time to clear */
    double floor_ms;            /* lateness never flagged below this */
    double floor_pct;           /* ... nor below this share of the median compute time */
    double mad_k;               /* ... nor below this many scaled MADs over the ranks */
    double min_ms;              /* and a verdict changes only after this long in its state */
} loom_sn_detect_params_t;

typedef struct {
    int flag;                   /* 1: flagged now, 0: cleared now */
    int rank;
    double slower_pct;          /* mean over the windows that decided it */
    double late_ms;
    int windows;                /* windows the rank has been late (flag) or on time (clear) */
} loom_sn_change_t;

typedef struct {
    int n;
    loom_sn_detect_params_t params;
    int *late_streak, *ok_streak;
    double *streak_since;       /* median entry time where the current streak began */
    unsigned char *flagged;
    double *pct_sum, *late_sum;  /* over the current late streak */
    double *scratch;            /* n x K lateness, then per-rank medians */
    double *med;                /* K: median entry of each collective */
    double *rank_late, *rank_gap;
    double last_step_ns;        /* the last window's median step (entry to entry) */
    double last_tail_ns;        /* ... and median time from the last arrival to the exits */
    double last_threshold_ns;
    double max_excess_ns;       /* the largest lateness over the median seen in any window */
    int max_excess_rank;
} loom_sn_detector_t;

/* Allocates the detector for n ranks; returns 0 when memory runs out. */
int loom_sn_detector_init(loom_sn_detector_t *d, int n, const loom_sn_detect_params_t *params);
void loom_sn_detector_fini(loom_sn_detector_t *d);

/*
 * One window: entry[r * k + i] is rank r's clock-corrected entry time (ns)
 * of the window's i-th collective, gap[r * k + i] its time since it left its
 * previous collective.  Writes the ranks whose verdict changed to changes
 * (room for n) and returns how many.
 */
int loom_sn_detector_window(loom_sn_detector_t *d, const double *entry, const double *gap, int k,
                            loom_sn_change_t *changes);

/* The median of v[0..n-1]; reorders v. */
double loom_sn_median(double *v, int n);

#endif
