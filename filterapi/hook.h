/*
 * Where libloom-filter (include/loom/filter.h) meets mca_coll_loomfilter.
 *
 * The library must not depend on Open MPI's internals and the component
 * must not depend on the library, so the library exports this one
 * object and the component (coll/ompi/filter/coll_loomfilter_api.c)
 * finds it with dlsym(RTLD_DEFAULT) when its first module is enabled, and
 * fills in its functions; at close it empties them again.  A function
 * left NULL means "no component": the library answers
 * LOOM_ERR_UNSUPPORTED.  comm is an MPI_Comm, passed as a pointer (Open
 * MPI's MPI_Comm is one) so that neither side needs the other's headers.
 */
#ifndef LOOM_FILTER_HOOK_H
#define LOOM_FILTER_HOOK_H

#include "loom/status.h"

#include <stddef.h>
#include <stdint.h>

#define LOOM_FILTER_HOOK_SYMBOL "loom_filter_hook"
#define LOOM_FILTER_HOOK_VERSION 1

/* Element types, as the residual store numbers them. */
#define LOOM_FILTER_HOOK_FLOAT  0
#define LOOM_FILTER_HOOK_DOUBLE 1

/* One residual slot of a communicator. */
typedef struct loom_filter_hook_slot {
    const char  *name;      /* "" : positional */
    uint32_t    position;   /* positional slots */
    int         type;       /* LOOM_FILTER_HOOK_FLOAT or _DOUBLE */
    size_t      count;      /* elements */
    void        *residual;  /* count elements, the store's memory */
} loom_filter_hook_slot_t;

typedef int (*loom_filter_hook_slot_fn_t)(const loom_filter_hook_slot_t *slot, void *ctx);

typedef struct loom_filter_hook {
    int version;                /* LOOM_FILTER_HOOK_VERSION, the library's */
    /* Each answers LOOM_ERR_UNSUPPORTED for a communicator the component
     * does not filter.  name is checked by the library. */
    loom_status_t (*name)(void *comm, const char *name);
    loom_status_t (*step)(void *comm);
    loom_status_t (*residual_bytes)(size_t *bytes_p);
    /* Calls fn for each slot of comm, under the store's lock, until fn
     * returns nonzero (then LOOM_ERR_IO). */
    loom_status_t (*slots)(void *comm, loom_filter_hook_slot_fn_t fn, void *ctx);
    /* load: the slot of (name or position, type, count) of comm, made if
     * need be, takes data's count elements as its residual (slot->residual
     * is not read).  read: that slot's residual is copied to out;
     * LOOM_ERR_NOT_FOUND when there is no such slot. */
    loom_status_t (*load)(void *comm, const loom_filter_hook_slot_t *slot, const void *data);
    loom_status_t (*read)(void *comm, const loom_filter_hook_slot_t *slot, void *out);
} loom_filter_hook_t;

extern loom_filter_hook_t loom_filter_hook;

#endif
