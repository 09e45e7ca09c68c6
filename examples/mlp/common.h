/*
 * What every part of the training example shares: a status code for
 * functions that can fail, and an error message that the failing function
 * fills in so that the caller decides which rank prints it.
 */
#ifndef MLP_COMMON_H
#define MLP_COMMON_H

#include <stddef.h>

typedef enum mlp_status {
    MLP_OK = 0,
    MLP_HELP,        /* --help: usage printed, nothing went wrong */
    MLP_ERR_ARG,     /* a bad option or value */
    MLP_ERR_IO,      /* a data file missing or malformed */
    MLP_ERR_NOMEM,
    MLP_ERR_MPI
} mlp_status_t;

typedef struct mlp_error {
    char msg[1024];
} mlp_error_t;

/* Fill err (may be NULL) and return status, so that a failing function
 * can end with `return mlp_fail(err, MLP_ERR_IO, "...", ...)`. */
mlp_status_t mlp_fail(mlp_error_t *err, mlp_status_t status, const char *fmt, ...)
    __attribute__((format(printf, 3, 4)));

#endif
