/*
 * Loom statuses as Open MPI error codes: the one place they are converted
 * (docs/LAYERS.md), in libloom_ompi so that every file of both components
 * returns through it.
 */
#include "loom_ompi.h"

int loom_ompi_status_to_ompi(loom_status_t status)
{
    switch (status) {
    case LOOM_OK:
    case LOOM_INPROGRESS:        return OMPI_SUCCESS;
    case LOOM_ERR_NO_MEMORY:     return OMPI_ERR_OUT_OF_RESOURCE;
    case LOOM_ERR_INVALID_PARAM: return OMPI_ERR_BAD_PARAM;
    case LOOM_ERR_UNSUPPORTED:   return OMPI_ERR_NOT_SUPPORTED;
    case LOOM_ERR_TRUNCATED:     return MPI_ERR_TRUNCATE;
    case LOOM_ERR_NOT_FOUND:     return OMPI_ERR_NOT_FOUND;
    default:                     return OMPI_ERROR;
    }
}
