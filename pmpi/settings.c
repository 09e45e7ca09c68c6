/*
 * libloom-pmpi's settings, read from the environment at MPI_Init
 * (docs/pmpi.md lists them).  A bad value is never clamped: the message
 * names the variable, the value and what is accepted, and the run goes on
 * unprofiled, since the tool must never change what the program does.
 */
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "pmpi.h"

typedef struct {
    const char *name;
    long min, max, dflt;
    int *value_p;
} loom_pmpi_int_setting_t;

/* Reads one integer setting; returns 0 and fills s->error when it is bad. */
static int loom_pmpi_setting_int(const loom_pmpi_int_setting_t *def, loom_pmpi_settings_t *s)
{
    const char *text = getenv(def->name);
    char *end;
    long v;

    *def->value_p = (int)def->dflt;
    if (text == NULL) {
        return 1;
    }
    errno = 0;
    v = strtol(text, &end, 10);
    if (text[0] == '\0' || *end != '\0' || errno != 0 || v < def->min || v > def->max) {
        snprintf(s->error, sizeof(s->error),
                 "libloom-pmpi: %s=\"%s\" is not accepted: it must be an integer from %ld to %ld "
                 "(default %ld); the program runs unprofiled",
                 def->name, text, def->min, def->max, def->dflt);
        return 0;
    }
    *def->value_p = (int)v;
    return 1;
}

void loom_pmpi_settings_read(loom_pmpi_settings_t *s)
{
    const loom_pmpi_int_setting_t ints[] = {
        { "LOOM_PMPI_ENABLE", 0, 1, 1, &s->enable },
        { "LOOM_PMPI_WINDOW", 1, 65536, 64, &s->window },
        { "LOOM_PMPI_TOP", 1, 1000000, 10, &s->top },
        { "LOOM_PMPI_CHART", 0, 1, 1, &s->chart },
        { "LOOM_PMPI_CHART_TIMEOUT", 1, 3600, 30, &s->chart_timeout },
    };
    const char *out = getenv("LOOM_PMPI_OUT");
    size_t i;

    memset(s, 0, sizeof(*s));
    for (i = 0; i < sizeof(ints) / sizeof(ints[0]); ++i) {
        if (!loom_pmpi_setting_int(&ints[i], s)) {
            s->enable = 0;
            return;
        }
    }
    if (out == NULL) {
        out = "loom-pmpi";
    }
    if (out[0] == '\0' || strlen(out) + 16 > sizeof(s->out)) {
        snprintf(s->error, sizeof(s->error),
                 "libloom-pmpi: LOOM_PMPI_OUT=\"%.300s\" is not accepted: it must be a non-empty "
                 "path prefix of at most %zu characters (default loom-pmpi); the program runs "
                 "unprofiled", out, sizeof(s->out) - 16);
        s->enable = 0;
        return;
    }
    snprintf(s->out, sizeof(s->out), "%s", out);
}
