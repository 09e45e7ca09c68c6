/* Declarations to a topology tree, with the checks (build.h). */
#include "topo/build.h"
#include "topo/hostlist.h"

#include <stdarg.h>
#include <stdio.h>
#include <string.h>

loom_status_t topo_where_fail(const topo_where_t *where, const char *fmt, ...)
{
    char text[400];
    va_list ap;

    va_start(ap, fmt);
    vsnprintf(text, sizeof(text), fmt, ap);
    va_end(ap);
    if (where->path != NULL) {
        loom_topo_error_set(where->err, where->file, where->line, "%s: %s", where->path, text);
    } else {
        loom_topo_error_set(where->err, where->file, where->line, "%s", text);
    }
    return LOOM_ERR_INVALID_PARAM;
}

loom_status_t topo_build_switch(loom_topo_t *topo, const char *name,
                                const topo_where_t *where)
{
    if (loom_topo_switch_find(topo, name) != LOOM_TOPO_NONE) {
        return topo_where_fail(where, "switch '%s' is declared twice; expected each "
                               "switch name once", name);
    }
    return loom_topo_switch_add(topo, name, NULL);
}

static loom_status_t expand(const char *expr, const topo_where_t *where,
                            char ***names_p, size_t *count_p)
{
    char why[300];
    loom_status_t st = loom_hostlist_expand(expr, names_p, count_p, why, sizeof(why));

    if (st == LOOM_ERR_INVALID_PARAM) {
        return topo_where_fail(where, "%s", why);
    }
    return st;
}

loom_status_t topo_build_nodes(loom_topo_t *topo, size_t sw, const char *expr,
                               const topo_where_t *where)
{
    char **names = NULL;
    size_t count = 0;
    loom_status_t st = expand(expr, where, &names, &count);

    for (size_t i = 0; st == LOOM_OK && i < count; i++) {
        size_t n = loom_topo_node_find(topo, names[i]);
        if (n == LOOM_TOPO_NONE) {
            st = loom_topo_node_add(topo, names[i], &n);
        } else if (sw == LOOM_TOPO_NONE) {
            st = topo_where_fail(where, "node '%s' is listed twice; expected each node "
                                 "once", names[i]);
        } else if (topo->nodes[n].sw != LOOM_TOPO_NONE) {
            st = topo_where_fail(where, "node '%s' is already under switch '%s'; expected "
                                 "each node under one switch", names[i],
                                 topo->switches[topo->nodes[n].sw].name);
        }
        if (st == LOOM_OK) {
            topo->nodes[n].sw = sw;
        }
    }
    loom_hostlist_free(names, count);
    return st;
}

loom_status_t topo_build_children(loom_topo_t *topo, size_t sw, const char *expr,
                                  const topo_where_t *where)
{
    char **names = NULL;
    size_t count = 0;
    loom_status_t st = expand(expr, where, &names, &count);

    for (size_t i = 0; st == LOOM_OK && i < count; i++) {
        size_t c = loom_topo_switch_find(topo, names[i]);
        if (c == LOOM_TOPO_NONE) {
            st = topo_where_fail(where, "switch '%s' is not declared; expected the name "
                                 "of a switch the file declares", names[i]);
            break;
        }
        if (topo->switches[c].parent != LOOM_TOPO_NONE) {
            st = topo_where_fail(where, "switch '%s' is already under switch '%s'; "
                                 "expected each switch under one parent", names[i],
                                 topo->switches[topo->switches[c].parent].name);
            break;
        }
        /* The new edge c -> sw closes a cycle if c is sw or above it. */
        for (size_t a = sw; a != LOOM_TOPO_NONE; a = topo->switches[a].parent) {
            if (a == c) {
                st = topo_where_fail(where, "switch '%s' would be above itself; expected "
                                     "switches to form a tree", names[i]);
                break;
            }
        }
        if (st == LOOM_OK) {
            topo->switches[c].parent = sw;
        }
    }
    loom_hostlist_free(names, count);
    return st;
}
