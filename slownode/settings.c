/*
 * libloom-slownode's settings, read from the environment at MPI_Init
 * (docs/slownode.md lists them).  A bad value is never clamped: the message
 * names the variable, the value and what is accepted, and the program runs
 * without the library, since a tool must never change what it computes.
 */
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "slownode.h"

typedef struct {
    const char *name;
    double min, max, dflt;
    int integer;                /* 1: only whole numbers */
    double *value_p;
} loom_sn_number_t;

/* Parses text as a number in [min, max]; returns 0 when it is not one. */
static int loom_sn_parse_number(const char *text, double min, double max, int integer,
                                double *value_p)
{
    char *end;
    double v;

    errno = 0;
    v = integer ? (double)strtol(text, &end, 10) : strtod(text, &end);
    if (text[0] == '\0' || *end != '\0' || errno != 0 || !(v >= min && v <= max)) {
        return 0;
    }
    *value_p = v;
    return 1;
}

static int loom_sn_setting_number(const loom_sn_number_t *def, loom_sn_settings_t *s)
{
    const char *text = getenv(def->name);

    *def->value_p = def->dflt;
    if (text == NULL || loom_sn_parse_number(text, def->min, def->max, def->integer,
                                             def->value_p)) {
        return 1;
    }
    snprintf(s->error, sizeof(s->error),
             "loom-slownode: %s=\"%.200s\" is not accepted: it must be %s from %g to %g "
             "(default %g); the program runs without slow-node detection",
             def->name, text, def->integer ? "an integer" : "a number", def->min, def->max,
             def->dflt);
    return 0;
}

/* "RANK:FACTOR" (factor above 1) or "RANK:stall:MS". */
static int loom_sn_setting_inject(loom_sn_settings_t *s)
{
    const char *text = getenv("LOOM_SLOWNODE_INJECT");
    const char *colon, *arg;
    char rank_text[16];
    double rank;
    size_t len;

    s->inject = LOOM_SN_INJECT_NONE;
    if (text == NULL || text[0] == '\0') {
        return 1;
    }
    colon = strchr(text, ':');
    len = colon != NULL ? (size_t)(colon - text) : 0;
    if (len > 0 && len < sizeof(rank_text)) {
        memcpy(rank_text, text, len);
        rank_text[len] = '\0';
        arg = colon + 1;
        if (loom_sn_parse_number(rank_text, 0, 1e6, 1, &rank)) {
            s->inject_rank = (int)rank;
            if (strncmp(arg, "stall:", 6) == 0 &&
                loom_sn_parse_number(arg + 6, 0, 60000, 0, &s->inject_stall_ms)) {
                s->inject = LOOM_SN_INJECT_STALL;
                return 1;
            }
            if (loom_sn_parse_number(arg, 1.0, 100.0, 0, &s->inject_factor) &&
                s->inject_factor > 1.0) {
                s->inject = LOOM_SN_INJECT_FACTOR;
                return 1;
            }
        }
    }
    snprintf(s->error, sizeof(s->error),
             "loom-slownode: LOOM_SLOWNODE_INJECT=\"%.200s\" is not accepted: it must be "
             "RANK:FACTOR (a factor above 1 and at most 100, e.g. 5:1.3 makes rank 5 take 30%% "
             "longer between collectives) or RANK:stall:MS (0 to 60000 ms before each "
             "collective); the program runs without slow-node detection", text);
    return 0;
}

static int loom_sn_setting_json(loom_sn_settings_t *s)
{
    const char *path = getenv("LOOM_SLOWNODE_JSON");

    s->json[0] = '\0';
    if (path == NULL) {
        return 1;
    }
    if (path[0] == '\0' || strlen(path) + 16 > sizeof(s->json)) {
        snprintf(s->error, sizeof(s->error),
                 "loom-slownode: LOOM_SLOWNODE_JSON=\"%.200s\" is not accepted: it must be a "
                 "non-empty path of at most %zu characters (%%r stands for the rank); the "
                 "program runs without slow-node detection", path, sizeof(s->json) - 16);
        return 0;
    }
    snprintf(s->json, sizeof(s->json), "%s", path);
    return 1;
}

void loom_sn_settings_read(loom_sn_settings_t *s)
{
    double enable, reorder, window, windows;
    const loom_sn_number_t numbers[] = {
        { "LOOM_SLOWNODE_ENABLE", 0, 1, 1, 1, &enable },
        { "LOOM_SLOWNODE_WINDOW", 2, 4096, 10, 1, &window },
        { "LOOM_SLOWNODE_WINDOWS", 1, 100, 2, 1, &windows },
        { "LOOM_SLOWNODE_FLOOR_MS", 0, 60000, 2, 0, &s->detect.floor_ms },
        { "LOOM_SLOWNODE_FLOOR_PCT", 0, 1000, 10, 0, &s->detect.floor_pct },
        { "LOOM_SLOWNODE_MAD", 0, 1000, 5, 0, &s->detect.mad_k },
        { "LOOM_SLOWNODE_MIN_MS", 0, 3600000, 300, 0, &s->detect.min_ms },
        { "LOOM_SLOWNODE_REORDER", 0, 2, 1, 1, &reorder },
    };
    size_t i;

    memset(s, 0, sizeof(*s));
    for (i = 0; i < sizeof(numbers) / sizeof(numbers[0]); ++i) {
        if (!loom_sn_setting_number(&numbers[i], s)) {
            return;             /* s->enable stays 0 */
        }
    }
    if (!loom_sn_setting_inject(s) || !loom_sn_setting_json(s)) {
        return;
    }
    s->detect.window = (int)window;
    s->detect.windows = (int)windows;
    s->reorder = (loom_sn_reorder_t)reorder;
    s->enable = (int)enable;
}
