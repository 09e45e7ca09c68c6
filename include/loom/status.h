/*
 * Loom's one status type.  Every layer returns it; the Open MPI adapter
 * converts it to an Open MPI code in exactly one place.
 */
#ifndef LOOM_STATUS_H
#define LOOM_STATUS_H

#ifdef __cplusplus
extern "C" {
#endif

typedef enum loom_status {
    LOOM_OK                 = 0,
    LOOM_INPROGRESS         = 1,   /* started, not finished yet */
    LOOM_ERR_NO_MEMORY      = -1,
    LOOM_ERR_INVALID_PARAM  = -2,  /* a caller or user passed a bad value */
    LOOM_ERR_UNSUPPORTED    = -3,  /* Loom cannot do this: fall back, do not fail */
    LOOM_ERR_TRANSPORT      = -4,  /* the transport reported an error */
    LOOM_ERR_TRUNCATED      = -5,  /* a message was larger than its receive buffer */
    LOOM_ERR_NOT_FOUND      = -6,
    LOOM_ERR_DEADLOCK       = -7,  /* nothing can progress (loopback tests) */
    LOOM_ERR_IO             = -8,
    LOOM_ERR_LAST           = -9
} loom_status_t;

/* A short lowercase description, never NULL. */
const char *loom_status_string(loom_status_t status);

#ifdef __cplusplus
}
#endif

#endif
