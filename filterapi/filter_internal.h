/*
 * What libloom-filter's two files share: the failure message of the
 * thread's last call, the checks every call makes.
 */
#ifndef LOOM_FILTERAPI_INTERNAL_H
#define LOOM_FILTERAPI_INTERNAL_H

#include "filterapi/hook.h"
#include "loom/filter.h"

/* Not part of the library's interface. */
#define LOOM_FILTER_INTERNAL __attribute__((visibility("hidden")))

/* Records the message for loom_filter_last_error and returns status. */
LOOM_FILTER_INTERNAL loom_status_t loom_filter_fail(loom_status_t status, const char *fmt, ...)
    __attribute__((format(printf, 2, 3)));

/* LOOM_ERR_UNSUPPORTED, saying that no component filled the hook. */
LOOM_FILTER_INTERNAL loom_status_t loom_filter_no_component(const char *call);

/* LOOM_OK, or LOOM_ERR_INVALID_PARAM naming the name and what is accepted. */
LOOM_FILTER_INTERNAL loom_status_t loom_filter_check_name(const char *name);

/* MPI_FLOAT or MPI_DOUBLE as the hook numbers them. */
LOOM_FILTER_INTERNAL loom_status_t loom_filter_type_of(MPI_Datatype type, int *type_p);

#endif
