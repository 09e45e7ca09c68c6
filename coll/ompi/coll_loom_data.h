/*
 * The data of a call: Loom's reduction context over Open MPI's op, the
 * element type Loom moves, staging through packed scratch, the wrapping
 * MPI_SUM, the kernels and whether a reduction must be reproducible.
 * The element type and the op handed down are on every small hand-off,
 * so they stay inline here.
 */
#ifndef MCA_COLL_LOOM_DATA_H
#define MCA_COLL_LOOM_DATA_H

#include "coll_loom.h"

BEGIN_C_DECLS

/* Loom's reduction context over Open MPI's op: dst = src op dst. */
typedef struct mca_coll_loom_reduce_ctx {
    struct ompi_op_t        *op;
    struct ompi_datatype_t  *dtype;  /* the predefined element type */
} mca_coll_loom_reduce_ctx_t;

/* A receive buffer whose datatype is not flat, staged through scratch
 * (coll_loom_stage.c): the schedule runs on scratch; when it finished,
 * each block's packed bytes at scratch + offset are unpacked into count
 * elements of dtype at user + displ extents. */
typedef struct mca_coll_loom_stage {
    char                    *scratch;
    void                    *user;
    struct ompi_datatype_t  *dtype;     /* retained */
    int                     nblocks;    /* 0: nothing to unpack on this rank */
    struct {
        size_t      count, offset;
        ptrdiff_t   displ;
    } block[];
} mca_coll_loom_stage_t;

/* The element type Loom moves and reduces for count elements of dtype,
 * with the element count, or NULL when Loom cannot take the data as raw
 * bytes from the buffer address.  A contiguous derived type stays itself:
 * only user ops reach here with one (Open MPI refuses predefined ops on
 * derived types), and MPI gives a user function the caller's datatype and
 * whole elements of it.  Inline, as everything a small hand-off passes. */
static inline struct ompi_datatype_t *mca_coll_loom_element_type(struct ompi_datatype_t *dtype,
                                                                 size_t count, size_t *elems_p)
{
    ptrdiff_t true_lb, true_extent;

    ompi_datatype_get_true_extent(dtype, &true_lb, &true_extent);
    if (true_lb != 0 ||
        !ompi_datatype_is_contiguous_memory_layout(dtype, count > 1 ? 2 : 1)) {
        return NULL;
    }
    *elems_p = count;
    return dtype;
}

/* Bytes per element of dtype when Loom can move count elements of it as raw
 * bytes at the buffer address (contiguous, extent equal to size, lower
 * bounds 0), else 0. */
size_t mca_coll_loom_flat_size(struct ompi_datatype_t *dtype);

/* The reduction the engine runs for ctx: Loom's kernel where it has one,
 * Open MPI's op otherwise. */
loom_reduce_op_t mca_coll_loom_reduce_op(mca_coll_loom_reduce_ctx_t *ctx);

/* Whether data of dtype combines in the canonical order when
 * coll_loom_reproducible is set: anything but integer data (integer sums
 * are exact in any order, so they keep the fastest algorithm). */
int mca_coll_loom_reproducible_type(const struct ompi_datatype_t *dtype);

/* Whether a reduction of ctx's data must combine in the canonical order. */
static inline int mca_coll_loom_reproducible(const mca_coll_loom_reduce_ctx_t *ctx)
{
    return mca_coll_loom_component.config.reproducible &&
           mca_coll_loom_reproducible_type(ctx->dtype);
}

/* Staging (coll_loom_stage.c).  A stage for nblocks blocks (filled in by
 * the caller) over bytes of scratch, unpacking into user. */
loom_status_t mca_coll_loom_stage_create(void *user, struct ompi_datatype_t *dtype,
                                         int nblocks, size_t bytes,
                                         mca_coll_loom_stage_t **stage_p);
/* After the schedule: unpack when status is LOOM_OK, then destroy the
 * stage; returns status, or the unpacking's error. */
loom_status_t mca_coll_loom_stage_finish(mca_coll_loom_stage_t *stage, loom_status_t status);
/* Destroy without unpacking (NULL: nothing). */
void mca_coll_loom_stage_destroy(mca_coll_loom_stage_t *stage);
/* Pack count elements of dtype at buf into flat (count x type size bytes). */
loom_status_t mca_coll_loom_pack(const void *buf, size_t count, struct ompi_datatype_t *dtype,
                                 void *flat);

/* MPI_SUM with wrapping 8- and 16-bit integer functions (coll_loom_sum.c),
 * made in init_query; NULL: none, MPI_SUM goes down as it is. */
extern struct ompi_op_t *mca_coll_loom_wrapping_sum;
int mca_coll_loom_sum_create(void);
void mca_coll_loom_sum_destroy(void);

/* The op Open MPI's code gets for op, whether Loom hands the call down or
 * reduces through ompi_op_reduce itself: MPI_SUM becomes the wrapping
 * copy, any other op stays.  Inline: it is on every small hand-off. */
static inline struct ompi_op_t *mca_coll_loom_down_op(struct ompi_op_t *op)
{
    return op == MPI_SUM && mca_coll_loom_wrapping_sum != NULL ? mca_coll_loom_wrapping_sum
                                                               : op;
}

/* Loom's own kernel for (op, predefined dtype), or NULL: use ompi_op_reduce. */
loom_reduce_fn_t mca_coll_loom_kernel(struct ompi_op_t *op, struct ompi_datatype_t *dtype);

/* The reduction callback over Open MPI's ops (ctx: mca_coll_loom_reduce_ctx_t). */
void mca_coll_loom_ompi_reduce(const void *src, void *dst, size_t count, void *ctx);

END_C_DECLS

#endif
