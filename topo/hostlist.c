/* Expanding Slurm host lists (hostlist.h). */
#include "topo/hostlist.h"

#include <ctype.h>
#include <errno.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

typedef struct names {
    char   **v;
    size_t   n, cap;
} names_t;

static int name_char(char c)
{
    return isalnum((unsigned char)c) || c == '.' || c == '-' || c == '_';
}

static loom_status_t fail(char *why, size_t whylen, const char *fmt, ...)
    __attribute__((format(printf, 3, 4)));

static loom_status_t fail(char *why, size_t whylen, const char *fmt, ...)
{
    va_list ap;

    va_start(ap, fmt);
    vsnprintf(why, whylen, fmt, ap);
    va_end(ap);
    return LOOM_ERR_INVALID_PARAM;
}

static loom_status_t names_push(names_t *nm, const char *prefix, size_t plen,
                                const char *mid, const char *suffix, size_t slen)
{
    if (nm->n == nm->cap) {
        size_t ncap = nm->cap ? nm->cap * 2 : 16;
        char **p = realloc(nm->v, ncap * sizeof(*p));
        if (p == NULL) {
            return LOOM_ERR_NO_MEMORY;
        }
        nm->v = p;
        nm->cap = ncap;
    }
    size_t mlen = strlen(mid);
    char *s = malloc(plen + mlen + slen + 1);
    if (s == NULL) {
        return LOOM_ERR_NO_MEMORY;
    }
    memcpy(s, prefix, plen);
    memcpy(s + plen, mid, mlen);
    memcpy(s + plen + mlen, suffix, slen);
    s[plen + mlen + slen] = '\0';
    nm->v[nm->n++] = s;
    return LOOM_OK;
}

/* A decimal number of at most 9 digits at *p; its digit count in *width_p. */
static int read_number(const char **p, unsigned long *value_p, int *width_p)
{
    const char *s = *p;
    int w = 0;
    unsigned long v = 0;

    while (isdigit((unsigned char)s[w]) && w < 9) {
        v = v * 10 + (unsigned long)(s[w] - '0');
        w++;
    }
    if (w == 0 || isdigit((unsigned char)s[w])) {
        return 0;
    }
    *p = s + w;
    *value_p = v;
    *width_p = w;
    return 1;
}

/* One item: prefix, optionally [ranges] and a suffix; *p is left at the
 * ',' or '\0' after it. */
static loom_status_t expand_item(const char *expr, const char **p, names_t *nm,
                                 char *why, size_t whylen)
{
    const char *start = *p, *s = *p;

    while (name_char(*s)) {
        s++;
    }
    const char *prefix = start;
    size_t plen = (size_t)(s - start);
    if (*s != '[') {
        if (plen == 0) {
            return *s == ',' || *s == '\0'
                ? fail(why, whylen, "expected a host name at column %zu of '%s', found %s",
                       (size_t)(s - expr) + 1, expr, *s == ',' ? "','" : "the end")
                : fail(why, whylen, "unexpected character '%c' at column %zu of '%s'; "
                       "host names use letters, digits, '.', '-' and '_', with one "
                       "[ranges] group such as node[0-3,7]",
                       *s, (size_t)(s - expr) + 1, expr);
        }
        if (*s != ',' && *s != '\0') {
            return fail(why, whylen, "unexpected character '%c' at column %zu of '%s'; "
                        "host names use letters, digits, '.', '-' and '_', with one "
                        "[ranges] group such as node[0-3,7]",
                        *s, (size_t)(s - expr) + 1, expr);
        }
        *p = s;
        return names_push(nm, prefix, plen, "", "", 0);
    }
    /* The suffix comes after the closing bracket. */
    const char *open = s;
    const char *close = strchr(open, ']');
    if (close == NULL) {
        return fail(why, whylen, "expected ']' to close the '[' at column %zu of '%s'",
                    (size_t)(open - expr) + 1, expr);
    }
    const char *suffix = close + 1, *e = suffix;
    while (name_char(*e)) {
        e++;
    }
    if (*e == '[') {
        return fail(why, whylen, "only one [ranges] group per host name is accepted, "
                    "found a second '[' at column %zu of '%s'", (size_t)(e - expr) + 1, expr);
    }
    if (*e != ',' && *e != '\0') {
        return fail(why, whylen, "unexpected character '%c' at column %zu of '%s'; "
                    "expected ',' or the end after the host name", *e,
                    (size_t)(e - expr) + 1, expr);
    }
    size_t slen = (size_t)(e - suffix);
    s = open + 1;
    while (s < close) {
        unsigned long lo, hi;
        int wlo, whi;
        const char *at = s;
        if (!read_number(&s, &lo, &wlo)) {
            return fail(why, whylen, "expected a number or a range such as 0-3 inside [] "
                        "at column %zu of '%s', found '%.*s'", (size_t)(at - expr) + 1,
                        expr, (int)(close - at), at);
        }
        hi = lo;
        if (*s == '-') {
            s++;
            at = s;
            if (!read_number(&s, &hi, &whi)) {
                return fail(why, whylen, "expected a number after '-' at column %zu of '%s'",
                            (size_t)(at - expr) + 1, expr);
            }
            if (hi < lo) {
                return fail(why, whylen, "range %lu-%lu in '%s' goes down; expected LOW-HIGH "
                            "with LOW <= HIGH", lo, hi, expr);
            }
        }
        if (s < close && *s != ',') {
            return fail(why, whylen, "expected ',' or ']' at column %zu of '%s', found '%c'",
                        (size_t)(s - expr) + 1, expr, *s);
        }
        if (*s == ',') {
            s++;
            if (s == close) {
                return fail(why, whylen, "expected a number after ',' at column %zu of '%s'",
                            (size_t)(s - expr) + 1, expr);
            }
        }
        if (hi - lo + 1 > LOOM_HOSTLIST_MAX - nm->n) {
            return fail(why, whylen, "'%s' names more than %d hosts; expected a smaller range",
                        expr, LOOM_HOSTLIST_MAX);
        }
        for (unsigned long v = lo; v <= hi; v++) {
            char mid[16];
            snprintf(mid, sizeof(mid), "%0*lu", wlo, v);
            loom_status_t st = names_push(nm, prefix, plen, mid, suffix, slen);
            if (st != LOOM_OK) {
                return st;
            }
        }
    }
    if (close == open + 1) {
        return fail(why, whylen, "expected a number or a range such as 0-3 inside the "
                    "[] at column %zu of '%s'", (size_t)(open - expr) + 1, expr);
    }
    *p = e;
    return LOOM_OK;
}

loom_status_t loom_hostlist_expand(const char *expr, char ***names_p, size_t *count_p,
                                   char *why, size_t whylen)
{
    names_t nm = { 0 };
    const char *p = expr;
    loom_status_t st;

    for (;;) {
        st = expand_item(expr, &p, &nm, why, whylen);
        if (st != LOOM_OK) {
            loom_hostlist_free(nm.v, nm.n);
            return st;
        }
        if (*p == '\0') {
            break;
        }
        p++;   /* the ',' between items */
    }
    *names_p = nm.v;
    *count_p = nm.n;
    return LOOM_OK;
}

void loom_hostlist_free(char **names, size_t count)
{
    for (size_t i = 0; i < count; i++) {
        free(names[i]);
    }
    free(names);
}
