/*
 * The bytes a call is charged: a rank's send buffer as the MPI standard
 * counts it, count x type size (docs/pmpi.md has the rule per function).
 */
#include "pmpi.h"

uint64_t loom_pmpi_bytes(MPI_Datatype type, int count)
{
    int size = 0;

    if (count <= 0 || type == MPI_DATATYPE_NULL || PMPI_Type_size(type, &size) != MPI_SUCCESS) {
        return 0;
    }
    return (uint64_t)count * (uint64_t)size;
}

uint64_t loom_pmpi_bytes_sum(const int *counts, int n, MPI_Datatype type)
{
    uint64_t total = 0;
    int i;

    if (counts == NULL) {
        return 0;
    }
    for (i = 0; i < n; ++i) {
        total += counts[i] > 0 ? (uint64_t)counts[i] : 0;
    }
    return total * loom_pmpi_bytes(type, 1);
}

uint64_t loom_pmpi_bytes_w(const int *counts, const MPI_Datatype *types, int n)
{
    uint64_t total = 0;
    int i;

    if (counts == NULL || types == NULL) {
        return 0;
    }
    for (i = 0; i < n; ++i) {
        total += loom_pmpi_bytes(types[i], counts[i]);
    }
    return total;
}
