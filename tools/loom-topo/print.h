/* How loom-topo shows a topology: a text tree, Graphviz DOT, a drawing. */
#ifndef LOOM_TOPO_TOOL_PRINT_H
#define LOOM_TOPO_TOOL_PRINT_H

#include "topo/topo.h"

#include <stdio.h>

/* The tree: switches, racks, nodes with slots and ranks, sockets. */
void loom_topo_print_text(FILE *out, const loom_topo_t *topo, const char *source);
/* An undirected graph with each link's bandwidth on its edge. */
void loom_topo_print_dot(FILE *out, const loom_topo_t *topo);
/* Draw with Graphviz's dot into output as type ("png", "svg"); 0 done,
 * 1 failed or no dot on PATH (said on stderr), 2 an unusable file name. */
int loom_topo_render(const loom_topo_t *topo, const char *output, const char *type);

#endif
