/* Shared helpers of the training example (see common.h). */
#include "common.h"

#include <stdarg.h>
#include <stdio.h>

mlp_status_t mlp_fail(mlp_error_t *err, mlp_status_t status, const char *fmt, ...)
{
    va_list ap;

    if (err != NULL) {
        va_start(ap, fmt);
        vsnprintf(err->msg, sizeof(err->msg), fmt, ap);
        va_end(ap);
    }
    return status;
}
