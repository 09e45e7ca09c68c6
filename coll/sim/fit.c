/* Fitting alpha and beta to ping-pong measurements (fit.h). */
#include "fit.h"

#include <math.h>
#include <stdlib.h>
#include <string.h>

loom_status_t loom_sim_fit_line(int n, const double *x, const double *y, double *a_p,
                                double *b_p)
{
    double sx = 0, sy = 0, sxx = 0, sxy = 0, d;
    int i;

    for (i = 0; i < n; ++i) {
        sx += x[i];
        sy += y[i];
        sxx += x[i] * x[i];
        sxy += x[i] * y[i];
    }
    d = n * sxx - sx * sx;
    if (n < 2 || !(fabs(d) > 1e-12 * (n * sxx))) {
        return LOOM_ERR_INVALID_PARAM;
    }
    *b_p = (n * sxy - sx * sy) / d;
    *a_p = (sy - *b_p * sx) / n;
    return LOOM_OK;
}

static int loom_sim_label_class(const char *label)
{
    static const char *const names[][2] = {
        { "same-node", "intra_node" }, { "same-rack", "intra_rack" },
        { "cross-rack", "inter_rack" },
    };
    int c;

    for (c = 0; c < LOOM_SIM_CLASS_COUNT; ++c) {
        if (strcmp(label, names[c][0]) == 0 || strcmp(label, names[c][1]) == 0) {
            return c;
        }
    }
    return -1;
}

#define LOOM_SIM_FIT_MAX 4096

loom_status_t loom_sim_fit_pingpong(FILE *in, const char *name, loom_sim_model_t *model,
                                    loom_sim_pingpong_fit_t *fit_p, char *err, size_t len)
{
    static double x[LOOM_SIM_CLASS_COUNT][LOOM_SIM_FIT_MAX], y[LOOM_SIM_CLASS_COUNT][LOOM_SIM_FIT_MAX];
    loom_sim_pingpong_fit_t fit = { { 0 }, { 0 } };
    loom_sim_model_t m = *model;
    char line[1024], label[128];
    double bytes, mbs, a, b;
    int lineno = 0, c, i, j, total = 0;
    const char *colon;

    while (fgets(line, sizeof(line), in) != NULL) {
        ++lineno;
        /* LABEL rank 0 (HOST) <-> rank P (HOST): BYTES bytes, X MB/s */
        if (strstr(line, "<->") == NULL || sscanf(line, "%127s", label) != 1) {
            continue;
        }
        colon = strstr(line, "): ");
        if (colon == NULL || sscanf(colon + 3, "%lf bytes, %lf MB/s", &bytes, &mbs) != 2 ||
            !(bytes > 0) || !(mbs > 0)) {
            snprintf(err, len, "%s:%d: expected 'LABEL rank 0 (HOST) <-> rank P (HOST): "
                     "BYTES bytes, X MB/s'", name, lineno);
            return LOOM_ERR_INVALID_PARAM;
        }
        c = loom_sim_label_class(label);
        if (c < 0) {
            snprintf(err, len, "%s:%d: label '%s' names no link class (accepted: same-node, "
                     "same-rack, cross-rack)", name, lineno, label);
            return LOOM_ERR_INVALID_PARAM;
        }
        if (fit.points[c] == LOOM_SIM_FIT_MAX) {
            continue;
        }
        x[c][fit.points[c]] = bytes;
        y[c][fit.points[c]++] = bytes / (mbs * 1e6);
        ++total;
    }
    if (total == 0) {
        snprintf(err, len, "%s: no ping-pong line found (test/cluster/pingpong.c's format)",
                 name);
        return LOOM_ERR_INVALID_PARAM;
    }
    for (c = 0; c < LOOM_SIM_CLASS_COUNT; ++c) {
        for (i = 0; i < fit.points[c]; ++i) {
            for (j = 0; j < i && x[c][j] != x[c][i]; ++j) {
            }
            fit.sizes[c] += j == i;
        }
        if (fit.points[c] == 0) {
            continue;
        }
        if (fit.sizes[c] >= 2 && loom_sim_fit_line(fit.points[c], x[c], y[c], &a, &b) == LOOM_OK &&
            b > 0) {
            m.alpha_us[c] = a > 0 ? a * 1e6 : 0;
            m.gbs[c] = 1 / b * 1e-9;
        } else {
            /* One size: the mean speed, alpha as it was. */
            for (a = 0, b = 0, i = 0; i < fit.points[c]; ++i) {
                a += x[c][i];
                b += y[c][i];
            }
            m.gbs[c] = a / b * 1e-9;
        }
    }
    *model = m;
    if (fit_p != NULL) {
        *fit_p = fit;
    }
    return LOOM_OK;
}
