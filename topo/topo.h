/*
 * The topology model: where each rank runs (node, NUMA node, socket) and
 * how nodes hang off switches (racks, spines).
 *
 * A topology comes from a file (topo_load.c: a Slurm topology.conf or a
 * Loom topology file in JSON), can be dumped back to JSON, and answers one
 * question the algorithms need: over which level of the network do two
 * ranks talk?  Three levels are modeled, from fastest to slowest:
 *
 *   node   both ranks on one node (shared memory)
 *   rack   different nodes under one leaf switch
 *   spine  different leaf switches: the traffic crosses a rack uplink
 *
 * Slurm trees deeper than two switch levels are kept (the map shows them)
 * but any path that leaves a rack counts as "spine".  Nodes under no
 * switch at all are taken to share one implicit rack: a flat cluster.
 *
 * No MPI here (docs/LAYERS.md): the adapter tells the model which node
 * each rank is on.
 */
#ifndef LOOM_TOPO_H
#define LOOM_TOPO_H

#include "loom/status.h"

#include <stddef.h>
#include <stdio.h>

/* An index that points nowhere: a root switch's parent, a node's switch
 * when the file names none. */
#define LOOM_TOPO_NONE ((size_t)-1)

typedef enum loom_topo_level {
    LOOM_TOPO_LEVEL_NODE = 0,
    LOOM_TOPO_LEVEL_RACK,
    LOOM_TOPO_LEVEL_SPINE,
    LOOM_TOPO_LEVEL_COUNT
} loom_topo_level_t;

/* "node", "rack", "spine", NULL-terminated: the keys of the JSON file's
 * "links" object and the words loom-topo prints. */
extern const char *const loom_topo_level_names[];

/* One level's link; 0 means not given. */
typedef struct loom_topo_link {
    double bandwidth_gbps;   /* per direction, Gbit/s */
    double latency_us;
} loom_topo_link_t;

typedef struct loom_topo_switch {
    char   *name;
    size_t  parent;          /* switch index, or LOOM_TOPO_NONE for a root */
} loom_topo_switch_t;

typedef struct loom_topo_node {
    char     *name;
    size_t    sw;            /* the leaf switch (rack), or LOOM_TOPO_NONE */
    unsigned  slots;         /* ranks it can hold; 0: not given */
} loom_topo_node_t;

typedef struct loom_topo_rank {
    size_t node;
    int    numa;             /* hwloc logical index; -1: not known */
    int    socket;           /* hwloc logical index of the package; -1: not known */
} loom_topo_rank_t;

typedef struct loom_topo {
    loom_topo_switch_t *switches;
    size_t              nswitches, switches_cap;
    loom_topo_node_t   *nodes;
    size_t              nnodes, nodes_cap;
    loom_topo_rank_t   *ranks;       /* indexed by rank */
    size_t              nranks, ranks_cap;
    loom_topo_link_t    links[LOOM_TOPO_LEVEL_COUNT];
} loom_topo_t;

/* What went wrong in a file: "<file>:<line>: <what was expected>, found
 * <what>".  line is 0 when the error is not about one line (a JSON
 * structure error names the JSON path instead). */
typedef struct loom_topo_error {
    unsigned line;
    char     msg[512];
} loom_topo_error_t;

loom_status_t loom_topo_create(loom_topo_t **topo_p);
void loom_topo_destroy(loom_topo_t *topo);

/* Adding names that already exist is the caller's error to report; these
 * only append.  *index_p may be NULL. */
loom_status_t loom_topo_switch_add(loom_topo_t *topo, const char *name, size_t *index_p);
loom_status_t loom_topo_node_add(loom_topo_t *topo, const char *name, size_t *index_p);
loom_status_t loom_topo_rank_add(loom_topo_t *topo, size_t node, int numa, int socket);

/* Index by name, or LOOM_TOPO_NONE. */
size_t loom_topo_switch_find(const loom_topo_t *topo, const char *name);
size_t loom_topo_node_find(const loom_topo_t *topo, const char *name);

loom_topo_level_t loom_topo_node_level(const loom_topo_t *topo, size_t a, size_t b);
loom_topo_level_t loom_topo_rank_level(const loom_topo_t *topo, size_t a, size_t b);

/* Number of distinct racks (leaf switches holding nodes, plus the
 * implicit one when some node has no switch). */
size_t loom_topo_rack_count(const loom_topo_t *topo);

/* Same switches, nodes, ranks and links, in the same order. */
int loom_topo_equal(const loom_topo_t *a, const loom_topo_t *b);

/* Read a topology file: JSON when its first non-blank character is '{',
 * a Slurm topology.conf otherwise.  On error *topo_p is untouched, err
 * says what was wrong, and the caller runs flat. */
loom_status_t loom_topo_load(const char *path, loom_topo_t **topo_p,
                             loom_topo_error_t *err);
/* The same from text in memory; name stands for the file in messages. */
loom_status_t loom_topo_parse(const char *text, const char *name,
                              loom_topo_t **topo_p, loom_topo_error_t *err);
loom_status_t loom_topo_parse_slurm(const char *text, const char *name,
                                    loom_topo_t **topo_p, loom_topo_error_t *err);
loom_status_t loom_topo_parse_json(const char *text, const char *name,
                                   loom_topo_t **topo_p, loom_topo_error_t *err);

/* The Loom JSON form of topo, which loom_topo_parse_json reads back equal. */
loom_status_t loom_topo_dump_json(const loom_topo_t *topo, FILE *out);

/* The NUMA node and socket (hwloc logical indexes) of the core the
 * calling thread last ran on; -1 where hwloc cannot tell. */
loom_status_t loom_topo_local_place(int *numa_p, int *socket_p);

/* Record an error; used by the parsers. */
void loom_topo_error_set(loom_topo_error_t *err, const char *name, unsigned line,
                         const char *fmt, ...) __attribute__((format(printf, 4, 5)));

#endif
