/*
 * What a collective call asks for, in the engine's terms: buffers, element
 * count and size, and the reduction as a callback.  No MPI types here.
 */
#ifndef LOOM_ARGS_H
#define LOOM_ARGS_H

#include <stddef.h>

/* dst[i] = src[i] (op) dst[i] for count elements.  For a non-commutative
 * op, src holds the contribution of the lower ranks. */
typedef void (*loom_reduce_fn_t)(const void *src, void *dst, size_t count,
                                 void *ctx);

typedef struct loom_reduce_op {
    loom_reduce_fn_t    fn;
    void                *ctx;
    int                 commutative;
} loom_reduce_op_t;

typedef struct loom_coll_args {
    const void          *sendbuf;   /* ignored when in_place */
    void                *recvbuf;
    size_t              count;      /* elements */
    size_t              elem_size;  /* bytes per element */
    loom_reduce_op_t    op;
    int                 in_place;   /* the input is already in recvbuf */
    /* Pipelining, chosen by the selection (identically on every rank):
     * messages are cut into segments of seg_bytes (0 = not segmented), and
     * at most depth segments are in flight per peer (0 = algorithm default). */
    size_t              seg_bytes;
    int                 depth;
} loom_coll_args_t;

#endif
