/*
 * alloccount: a preloaded test tool that counts the heap allocations
 * libloom-pmpi makes itself, to check docs/pmpi.md's promise of none on the
 * call path after warm-up (test_pmpi_alloc.sh).
 *
 * It replaces malloc, calloc and realloc (passing them on to glibc's
 * __libc_ functions) and counts the calls whose caller lies in the
 * library's mapped code, which it finds when it is loaded, before MPI_Init
 * (dl_iterate_phdr: the module holding the next MPI_Barrier).  Preload it
 * before the library so that its MPI_Barrier and MPI_Finalize run first.
 * The window is from the return of the program's second MPI_Barrier
 * (pmpi_prog's second iteration: every site and communicator exists) to
 * the first MPI_Comm_dup or MPI_Finalize, whichever comes first: a new
 * communicator is the slow path the promise leaves out (its world ranks
 * and last-arrival windows), and the report at MPI_Finalize allocates.  At
 * MPI_Finalize each rank prints how many allocations of the library it saw
 * outside the window (among them MPI_Init's tables, so never 0 when the
 * counting works) and in it, and where the first ones in it came from.
 */
#define _GNU_SOURCE
#include <dlfcn.h>
#include <link.h>
#include <mpi.h>
#include <stdint.h>
#include <stdio.h>
#include <string.h>

extern void *__libc_malloc(size_t size);
extern void *__libc_calloc(size_t n, size_t size);
extern void *__libc_realloc(void *p, size_t size);

static uintptr_t lib_lo, lib_hi;        /* the library's code; 0, 0 until known */
static int window;                      /* 1: counting into in_window */
static unsigned long outside, in_window;
/* The first callers in the window, named at MPI_Finalize for the failure
 * message. */
#define ALLOCCOUNT_CALLERS 8
static const void *callers[ALLOCCOUNT_CALLERS];

static void alloccount_note(const void *caller)
{
    uintptr_t a = (uintptr_t)caller;
    unsigned long n;

    if (a >= lib_lo && a < lib_hi) {
        n = __atomic_fetch_add(window ? &in_window : &outside, 1, __ATOMIC_RELAXED);
        if (window && n < ALLOCCOUNT_CALLERS) {
            callers[n] = caller;
        }
    }
}

void *malloc(size_t size)
{
    alloccount_note(__builtin_return_address(0));
    return __libc_malloc(size);
}

void *calloc(size_t n, size_t size)
{
    alloccount_note(__builtin_return_address(0));
    return __libc_calloc(n, size);
}

void *realloc(void *p, size_t size)
{
    alloccount_note(__builtin_return_address(0));
    return __libc_realloc(p, size);
}

/* dl_iterate_phdr callback: the executable segment of the module that
 * holds the address in data. */
static int alloccount_find(struct dl_phdr_info *info, size_t size, void *data)
{
    uintptr_t a = (uintptr_t)data, lo, hi;
    int i;

    (void)size;
    for (i = 0; i < info->dlpi_phnum; ++i) {
        const ElfW(Phdr) *ph = &info->dlpi_phdr[i];

        if (ph->p_type == PT_LOAD && (ph->p_flags & PF_X)) {
            lo = info->dlpi_addr + ph->p_vaddr;
            hi = lo + ph->p_memsz;
            if (a >= lo && a < hi) {
                lib_lo = lo;
                lib_hi = hi;
                return 1;
            }
        }
    }
    return 0;
}

static __typeof__(&MPI_Barrier) next_barrier;

__attribute__((constructor)) static void alloccount_init(void)
{
    next_barrier = (__typeof__(&MPI_Barrier))dlsym(RTLD_NEXT, "MPI_Barrier");
    if (next_barrier != NULL) {
        dl_iterate_phdr(alloccount_find, (void *)next_barrier);
    }
}

int MPI_Barrier(MPI_Comm comm)
{
    static int calls;
    int rc;

    rc = next_barrier(comm);
    if (++calls == 2) {
        window = 1;                     /* once: a dup closes it for good */
    }
    return rc;
}

int MPI_Comm_dup(MPI_Comm comm, MPI_Comm *newcomm)
{
    static __typeof__(&MPI_Comm_dup) next;

    window = 0;
    if (next == NULL) {
        next = (__typeof__(&MPI_Comm_dup))dlsym(RTLD_NEXT, "MPI_Comm_dup");
    }
    return next(comm, newcomm);
}

int MPI_Finalize(void)
{
    static __typeof__(&MPI_Finalize) next;
    Dl_info info;
    unsigned long i;
    int rank;

    window = 0;
    if (next == NULL) {
        next = (__typeof__(&MPI_Finalize))dlsym(RTLD_NEXT, "MPI_Finalize");
    }
    PMPI_Comm_rank(MPI_COMM_WORLD, &rank);
    if (lib_lo == 0 || dladdr((void *)lib_lo, &info) == 0) {
        memset(&info, 0, sizeof(info));
    }
    fprintf(stderr, "alloccount: rank %d: %s: %lu allocations outside the window, %lu in it\n",
            rank, info.dli_fname != NULL ? info.dli_fname : "(no module found)", outside,
            in_window);
    for (i = 0; i < ALLOCCOUNT_CALLERS && i < in_window; ++i) {
        if (dladdr(callers[i], &info) != 0) {
            fprintf(stderr, "alloccount: rank %d: allocation in the window from %s+0x%lx (%s)\n",
                    rank, info.dli_fname, (unsigned long)((uintptr_t)callers[i] -
                                                          (uintptr_t)info.dli_fbase),
                    info.dli_sname != NULL ? info.dli_sname : "?");
        }
    }
    return next();
}
