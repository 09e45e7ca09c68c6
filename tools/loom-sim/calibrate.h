/*
 * loom-sim calibrate: alpha and beta per link class from a ping-pong run
 * (coll/sim/fit.h), then gamma from one algorithm's loom-bench CSV: the
 * reduce speed at which the simulator best predicts that algorithm's
 * measured times (least squares of the log ratio, sizes from 64K on,
 * where alpha no longer hides gamma).  The model goes to -o FILE.
 */
#ifndef LOOM_SIM_CALIBRATE_H
#define LOOM_SIM_CALIBRATE_H

#include "options.h"

/* 0, or -1 with a message on stderr. */
int loom_sim_calibrate_main(const loom_sim_options_t *o);

#endif
