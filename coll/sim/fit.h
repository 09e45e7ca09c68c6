/*
 * Fitting the model to measurements (loom-sim calibrate).
 *
 * A ping-pong of b bytes that reports B MB/s (test/cluster/pingpong.c:
 * B = 2b / round trip) took b / B one way: the alpha-beta line
 * t = alpha + b beta through such points, per link class, is a least-
 * squares fit.  Its labels name the class: same-node, same-rack and
 * cross-rack (measure.sh), or the class names themselves.
 */
#ifndef LOOM_SIM_FIT_H
#define LOOM_SIM_FIT_H

#include "model.h"

#include <stdio.h>

/* Least squares y = a + b x over n >= 2 points with two distinct x at
 * least; LOOM_ERR_INVALID_PARAM otherwise. */
loom_status_t loom_sim_fit_line(int n, const double *x, const double *y, double *a_p,
                                double *b_p);

typedef struct loom_sim_pingpong_fit {
    int     points[LOOM_SIM_CLASS_COUNT];   /* measurements read per class */
    int     sizes[LOOM_SIM_CLASS_COUNT];    /* distinct sizes among them */
} loom_sim_pingpong_fit_t;

/* Reads the ping-pong lines of in (others are skipped) and sets alpha_us
 * and gbs of every class measured in *model: from two sizes or more the
 * line's alpha (at least 0) and slope; from one size only the speed
 * (alpha kept).  LOOM_ERR_INVALID_PARAM with a message in err when no
 * line could be read or a line's label names no class. */
loom_status_t loom_sim_fit_pingpong(FILE *in, const char *name, loom_sim_model_t *model,
                                    loom_sim_pingpong_fit_t *fit_p, char *err, size_t len);

#endif
