/*
 * libloom-ckpt's settings: each from loom_ckpt_options_t if given there,
 * else its LOOM_CKPT_* environment variable, else the loom component's
 * MCA parameter (coll_loom_ckpt_*, passed through hook.h), else the
 * default.  A bad value is an error naming the variable or parameter and
 * what is accepted.
 */
#ifndef LOOM_CKPT_SETTINGS_H
#define LOOM_CKPT_SETTINGS_H

#include <stdint.h>

#include <loom/ckpt.h>

typedef struct loom_ckpt_settings {
    uint64_t chunk_size;
    unsigned keep;              /* 0: all */
    int zstd_level;             /* 0: none */
    uint64_t staging_bytes;
    loom_ckpt_track_mode_t track;   /* never DEFAULT */
} loom_ckpt_settings_t;

loom_status_t loom_ckpt_settings_resolve(const loom_ckpt_options_t *opts,
                                         loom_ckpt_settings_t *settings_p);

#endif
