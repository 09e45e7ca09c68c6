/*
 * The steps both file parsers share to turn declarations into a model:
 * a switch is declared once, then nodes and child switches are attached
 * to it.  Each step checks what makes a tree (a node under one switch, a
 * switch under one parent, no cycles) and reports a violation at the place
 * given: a line of topology.conf, or a JSON path.
 */
#ifndef LOOM_TOPO_BUILD_H
#define LOOM_TOPO_BUILD_H

#include "topo/topo.h"

typedef struct topo_where {
    const char        *file;
    unsigned           line;   /* topology.conf line, or 0 */
    const char        *path;   /* JSON path such as "switches[2].nodes", or NULL */
    loom_topo_error_t *err;
} topo_where_t;

/* Report an error at where (the file, the line or JSON path, the text). */
loom_status_t topo_where_fail(const topo_where_t *where, const char *fmt, ...)
    __attribute__((format(printf, 2, 3)));

loom_status_t topo_build_switch(loom_topo_t *topo, const char *name,
                                const topo_where_t *where);
/* Attach every name of the host list expr (nodes, or child switches).
 * Nodes with sw LOOM_TOPO_NONE are declared under no switch (JSON "nodes"). */
loom_status_t topo_build_nodes(loom_topo_t *topo, size_t sw, const char *expr,
                               const topo_where_t *where);
loom_status_t topo_build_children(loom_topo_t *topo, size_t sw, const char *expr,
                                  const topo_where_t *where);

#endif
