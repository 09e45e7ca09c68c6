/*
 * The function table switch (coll_loom_print_table): which component
 * provides each collective on a communicator.  Open MPI's own verbose
 * output does not say; users need it to know whether Loom is in use.
 *
 * Loom's enable runs last among the usual components (highest priority),
 * after the lower modules filled c_coll, so the table printed is final
 * unless a component with a priority above Loom's is loaded.
 */
#define _GNU_SOURCE
#include "coll_loom.h"

#include "common/log.h"

#include <dlfcn.h>
#include <string.h>

/* "tuned" from ".../mca_coll_tuned.so"; the library name otherwise. */
static void loom_owner_name(const void *fn, char *buf, size_t len)
{
    const char *file, *base, *dot;
    Dl_info info;

    if (fn == NULL) {
        snprintf(buf, len, "(none)");
        return;
    }
    if (dladdr(fn, &info) == 0 || info.dli_fname == NULL) {
        snprintf(buf, len, "(unknown)");
        return;
    }
    file = info.dli_fname;
    base = strrchr(file, '/');
    base = base ? base + 1 : file;
    if (strncmp(base, "mca_coll_", 9) == 0) {
        base += 9;
    }
    dot = strchr(base, '.');
    snprintf(buf, len, "%.*s", dot ? (int)(dot - base) : (int)strlen(base), base);
}

#define LOOM_TABLE_ENTRY(_name) \
    { #_name, (const void *)comm->c_coll->coll_##_name, (const void *)loom_module->coll_##_name }

void mca_coll_loom_print_table(ompi_communicator_t *comm,
                               const mca_coll_base_module_t *loom_module)
{
    const struct {
        const char *name;
        const void *current;  /* from the lower-priority modules */
        const void *loom;     /* what Loom puts in its place, if anything */
    } entries[] = {
        LOOM_TABLE_ENTRY(allgather), LOOM_TABLE_ENTRY(allgatherv),
        LOOM_TABLE_ENTRY(allreduce), LOOM_TABLE_ENTRY(alltoall),
        LOOM_TABLE_ENTRY(alltoallv), LOOM_TABLE_ENTRY(barrier),
        LOOM_TABLE_ENTRY(bcast), LOOM_TABLE_ENTRY(gather),
        LOOM_TABLE_ENTRY(reduce), LOOM_TABLE_ENTRY(reduce_scatter),
        LOOM_TABLE_ENTRY(reduce_scatter_block), LOOM_TABLE_ENTRY(scan),
        LOOM_TABLE_ENTRY(scatter), LOOM_TABLE_ENTRY(iallgather),
        LOOM_TABLE_ENTRY(iallreduce), LOOM_TABLE_ENTRY(ibarrier),
        LOOM_TABLE_ENTRY(ibcast), LOOM_TABLE_ENTRY(ireduce),
        LOOM_TABLE_ENTRY(ireduce_scatter_block),
    };
    char line[2048], owner[64];
    size_t used, i;

    used = (size_t)snprintf(line, sizeof(line), "communicator %s (cid %u, %d ranks):",
                            comm->c_name, comm->c_contextid, ompi_comm_size(comm));
    for (i = 0; i < sizeof(entries) / sizeof(entries[0]) && used < sizeof(line); ++i) {
        loom_owner_name(entries[i].loom ? entries[i].loom : entries[i].current,
                        owner, sizeof(owner));
        used += (size_t)snprintf(line + used, sizeof(line) - used, " %s=%s",
                                 entries[i].name, owner);
    }
    /* Printed whatever the verbosity: the user asked for it. */
    loom_log_emit(LOOM_LOG_INFO, "coll", __FILE__, __LINE__, "%s", line);
}
