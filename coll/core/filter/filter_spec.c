/*
 * The filter spec parser (filter_spec.h).  The text is walked as
 * [begin, end) ranges, never modified; a value is copied into a small
 * buffer only to hand it to strtod.
 */
#include "coll/core/filter/filter_spec.h"

#include <ctype.h>
#include <math.h>
#include <stdarg.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

/* Longest value we convert; longer ones are wrong anyway. */
#define SPEC_VALUE_MAX 63

typedef struct spec_range {
    const char *begin;
    const char *end;
} spec_range_t;

static void spec_why(char *why, size_t why_len, const char *fmt, ...)
{
    va_list ap;

    if (why == NULL || why_len == 0) {
        return;
    }
    va_start(ap, fmt);
    vsnprintf(why, why_len, fmt, ap);
    va_end(ap);
}

static spec_range_t spec_trim(spec_range_t r)
{
    while (r.begin < r.end && isspace((unsigned char)r.begin[0])) {
        r.begin++;
    }
    while (r.end > r.begin && isspace((unsigned char)r.end[-1])) {
        r.end--;
    }
    return r;
}

static int spec_equals(spec_range_t r, const char *word)
{
    size_t len = strlen(word);

    return (size_t)(r.end - r.begin) == len && memcmp(r.begin, word, len) == 0;
}

static int spec_len(spec_range_t r)
{
    return (int)(r.end - r.begin);
}

/* Digits with an optional K/M/G suffix (powers of 1024) into *value_p,
 * refusing a sign, an empty value and anything above max.  Returns 0 on
 * success. */
static int spec_parse_size(spec_range_t r, uint64_t max, uint64_t *value_p)
{
    uint64_t value = 0, scale = 1;
    const char *p = r.begin, *end = r.end;

    if (p == end) {
        return -1;
    }
    switch (end[-1]) {
    case 'k': case 'K': scale = UINT64_C(1) << 10; end--; break;
    case 'm': case 'M': scale = UINT64_C(1) << 20; end--; break;
    case 'g': case 'G': scale = UINT64_C(1) << 30; end--; break;
    default: break;
    }
    if (p == end) {
        return -1;
    }
    for (; p < end; p++) {
        if (*p < '0' || *p > '9') {
            return -1;
        }
        if (value > (UINT64_MAX - (uint64_t)(*p - '0')) / 10) {
            return -1;
        }
        value = value * 10 + (uint64_t)(*p - '0');
    }
    if (value > max / scale) {
        return -1;
    }
    *value_p = value * scale;
    return 0;
}

/* A finite decimal (strtod's syntax, no hex, no inf/nan) into *value_p.
 * Returns 0 on success. */
static int spec_parse_double(spec_range_t r, double *value_p)
{
    char buf[SPEC_VALUE_MAX + 1];
    size_t len = (size_t)(r.end - r.begin);
    char *stop;
    double value;
    size_t i;

    if (len == 0 || len > SPEC_VALUE_MAX) {
        return -1;
    }
    for (i = 0; i < len; i++) {
        char c = r.begin[i];
        if (!(isdigit((unsigned char)c) || c == '.' || c == 'e' ||
              c == 'E' || c == '-' || c == '+')) {
            return -1;  /* refuses "inf", "nan", "0x1p-3" and spaces */
        }
    }
    memcpy(buf, r.begin, len);
    buf[len] = '\0';
    value = strtod(buf, &stop);
    if (*stop != '\0' || stop == buf || !isfinite(value)) {
        return -1;
    }
    *value_p = value;
    return 0;
}

static loom_status_t spec_parse_density(spec_range_t r, double *density_p,
                                        char *why, size_t why_len)
{
    spec_range_t number = r;
    int percent = 0;
    double value;

    if (r.end > r.begin && r.end[-1] == '%') {
        percent = 1;
        number.end--;
        number = spec_trim(number);
    }
    if (spec_parse_double(number, &value) != 0) {
        spec_why(why, why_len, "loom_filter: density '%.*s' is not a number; "
                 "accepted: a decimal in (0, 1] such as 0.01, or a "
                 "percentage in (0%%, 100%%] such as 1%%",
                 spec_len(r), r.begin);
        return LOOM_ERR_INVALID_PARAM;
    }
    if (percent) {
        value /= 100.0;
    }
    if (!(value > 0.0 && value <= 1.0)) {
        spec_why(why, why_len, "loom_filter: density '%.*s' is not in (0, 1] "
                 "(or (0%%, 100%%])", spec_len(r), r.begin);
        return LOOM_ERR_INVALID_PARAM;
    }
    *density_p = value;
    return LOOM_OK;
}

typedef enum spec_option {
    SPEC_OPT_WARMUP,
    SPEC_OPT_MIN_BYTES,
    SPEC_OPT_MOMENTUM,
    SPEC_OPT_EXACT_MAX,
    SPEC_OPT_RESIDUAL_MAX,
    SPEC_OPT_EVERY,
    SPEC_OPT_EXCHANGE,
    SPEC_OPT_COUNT
} spec_option_t;

static const char *const spec_option_names[SPEC_OPT_COUNT] = {
    [SPEC_OPT_WARMUP]       = "warmup",
    [SPEC_OPT_MIN_BYTES]    = "min_bytes",
    [SPEC_OPT_MOMENTUM]     = "momentum",
    [SPEC_OPT_EXACT_MAX]    = "exact_max",
    [SPEC_OPT_RESIDUAL_MAX] = "residual_max",
    [SPEC_OPT_EVERY]        = "every",
    [SPEC_OPT_EXCHANGE]     = "exchange",
};

const char *const loom_filter_exchange_names[LOOM_FILTER_EXCHANGE_COUNT] = {
    [LOOM_FILTER_EXCHANGE_AUTO] = "auto",
    [LOOM_FILTER_EXCHANGE_ALLGATHER] = "allgather",
    [LOOM_FILTER_EXCHANGE_MERGE] = "merge",
    [LOOM_FILTER_EXCHANGE_SPLIT] = "split",
};

#define SPEC_OPTIONS_ACCEPTED \
    "warmup=N, min_bytes=SIZE, momentum=M, exact_max=N, residual_max=SIZE, " \
    "every=N, exchange=NAME"

/* One "name=value" option into spec; seen[] catches repeats. */
static loom_status_t spec_parse_option(spec_range_t token,
                                       loom_filter_spec_t *spec, int *seen,
                                       char *why, size_t why_len)
{
    const char *eq = memchr(token.begin, '=', (size_t)(token.end - token.begin));
    spec_range_t name, value;
    uint64_t u;
    double d;
    int opt, e;

    if (eq == NULL) {
        spec_why(why, why_len, "loom_filter: option '%.*s' has no value; "
                 "accepted: " SPEC_OPTIONS_ACCEPTED,
                 spec_len(token), token.begin);
        return LOOM_ERR_INVALID_PARAM;
    }
    name = spec_trim((spec_range_t){ token.begin, eq });
    value = spec_trim((spec_range_t){ eq + 1, token.end });
    for (opt = 0; opt < SPEC_OPT_COUNT; opt++) {
        if (spec_equals(name, spec_option_names[opt])) {
            break;
        }
    }
    if (opt == SPEC_OPT_COUNT) {
        spec_why(why, why_len, "loom_filter: unknown option '%.*s'; "
                 "accepted: " SPEC_OPTIONS_ACCEPTED,
                 spec_len(name), name.begin);
        return LOOM_ERR_INVALID_PARAM;
    }
    if (seen[opt]) {
        spec_why(why, why_len, "loom_filter: option '%s' given twice",
                 spec_option_names[opt]);
        return LOOM_ERR_INVALID_PARAM;
    }
    seen[opt] = 1;

    switch ((spec_option_t)opt) {
    case SPEC_OPT_WARMUP:
        if (spec_parse_size(value, LOOM_FILTER_WARMUP_MAX, &u) != 0) {
            spec_why(why, why_len, "loom_filter: warmup '%.*s' is not a "
                     "number of steps in 0 .. %u", spec_len(value),
                     value.begin, LOOM_FILTER_WARMUP_MAX);
            return LOOM_ERR_INVALID_PARAM;
        }
        spec->warmup = (unsigned)u;
        break;
    case SPEC_OPT_MIN_BYTES:
        if (spec_parse_size(value, SIZE_MAX, &u) != 0) {
            spec_why(why, why_len, "loom_filter: min_bytes '%.*s' is not a "
                     "size; accepted: digits with an optional K, M or G "
                     "suffix, such as 4K", spec_len(value), value.begin);
            return LOOM_ERR_INVALID_PARAM;
        }
        spec->min_bytes = (size_t)u;
        break;
    case SPEC_OPT_MOMENTUM:
        if (spec_parse_double(value, &d) != 0 || !(d >= 0.0 && d < 1.0)) {
            spec_why(why, why_len, "loom_filter: momentum '%.*s' is not in "
                     "[0, 1); 0 turns momentum correction off",
                     spec_len(value), value.begin);
            return LOOM_ERR_INVALID_PARAM;
        }
        spec->momentum = d;
        break;
    case SPEC_OPT_EXACT_MAX:
        if (spec_parse_size(value, UINT32_MAX, &u) != 0 || u == 0) {
            spec_why(why, why_len, "loom_filter: exact_max '%.*s' is not a "
                     "count in 1 .. 4294967295 (K, M, G suffixes accepted)",
                     spec_len(value), value.begin);
            return LOOM_ERR_INVALID_PARAM;
        }
        spec->exact_max = (size_t)u;
        break;
    case SPEC_OPT_RESIDUAL_MAX:
        if (spec_parse_size(value, SIZE_MAX, &u) != 0 || u == 0) {
            spec_why(why, why_len, "loom_filter: residual_max '%.*s' is not "
                     "a size of at least 1 byte; accepted: digits with an "
                     "optional K, M or G suffix, such as 1G",
                     spec_len(value), value.begin);
            return LOOM_ERR_INVALID_PARAM;
        }
        spec->residual_max = (size_t)u;
        break;
    case SPEC_OPT_EVERY:
        if (spec_parse_size(value, LOOM_FILTER_EVERY_MAX, &u) != 0 || u == 0) {
            spec_why(why, why_len, "loom_filter: every '%.*s' is not a "
                     "number of calls in 1 .. %u", spec_len(value),
                     value.begin, LOOM_FILTER_EVERY_MAX);
            return LOOM_ERR_INVALID_PARAM;
        }
        spec->every = (unsigned)u;
        break;
    case SPEC_OPT_EXCHANGE:
        for (e = 0; e < LOOM_FILTER_EXCHANGE_COUNT; e++) {
            if (spec_equals(value, loom_filter_exchange_names[e])) {
                break;
            }
        }
        if (e == LOOM_FILTER_EXCHANGE_COUNT) {
            spec_why(why, why_len, "loom_filter: exchange '%.*s' is not one of "
                     "auto, allgather, merge, split", spec_len(value), value.begin);
            return LOOM_ERR_INVALID_PARAM;
        }
        spec->exchange = e;
        break;
    case SPEC_OPT_COUNT:
        break;
    }
    return LOOM_OK;
}

void loom_filter_spec_set_dense(loom_filter_spec_t *spec)
{
    spec->enabled = 0;
    spec->density = 1.0;
    spec->warmup = 0;
    spec->min_bytes = LOOM_FILTER_MIN_BYTES_DEFAULT;
    spec->momentum = 0.0;
    spec->exact_max = LOOM_FILTER_EXACT_MAX_DEFAULT;
    spec->residual_max = LOOM_FILTER_RESIDUAL_MAX_DEFAULT;
    spec->every = LOOM_FILTER_EVERY_DEFAULT;
    spec->exchange = LOOM_FILTER_EXCHANGE_AUTO;
}

loom_status_t loom_filter_spec_parse(const char *text,
                                     loom_filter_spec_t *spec_p,
                                     char *why, size_t why_len)
{
    static const char topk[] = "topk:";
    int seen[SPEC_OPT_COUNT] = { 0 };
    loom_filter_spec_t spec;
    spec_range_t all, token;
    const char *comma;
    loom_status_t status;

    if (text == NULL) {
        text = "";
    }
    loom_filter_spec_set_dense(&spec);
    all = spec_trim((spec_range_t){ text, text + strlen(text) });
    if (all.begin == all.end || spec_equals(all, "none") ||
        spec_equals(all, "dense")) {
        *spec_p = spec;
        return LOOM_OK;
    }
    if ((size_t)(all.end - all.begin) < sizeof(topk) - 1 ||
        memcmp(all.begin, topk, sizeof(topk) - 1) != 0) {
        comma = memchr(all.begin, ',', (size_t)(all.end - all.begin));
        token = spec_trim((spec_range_t){ all.begin,
                                          comma != NULL ? comma : all.end });
        spec_why(why, why_len, "loom_filter: unknown filter '%.*s'; "
                 "accepted: topk:DENSITY[,options], none, dense",
                 spec_len(token), token.begin);
        return LOOM_ERR_INVALID_PARAM;
    }

    all.begin += sizeof(topk) - 1;
    comma = memchr(all.begin, ',', (size_t)(all.end - all.begin));
    token = spec_trim((spec_range_t){ all.begin,
                                      comma != NULL ? comma : all.end });
    status = spec_parse_density(token, &spec.density, why, why_len);
    if (status != LOOM_OK) {
        return status;
    }
    while (comma != NULL) {
        all.begin = comma + 1;
        comma = memchr(all.begin, ',', (size_t)(all.end - all.begin));
        token = spec_trim((spec_range_t){ all.begin,
                                          comma != NULL ? comma : all.end });
        if (token.begin == token.end) {
            spec_why(why, why_len, "loom_filter: empty option after ','; "
                     "accepted: " SPEC_OPTIONS_ACCEPTED);
            return LOOM_ERR_INVALID_PARAM;
        }
        status = spec_parse_option(token, &spec, seen, why, why_len);
        if (status != LOOM_OK) {
            return status;
        }
    }
    spec.enabled = 1;
    *spec_p = spec;
    return LOOM_OK;
}

int loom_filter_spec_format(const loom_filter_spec_t *spec, char *buf,
                            size_t len)
{
    if (!spec->enabled) {
        return snprintf(buf, len, "none");
    }
    return snprintf(buf, len, "topk:%.17g,warmup=%u,min_bytes=%zu,"
                    "momentum=%.17g,exact_max=%zu,residual_max=%zu,every=%u,"
                    "exchange=%s",
                    spec->density, spec->warmup, spec->min_bytes,
                    spec->momentum, spec->exact_max, spec->residual_max,
                    spec->every, loom_filter_exchange_names[spec->exchange]);
}
