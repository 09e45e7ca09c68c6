/*
 * What libloom-filter (include/loom/filter.h) asks of the component.
 *
 * The library exports one object, loom_filter_hook (filterapi/hook.h);
 * when the application links it, it is in the process's global symbol
 * table and dlsym(RTLD_DEFAULT) finds it, as coll_loom_ckpt.c finds
 * libloom-ckpt's.  The first module enabled fills its functions, close
 * empties them (the component may be unloaded after MPI_Finalize, and
 * the library then answers LOOM_ERR_UNSUPPORTED).  A hook of another
 * version is left alone.
 *
 * An MPI_Comm is filtered when its allreduce is this component's: then
 * its c_coll allreduce module is a loomfilter module.
 */
#include "coll_loomfilter.h"

#include "common/log.h"
#include "filterapi/hook.h"

#include <dlfcn.h>
#include <stdio.h>
#include <string.h>

static loom_filter_hook_t *loomfilter_hook;

/* comm's loomfilter module, or NULL when this component does not filter it. */
static mca_coll_loomfilter_module_t *loomfilter_api_module(void *handle)
{
    ompi_communicator_t *comm = handle;
    mca_coll_loomfilter_module_t *module;

    if (comm == NULL || comm == &ompi_mpi_comm_null.comm || comm->c_coll == NULL ||
        comm->c_coll->coll_allreduce != mca_coll_loomfilter_allreduce) {
        return NULL;
    }
    module = (mca_coll_loomfilter_module_t *)comm->c_coll->coll_allreduce_module;
    return module != NULL && module->team != NULL ? module : NULL;
}

static loom_status_t loomfilter_api_name(void *comm, const char *name)
{
    mca_coll_loomfilter_module_t *module = loomfilter_api_module(comm);

    if (module == NULL) {
        return LOOM_ERR_UNSUPPORTED;
    }
    if (strlen(name) > LOOM_RESIDUAL_NAME_MAX) {
        return LOOM_ERR_INVALID_PARAM;
    }
    mca_coll_loomfilter_name_next(module, name);
    return LOOM_OK;
}

static loom_status_t loomfilter_api_step(void *comm)
{
    mca_coll_loomfilter_module_t *module = loomfilter_api_module(comm);

    if (module == NULL) {
        return LOOM_ERR_UNSUPPORTED;
    }
    loom_filter_steps_mark(module->steps);
    return LOOM_OK;
}

static loom_status_t loomfilter_api_residual_bytes(size_t *bytes_p)
{
    *bytes_p = mca_coll_loomfilter_residuals_bytes();
    return LOOM_OK;
}

typedef struct loomfilter_api_each {
    loom_filter_hook_slot_fn_t  fn;
    void                        *ctx;
} loomfilter_api_each_t;

static int loomfilter_api_slot(loom_residual_slot_t *slot, void *ctx)
{
    loomfilter_api_each_t *each = ctx;
    loom_filter_hook_slot_t out = {
        .name = slot->key.name, .position = slot->key.position,
        .type = slot->key.type == LOOM_FILTER_FLOAT ? LOOM_FILTER_HOOK_FLOAT
                                                    : LOOM_FILTER_HOOK_DOUBLE,
        .count = slot->key.count, .residual = slot->residual,
    };

    return each->fn(&out, each->ctx);
}

static loom_status_t loomfilter_api_slots(void *comm, loom_filter_hook_slot_fn_t fn, void *ctx)
{
    mca_coll_loomfilter_module_t *module = loomfilter_api_module(comm);
    loomfilter_api_each_t each = { fn, ctx };

    if (module == NULL) {
        return LOOM_ERR_UNSUPPORTED;
    }
    return mca_coll_loomfilter_residuals_each(module, loomfilter_api_slot, &each);
}

/* The store's key of the library's slot; LOOM_ERR_INVALID_PARAM when it
 * names no slot the store could hold. */
static loom_status_t loomfilter_api_key(const loom_filter_hook_slot_t *slot,
                                        loom_residual_key_t *key)
{
    const char *name = slot->name != NULL ? slot->name : "";

    if ((slot->type != LOOM_FILTER_HOOK_FLOAT && slot->type != LOOM_FILTER_HOOK_DOUBLE) ||
        slot->count == 0 || strlen(name) > LOOM_RESIDUAL_NAME_MAX) {
        return LOOM_ERR_INVALID_PARAM;
    }
    *key = (loom_residual_key_t){
        .position = name[0] != '\0' ? 0 : slot->position, .count = slot->count,
        .type = slot->type == LOOM_FILTER_HOOK_FLOAT ? LOOM_FILTER_FLOAT : LOOM_FILTER_DOUBLE,
    };
    snprintf(key->name, sizeof(key->name), "%s", name);
    return LOOM_OK;
}

static loom_status_t loomfilter_api_load(void *comm, const loom_filter_hook_slot_t *slot,
                                         const void *data)
{
    mca_coll_loomfilter_module_t *module = loomfilter_api_module(comm);
    loom_residual_key_t key;
    loom_status_t status;

    if (module == NULL) {
        return LOOM_ERR_UNSUPPORTED;
    }
    status = loomfilter_api_key(slot, &key);
    return status == LOOM_OK ? mca_coll_loomfilter_residual_load(module, &key, data) : status;
}

static loom_status_t loomfilter_api_read(void *comm, const loom_filter_hook_slot_t *slot,
                                         void *out)
{
    mca_coll_loomfilter_module_t *module = loomfilter_api_module(comm);
    loom_residual_key_t key;
    loom_status_t status;

    if (module == NULL) {
        return LOOM_ERR_UNSUPPORTED;
    }
    status = loomfilter_api_key(slot, &key);
    return status == LOOM_OK ? mca_coll_loomfilter_residual_read(module, &key, out) : status;
}

void mca_coll_loomfilter_api_attach(void)
{
    loom_filter_hook_t *hook;

    if (loomfilter_hook != NULL) {
        return;
    }
    hook = dlsym(RTLD_DEFAULT, LOOM_FILTER_HOOK_SYMBOL);
    if (hook == NULL || hook->version != LOOM_FILTER_HOOK_VERSION) {
        return;     /* not linked, or another libloom-filter: leave it alone */
    }
    hook->name = loomfilter_api_name;
    hook->step = loomfilter_api_step;
    hook->residual_bytes = loomfilter_api_residual_bytes;
    hook->slots = loomfilter_api_slots;
    hook->load = loomfilter_api_load;
    hook->read = loomfilter_api_read;
    loomfilter_hook = hook;
    loom_debug("coll", "libloom-filter is linked: its calls reach this component");
}

void mca_coll_loomfilter_api_detach(void)
{
    loom_filter_hook_t *hook = loomfilter_hook;

    if (hook == NULL) {
        return;
    }
    hook->name = NULL;
    hook->step = NULL;
    hook->residual_bytes = NULL;
    hook->slots = NULL;
    hook->load = NULL;
    hook->read = NULL;
    loomfilter_hook = NULL;
}
