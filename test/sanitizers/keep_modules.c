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
 *
 * The ranks run with leak_check_at_exit=0 and check here instead, with
 * the recoverable check: it prints the report but leaves the exit status
 * to the test, so that test/mpi/run.sh can tell a leak that Loom's code
 * allocated from memory Open MPI keeps for itself (see run.sh), whatever
 * Open MPI's own leaks are on the machine at hand.
 */
#include <dlfcn.h>
#include <sanitizer/lsan_interface.h>

int dlclose(void *handle)
{
    (void)handle;
    return 0;
}

/* A destructor of the executable runs after main has returned, after
 * MPI_Finalize, while every component is still mapped (above). */
__attribute__((destructor)) static void check_leaks_at_exit(void)
{
    (void)__lsan_do_recoverable_leak_check();
}
