/*
 * The engine's collectives, one id each: what selection rules name and
 * what a team keeps per-collective state for (rules.h, team.h).  The v
 * and block forms share their collective's id.
 */
#ifndef LOOM_COLL_KIND_H
#define LOOM_COLL_KIND_H

typedef enum loom_coll_kind {
    LOOM_COLL_ALLREDUCE = 0,
    LOOM_COLL_BCAST,
    LOOM_COLL_REDUCE,
    LOOM_COLL_ALLGATHER,        /* and allgatherv */
    LOOM_COLL_REDUCE_SCATTER,   /* and reduce_scatter_block */
    LOOM_COLL_SPARSE_ALLREDUCE, /* selections of (index, value) pairs summed dense */
    LOOM_COLL_KIND_COUNT
} loom_coll_kind_t;

#endif
