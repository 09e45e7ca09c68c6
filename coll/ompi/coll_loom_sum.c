/*
 * MPI_SUM on 8- and 16-bit integers, as C arithmetic computes it.
 *
 * Open MPI 4.1.4's vectorized op component (op/avx, in its SSE4.1, AVX2
 * and AVX-512 paths alike) adds these types with saturating instructions:
 * 200 + 200 comes back 255 instead of 144, from about one vector of
 * elements up.  Loom's own kernels wrap; what Loom hands to the module
 * below it (small calls on one node, intercommunicators, the calls
 * coll_loom_enable turns away) would still meet the saturating code.
 *
 * So Loom keeps a copy of MPI_SUM whose functions are MPI_SUM's own for
 * every type but these four slots (signed and unsigned 8- and 16-bit:
 * MPI_SIGNED_CHAR, MPI_SHORT, MPI_INT8_T, ... all map there), which take
 * Open MPI's base, non-vector functions, and hands that op down instead of
 * MPI_SUM.  MPI_SUM itself is left as the op framework made it: programs
 * that reduce such types outside Loom's collectives (MPI_Reduce_local,
 * MPI_Scan, one-sided accumulates) need `--mca op ^avx`.
 */
#include "coll_loom.h"
#include "coll_loom_data.h"

#include "common/log.h"
#include "ompi/mca/op/base/functions.h"
#include "ompi/op/op.h"

#include <string.h>

struct ompi_op_t *mca_coll_loom_wrapping_sum;

/* Static storage, constructed once and never destructed, as Open MPI keeps
 * its own predefined ops: the op's destructor would clear its slot in
 * Open MPI's op table, which MPI_Finalize frees before it closes the coll
 * components.  So the copy holds no references of its own to the op
 * modules it shares with MPI_SUM: they outlive every call. */
static ompi_op_t loom_sum_storage;
static int loom_sum_constructed;

static const int loom_wrapped_types[] = {
    OMPI_OP_BASE_TYPE_INT8_T, OMPI_OP_BASE_TYPE_UINT8_T,
    OMPI_OP_BASE_TYPE_INT16_T, OMPI_OP_BASE_TYPE_UINT16_T,
};

int mca_coll_loom_sum_create(void)
{
    ompi_op_t *sum = MPI_SUM, *op;
    size_t k;
    int t;

    /* The op framework fills MPI_SUM in MPI_Init before coll components
     * are queried; an empty slot means that changed, and then Loom hands
     * MPI_SUM down as it is rather than a copy of nothing. */
    if (sum->o_func.intrinsic.fns[OMPI_OP_BASE_TYPE_INT8_T] == NULL) {
        loom_warn("coll", "MPI_SUM has no 8-bit function yet; sums of 8- and 16-bit "
                  "integers handed down keep Open MPI's op (see --mca op ^avx)");
        return OMPI_SUCCESS;
    }
    op = &loom_sum_storage;
    if (!loom_sum_constructed) {
        OBJ_CONSTRUCT(op, ompi_op_t);
        loom_sum_constructed = 1;
    }
    /* The name MPI_SUM, since errors the module below reports name it. */
    memcpy(op->o_name, sum->o_name, sizeof(op->o_name));
    op->o_name[sizeof(op->o_name) - 1] = '\0';
    op->op_type = sum->op_type;
    op->o_flags = sum->o_flags;
    for (t = 0; t < OMPI_OP_BASE_TYPE_MAX; ++t) {
        op->o_func.intrinsic.fns[t] = sum->o_func.intrinsic.fns[t];
        op->o_func.intrinsic.modules[t] = sum->o_func.intrinsic.modules[t];
        op->o_3buff_intrinsic.fns[t] = sum->o_3buff_intrinsic.fns[t];
        op->o_3buff_intrinsic.modules[t] = sum->o_3buff_intrinsic.modules[t];
    }
    for (k = 0; k < sizeof(loom_wrapped_types) / sizeof(loom_wrapped_types[0]); ++k) {
        t = loom_wrapped_types[k];
        op->o_func.intrinsic.fns[t] = ompi_op_base_functions[OMPI_OP_BASE_FORTRAN_SUM][t];
        op->o_func.intrinsic.modules[t] = NULL;
        op->o_3buff_intrinsic.fns[t] =
            ompi_op_base_3buff_functions[OMPI_OP_BASE_FORTRAN_SUM][t];
        op->o_3buff_intrinsic.modules[t] = NULL;
    }
    mca_coll_loom_wrapping_sum = op;
    return OMPI_SUCCESS;
}

void mca_coll_loom_sum_destroy(void)
{
    mca_coll_loom_wrapping_sum = NULL;
}
