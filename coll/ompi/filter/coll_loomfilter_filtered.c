/*
 * The filtered allreduce: the one place where filtering happens.
 *
 * PLACEHOLDER, to be replaced by the sparse engine schedule (top-k
 * selection with error feedback, coll/core/filter): for now both forms
 * hand the call to the module below, dense, and count it as if the
 * filter had chosen to run it dense.  Everything around them (opt-in,
 * which calls come here, the team in the filter's context-id space, the
 * counters and their MPI_T variables) is final; the replacement keeps
 * these two signatures and their contract (coll_loomfilter.h):
 *
 *   - module->team: this communicator's team (its tags never match
 *     mca_coll_loom's); module->spec: density, min_bytes, warmup, ...;
 *   - module->counters: add to calls, dense_bytes (what a dense
 *     allreduce would have sent), sent_bytes, dense_switches (filtered
 *     calls that ran dense), and set residual_bytes (memory held now),
 *     with mca_coll_loomfilter_count (or __atomic stores);
 *   - module->previous_allreduce / previous_iallreduce and their
 *     modules: the dense path below, for a call the filter runs dense;
 *   - return an Open MPI code (OMPI_SUCCESS); a nonblocking start fills
 *     *request.
 */
#include "coll_loomfilter.h"

/* What a dense allreduce sends from each rank: the reduce-scatter and
 * allgather lower bound 2(p-1)/p of the vector. */
static unsigned long long loomfilter_dense_bytes(const mca_coll_loomfilter_module_t *module,
                                                 int count, struct ompi_datatype_t *dtype)
{
    unsigned long long p = (unsigned long long)ompi_comm_size(module->comm);
    size_t size;

    ompi_datatype_type_size(dtype, &size);
    return 2 * (p - 1) * (unsigned long long)count * size / p;
}

/* The placeholder's accounting: taken, and run dense. */
static void loomfilter_count_dense(mca_coll_loomfilter_module_t *module, int count,
                                   struct ompi_datatype_t *dtype)
{
    unsigned long long dense = loomfilter_dense_bytes(module, count, dtype);

    mca_coll_loomfilter_count(&module->counters->calls, 1);
    mca_coll_loomfilter_count(&module->counters->dense_bytes, dense);
    mca_coll_loomfilter_count(&module->counters->sent_bytes, dense);
}

int mca_coll_loomfilter_filtered_allreduce(const void *sbuf, void *rbuf, int count,
                                           struct ompi_datatype_t *dtype,
                                           struct ompi_op_t *op,
                                           mca_coll_loomfilter_module_t *module)
{
    loomfilter_count_dense(module, count, dtype);
    return module->previous_allreduce(sbuf, rbuf, count, dtype, op, module->comm,
                                      module->previous_allreduce_module);
}

int mca_coll_loomfilter_filtered_iallreduce(const void *sbuf, void *rbuf, int count,
                                            struct ompi_datatype_t *dtype,
                                            struct ompi_op_t *op, ompi_request_t **request,
                                            mca_coll_loomfilter_module_t *module)
{
    loomfilter_count_dense(module, count, dtype);
    return module->previous_iallreduce(sbuf, rbuf, count, dtype, op, module->comm, request,
                                       module->previous_iallreduce_module);
}
