#include "coll/core/select/rules.h"
#include "coll/core/select/coll_config.h"
#include "coll/core/select/collective.h"
#include "common/log.h"

#include <ctype.h>
#include <errno.h>
#include <limits.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <xxhash.h>

#define LOOM_RULES_VERSION_LATEST 2

/* The words a line may start with, and the collective each names: the v
 * variants share their collective's selection, so they share its rules.
 * "cost" (v2) starts a line of cost constants. */
static const char *const loom_line_words[] = {
    "allreduce", "bcast", "reduce", "allgather", "allgatherv", "reduce_scatter",
    "reduce_scatter_block", "cost", NULL,
};
#define LOOM_WORD_COST 7

static const loom_coll_kind_t loom_line_kind[] = {
    LOOM_COLL_ALLREDUCE, LOOM_COLL_BCAST, LOOM_COLL_REDUCE, LOOM_COLL_ALLGATHER,
    LOOM_COLL_ALLGATHER, LOOM_COLL_REDUCE_SCATTER, LOOM_COLL_REDUCE_SCATTER,
};

/* Cost constants: names as in the coll_loom_cost_<name> settings, with
 * the same bounds. */
static const char *const loom_cost_words[] = { "alpha_ns", "bandwidth_mbs", "reduce_mbs", NULL };
static const int loom_cost_min[] = { 0, 1, 1 };
#define LOOM_COST_MAX 100000000

typedef struct loom_cursor {
    const char  *text, *p;
    const char  *origin;
    int         by_line;    /* report line:column (files) or a position */
    int         version;    /* of the grammar the text declares */
} loom_cursor_t;

static void loom_skip_blanks(loom_cursor_t *c)
{
    for (;;) {
        while (*c->p == ' ' || *c->p == '\t' || *c->p == '\r') {
            ++c->p;
        }
        if (*c->p != '#') {
            return;
        }
        while (*c->p != '\0' && *c->p != '\n') {
            ++c->p;
        }
    }
}

/* "what was expected" at the cursor, with the valid words when given. */
static loom_status_t loom_rules_error(const loom_cursor_t *c, const char *expected,
                                      const char *const *words)
{
    char where[64], valid[512] = "", got[24];
    const char *line = c->text, *s;
    size_t used = 0;
    int lineno = 1, i, n;

    for (s = c->text; s < c->p; ++s) {
        if (*s == '\n') {
            ++lineno;
            line = s + 1;
        }
    }
    if (c->by_line) {
        snprintf(where, sizeof(where), "line %d, column %d", lineno, (int)(c->p - line) + 1);
    } else {
        snprintf(where, sizeof(where), "position %d", (int)(c->p - c->text) + 1);
    }
    for (i = 0; words != NULL && words[i] != NULL; ++i) {
        n = snprintf(valid + used, sizeof(valid) - used, "%s%s", i ? ", " : " (one of: ",
                     words[i]);
        used += n > 0 && (size_t)n < sizeof(valid) - used ? (size_t)n : 0;
    }
    if (words != NULL && used + 1 < sizeof(valid)) {
        strcat(valid, ")");
    }
    for (i = 0; i < (int)sizeof(got) - 1 && c->p[i] != '\0' && c->p[i] != '\n' &&
                c->p[i] != ';'; ++i) {
        got[i] = c->p[i];
    }
    got[i] = '\0';
    loom_error("coll", "%s, %s: expected %s%s, found '%s'; the rules are ignored and Loom "
               "keeps its defaults", c->origin, where, expected, valid,
               i ? got : "end of rule");
    return LOOM_ERR_INVALID_PARAM;
}

static int loom_accept(loom_cursor_t *c, const char *word)
{
    size_t n = strlen(word);

    loom_skip_blanks(c);
    if (strncmp(c->p, word, n) == 0) {
        c->p += n;
        return 1;
    }
    return 0;
}

/* A word made of [a-z0-9_] looked up in names (NULL-terminated). */
static int loom_expect_word(loom_cursor_t *c, const char *const *names, int *index_p)
{
    size_t n = 0;
    int i;

    loom_skip_blanks(c);
    while (isalnum((unsigned char)c->p[n]) || c->p[n] == '_') {
        ++n;
    }
    for (i = 0; n > 0 && names[i] != NULL; ++i) {
        if (strlen(names[i]) == n && strncmp(names[i], c->p, n) == 0) {
            c->p += n;
            *index_p = i;
            return 1;
        }
    }
    return 0;
}

/* digits with an optional K, M or G; "inf" when allow_inf. */
static int loom_expect_number(loom_cursor_t *c, int allow_inf, unsigned long long limit,
                              unsigned long long *value_p)
{
    unsigned long long v, mult = 1;
    char *end;

    loom_skip_blanks(c);
    if (allow_inf && strncmp(c->p, "inf", 3) == 0) {
        c->p += 3;
        *value_p = ULLONG_MAX;
        return 1;
    }
    if (!isdigit((unsigned char)*c->p)) {
        return 0;
    }
    errno = 0;
    v = strtoull(c->p, &end, 10);
    switch (*end) {
    case 'K': case 'k': mult = 1ull << 10; ++end; break;
    case 'M': case 'm': mult = 1ull << 20; ++end; break;
    case 'G': case 'g': mult = 1ull << 30; ++end; break;
    default: break;
    }
    if (errno != 0 || v > limit / mult) {
        return 0;
    }
    c->p = end;
    *value_p = v * mult;
    return 1;
}

/* cost:name=value{:name=value}, after the word "cost".  Each constant
 * at most once, so that a text never says two things. */
static loom_status_t loom_parse_cost(loom_cursor_t *c, loom_rules_cost_t *cost)
{
    int *field[] = { &cost->alpha_ns, &cost->bandwidth_mbs, &cost->reduce_mbs };
    unsigned long long v;
    const char *start;
    char *end;
    int k;

    if (!loom_accept(c, ":")) {
        return loom_rules_error(c, "':' after cost", NULL);
    }
    do {
        loom_skip_blanks(c);
        start = c->p;
        if (!loom_expect_word(c, loom_cost_words, &k)) {
            return loom_rules_error(c, "a cost constant", loom_cost_words);
        }
        if (*field[k] >= 0) {
            c->p = start;
            return loom_rules_error(c, "each cost constant once", NULL);
        }
        if (!loom_accept(c, "=")) {
            return loom_rules_error(c, "'=' after the constant's name", NULL);
        }
        loom_skip_blanks(c);
        errno = 0;
        v = isdigit((unsigned char)*c->p) ? strtoull(c->p, &end, 10) : ULLONG_MAX;
        if (v == ULLONG_MAX || errno != 0 || v < (unsigned long long)loom_cost_min[k] ||
            v > LOOM_COST_MAX || isalnum((unsigned char)*end)) {
            return loom_rules_error(c, k == 0 ? "a whole number of nanoseconds, 0 to 100000000"
                                              : "a whole number of MB/s, 1 to 100000000", NULL);
        }
        c->p = end;
        *field[k] = (int)v;
    } while (loom_accept(c, ":"));
    return LOOM_OK;
}

static loom_status_t loom_parse_rule(loom_cursor_t *c, int word, loom_rule_t *rule)
{
    static const char *const np_word[] = { "np=", NULL };
    unsigned long long lo, hi;
    const char *start;
    int alg;

    *rule = (loom_rule_t){ .max_bytes = SIZE_MAX, .min_ranks = 1, .max_ranks = INT_MAX };
    rule->coll = loom_line_kind[word];
    if (!loom_accept(c, ":")) {
        return loom_rules_error(c, "':' after the collective", NULL);
    }
    loom_skip_blanks(c);
    start = c->p;  /* errors point at the start of the range */
    if (!loom_expect_number(c, 0, SIZE_MAX, &lo) || !loom_accept(c, "-") ||
        !loom_expect_number(c, 1, SIZE_MAX, &hi) || hi <= lo) {
        c->p = start;
        return loom_rules_error(c, "a byte range lo-hi with lo < hi (e.g. 0-64K, 1M-inf)",
                                NULL);
    }
    rule->min_bytes = (size_t)lo;
    rule->max_bytes = hi == ULLONG_MAX ? SIZE_MAX : (size_t)hi;
    if (!loom_accept(c, ":")) {
        return loom_rules_error(c, "':' after the byte range", NULL);
    }
    if (loom_accept(c, "np=")) {
        loom_skip_blanks(c);
        start = c->p;
        if (!loom_expect_number(c, 0, INT_MAX, &lo) || !loom_accept(c, "-") ||
            !loom_expect_number(c, 1, INT_MAX, &hi) || hi < lo || lo < 1) {
            c->p = start;
            return loom_rules_error(c, "a rank range lo-hi with 1 <= lo <= hi (e.g. 2-8)",
                                    NULL);
        }
        rule->min_ranks = (int)lo;
        rule->max_ranks = hi == ULLONG_MAX ? INT_MAX : (int)hi;
        if (!loom_accept(c, ":")) {
            return loom_rules_error(c, "':' after the rank range", NULL);
        }
    }
    if (!loom_accept(c, "@")) {
        return loom_rules_error(c, "'@' and an algorithm, or a rank range", np_word);
    }
    /* The names the collective's descriptor accepts, "auto" first. */
    if (!loom_expect_word(c, loom_collectives[rule->coll]->alg_names, &alg)) {
        return loom_rules_error(c, "an algorithm", loom_collectives[rule->coll]->alg_names);
    }
    rule->alg = alg;
    if (loom_accept(c, ":")) {
        loom_skip_blanks(c);
        start = c->p;
        if (!loom_accept(c, "seg=") || !loom_expect_number(c, 0, 1ull << 30, &lo) || lo == 0) {
            c->p = start;
            return loom_rules_error(c, "seg= and a segment size of 1 byte to 1G", NULL);
        }
        rule->seg_bytes = (size_t)lo;
    }
    return LOOM_OK;
}

/* A hash of what the rules and constants mean: the same rules written
 * differently (blanks, comments, 64K or 65536, allgatherv for allgather)
 * hash alike. */
static uint64_t loom_rules_hash(const loom_rules_t *rules)
{
    XXH3_state_t *state = XXH3_createState();
    uint64_t h, field[7];
    int i;

    if (state == NULL) {
        return 0;
    }
    XXH3_64bits_reset(state);
    field[0] = (uint64_t)(int64_t)rules->cost.alpha_ns;
    field[1] = (uint64_t)(int64_t)rules->cost.bandwidth_mbs;
    field[2] = (uint64_t)(int64_t)rules->cost.reduce_mbs;
    XXH3_64bits_update(state, field, 3 * sizeof(field[0]));
    for (i = 0; i < rules->count; ++i) {
        field[0] = rules->rule[i].coll;
        field[1] = rules->rule[i].min_bytes;
        field[2] = rules->rule[i].max_bytes;
        field[3] = (uint64_t)rules->rule[i].min_ranks;
        field[4] = (uint64_t)rules->rule[i].max_ranks;
        field[5] = (uint64_t)rules->rule[i].alg;
        field[6] = rules->rule[i].seg_bytes;
        XXH3_64bits_update(state, field, sizeof(field));
    }
    h = XXH3_64bits_digest(state);
    XXH3_freeState(state);
    return h;
}

loom_status_t loom_rules_parse(const char *text, const char *origin, loom_rules_t **rules_p)
{
    loom_cursor_t c = { .text = text, .p = text, .origin = origin,
                        .by_line = strchr(text, '\n') != NULL,
                        .version = LOOM_RULES_VERSION_LATEST };
    loom_rules_t *rules = calloc(1, sizeof(*rules));
    loom_status_t status = LOOM_OK;
    loom_rule_t *grown;
    int capacity = 0, word;

    if (rules == NULL) {
        return LOOM_ERR_NO_MEMORY;
    }
    rules->cost = (loom_rules_cost_t){ .alpha_ns = -1, .bandwidth_mbs = -1, .reduce_mbs = -1 };
    loom_skip_blanks(&c);
    while (*c.p == '\n' || *c.p == ';') {
        ++c.p;
        loom_skip_blanks(&c);
    }
    if (strncmp(c.p, "v", 1) == 0 && isdigit((unsigned char)c.p[1])) {
        static const char *const versions[] = { "v1", "v2", NULL };

        if (!loom_expect_word(&c, versions, &c.version)) {
            status = loom_rules_error(&c, "a grammar version Loom knows", versions);
            goto fail;
        }
        ++c.version;
    }
    for (;;) {
        loom_skip_blanks(&c);
        while (*c.p == '\n' || *c.p == ';') {
            ++c.p;
            loom_skip_blanks(&c);
        }
        if (*c.p == '\0') {
            break;
        }
        if (!loom_expect_word(&c, loom_line_words, &word)) {
            status = loom_rules_error(&c, c.version >= 2 ? "a collective or cost"
                                                         : "a collective", loom_line_words);
            goto fail;
        }
        if (word == LOOM_WORD_COST) {
            if (c.version < 2) {
                c.p -= strlen("cost");
                status = loom_rules_error(&c, "a collective (cost constants need the v2 "
                                          "header)", loom_line_words);
                goto fail;
            }
            status = loom_parse_cost(&c, &rules->cost);
            if (status != LOOM_OK) {
                goto fail;
            }
            goto next_line;
        }
        if (rules->count == capacity) {
            capacity = capacity ? 2 * capacity : 8;
            grown = realloc(rules->rule, sizeof(*grown) * (size_t)capacity);
            if (grown == NULL) {
                status = LOOM_ERR_NO_MEMORY;
                goto fail;
            }
            rules->rule = grown;
        }
        status = loom_parse_rule(&c, word, &rules->rule[rules->count]);
        if (status != LOOM_OK) {
            goto fail;
        }
        ++rules->count;
next_line:
        loom_skip_blanks(&c);
        if (*c.p != '\0' && *c.p != '\n' && *c.p != ';') {
            status = loom_rules_error(&c, "';' or a new line between lines", NULL);
            goto fail;
        }
    }
    rules->hash = loom_rules_hash(rules);
    *rules_p = rules;
    return LOOM_OK;

fail:
    loom_rules_destroy(rules);
    return status;
}

loom_status_t loom_rules_load(const char *path, loom_rules_t **rules_p)
{
    loom_status_t status;
    FILE *f = fopen(path, "r");
    char *text;
    long len;

    if (f == NULL) {
        loom_error("coll", "cannot open the rules file %s: %m; Loom keeps its defaults", path);
        return LOOM_ERR_NOT_FOUND;
    }
    if (fseek(f, 0, SEEK_END) != 0 || (len = ftell(f)) < 0 || len > (1 << 20) ||
        fseek(f, 0, SEEK_SET) != 0) {
        loom_error("coll", "the rules file %s is unreadable or larger than 1 MiB; Loom "
                   "keeps its defaults", path);
        fclose(f);
        return LOOM_ERR_INVALID_PARAM;
    }
    text = malloc((size_t)len + 2);
    if (text == NULL) {
        fclose(f);
        return LOOM_ERR_NO_MEMORY;
    }
    len = (long)fread(text, 1, (size_t)len, f);
    fclose(f);
    text[len] = '\n';   /* positions in a file are always line:column */
    text[len + 1] = '\0';
    status = loom_rules_parse(text, path, rules_p);
    free(text);
    return status;
}

void loom_rules_destroy(loom_rules_t *rules)
{
    if (rules != NULL) {
        free(rules->rule);
        free(rules);
    }
}

const loom_rule_t *loom_rules_match(const loom_rules_t *rules, loom_coll_kind_t coll,
                                    size_t bytes, int p)
{
    int i;

    for (i = 0; rules != NULL && i < rules->count; ++i) {
        const loom_rule_t *r = &rules->rule[i];

        if (r->coll == coll && bytes >= r->min_bytes && bytes < r->max_bytes &&
            p >= r->min_ranks && p <= r->max_ranks) {
            return r;
        }
    }
    return NULL;
}

int loom_rules_find(const loom_rules_t *rules, loom_coll_kind_t coll, size_t bytes, int p)
{
    const loom_rule_t *rule = loom_rules_match(rules, coll, bytes, p);

    return rule != NULL ? (int)(rule - rules->rule) : -1;
}

void loom_rules_apply_cost(const loom_rules_t *rules, struct loom_coll_config *cfg)
{
    if (rules == NULL) {
        return;
    }
    if (rules->cost.alpha_ns >= 0) {
        cfg->cost_alpha_ns = rules->cost.alpha_ns;
    }
    if (rules->cost.bandwidth_mbs >= 0) {
        cfg->cost_bandwidth_mbs = rules->cost.bandwidth_mbs;
    }
    if (rules->cost.reduce_mbs >= 0) {
        cfg->cost_reduce_mbs = rules->cost.reduce_mbs;
    }
}
