/*
 * libloom-filter's calls that pass straight to the component: a slot's
 * name, a step's start, the residual memory in use, a named residual
 * read back; the hook object the component fills; and what the last
 * failed call of a thread found wrong (the library logs nothing).
 */
#include "filterapi/filter_internal.h"

#include <stdarg.h>
#include <stdio.h>
#include <string.h>

loom_filter_hook_t loom_filter_hook = { .version = LOOM_FILTER_HOOK_VERSION };

static __thread char filter_error[320];

loom_status_t loom_filter_fail(loom_status_t status, const char *fmt, ...)
{
    va_list ap;

    va_start(ap, fmt);
    vsnprintf(filter_error, sizeof(filter_error), fmt, ap);
    va_end(ap);
    return status;
}

const char *loom_filter_last_error(void)
{
    return filter_error;
}

loom_status_t loom_filter_no_component(const char *call)
{
    return loom_filter_fail(LOOM_ERR_UNSUPPORTED,
                            "%s: gradient filtering is not available (mca_coll_loomfilter "
                            "is not loaded, or no communicator is filtered yet)", call);
}

/* A component's answer, with the reason when it declines. */
static loom_status_t filter_answer(loom_status_t status, const char *call)
{
    if (status == LOOM_ERR_UNSUPPORTED) {
        return loom_filter_fail(status, "%s: communicator not filtered (no loom_filter info "
                                "key, or mca_coll_loomfilter did not take it)", call);
    }
    if (status != LOOM_OK) {
        return loom_filter_fail(status, "%s: %s", call, loom_status_string(status));
    }
    return LOOM_OK;
}

loom_status_t loom_filter_check_name(const char *name)
{
    size_t n = name == NULL ? 0 : strlen(name), i;

    for (i = 0; i < n && i <= LOOM_FILTER_NAME_MAX; i++) {
        char c = name[i];
        if (!((c >= 'A' && c <= 'Z') || (c >= 'a' && c <= 'z') || (c >= '0' && c <= '9') ||
              c == '_' || c == '.' || c == '-')) {
            break;
        }
    }
    if (n == 0 || n > LOOM_FILTER_NAME_MAX || i != n) {
        return loom_filter_fail(LOOM_ERR_INVALID_PARAM,
                                "slot name '%.80s'%s is not accepted: a slot name is 1 to %d "
                                "characters of [A-Za-z0-9_.-]", name == NULL ? "(null)" : name,
                                n > 80 ? "..." : "", LOOM_FILTER_NAME_MAX);
    }
    return LOOM_OK;
}

loom_status_t loom_filter_name(MPI_Comm comm, const char *name)
{
    loom_status_t status = loom_filter_check_name(name);

    if (status != LOOM_OK) {
        return status;
    }
    if (loom_filter_hook.name == NULL) {
        return loom_filter_no_component("loom_filter_name");
    }
    return filter_answer(loom_filter_hook.name((void *)comm, name), "loom_filter_name");
}

loom_status_t loom_filter_step(MPI_Comm comm)
{
    if (loom_filter_hook.step == NULL) {
        return loom_filter_no_component("loom_filter_step");
    }
    return filter_answer(loom_filter_hook.step((void *)comm), "loom_filter_step");
}

loom_status_t loom_filter_residual_bytes(size_t *bytes_p)
{
    if (bytes_p == NULL) {
        return loom_filter_fail(LOOM_ERR_INVALID_PARAM,
                                "loom_filter_residual_bytes: bytes_p is NULL");
    }
    if (loom_filter_hook.residual_bytes == NULL) {
        return loom_filter_no_component("loom_filter_residual_bytes");
    }
    return filter_answer(loom_filter_hook.residual_bytes(bytes_p),
                         "loom_filter_residual_bytes");
}

loom_status_t loom_filter_type_of(MPI_Datatype type, int *type_p)
{
    if (type == MPI_FLOAT) {
        *type_p = LOOM_FILTER_HOOK_FLOAT;
    } else if (type == MPI_DOUBLE) {
        *type_p = LOOM_FILTER_HOOK_DOUBLE;
    } else {
        return loom_filter_fail(LOOM_ERR_INVALID_PARAM,
                                "residuals are MPI_FLOAT or MPI_DOUBLE; another type was given");
    }
    return LOOM_OK;
}

loom_status_t loom_filter_residual_read(MPI_Comm comm, const char *name, MPI_Datatype type,
                                        void *buf, size_t count)
{
    loom_filter_hook_slot_t slot = { .name = name, .count = count };
    loom_status_t status;

    if (loom_filter_hook.read == NULL) {
        return loom_filter_no_component("loom_filter_residual_read");
    }
    status = loom_filter_check_name(name);
    if (status == LOOM_OK) {
        status = loom_filter_type_of(type, &slot.type);
    }
    if (status == LOOM_OK && (buf == NULL || count == 0)) {
        status = loom_filter_fail(LOOM_ERR_INVALID_PARAM,
                                  "loom_filter_residual_read: no buffer or a zero count");
    }
    if (status != LOOM_OK) {
        return status;
    }
    status = loom_filter_hook.read((void *)comm, &slot, buf);
    if (status == LOOM_ERR_NOT_FOUND) {
        return loom_filter_fail(status, "loom_filter_residual_read: no slot '%s' of %zu %s",
                                name, count, type == MPI_FLOAT ? "floats" : "doubles");
    }
    return filter_answer(status, "loom_filter_residual_read");
}
