/*
 * What loom-bench and loom-sim share to draw with gnuplot (Debian's
 * gnuplot-nox): which program, whether it is there, and strings quoted
 * for its scripts.  Each tool feeds its script on a pipe.
 */
#ifndef LOOM_TOOL_GNUPLOT_H
#define LOOM_TOOL_GNUPLOT_H

#include <stdio.h>

/* The gnuplot command: $env_name when set and not empty, else "gnuplot". */
const char *loom_gnuplot_program(const char *env_name);

/* 1 when the program exists (as a path, or in PATH). */
int loom_gnuplot_available(const char *program);

/* text as a gnuplot single-quoted string, where '' stands for '. */
void loom_gnuplot_quote(FILE *gp, const char *text);

/* The opening of a script that draws a PNG into path: the tools' size,
 * and plain text, so that names such as reduce_scatter_block or
 * double_binary_tree print as they are instead of with subscripts. */
void loom_gnuplot_png(FILE *gp, const char *path);

#endif
