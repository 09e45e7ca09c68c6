/*
 * Linked into the MPI test programs of a build configured with
 * --enable-sanitizers (test/sanitize.am), nowhere else.
 *
 * Open MPI 4.1 dlclose()s its components, Loom's among them, in
 * MPI_Finalize, before LeakSanitizer looks at the heap at exit.  A leak
 * allocated in an unloaded component then has "<unknown module>" for a
 * stack: it can be neither told apart from a leak of Loom's nor suppressed
 * by name.  This definition in the executable comes first in symbol lookup,
 * so Open MPI's dlclose() calls land here and every component stays mapped
 * until the process ends.  (Open MPI 5 has an MCA parameter for this,
 * mca_base_component_disable_dlclose; 4.1 has not.)
 */
#include <dlfcn.h>

int dlclose(void *handle)
{
    (void)handle;
    return 0;
}
