/*
 * What Loom shows and takes through MPI_T.
 *
 * Performance variables (coll_loom_<name>, process-wide counters that
 * MPI_T reads straight from the component): calls, bytes and time Loom
 * executed, every call handed to the module below Loom by reason, and the
 * calls each algorithm ran.  One control variable, coll_loom_enable,
 * switches Loom off and on at run time: in Open MPI only a component can
 * register MPI_T variables, so they live here.
 */
#include "coll_loom.h"

#include "coll/core/allreduce.h"
#include "opal/mca/base/mca_base_pvar.h"

#include <stddef.h>
#include <stdio.h>

typedef struct loom_pvar_desc {
    const char  *name;
    const char  *help;
    size_t      offset;     /* into mca_coll_loom_counters_t */
} loom_pvar_desc_t;

#define LOOM_COUNTER(field) offsetof(mca_coll_loom_counters_t, field)

static const loom_pvar_desc_t loom_allreduce_pvars[] = {
    { "allreduce_calls", "Allreduce calls Loom executed in this process",
      LOOM_COUNTER(calls) },
    { "allreduce_bytes", "Bytes of user data (count times type size) of the "
      "allreduce calls Loom executed", LOOM_COUNTER(bytes) },
    { "allreduce_time_ns", "Nanoseconds spent inside the allreduce calls Loom "
      "executed, from planning to completion", LOOM_COUNTER(time_ns) },
    { "allreduce_fallbacks", "Allreduce calls handed to the module below Loom "
      "because Loom cannot take their datatype (non-contiguous, or a lower "
      "bound other than 0)", LOOM_COUNTER(fallbacks) },
    { "allreduce_handoffs", "Allreduce calls handed to the module below Loom "
      "because they are below coll_loom_allreduce_handoff bytes on a "
      "communicator inside one node", LOOM_COUNTER(handoffs) },
    { "allreduce_disabled", "Allreduce calls handed to the module below Loom "
      "while coll_loom_enable was 0", LOOM_COUNTER(disabled) },
};

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

int mca_coll_loom_mpit_register(void)
{
    mca_coll_loom_component_t *c = &mca_coll_loom_component;
    char name[64], help[160];
    size_t i;
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
    for (i = 0; i < sizeof(loom_allreduce_pvars) / sizeof(loom_allreduce_pvars[0]); ++i) {
        ret = loom_pvar_register(loom_allreduce_pvars[i].name, loom_allreduce_pvars[i].help,
                                 (unsigned long long *)((char *)&c->allreduce +
                                                        loom_allreduce_pvars[i].offset));
        if (ret != OMPI_SUCCESS) {
            return ret;
        }
    }
    for (i = 0; i < LOOM_ALLREDUCE_ALG_COUNT; ++i) {
        if (loom_allreduce_algorithms[i].name == NULL) {
            continue;   /* auto is a choice, not an algorithm */
        }
        snprintf(name, sizeof(name), "allreduce_alg_%s", loom_allreduce_algorithms[i].name);
        snprintf(help, sizeof(help), "Allreduce calls Loom executed with %s",
                 loom_allreduce_algorithms[i].name);
        ret = loom_pvar_register(name, help, &c->allreduce.alg[i]);
        if (ret != OMPI_SUCCESS) {
            return ret;
        }
    }
    return OMPI_SUCCESS;
}
