/*
 * Which of Loom's own reduction kernels serves an (MPI op, MPI datatype)
 * pair.  Only predefined ops on the C integer and floating types; every
 * other pair (user ops, MPI_C_BOOL, complex, pair types, long double)
 * keeps Open MPI's ompi_op_reduce, called back through
 * mca_coll_loom_ompi_reduce.
 */
#include "coll_loom.h"
#include "coll_loom_data.h"

#include "coll/core/parts/reduce_kernels.h"
#include "ompi/datatype/ompi_datatype.h"
#include "ompi/op/op.h"

#include <stddef.h>

/* Integer types by signedness; the width comes from the type's size, so
 * MPI_LONG, MPI_AINT or MPI_COUNT land on the right kernel on any ABI. */
static int loom_int_kind(ompi_datatype_t *dtype)
{
    ompi_datatype_t *const signed_types[] = {
        MPI_SIGNED_CHAR, MPI_SHORT, MPI_INT, MPI_LONG, MPI_LONG_LONG, MPI_INT8_T,
        MPI_INT16_T, MPI_INT32_T, MPI_INT64_T, MPI_AINT, MPI_OFFSET, MPI_COUNT,
    };
    ompi_datatype_t *const unsigned_types[] = {
        MPI_UNSIGNED_CHAR, MPI_UNSIGNED_SHORT, MPI_UNSIGNED, MPI_UNSIGNED_LONG,
        MPI_UNSIGNED_LONG_LONG, MPI_UINT8_T, MPI_UINT16_T, MPI_UINT32_T, MPI_UINT64_T,
    };
    size_t i;

    for (i = 0; i < sizeof(signed_types) / sizeof(signed_types[0]); ++i) {
        if (dtype == signed_types[i]) {
            return 1;
        }
    }
    for (i = 0; i < sizeof(unsigned_types) / sizeof(unsigned_types[0]); ++i) {
        if (dtype == unsigned_types[i]) {
            return 2;
        }
    }
    return 0;
}

static int loom_map_dtype(ompi_datatype_t *dtype, loom_op_t op, loom_dtype_t *out_p)
{
    static const loom_dtype_t by_width[2][4] = {
        { LOOM_DTYPE_INT8, LOOM_DTYPE_INT16, LOOM_DTYPE_INT32, LOOM_DTYPE_INT64 },
        { LOOM_DTYPE_UINT8, LOOM_DTYPE_UINT16, LOOM_DTYPE_UINT32, LOOM_DTYPE_UINT64 },
    };
    int kind = loom_int_kind(dtype), w;
    size_t size;

    if (dtype == MPI_FLOAT) {
        *out_p = LOOM_DTYPE_FLOAT;
        return 1;
    }
    if (dtype == MPI_DOUBLE) {
        *out_p = LOOM_DTYPE_DOUBLE;
        return 1;
    }
    /* MPI_BYTE is defined for the bitwise ops only. */
    if (dtype == MPI_BYTE && (op == LOOM_OP_BAND || op == LOOM_OP_BOR || op == LOOM_OP_BXOR)) {
        *out_p = LOOM_DTYPE_UINT8;
        return 1;
    }
    if (kind == 0) {
        return 0;
    }
    ompi_datatype_type_size(dtype, &size);
    for (w = 0; w < 4; ++w) {
        if (size == ((size_t)1 << w)) {
            *out_p = by_width[kind - 1][w];
            return 1;
        }
    }
    return 0;
}

static int loom_map_op(ompi_op_t *op, loom_op_t *out_p)
{
    const struct { ompi_op_t *mpi; loom_op_t loom; } ops[] = {
        { MPI_SUM, LOOM_OP_SUM },   { MPI_PROD, LOOM_OP_PROD }, { MPI_MIN, LOOM_OP_MIN },
        { MPI_MAX, LOOM_OP_MAX },   { MPI_LAND, LOOM_OP_LAND }, { MPI_LOR, LOOM_OP_LOR },
        { MPI_LXOR, LOOM_OP_LXOR }, { MPI_BAND, LOOM_OP_BAND }, { MPI_BOR, LOOM_OP_BOR },
        { MPI_BXOR, LOOM_OP_BXOR },
    };
    size_t i;

    for (i = 0; i < sizeof(ops) / sizeof(ops[0]); ++i) {
        if (op == ops[i].mpi) {
            *out_p = ops[i].loom;
            return 1;
        }
    }
    return 0;
}

loom_reduce_fn_t mca_coll_loom_kernel(ompi_op_t *op, ompi_datatype_t *dtype)
{
    loom_dtype_t ldtype;
    loom_op_t lop;

    if (!loom_map_op(op, &lop) || !loom_map_dtype(dtype, lop, &ldtype)) {
        return NULL;
    }
    return loom_reduce_kernel(lop, ldtype);
}

size_t mca_coll_loom_flat_size(ompi_datatype_t *dtype)
{
    ptrdiff_t lb, extent, true_lb, true_extent;
    size_t size;

    ompi_datatype_get_extent(dtype, &lb, &extent);
    ompi_datatype_get_true_extent(dtype, &true_lb, &true_extent);
    ompi_datatype_type_size(dtype, &size);
    if (lb != 0 || true_lb != 0 || (ptrdiff_t)size != extent ||
        !ompi_datatype_is_contiguous_memory_layout(dtype, 2)) {
        return 0;
    }
    return size;
}

int mca_coll_loom_reproducible_type(const ompi_datatype_t *dtype)
{
    return !(ompi_datatype_is_predefined(dtype) &&
             (dtype->super.flags & OMPI_DATATYPE_FLAG_DATA_TYPE) == OMPI_DATATYPE_FLAG_DATA_INT);
}

/* Open MPI's own reduction: dst = src op dst. */
void mca_coll_loom_ompi_reduce(const void *src, void *dst, size_t count, void *ctx)
{
    mca_coll_loom_reduce_ctx_t *c = ctx;

    ompi_op_reduce(c->op, (void *)src, dst, count, c->dtype);
}

loom_reduce_op_t mca_coll_loom_reduce_op(mca_coll_loom_reduce_ctx_t *ctx)
{
    loom_reduce_op_t rop = {
        .fn = mca_coll_loom_kernel(ctx->op, ctx->dtype), .ctx = ctx,
        .commutative = ompi_op_is_commute(ctx->op),
    };

    if (rop.fn == NULL) {
        /* User ops and the rarer types; MPI_SUM on a derived type of 8- or
         * 16-bit integers (only with mpi_param_check off) comes here too. */
        ctx->op = mca_coll_loom_down_op(ctx->op);
        rop.fn = mca_coll_loom_ompi_reduce;
    }
    return rop;
}
