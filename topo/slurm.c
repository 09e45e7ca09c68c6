/*
 * Slurm's topology.conf (the tree plugin's format):
 *
 *   # comment
 *   SwitchName=s0 Nodes=node[0-3]
 *   SwitchName=s1 Nodes=node[4-6] LinkSpeed=100
 *   SwitchName=spine Switches=s[0-1]
 *
 * Keys are case-insensitive as in Slurm.  A line declares one switch with
 * either the nodes below it (a leaf: a rack) or the switches below it.
 * LinkSpeed is accepted and ignored: Slurm gives it no unit; link
 * bandwidths belong in a Loom topology file (JSON).  Switches may be
 * named before they are declared, so the lines are read first and the
 * tree is built in a second pass.
 */
#include "topo/build.h"

#include <ctype.h>
#include <stdlib.h>
#include <string.h>
#include <strings.h>

typedef struct slurm_line {
    unsigned  line;
    char     *name, *nodes, *switches;   /* point into the copy of the text */
} slurm_line_t;

static const char *const slurm_keys = "SwitchName=, Nodes=, Switches= or LinkSpeed=";

/* Read the KEY=VALUE words of one line (s is the line, NUL-terminated). */
static loom_status_t parse_line(char *s, slurm_line_t *out, const topo_where_t *where)
{
    char *linkspeed = NULL;

    for (;;) {
        while (isspace((unsigned char)*s)) {
            s++;
        }
        if (*s == '\0') {
            break;
        }
        char *word = s;
        while (*s != '\0' && !isspace((unsigned char)*s)) {
            s++;
        }
        if (*s != '\0') {
            *s++ = '\0';
        }
        char *eq = strchr(word, '=');
        if (eq == NULL) {
            return topo_where_fail(where, "expected KEY=VALUE (%s), found '%s'",
                                   slurm_keys, word);
        }
        *eq = '\0';
        char *value = eq + 1, **slot;
        if (strcasecmp(word, "SwitchName") == 0) {
            slot = &out->name;
        } else if (strcasecmp(word, "Nodes") == 0) {
            slot = &out->nodes;
        } else if (strcasecmp(word, "Switches") == 0) {
            slot = &out->switches;
        } else if (strcasecmp(word, "LinkSpeed") == 0) {
            slot = &linkspeed;
        } else {
            return topo_where_fail(where, "unknown key '%s'; expected %s", word, slurm_keys);
        }
        if (*value == '\0') {
            return topo_where_fail(where, "expected a value after '%s='", word);
        }
        if (*slot != NULL) {
            return topo_where_fail(where, "'%s=' is given twice; expected it once per line",
                                   word);
        }
        *slot = value;
    }
    if (out->name == NULL) {
        return topo_where_fail(where, "expected SwitchName= on every line that is not "
                               "blank or a comment");
    }
    for (const char *c = out->name; *c != '\0'; c++) {
        if (!isalnum((unsigned char)*c) && *c != '.' && *c != '-' && *c != '_') {
            return topo_where_fail(where, "switch name '%s' has the character '%c'; "
                                   "expected letters, digits, '.', '-' and '_'",
                                   out->name, *c);
        }
    }
    if (out->nodes != NULL && out->switches != NULL) {
        return topo_where_fail(where, "switch '%s' has both Nodes= and Switches=; "
                               "expected one of them", out->name);
    }
    return LOOM_OK;
}

loom_status_t loom_topo_parse_slurm(const char *text, const char *name,
                                    loom_topo_t **topo_p, loom_topo_error_t *err)
{
    char *copy = strdup(text);
    slurm_line_t *lines = NULL;
    size_t nlines = 0, cap = 0;
    loom_topo_t *topo = NULL;
    topo_where_t where = { .file = name, .err = err };
    loom_status_t st = LOOM_OK;

    if (copy == NULL) {
        return LOOM_ERR_NO_MEMORY;
    }
    char *s = copy;
    for (unsigned lineno = 1; s != NULL && st == LOOM_OK; lineno++) {
        char *next = strchr(s, '\n');
        if (next != NULL) {
            *next++ = '\0';
        }
        char *hash = strchr(s, '#');
        if (hash != NULL) {
            *hash = '\0';
        }
        char *t = s;
        while (isspace((unsigned char)*t)) {
            t++;
        }
        s = next;
        if (*t == '\0') {
            continue;
        }
        if (nlines == cap) {
            cap = cap ? cap * 2 : 16;
            slurm_line_t *p = realloc(lines, cap * sizeof(*p));
            if (p == NULL) {
                st = LOOM_ERR_NO_MEMORY;
                break;
            }
            lines = p;
        }
        where.line = lineno;
        lines[nlines] = (slurm_line_t){ .line = lineno };
        st = parse_line(t, &lines[nlines], &where);
        nlines++;
    }
    if (st == LOOM_OK && nlines == 0) {
        where.line = 0;
        st = topo_where_fail(&where, "no switches; expected lines such as "
                             "'SwitchName=s0 Nodes=node[0-3]'");
    }
    if (st == LOOM_OK) {
        st = loom_topo_create(&topo);
    }
    for (size_t i = 0; st == LOOM_OK && i < nlines; i++) {
        where.line = lines[i].line;
        st = topo_build_switch(topo, lines[i].name, &where);
    }
    /* Switch i is the switch of line i: declared in line order above. */
    for (size_t i = 0; st == LOOM_OK && i < nlines; i++) {
        where.line = lines[i].line;
        if (lines[i].nodes != NULL) {
            st = topo_build_nodes(topo, i, lines[i].nodes, &where);
        } else if (lines[i].switches != NULL) {
            st = topo_build_children(topo, i, lines[i].switches, &where);
        }
    }
    free(lines);
    free(copy);
    if (st != LOOM_OK) {
        loom_topo_destroy(topo);
        return st;
    }
    *topo_p = topo;
    return LOOM_OK;
}
