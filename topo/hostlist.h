/*
 * Slurm host lists: "node[0-3,7],gpu[01-02],login" names node0, node1,
 * node2, node3, node7, gpu01, gpu02 and login.  A number range keeps the
 * width of its first number ("[01-10]" gives 01 ... 10).  One [] group per
 * name; Slurm's multi-dimensional forms are refused with a message.
 */
#ifndef LOOM_TOPO_HOSTLIST_H
#define LOOM_TOPO_HOSTLIST_H

#include "loom/status.h"

#include <stddef.h>

/* More than this many names is taken for a typo (node[0-9999999]). */
#define LOOM_HOSTLIST_MAX 100000

/* Expand expr into *names_p (count in *count_p; free with
 * loom_hostlist_free).  On LOOM_ERR_INVALID_PARAM, why (of whylen bytes)
 * says what was expected and where, and nothing is handed out. */
loom_status_t loom_hostlist_expand(const char *expr, char ***names_p, size_t *count_p,
                                   char *why, size_t whylen);
void loom_hostlist_free(char **names, size_t count);

#endif
