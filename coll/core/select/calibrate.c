#include "coll/core/select/calibrate.h"
#include "coll/core/parts/reduce_kernels.h"
#include "common/log.h"

#include <stdint.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

/* 16 MiB: beyond the last-level cache of the machines Loom runs on, so
 * the rate is memory's, as for the large messages the constants decide. */
#define LOOM_CALIB_BYTES    (16u << 20)
/* The best of a few runs: the others saw interrupts or a busy core. */
#define LOOM_CALIB_RUNS     5
#define LOOM_CALIB_MAX_MBS  100000000

/* Keeps the compiler from dropping copies nobody else reads. */
static volatile unsigned char loom_calib_sink;

static double loom_calib_now(void)
{
    struct timespec ts;

    clock_gettime(CLOCK_MONOTONIC, &ts);
    return (double)ts.tv_sec + ts.tv_nsec * 1e-9;
}

static int loom_calib_mbs(double bytes, double seconds)
{
    double mbs = seconds > 0 ? bytes / seconds / 1e6 : LOOM_CALIB_MAX_MBS;

    if (mbs < 1) {
        return 1;
    }
    return mbs > LOOM_CALIB_MAX_MBS ? LOOM_CALIB_MAX_MBS : (int)mbs;
}

loom_status_t loom_calibrate_measure(loom_calibration_t *calib_p)
{
    loom_reduce_fn_t sum = loom_reduce_kernel(LOOM_OP_SUM, LOOM_DTYPE_DOUBLE);
    size_t count = LOOM_CALIB_BYTES / sizeof(double), i;
    double *src = malloc(LOOM_CALIB_BYTES), *dst = malloc(LOOM_CALIB_BYTES);
    double t, copy_s = -1, reduce_s = -1;
    int run;

    if (src == NULL || dst == NULL || sum == NULL) {
        free(src);
        free(dst);
        return src == NULL || dst == NULL ? LOOM_ERR_NO_MEMORY : LOOM_ERR_UNSUPPORTED;
    }
    /* Fault every page in first: the first touch is not what we price. */
    for (i = 0; i < count; ++i) {
        src[i] = (double)(i & 1023);
        dst[i] = 1.0;
    }
    for (run = 0; run < LOOM_CALIB_RUNS; ++run) {
        t = loom_calib_now();
        memcpy(dst, src, LOOM_CALIB_BYTES);
        t = loom_calib_now() - t;
        loom_calib_sink = ((unsigned char *)dst)[run * 4096];
        copy_s = copy_s < 0 || t < copy_s ? t : copy_s;

        t = loom_calib_now();
        sum(src, dst, count, NULL);
        t = loom_calib_now() - t;
        loom_calib_sink = ((unsigned char *)dst)[run * 4096 + 8];
        reduce_s = reduce_s < 0 || t < reduce_s ? t : reduce_s;
    }
    free(src);
    free(dst);
    calib_p->bandwidth_mbs = loom_calib_mbs(LOOM_CALIB_BYTES, copy_s);
    calib_p->reduce_mbs = loom_calib_mbs(LOOM_CALIB_BYTES, reduce_s);
    loom_debug("coll", "calibration: memcpy %d MB/s, double sum %d MB/s of input",
               calib_p->bandwidth_mbs, calib_p->reduce_mbs);
    return LOOM_OK;
}
