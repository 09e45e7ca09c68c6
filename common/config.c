#include "config.h"
#include "log.h"

#include <ctype.h>
#include <errno.h>
#include <limits.h>
#include <stdint.h>
#include <stdlib.h>
#include <string.h>
#include <strings.h>

static const char *const loom_config_bool_true[]  = { "1", "yes", "true", "on", NULL };
static const char *const loom_config_bool_false[] = { "0", "no", "false", "off", NULL };

const loom_config_field_t *loom_config_find(const loom_config_field_t *table,
                                            const char *name)
{
    for (; table->name != NULL; ++table) {
        if (strcmp(table->name, name) == 0) {
            return table;
        }
    }
    return NULL;
}

loom_status_t loom_config_enum_parse(const char *const *names, const char *text,
                                     int *value_p)
{
    int i;

    for (i = 0; names[i] != NULL; ++i) {
        if (strcasecmp(names[i], text) == 0) {
            *value_p = i;
            return LOOM_OK;
        }
    }
    return LOOM_ERR_NOT_FOUND;
}

static void loom_config_join(const char *const *names, char *buf, size_t len)
{
    size_t used = 0;
    int i;

    buf[0] = '\0';
    for (i = 0; names[i] != NULL && used < len; ++i) {
        used += (size_t)snprintf(buf + used, len - used, "%s%s",
                                 i ? ", " : "", names[i]);
    }
}

static loom_status_t loom_config_parse_long(const char *text, int allow_suffix,
                                            long *value_p)
{
    unsigned long long scale = 1;
    char *end;
    long long v;

    errno = 0;
    v = strtoll(text, &end, 0);
    if (end == text || errno != 0) {
        return LOOM_ERR_INVALID_PARAM;
    }
    if (allow_suffix && *end != '\0') {
        switch (tolower((unsigned char)*end)) {
        case 'k': scale = 1ull << 10; break;
        case 'm': scale = 1ull << 20; break;
        case 'g': scale = 1ull << 30; break;
        default:  return LOOM_ERR_INVALID_PARAM;
        }
        ++end;
        if (tolower((unsigned char)*end) == 'b' || tolower((unsigned char)*end) == 'i') {
            ++end; /* "64kb", "1MiB" */
            if (tolower((unsigned char)*end) == 'b') {
                ++end;
            }
        }
    }
    if (*end != '\0') {
        return LOOM_ERR_INVALID_PARAM;
    }
    if (v < 0 && scale != 1) {
        return LOOM_ERR_INVALID_PARAM;
    }
    if (v > 0 && (unsigned long long)v > (unsigned long long)LONG_MAX / scale) {
        return LOOM_ERR_INVALID_PARAM;
    }
    *value_p = (long)(v * (long long)scale);
    return LOOM_OK;
}

/* Parse without logging; obj is written only on success. */
static loom_status_t loom_config_parse(const loom_config_field_t *field,
                                       const char *text, void *obj)
{
    char *slot = (char *)obj + field->offset;
    loom_status_t status;
    long lv;
    int iv;

    switch (field->type) {
    case LOOM_CONFIG_ENUM:
        status = loom_config_enum_parse(field->enum_names, text, &iv);
        if (status != LOOM_OK) {
            return LOOM_ERR_INVALID_PARAM;
        }
        *(int *)slot = iv;
        return LOOM_OK;
    case LOOM_CONFIG_BOOL:
        if (loom_config_enum_parse(loom_config_bool_true, text, &iv) == LOOM_OK) {
            *(int *)slot = 1;
        } else if (loom_config_enum_parse(loom_config_bool_false, text, &iv) == LOOM_OK) {
            *(int *)slot = 0;
        } else {
            return LOOM_ERR_INVALID_PARAM;
        }
        return LOOM_OK;
    case LOOM_CONFIG_INT:
    case LOOM_CONFIG_SIZE:
        status = loom_config_parse_long(text, field->type == LOOM_CONFIG_SIZE, &lv);
        if (status != LOOM_OK || lv < field->min || lv > field->max) {
            return LOOM_ERR_INVALID_PARAM;
        }
        if (field->type == LOOM_CONFIG_INT) {
            *(int *)slot = (int)lv;
        } else {
            *(size_t *)slot = (size_t)lv;
        }
        return LOOM_OK;
    }
    return LOOM_ERR_INVALID_PARAM;
}

static void loom_config_describe(const loom_config_field_t *field, char *buf,
                                 size_t len)
{
    switch (field->type) {
    case LOOM_CONFIG_ENUM:
        loom_config_join(field->enum_names, buf, len);
        break;
    case LOOM_CONFIG_BOOL:
        snprintf(buf, len, "yes/no, true/false, on/off, 1/0");
        break;
    case LOOM_CONFIG_INT:
        snprintf(buf, len, "an integer from %ld to %ld", field->min, field->max);
        break;
    case LOOM_CONFIG_SIZE:
        snprintf(buf, len, "a size from %ld to %ld bytes (suffixes k, m, g)",
                 field->min, field->max);
        break;
    }
}

loom_status_t loom_config_set_defaults(const loom_config_field_t *table, void *obj)
{
    for (; table->name != NULL; ++table) {
        if (loom_config_parse(table, table->default_value, obj) != LOOM_OK) {
            loom_error("config", "setting '%s' has a malformed default '%s'",
                       table->name, table->default_value);
            return LOOM_ERR_INVALID_PARAM;
        }
    }
    return LOOM_OK;
}

static void loom_config_list_names(const loom_config_field_t *table, char *buf,
                                   size_t len)
{
    size_t used = 0;

    buf[0] = '\0';
    for (; table->name != NULL && used < len; ++table) {
        used += (size_t)snprintf(buf + used, len - used, "%s%s",
                                 used ? ", " : "", table->name);
    }
}

static loom_status_t loom_config_set_field(const loom_config_field_t *field,
                                           void *obj, const char *shown_name,
                                           const char *value)
{
    char accepted[512];

    if (loom_config_parse(field, value, obj) != LOOM_OK) {
        loom_config_describe(field, accepted, sizeof(accepted));
        loom_error("config", "%s: '%s' is not accepted; expected %s", shown_name,
                   value, accepted);
        return LOOM_ERR_INVALID_PARAM;
    }
    return LOOM_OK;
}

loom_status_t loom_config_set(const loom_config_field_t *table, void *obj,
                              const char *name, const char *value)
{
    const loom_config_field_t *field = loom_config_find(table, name);
    char known[512];

    if (field == NULL) {
        loom_config_list_names(table, known, sizeof(known));
        loom_error("config", "unknown setting '%s'; known settings: %s", name,
                   known);
        return LOOM_ERR_INVALID_PARAM;
    }
    return loom_config_set_field(field, obj, name, value);
}

static void loom_config_env_name(const char *prefix, const char *name, char *buf,
                                 size_t len)
{
    size_t i;

    snprintf(buf, len, "%s_%s", prefix, name);
    for (i = 0; buf[i] != '\0'; ++i) {
        buf[i] = (char)toupper((unsigned char)buf[i]);
    }
}

loom_status_t loom_config_read_env(const loom_config_field_t *table, void *obj,
                                   const char *prefix)
{
    loom_status_t first = LOOM_OK;
    char var[128];
    const char *value;

    for (; table->name != NULL; ++table) {
        loom_config_env_name(prefix, table->name, var, sizeof(var));
        value = getenv(var);
        if (value == NULL) {
            continue;
        }
        if (loom_config_set_field(table, obj, var, value) != LOOM_OK &&
            first == LOOM_OK) {
            first = LOOM_ERR_INVALID_PARAM;
        }
    }
    return first;
}

void loom_config_print_help(const loom_config_field_t *table, const char *prefix,
                            FILE *out)
{
    char var[128];
    char accepted[512];

    for (; table->name != NULL; ++table) {
        loom_config_env_name(prefix, table->name, var, sizeof(var));
        loom_config_describe(table, accepted, sizeof(accepted));
        fprintf(out, "%s (default %s)\n    %s\n    accepted: %s\n", var,
                table->default_value, table->help, accepted);
    }
}
