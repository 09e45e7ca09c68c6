/*
 * Selection rules users write: which algorithm (and segment size) a
 * collective uses for a range of message sizes and, optionally, of rank
 * counts.  One grammar, version 1, for the coll_loom_rules string and the
 * coll_loom_rules_file tuning file (docs/rules.md):
 *
 *   rules  := [ "v1" sep ] rule { sep rule }      sep: ';' or a newline
 *   rule   := coll ":" range [ ":np=" ints ] ":@" alg [ ":seg=" size ]
 *   range  := size "-" ( size | "inf" )           bytes, lower bound included,
 *                                                 upper bound excluded
 *   ints   := int "-" ( int | "inf" )             ranks, both bounds included
 *   size   := digits [ "K" | "M" | "G" ]          powers of 1024
 *
 * e.g.  v1; allreduce:0-64K:@recursive_doubling; allreduce:64K-inf:np=2-8:@ring:seg=256K
 *
 * '#' starts a comment that runs to the end of the line; blanks are
 * ignored.  The first rule that matches a call wins; no match leaves the
 * choice to the cost model.  A parse error names the position (or the file
 * and line) and the words that were valid there, and yields no rules at
 * all, so Loom keeps its defaults.
 */
#ifndef LOOM_RULES_H
#define LOOM_RULES_H

#include "loom/status.h"

#include <stddef.h>
#include <stdint.h>

/* The collectives rules can name; value types of the engine's collectives. */
typedef enum loom_coll_kind {
    LOOM_COLL_ALLREDUCE = 0,
    LOOM_COLL_KIND_COUNT
} loom_coll_kind_t;

typedef struct loom_rule {
    loom_coll_kind_t    coll;
    size_t              min_bytes, max_bytes;   /* [min, max); max SIZE_MAX = inf */
    int                 min_ranks, max_ranks;   /* [min, max]; INT_MAX = inf */
    int                 alg;                    /* index into the collective's names */
    size_t              seg_bytes;              /* 0: the cost model's */
} loom_rule_t;

typedef struct loom_rules {
    int             count;
    loom_rule_t     *rule;
    uint64_t        hash;   /* of the parsed rules, not of the text */
} loom_rules_t;

/* Parse text; origin names it in errors (e.g. "coll_loom_rules", or a file
 * path: then positions are given as line:column). */
loom_status_t loom_rules_parse(const char *text, const char *origin, loom_rules_t **rules_p);

/* Read and parse a tuning file. */
loom_status_t loom_rules_load(const char *path, loom_rules_t **rules_p);

void loom_rules_destroy(loom_rules_t *rules);

/* The first rule for coll matching bytes and p ranks, or NULL. */
const loom_rule_t *loom_rules_match(const loom_rules_t *rules, loom_coll_kind_t coll,
                                    size_t bytes, int p);

#endif
