/*
 * The loom component's side door into libloom-ckpt.
 *
 * In Open MPI only a component can register MCA parameters and MPI_T
 * variables, and libloom-ckpt must not depend on MPI.  So the library
 * exports this one plain-data object, and the component
 * (coll/ompi/coll_loom_ckpt.c) finds it with dlsym(RTLD_DEFAULT) when the
 * application links libloom-ckpt: at MPI_Init it writes its MCA
 * parameters' values in, and its MPI_T performance variables read the
 * process totals that the library adds after each save.  Without the
 * component (or without the library) nothing happens.
 */
#ifndef LOOM_CKPT_HOOK_H
#define LOOM_CKPT_HOOK_H

#include <stdint.h>

#define LOOM_CKPT_HOOK_SYMBOL "loom_ckpt_hook"
#define LOOM_CKPT_HOOK_VERSION 2

typedef struct loom_ckpt_hook {
    int version;                /* LOOM_CKPT_HOOK_VERSION */
    /* Settings, as the LOOM_CKPT_* environment variables read (which,
     * like loom_ckpt_options_t, take precedence); empty: unset. */
    int mca_set;                /* 1 once the component wrote them */
    char chunk_size[32];
    char keep[32];
    char compress[32];
    char staging[32];
    char track[32];
    /* Process totals over every context, for MPI_T (relaxed atomics). */
    uint64_t saves;
    uint64_t bytes_written;
    uint64_t chunks_written;
    uint64_t chunks_reused;
    uint64_t stall_ns;
} loom_ckpt_hook_t;

extern loom_ckpt_hook_t loom_ckpt_hook;

#endif
