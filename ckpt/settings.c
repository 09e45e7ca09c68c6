#include "ckpt/settings.h"

#include <errno.h>
#include <stdlib.h>
#include <string.h>

#include <zstd.h>

#include "ckpt/hook.h"
#include "common/log.h"

#define DEFAULT_CHUNK_SIZE (1u << 20)
#define DEFAULT_STAGING (64u << 20)

/* The text of a setting and the name it came by: the environment
 * variable, else the component's MCA parameter; NULL when neither. */
static const char *setting(const char *var, const char *mca_value,
                           const char *mca_name, const char **from_p)
{
    const char *s = getenv(var);
    if (s != NULL && *s != '\0') {
        *from_p = var;
        return s;
    }
    if (loom_ckpt_hook.mca_set && mca_value[0] != '\0') {
        *from_p = mca_name;
        return mca_value;
    }
    return NULL;
}

/* Bytes, with an optional k, m or g suffix. */
static loom_status_t parse_size(const char *s, const char *from, uint64_t *size_p)
{
    char *end;
    errno = 0;
    unsigned long long v = strtoull(s, &end, 10);
    uint64_t mult = 1;
    if (*end == 'k' || *end == 'K') {
        mult = 1u << 10, end++;
    } else if (*end == 'm' || *end == 'M') {
        mult = 1u << 20, end++;
    } else if (*end == 'g' || *end == 'G') {
        mult = 1u << 30, end++;
    }
    if (errno != 0 || end == s || *end != '\0' || v == 0 || *s == '-' ||
        v > (1ull << 40) / mult) {
        loom_error("ckpt", "%s='%s' is not a size: give a positive number "
                   "of bytes, optionally with k, m or g (at most 1t)", from, s);
        return LOOM_ERR_INVALID_PARAM;
    }
    *size_p = v * mult;
    return LOOM_OK;
}

/* none, zstd (level 3) or zstd:N. */
static loom_status_t parse_compress(const char *s, const char *from, int *level_p)
{
    if (strcmp(s, "none") == 0) {
        *level_p = 0;
        return LOOM_OK;
    }
    if (strcmp(s, "zstd") == 0) {
        *level_p = 3;
        return LOOM_OK;
    }
    char *end = NULL;
    long v = strncmp(s, "zstd:", 5) == 0 ? strtol(s + 5, &end, 10) : 0;
    if (v < 1 || v > ZSTD_maxCLevel() || *end != '\0') {
        loom_error("ckpt", "%s='%s' is not accepted: give none, zstd, or zstd:N "
                   "with N from 1 to %d", from, s, ZSTD_maxCLevel());
        return LOOM_ERR_INVALID_PARAM;
    }
    *level_p = (int)v;
    return LOOM_OK;
}

/* A count of committed steps; 0 keeps all. */
static loom_status_t parse_keep(const char *s, const char *from, unsigned *keep_p)
{
    char *end;
    errno = 0;
    unsigned long v = strtoul(s, &end, 10);
    if (errno != 0 || end == s || *end != '\0' || *s == '-' || v > 1000000) {
        loom_error("ckpt", "%s='%s' is not a count: give the number of committed "
                   "steps to keep (0 keeps all)", from, s);
        return LOOM_ERR_INVALID_PARAM;
    }
    *keep_p = (unsigned)v;
    return LOOM_OK;
}

/* auto, writes, marks or none. */
static loom_status_t parse_track(const char *s, const char *from,
                                 loom_ckpt_track_mode_t *mode_p)
{
    static const struct {
        const char *name;
        loom_ckpt_track_mode_t mode;
    } modes[] = { { "auto", LOOM_CKPT_TRACK_AUTO }, { "writes", LOOM_CKPT_TRACK_WRITES },
                  { "marks", LOOM_CKPT_TRACK_MARKS }, { "none", LOOM_CKPT_TRACK_NONE } };
    for (size_t i = 0; i < sizeof(modes) / sizeof(modes[0]); i++) {
        if (strcmp(s, modes[i].name) == 0) {
            *mode_p = modes[i].mode;
            return LOOM_OK;
        }
    }
    loom_error("ckpt", "%s='%s' is not accepted: give auto, writes, marks or none", from, s);
    return LOOM_ERR_INVALID_PARAM;
}

loom_status_t loom_ckpt_settings_resolve(const loom_ckpt_options_t *opts,
                                         loom_ckpt_settings_t *settings_p)
{
    loom_ckpt_settings_t set = { .chunk_size = DEFAULT_CHUNK_SIZE,
                                 .staging_bytes = DEFAULT_STAGING,
                                 .track = LOOM_CKPT_TRACK_AUTO };
    const loom_ckpt_hook_t *h = &loom_ckpt_hook;
    loom_status_t st = LOOM_OK;
    const char *s, *from;

    if (opts && opts->chunk_size) {
        set.chunk_size = opts->chunk_size;
    } else if ((s = setting("LOOM_CKPT_CHUNK_SIZE", h->chunk_size,
                            "coll_loom_ckpt_chunk_size", &from)) != NULL) {
        st = parse_size(s, from, &set.chunk_size);
    }
    if (st == LOOM_OK && opts && opts->staging_bytes) {
        set.staging_bytes = opts->staging_bytes;
    } else if (st == LOOM_OK && (s = setting("LOOM_CKPT_STAGING", h->staging,
                                             "coll_loom_ckpt_staging", &from)) != NULL) {
        st = parse_size(s, from, &set.staging_bytes);
    }
    if (st == LOOM_OK && opts && opts->zstd_level != 0) {
        set.zstd_level = opts->zstd_level > 0 ? opts->zstd_level : 0;
        if (set.zstd_level > ZSTD_maxCLevel()) {
            loom_error("ckpt", "zstd level %d is above zstd's maximum %d",
                       set.zstd_level, ZSTD_maxCLevel());
            st = LOOM_ERR_INVALID_PARAM;
        }
    } else if (st == LOOM_OK && (s = setting("LOOM_CKPT_COMPRESS", h->compress,
                                             "coll_loom_ckpt_compress", &from)) != NULL) {
        st = parse_compress(s, from, &set.zstd_level);
    }
    if (st == LOOM_OK && opts && opts->keep) {
        set.keep = opts->keep;
    } else if (st == LOOM_OK && (s = setting("LOOM_CKPT_KEEP", h->keep,
                                             "coll_loom_ckpt_keep", &from)) != NULL) {
        st = parse_keep(s, from, &set.keep);
    }
    if (st == LOOM_OK && opts && opts->track != LOOM_CKPT_TRACK_DEFAULT) {
        set.track = opts->track;
        if (set.track < LOOM_CKPT_TRACK_AUTO || set.track > LOOM_CKPT_TRACK_NONE) {
            loom_error("ckpt", "loom_ckpt_options_t.track %d is not a mode: give "
                       "LOOM_CKPT_TRACK_AUTO, _WRITES, _MARKS or _NONE", (int)set.track);
            st = LOOM_ERR_INVALID_PARAM;
        }
    } else if (st == LOOM_OK && (s = setting("LOOM_CKPT_TRACK", h->track,
                                             "coll_loom_ckpt_track", &from)) != NULL) {
        st = parse_track(s, from, &set.track);
    }
    if (st == LOOM_OK) {
        *settings_p = set;
    }
    return st;
}
