/*
 * Measuring the cost model's per-byte constants on this process, for the
 * optional start-up calibration (docs/rules.md): one process measures,
 * every process adopts its numbers, so every rank still prices every
 * candidate alike.
 *
 *   bandwidth_mbs (1/beta): memcpy of a buffer larger than the caches, an
 *       estimate of a transfer through shared memory, which copies at
 *       least once; across nodes the network is slower, and a tuning file
 *       says so better.
 *   reduce_mbs (1/gamma): Loom's own sum kernel on doubles, the reduction
 *       the model stands for, in MB of input per second.
 *
 * alpha (per message) is not measured: it needs a peer, and the
 * calibration runs before any peer can be reached.
 */
#ifndef LOOM_CALIBRATE_H
#define LOOM_CALIBRATE_H

#include "loom/status.h"

typedef struct loom_calibration {
    int bandwidth_mbs;  /* MB/s, 1 MB = 10^6 bytes */
    int reduce_mbs;     /* MB/s of input */
} loom_calibration_t;

/* Measure both constants (some tens of milliseconds); each is clamped to
 * the range its setting accepts. */
loom_status_t loom_calibrate_measure(loom_calibration_t *calib_p);

#endif
