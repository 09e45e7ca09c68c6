/*
 * Configuration tables.
 *
 * A table describes every setting of one subsystem once: its name, type,
 * default, accepted values and help text.  The same table fills a settings
 * struct from defaults and from the environment (LOOM_<NAME>), prints the
 * help, and is what the Open MPI adapter registers as MCA parameters, so a
 * setting cannot exist in one place and be missing in another.
 */
#ifndef LOOM_CONFIG_H
#define LOOM_CONFIG_H

#include "loom/status.h"

#include <stddef.h>
#include <stdio.h>

typedef enum loom_config_type {
    LOOM_CONFIG_INT,   /* stored as int, between min and max */
    LOOM_CONFIG_BOOL,  /* stored as int 0/1; accepts 0/1, yes/no, true/false, on/off */
    LOOM_CONFIG_ENUM,  /* stored as int: index into enum_names */
    LOOM_CONFIG_SIZE   /* stored as size_t; accepts suffixes k, m, g (powers of 1024) */
} loom_config_type_t;

typedef struct loom_config_field {
    const char              *name;          /* lowercase, e.g. "algorithm" */
    loom_config_type_t      type;
    const char              *default_value; /* text, parsed like user input */
    const char              *help;
    const char *const       *enum_names;    /* LOOM_CONFIG_ENUM: NULL-terminated */
    long                    min, max;       /* LOOM_CONFIG_INT and _SIZE bounds */
    size_t                  offset;         /* of the value in the settings struct */
    int                     runtime;        /* writable while the job runs (MPI_T) */
} loom_config_field_t;

/* A table ends with an entry whose name is NULL. */
#define LOOM_CONFIG_LAST { .name = NULL }

/* Every field to its default.  Fails only for a malformed table. */
loom_status_t loom_config_set_defaults(const loom_config_field_t *table, void *obj);

/* Parse text for one named setting.  On bad input logs an error naming the
 * setting, the value and what is accepted, leaves obj unchanged and returns
 * LOOM_ERR_INVALID_PARAM. */
loom_status_t loom_config_set(const loom_config_field_t *table, void *obj,
                              const char *name, const char *value);

/* Apply <prefix>_<NAME> environment variables (prefix e.g. "LOOM").  Every
 * bad variable is reported; the first error is returned. */
loom_status_t loom_config_read_env(const loom_config_field_t *table, void *obj,
                                   const char *prefix);

/* Print one paragraph per setting: name, accepted values, default, help. */
void loom_config_print_help(const loom_config_field_t *table, const char *prefix,
                            FILE *out);

const loom_config_field_t *loom_config_find(const loom_config_field_t *table,
                                            const char *name);

/* Index of text in a NULL-terminated name list, or LOOM_ERR_NOT_FOUND. */
loom_status_t loom_config_enum_parse(const char *const *names, const char *text,
                                     int *value_p);

#endif
