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

/*
 * Buffers per collective (count is in elements of elem_size bytes):
 *   allreduce       sendbuf count -> recvbuf count on every rank
 *   bcast           recvbuf count: the root's is sent, the others' received
 *   reduce          sendbuf count -> recvbuf count on root only (recvbuf of
 *                   other ranks is not touched and may be NULL)
 *   allgather       sendbuf count -> recvbuf p * count, rank r's at r * count;
 *                   with counts/displs (allgatherv): counts[r] elements at
 *                   displs[r]; in_place: rank r's part is already there
 *   reduce_scatter  sendbuf sum(counts) (or p * count for the _block form)
 *                   -> recvbuf counts[r] (or count): block r of the
 *                   reduction; in_place: the input is in recvbuf
 */
typedef struct loom_coll_args {
    const void          *sendbuf;   /* ignored when in_place */
    void                *recvbuf;
    size_t              count;      /* elements */
    size_t              elem_size;  /* bytes per element */
    loom_reduce_op_t    op;
    int                 in_place;   /* the input is already in recvbuf */
    int                 reproducible; /* combine in the canonical order (floating data) */
    int                 root;       /* bcast, reduce: team rank of the root */
    const size_t        *counts;    /* allgatherv, reduce_scatter: per rank; NULL: count each */
    const size_t        *displs;    /* allgatherv: element offset per rank; NULL: packed */
    /* Pipelining, chosen by the selection (identically on every rank):
     * messages are cut into segments of seg_bytes (0 = not segmented), and
     * at most depth segments are in flight per peer (0 = algorithm default). */
    size_t              seg_bytes;
    int                 depth;
    /* The caller waits for the call to finish (a blocking MPI call): only
     * then may the selection run it through the node segment, which
     * blocks (collective.h). */
    int                 blocking;
    /* The sparse allreduce: its selection and switch (sparse.h); NULL
     * for every other collective. */
    const struct loom_sparse_args *sparse;
} loom_coll_args_t;

#endif
