/*
 * Naming call sites, at MPI_Finalize only: the module and the offset from
 * its load address (dladdr) identify a site across ranks; libdw's dwfl
 * gives the function and file:line where the module has debug information,
 * and dladdr's nearest symbol stands in where it has not.
 */
#define _GNU_SOURCE
#include "config.h"

#include <dlfcn.h>
#include <stdio.h>
#include <string.h>
#include <unistd.h>

#ifdef HAVE_LIBDW
#include <elfutils/libdwfl.h>
#endif

#include "report.h"

#ifdef HAVE_LIBDW
static Dwfl *loom_pmpi_dwfl;

static Dwfl *loom_pmpi_dwfl_get(void)
{
    static const Dwfl_Callbacks callbacks = {
        .find_elf = dwfl_linux_proc_find_elf,
        .find_debuginfo = dwfl_standard_find_debuginfo,
    };

    if (loom_pmpi_dwfl == NULL) {
        loom_pmpi_dwfl = dwfl_begin(&callbacks);
        if (loom_pmpi_dwfl != NULL &&
            (dwfl_linux_proc_report(loom_pmpi_dwfl, getpid()) != 0 ||
             dwfl_report_end(loom_pmpi_dwfl, NULL, NULL) != 0)) {
            dwfl_end(loom_pmpi_dwfl);
            loom_pmpi_dwfl = NULL;
        }
    }
    return loom_pmpi_dwfl;
}

/* The return address is the instruction after the call: the line of the
 * call is the line of the address one byte before it. */
static void loom_pmpi_resolve_dw(const void *ret, loom_pmpi_site_rec_t *rec)
{
    Dwarf_Addr addr = (Dwarf_Addr)(uintptr_t)ret - 1;
    Dwfl *dwfl = loom_pmpi_dwfl_get();
    Dwfl_Module *mod;
    Dwfl_Line *line;
    const char *name, *file;
    int lineno = 0;

    if (dwfl == NULL || (mod = dwfl_addrmodule(dwfl, addr)) == NULL) {
        return;
    }
    name = dwfl_module_addrname(mod, addr);
    if (name != NULL) {
        snprintf(rec->symbol, sizeof(rec->symbol), "%s", name);
    }
    line = dwfl_module_getsrc(mod, addr);
    if (line != NULL && (file = dwfl_lineinfo(line, NULL, &lineno, NULL, NULL, NULL)) != NULL) {
        const char *base = strrchr(file, '/');

        snprintf(rec->where, sizeof(rec->where), "%s:%d", base != NULL ? base + 1 : file, lineno);
    }
}
#endif

void loom_pmpi_resolve(const void *ret, loom_pmpi_site_rec_t *rec)
{
    Dl_info info;

    rec->module[0] = rec->symbol[0] = rec->where[0] = '\0';
    rec->offset = (uint64_t)(uintptr_t)ret;
    if (dladdr(ret, &info) != 0) {
        if (info.dli_fname != NULL) {
            snprintf(rec->module, sizeof(rec->module), "%s", info.dli_fname);
        }
        rec->offset = (uint64_t)((uintptr_t)ret - (uintptr_t)info.dli_fbase);
        if (info.dli_sname != NULL) {
            snprintf(rec->symbol, sizeof(rec->symbol), "%s", info.dli_sname);
        }
    }
#ifdef HAVE_LIBDW
    loom_pmpi_resolve_dw(ret, rec);
#endif
}

void loom_pmpi_resolve_end(void)
{
#ifdef HAVE_LIBDW
    if (loom_pmpi_dwfl != NULL) {
        dwfl_end(loom_pmpi_dwfl);
        loom_pmpi_dwfl = NULL;
    }
#endif
}
