/*
 * The engine's settings.  The table below is the single description of
 * each one: the Open MPI component registers it as MCA parameters
 * (coll_loom_<name>), tools read it from LOOM_<NAME>.
 */
#ifndef LOOM_COLL_CONFIG_H
#define LOOM_COLL_CONFIG_H

#include "common/config.h"

typedef struct loom_coll_config {
    int     verbose;                /* loom_log_level_t */
    int     allreduce_algorithm;    /* loom_allreduce_alg_t */
    size_t  allreduce_segment;      /* bytes; 0 = chosen by the cost model */
    int     allreduce_depth;        /* segments in flight; 0 = chosen */
    size_t  allreduce_handoff;      /* bytes; below it one node hands off */
    int     bcast_algorithm;        /* loom_bcast_alg_t */
    size_t  bcast_segment;          /* bytes; 0 = chosen by the cost model */
    size_t  bcast_handoff;          /* bytes; below it one node hands off */
    size_t  bcast_pair_handoff;     /* the same for two ranks, where it is larger */
    int     reduce_algorithm;       /* loom_reduce_alg_t */
    size_t  reduce_segment;         /* bytes; 0 = chosen by the cost model */
    size_t  reduce_handoff;         /* bytes; below it one node hands off */
    int     allgather_algorithm;    /* loom_allgather_alg_t */
    size_t  allgather_segment;      /* bytes; 0 = chosen by the cost model */
    size_t  allgather_handoff;      /* bytes gathered in all; below it one node hands off */
    size_t  allgather_pair_handoff; /* the same for two ranks, where it is larger */
    int     reduce_scatter_algorithm; /* loom_reduce_scatter_alg_t */
    size_t  reduce_scatter_segment; /* bytes; 0 = chosen by the cost model */
    size_t  reduce_scatter_handoff; /* bytes of input in all; below it one node hands off */
    int     sparse_allreduce_algorithm; /* loom_sparse_alg_t */
    int     reproducible;           /* bool: canonical combination order */
    int     shm;                    /* bool: large calls on one node through a shared segment */
    size_t  shm_min_bytes;          /* from this many bytes */
    int     shm_cma;                /* two-rank allgather reads the peer's buffer */
    size_t  shm_slot;               /* bytes per rank and pipeline segment */
    int     shm_depth;              /* segments in flight */
    int     hang_timeout;           /* seconds without progress before a report; 0 = never */
    int     hang_abort;             /* reports of one call in a row before aborting; 0 = never */
    /* The cost model: time = alpha per message + bytes / bandwidth per
     * byte moved + bytes / reduce rate per byte reduced. */
    int     cost_alpha_ns;
    int     cost_bandwidth_mbs;     /* MB/s, 1 MB = 10^6 bytes */
    int     cost_reduce_mbs;
    /* The links between nodes, for communicators that span them: each
     * node's link (rack) and each rack's uplink to the spine (spine);
     * a topology file's link speeds replace them (coll_loom_topology). */
    int     cost_rack_alpha_ns;
    int     cost_rack_bandwidth_mbs;    /* MB/s per direction of a node's link */
    int     cost_spine_alpha_ns;
    int     cost_spine_bandwidth_mbs;   /* MB/s per direction of a rack's uplink */
    /* Not a table entry: parsed by the adapter from coll_loom_rules or
     * coll_loom_rules_file (rules.h); NULL = no rules. */
    const struct loom_rules *rules;
} loom_coll_config_t;

extern const loom_config_field_t loom_coll_config_table[];

/* Every setting at its default, and no rules. */
loom_status_t loom_coll_config_init(loom_coll_config_t *cfg);

#endif
