/*
 * Selection rules users write: which algorithm (and segment size) a
 * collective uses for a range of message sizes and, optionally, of rank
 * counts, and the cost model's constants.  One versioned grammar for the
 * coll_loom_rules string and the coll_loom_rules_file tuning file
 * (docs/rules.md):
 *
 *   rules  := [ version sep ] line { sep line }  sep: ';' or a newline
 *   version:= "v1" | "v2"                        none: the latest, v2
 *   line   := rule | cost                        cost: v2 only
 *   rule   := coll ":" range [ ":np=" ints ] ":@" alg [ ":seg=" size ]
 *   coll   := "allreduce" | "bcast" | "reduce" | "allgather" | "allgatherv"
 *           | "reduce_scatter" | "reduce_scatter_block"
 *   cost   := "cost" ":" const { ":" const }
 *   const  := ( "alpha_ns" | "bandwidth_mbs" | "reduce_mbs" ) "=" digits
 *   range  := size "-" ( size | "inf" )           bytes, lower bound included,
 *                                                 upper bound excluded
 *   ints   := int "-" ( int | "inf" )             ranks, both bounds included
 *   size   := digits [ "K" | "M" | "G" ]          powers of 1024
 *
 * e.g.  v2; cost:alpha_ns=2500:bandwidth_mbs=12000; bcast:1M-inf:@chain:seg=128K;
 *       allreduce:0-64K:@recursive_doubling; allreduce:64K-inf:np=2-8:@ring:seg=256K
 *
 * allgatherv names the same rules as allgather, reduce_scatter_block the
 * same as reduce_scatter: each pair shares one selection.  '#' starts a
 * comment that runs to the end of the line; blanks are ignored.  The
 * first rule that matches a call wins; no match leaves the choice to the
 * cost model.  A parse error names the position (or the file and line)
 * and the words that were valid there, and yields no rules and no
 * constants at all, so Loom keeps its defaults.
 */
#ifndef LOOM_RULES_H
#define LOOM_RULES_H

#include "coll/core/engine/coll_kind.h"
#include "loom/status.h"

#include <stddef.h>
#include <stdint.h>

struct loom_coll_config;


typedef struct loom_rule {
    loom_coll_kind_t    coll;
    size_t              min_bytes, max_bytes;   /* [min, max); max SIZE_MAX = inf */
    int                 min_ranks, max_ranks;   /* [min, max]; INT_MAX = inf */
    int                 alg;                    /* index into the collective's names */
    size_t              seg_bytes;              /* 0: the cost model's */
} loom_rule_t;

/* The cost model's constants a v2 text may set, in the units of the
 * coll_loom_cost_* settings; -1: not given, the setting stays. */
typedef struct loom_rules_cost {
    int alpha_ns;
    int bandwidth_mbs;
    int reduce_mbs;
} loom_rules_cost_t;

typedef struct loom_rules {
    int                 count;
    loom_rule_t         *rule;
    loom_rules_cost_t   cost;
    uint64_t            hash;   /* of the parsed rules and constants, not of the text */
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

/* The index of the first rule for coll matching bytes and p ranks, or -1;
 * for a selection to report which rule decided. */
int loom_rules_find(const loom_rules_t *rules, loom_coll_kind_t coll, size_t bytes, int p);

/* Write the constants the rules give into cfg's cost settings. */
void loom_rules_apply_cost(const loom_rules_t *rules, struct loom_coll_config *cfg);

#endif
