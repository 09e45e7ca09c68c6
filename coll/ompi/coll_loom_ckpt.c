/*
 * libloom-ckpt's MCA parameters and MPI_T variables.
 *
 * In Open MPI only a component can register them, and libloom-ckpt does
 * not depend on MPI, so the component registers them here and meets the
 * library through the one object it exports (ckpt/hook.h), looked up with
 * dlsym(RTLD_DEFAULT): present when the application links libloom-ckpt,
 * absent otherwise (ompi_info, jobs that do not checkpoint), and then the
 * parameters do nothing and the variables read 0.
 */
#include "coll_loom.h"

#include "ckpt/hook.h"
#include "opal/mca/base/mca_base_pvar.h"

#include <dlfcn.h>
#include <stdio.h>
#include <string.h>

static char *loom_ckpt_param[5];

static loom_ckpt_hook_t *loom_ckpt_find_hook(void)
{
    static loom_ckpt_hook_t *hook;
    static int looked;

    if (!looked) {
        hook = dlsym(RTLD_DEFAULT, LOOM_CKPT_HOOK_SYMBOL);
        if (hook != NULL && hook->version != LOOM_CKPT_HOOK_VERSION) {
            hook = NULL;    /* another libloom-ckpt: leave it alone */
        }
        looked = 1;
    }
    return hook;
}

#define LOOM_CKPT_TOTAL(field)                                                      \
    static int loom_pvar_read_ckpt_##field(const mca_base_pvar_t *pvar, void *value, \
                                           void *obj)                                \
    {                                                                                \
        loom_ckpt_hook_t *h = loom_ckpt_find_hook();                                 \
        (void)pvar;                                                                  \
        (void)obj;                                                                   \
        *(unsigned long long *)value =                                               \
            h ? __atomic_load_n(&h->field, __ATOMIC_RELAXED) : 0;                    \
        return OMPI_SUCCESS;                                                         \
    }
LOOM_CKPT_TOTAL(saves)
LOOM_CKPT_TOTAL(bytes_written)
LOOM_CKPT_TOTAL(chunks_written)
LOOM_CKPT_TOTAL(chunks_reused)
LOOM_CKPT_TOTAL(stall_ns)

int mca_coll_loom_ckpt_register(void)
{
    static const struct {
        const char *name, *help;
    } params[] = {
        { "ckpt_chunk_size", "libloom-ckpt: chunk size in bytes, with k, m or g "
          "(as LOOM_CKPT_CHUNK_SIZE, which wins when both are set); empty: 1m" },
        { "ckpt_keep", "libloom-ckpt: committed steps to keep, older ones and their "
          "chunks deleted (as LOOM_CKPT_KEEP); empty or 0: all" },
        { "ckpt_compress", "libloom-ckpt: none, zstd or zstd:N (as LOOM_CKPT_COMPRESS); "
          "empty: none" },
        { "ckpt_staging", "libloom-ckpt: bytes an asynchronous save may stage before "
          "it waits (as LOOM_CKPT_STAGING); empty: 64m" },
        { "ckpt_track", "libloom-ckpt: how a save finds the chunks that may have "
          "changed: auto, writes (the kernel tracks written pages), marks "
          "(loom_ckpt_touch only) or none (hash everything) (as LOOM_CKPT_TRACK); "
          "empty: auto" },
    };
    static const struct {
        const char *name, *help;
        mca_base_get_value_fn_t read;
    } pvars[] = {
        { "ckpt_saves", "libloom-ckpt: checkpoints this process saved and committed",
          loom_pvar_read_ckpt_saves },
        { "ckpt_bytes_written", "libloom-ckpt: chunk bytes this process wrote to disk "
          "(compressed size)", loom_pvar_read_ckpt_bytes_written },
        { "ckpt_chunks_written", "libloom-ckpt: chunks this process wrote",
          loom_pvar_read_ckpt_chunks_written },
        { "ckpt_chunks_reused", "libloom-ckpt: chunks this process did not write "
          "because they were unchanged or already stored",
          loom_pvar_read_ckpt_chunks_reused },
        { "ckpt_stall_ns", "libloom-ckpt: nanoseconds asynchronous saves waited for "
          "staging room", loom_pvar_read_ckpt_stall_ns },
    };
    mca_coll_loom_component_t *c = &mca_coll_loom_component;
    size_t i;
    int ret;

    for (i = 0; i < sizeof(params) / sizeof(params[0]); ++i) {
        loom_ckpt_param[i] = NULL;
        ret = mca_base_component_var_register(
            &c->super.collm_version, params[i].name, params[i].help,
            MCA_BASE_VAR_TYPE_STRING, NULL, 0, 0, OPAL_INFO_LVL_5,
            MCA_BASE_VAR_SCOPE_READONLY, &loom_ckpt_param[i]);
        if (ret < 0) {
            return ret;
        }
    }
    for (i = 0; i < sizeof(pvars) / sizeof(pvars[0]); ++i) {
        ret = mca_base_component_pvar_register(
            &c->super.collm_version, pvars[i].name, pvars[i].help, OPAL_INFO_LVL_4,
            MCA_BASE_PVAR_CLASS_COUNTER, MCA_BASE_VAR_TYPE_UNSIGNED_LONG_LONG, NULL,
            MCA_BASE_VAR_BIND_NO_OBJECT,
            MCA_BASE_PVAR_FLAG_READONLY | MCA_BASE_PVAR_FLAG_CONTINUOUS,
            pvars[i].read, NULL, NULL, NULL);
        if (ret < 0) {
            return ret;
        }
    }

    /* Hand the values to the library, if it is in this process. */
    loom_ckpt_hook_t *h = loom_ckpt_find_hook();
    if (h != NULL) {
        char *fields[] = { h->chunk_size, h->keep, h->compress, h->staging, h->track };
        for (i = 0; i < sizeof(fields) / sizeof(fields[0]); ++i) {
            snprintf(fields[i], sizeof(h->keep), "%s",
                     loom_ckpt_param[i] ? loom_ckpt_param[i] : "");
        }
        h->mca_set = 1;
    }
    return OMPI_SUCCESS;
}
