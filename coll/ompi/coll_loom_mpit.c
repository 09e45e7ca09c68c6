/*
 * What Loom shows and takes through MPI_T.
 *
 * Performance variables (coll_loom_<name>, process-wide counters that
 * MPI_T reads straight from the component): calls, bytes and time Loom
 * executed, every call handed to the module below Loom by reason, and the
 * calls each algorithm ran.  One control variable, coll_loom_enable,
 * switches Loom off and on at run time: in Open MPI only a component can
 * register MPI_T variables, so they live here (and coll_loom_order.c's,
 * the rank order's, are registered from here).
 */
#include "coll_loom.h"

#include "coll/core/allgather/allgather.h"
#include "coll/core/bcast/bcast.h"
#include "coll/core/reduce/reduce.h"
#include "coll/core/allreduce/allreduce.h"
#include "coll/core/reduce_scatter/reduce_scatter.h"
#include "opal/mca/base/mca_base_pvar.h"

#include <stddef.h>
#include <stdio.h>

typedef struct loom_pvar_desc {
    const char  *name;
    const char  *help;
    size_t      offset;     /* into mca_coll_loom_counters_t */
} loom_pvar_desc_t;

#define LOOM_COUNTER(field) offsetof(mca_coll_loom_counters_t, field)

/* The counters every collective has; %s is the collective's name. */
static const loom_pvar_desc_t loom_coll_pvars[] = {
    { "calls", "%s calls Loom executed in this process", LOOM_COUNTER(calls) },
    { "bytes", "Bytes of user data of the %s calls Loom executed (for a reduction "
      "the vector size, for a gather all blocks together)", LOOM_COUNTER(bytes) },
    { "time_ns", "Nanoseconds spent inside the %s calls Loom executed, from "
      "planning to completion", LOOM_COUNTER(time_ns) },
    { "fallbacks", "%s calls handed to the module below Loom because Loom cannot "
      "take their datatype (non-contiguous, or a lower bound other than 0) or does not "
      "run their communicator (an intercommunicator, spawned processes)",
      LOOM_COUNTER(fallbacks) },
    { "handoffs", "%s calls handed to the module below Loom because they are small "
      "and the communicator lives on one node (coll_loom_<collective>_handoff)",
      LOOM_COUNTER(handoffs) },
    { "disabled", "%s calls handed to the module below Loom while coll_loom_enable "
      "was 0", LOOM_COUNTER(disabled) },
};

/* The collectives with counters: name, storage, algorithm names. */
typedef struct loom_counted_coll {
    const char                  *name;
    mca_coll_loom_counters_t    *counters;
    const char *const           *algs;
    int                         shm;    /* may run through the node's shared segment */
} loom_counted_coll_t;

static int loom_pvar_register(const char *name, const char *help,
                              unsigned long long *counter)
{
    int ret = mca_base_component_pvar_register(
        &mca_coll_loom_component.super.collm_version, name, help, OPAL_INFO_LVL_4,
        MCA_BASE_PVAR_CLASS_COUNTER, MCA_BASE_VAR_TYPE_UNSIGNED_LONG_LONG, NULL,
        MCA_BASE_VAR_BIND_NO_OBJECT,
        MCA_BASE_PVAR_FLAG_READONLY | MCA_BASE_PVAR_FLAG_CONTINUOUS, NULL, NULL,
        NULL, counter);

    return ret < 0 ? ret : OMPI_SUCCESS;
}

static int loom_register_coll(const loom_counted_coll_t *coll)
{
    char name[64], help[256];
    size_t i;
    int ret;

    for (i = 0; i < sizeof(loom_coll_pvars) / sizeof(loom_coll_pvars[0]); ++i) {
        snprintf(name, sizeof(name), "%s_%s", coll->name, loom_coll_pvars[i].name);
        snprintf(help, sizeof(help), loom_coll_pvars[i].help, coll->name);
        ret = loom_pvar_register(name, help, (unsigned long long *)((char *)coll->counters +
                                                                    loom_coll_pvars[i].offset));
        if (ret != OMPI_SUCCESS) {
            return ret;
        }
    }
    /* Index 0 is "auto", a way to choose, not an algorithm. */
    for (i = 1; coll->algs[i] != NULL && i < LOOM_COLL_MAX_ALGS; ++i) {
        snprintf(name, sizeof(name), "%s_alg_%s", coll->name, coll->algs[i]);
        snprintf(help, sizeof(help), "%s calls Loom executed with %s", coll->name,
                 coll->algs[i]);
        ret = loom_pvar_register(name, help, &coll->counters->alg[i]);
        if (ret != OMPI_SUCCESS) {
            return ret;
        }
    }
    if (coll->shm) {
        snprintf(name, sizeof(name), "%s_alg_shm", coll->name);
        snprintf(help, sizeof(help), "%s calls Loom executed through the node's shared "
                 "segment (coll_loom_shm)", coll->name);
        return loom_pvar_register(name, help, &coll->counters->alg[LOOM_COLL_ALG_SHM]);
    }
    return OMPI_SUCCESS;
}

/* The progress thread's counters live in the transport, which exists only
 * between MPI_Init and MPI_Finalize: read through callbacks, 0 without. */
static int loom_pvar_read_thread_polls(const mca_base_pvar_t *pvar, void *value, void *obj)
{
    unsigned long long events;

    (void)pvar;
    (void)obj;
    loom_ucx_thread_counts(mca_coll_loom_component.ucx, (unsigned long long *)value,
                           &events);
    return OMPI_SUCCESS;
}

static int loom_pvar_read_thread_events(const mca_base_pvar_t *pvar, void *value, void *obj)
{
    unsigned long long polls;

    (void)pvar;
    (void)obj;
    loom_ucx_thread_counts(mca_coll_loom_component.ucx, &polls,
                           (unsigned long long *)value);
    return OMPI_SUCCESS;
}

static int loom_register_thread_pvars(void)
{
    static const struct {
        const char              *name, *help;
        mca_base_get_value_fn_t read;
    } pvars[] = {
        { "progress_thread_polls", "Calls to ucp_worker_progress made by the progress "
          "thread (coll_loom_progress_thread): it polls only while operations are in "
          "flight; always 0 without the thread", loom_pvar_read_thread_polls },
        { "progress_thread_events", "Events (completions, arrived fragments) handled by "
          "the progress thread's polls rather than by an MPI call's; always 0 without "
          "the thread", loom_pvar_read_thread_events },
    };
    size_t i;
    int ret;

    for (i = 0; i < sizeof(pvars) / sizeof(pvars[0]); ++i) {
        ret = mca_base_component_pvar_register(
            &mca_coll_loom_component.super.collm_version, pvars[i].name, pvars[i].help,
            OPAL_INFO_LVL_4, MCA_BASE_PVAR_CLASS_COUNTER,
            MCA_BASE_VAR_TYPE_UNSIGNED_LONG_LONG, NULL, MCA_BASE_VAR_BIND_NO_OBJECT,
            MCA_BASE_PVAR_FLAG_READONLY | MCA_BASE_PVAR_FLAG_CONTINUOUS,
            pvars[i].read, NULL, NULL, NULL);
        if (ret < 0) {
            return ret;
        }
    }
    return OMPI_SUCCESS;
}

int mca_coll_loom_mpit_register(void)
{
    mca_coll_loom_component_t *c = &mca_coll_loom_component;
    size_t k;
    int ret;

    c->enable = 1;
    ret = mca_base_component_var_register(
        &c->super.collm_version, "enable",
        "1: Loom runs the collectives it provides; 0: it hands every call to "
        "the module Open MPI chose below it.  Writable at run time through "
        "MPI_T_cvar_write: write the same value on every rank at the same "
        "point between collectives; each communicator switches at its next "
        "collective, which has the same sequence number on every rank",
        MCA_BASE_VAR_TYPE_INT, NULL, 0, MCA_BASE_VAR_FLAG_SETTABLE, OPAL_INFO_LVL_4,
        MCA_BASE_VAR_SCOPE_ALL_EQ, &c->enable);
    if (ret < 0) {
        return ret;
    }
    const loom_counted_coll_t colls[] = {
        { "allreduce", &c->counters[LOOM_COLL_ALLREDUCE], loom_allreduce_alg_names, 1 },
        { "allgather", &c->counters[LOOM_COLL_ALLGATHER], loom_allgather_alg_names, 1 },
        { "reduce_scatter", &c->counters[LOOM_COLL_REDUCE_SCATTER], loom_reduce_scatter_alg_names, 1 },
        { "bcast", &c->counters[LOOM_COLL_BCAST], loom_bcast_alg_names, 1 },
        { "reduce", &c->counters[LOOM_COLL_REDUCE], loom_reduce_alg_names, 1 },
    };
    for (k = 0; k < sizeof(colls) / sizeof(colls[0]); ++k) {
        ret = loom_register_coll(&colls[k]);
        if (ret != OMPI_SUCCESS) {
            return ret;
        }
    }
    ret = loom_register_thread_pvars();
    if (ret != OMPI_SUCCESS) {
        return ret;
    }
    return mca_coll_loom_order_register();
}
