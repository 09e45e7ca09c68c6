/*
 * The filter spec's text, read here until the engine's parser is merged.
 *
 * TODO: switch to loom_filter_spec_parse (coll/core/filter/filter_spec.h)
 * when that lands, and remove this file: the grammar, the defaults and
 * the contract below are that header's, so the switch changes no caller.
 *
 *     spec    := "" | "none" | "dense" | "topk:" density [ "," option ]*
 *     density := a decimal in (0, 1], or in (0, 100] then "%"
 *     option  := "warmup=" N | "min_bytes=" SIZE | "momentum=" M
 *              | "exact_max=" N | "residual_max=" SIZE
 *     SIZE, N := decimal digits, optionally followed by K, M or G
 */
#include "coll_loomfilter.h"

#include <ctype.h>
#include <errno.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#define LOOMFILTER_ACCEPTED \
    "accepted: none, dense, or topk:<density in (0, 1] or (0%, 100%]>" \
    "[,warmup=N][,min_bytes=SIZE][,momentum=M in [0, 1)][,exact_max=N][,residual_max=SIZE]"

static void loomfilter_spec_dense(mca_coll_loomfilter_spec_t *spec)
{
    *spec = (mca_coll_loomfilter_spec_t){
        .enabled = 0, .density = 1.0, .warmup = 0, .min_bytes = (size_t)4 << 10,
        .momentum = 0.0, .exact_max = (size_t)1 << 16, .residual_max = (size_t)1 << 30,
    };
}

/* A count with an optional K, M or G suffix (powers of 1024), the whole
 * of [s, end); 0 on success. */
static int loomfilter_parse_size(const char *s, const char *end, unsigned long long max,
                                 unsigned long long *value_p)
{
    unsigned long long v = 0, mult = 1;
    const char *p = s;

    if (p == end || !isdigit((unsigned char)*p)) {
        return -1;
    }
    for (; p < end && isdigit((unsigned char)*p); ++p) {
        if (v > (max - (unsigned long long)(*p - '0')) / 10) {
            return -1;
        }
        v = v * 10 + (unsigned long long)(*p - '0');
    }
    if (p < end) {
        switch (*p++) {
        case 'k': case 'K': mult = 1ULL << 10; break;
        case 'm': case 'M': mult = 1ULL << 20; break;
        case 'g': case 'G': mult = 1ULL << 30; break;
        default: return -1;
        }
    }
    if (p != end || (v != 0 && mult > max / v)) {
        return -1;
    }
    *value_p = v * mult;
    return 0;
}

/* A decimal, the whole of [s, end); 0 on success. */
static int loomfilter_parse_double(const char *s, const char *end, double *value_p)
{
    char buf[64], *stop;
    size_t n = (size_t)(end - s);

    if (n == 0 || n >= sizeof(buf)) {
        return -1;
    }
    memcpy(buf, s, n);
    buf[n] = '\0';
    errno = 0;
    *value_p = strtod(buf, &stop);
    return (errno != 0 || *stop != '\0' || !isfinite(*value_p)) ? -1 : 0;
}

static const char *loomfilter_trim(const char **s, const char *end)
{
    while (*s < end && isspace((unsigned char)**s)) {
        ++*s;
    }
    while (end > *s && isspace((unsigned char)end[-1])) {
        --end;
    }
    return end;
}

static int loomfilter_parse_option(const char *s, const char *end,
                                   mca_coll_loomfilter_spec_t *spec, unsigned *seen)
{
    static const char *const names[] = { "warmup", "min_bytes", "momentum", "exact_max",
                                         "residual_max" };
    const char *eq = memchr(s, '=', (size_t)(end - s)), *name_end, *value;
    unsigned long long n;
    size_t i;
    double m;

    if (eq == NULL) {
        return -1;
    }
    name_end = loomfilter_trim(&s, eq);
    value = eq + 1;
    end = loomfilter_trim(&value, end);
    for (i = 0; i < sizeof(names) / sizeof(names[0]); ++i) {
        if (strlen(names[i]) == (size_t)(name_end - s) &&
            strncmp(names[i], s, (size_t)(name_end - s)) == 0) {
            break;
        }
    }
    if (i == sizeof(names) / sizeof(names[0]) || (*seen & (1u << i))) {
        return -1;
    }
    *seen |= 1u << i;
    switch (i) {
    case 0:
        if (loomfilter_parse_size(value, end, 1000000, &n) != 0) {
            return -1;
        }
        spec->warmup = (unsigned)n;
        return 0;
    case 1:
        if (loomfilter_parse_size(value, end, SIZE_MAX, &n) != 0) {
            return -1;
        }
        spec->min_bytes = (size_t)n;
        return 0;
    case 2:
        if (loomfilter_parse_double(value, end, &m) != 0 || m < 0.0 || m >= 1.0) {
            return -1;
        }
        spec->momentum = m;
        return 0;
    case 3:
        if (loomfilter_parse_size(value, end, UINT32_MAX, &n) != 0 || n < 1) {
            return -1;
        }
        spec->exact_max = (size_t)n;
        return 0;
    default:
        if (loomfilter_parse_size(value, end, SIZE_MAX, &n) != 0 || n < 1) {
            return -1;
        }
        spec->residual_max = (size_t)n;
        return 0;
    }
}

loom_status_t mca_coll_loomfilter_spec_parse(const char *text,
                                             mca_coll_loomfilter_spec_t *spec_p,
                                             char *why, size_t why_len)
{
    mca_coll_loomfilter_spec_t spec;
    const char *s = text != NULL ? text : "", *end = s + strlen(s), *comma, *item_end;
    unsigned seen = 0;
    double density;

    loomfilter_spec_dense(&spec);
    end = loomfilter_trim(&s, end);
    if (s == end || (end - s == 4 && strncmp(s, "none", 4) == 0) ||
        (end - s == 5 && strncmp(s, "dense", 5) == 0)) {
        *spec_p = spec;
        return LOOM_OK;
    }
    if (end - s < 5 || strncmp(s, "topk:", 5) != 0) {
        goto err;
    }
    s += 5;
    comma = memchr(s, ',', (size_t)(end - s));
    item_end = comma != NULL ? comma : end;
    item_end = loomfilter_trim(&s, item_end);
    if (item_end > s && item_end[-1] == '%') {
        if (loomfilter_parse_double(s, item_end - 1, &density) != 0 || density <= 0.0 ||
            density > 100.0) {
            goto err;
        }
        density /= 100.0;
    } else if (loomfilter_parse_double(s, item_end, &density) != 0 || density <= 0.0 ||
               density > 1.0) {
        goto err;
    }
    spec.enabled = 1;
    spec.density = density;
    while (comma != NULL) {
        s = comma + 1;
        comma = memchr(s, ',', (size_t)(end - s));
        if (loomfilter_parse_option(s, comma != NULL ? comma : end, &spec, &seen) != 0) {
            goto err;
        }
    }
    *spec_p = spec;
    return LOOM_OK;

err:
    if (why_len > 0) {
        snprintf(why, why_len, "'%s' is not a filter spec (%s)", text, LOOMFILTER_ACCEPTED);
    }
    return LOOM_ERR_INVALID_PARAM;
}
