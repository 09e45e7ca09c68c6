/*
 * The component's MCA parameters (coll_loomfilter_priority,
 * coll_loomfilter_filter) and its MPI_T performance variables
 * (coll_loomfilter_<name>), process-wide like mca_coll_loom's: they read
 * the component's counters (mca_coll_loomfilter_counters_t).
 */
#include "coll_loomfilter.h"

#include "opal/mca/base/mca_base_pvar.h"

#include <stddef.h>

typedef struct loomfilter_pvar {
    const char              *name;
    const char              *help;
    int                     cls;        /* MCA_BASE_PVAR_CLASS_* */
    size_t                  offset;     /* into mca_coll_loomfilter_counters_t */
} loomfilter_pvar_t;

#define LOOMFILTER_COUNTER(field) offsetof(mca_coll_loomfilter_counters_t, field)

static const loomfilter_pvar_t loomfilter_pvars[] = {
    { "calls", "MPI_Allreduce and MPI_Iallreduce calls this process ran through the "
      "filter: MPI_SUM of MPI_FLOAT or MPI_DOUBLE of at least min_bytes on a communicator "
      "that opted in", MCA_BASE_PVAR_CLASS_COUNTER, LOOMFILTER_COUNTER(calls) },
    { "dense_bytes", "Bytes a dense allreduce would have sent from this process for the "
      "filtered calls (2(p-1)/p of each vector)", MCA_BASE_PVAR_CLASS_COUNTER,
      LOOMFILTER_COUNTER(dense_bytes) },
    { "sent_bytes", "Bytes this process sent for the filtered calls",
      MCA_BASE_PVAR_CLASS_COUNTER, LOOMFILTER_COUNTER(sent_bytes) },
    { "dense_switches", "Filtered calls that ran dense instead (warm-up, residual memory "
      "full, or the sparse form would send more)", MCA_BASE_PVAR_CLASS_COUNTER,
      LOOMFILTER_COUNTER(dense_switches) },
    { "residual_bytes", "Bytes this process holds now in residuals (error feedback)",
      MCA_BASE_PVAR_CLASS_SIZE, LOOMFILTER_COUNTER(residual_bytes) },
    { "handed_down", "Allreduce calls on a communicator that opted in that went to the "
      "module below untouched (another op or type, or below min_bytes)",
      MCA_BASE_PVAR_CLASS_COUNTER, LOOMFILTER_COUNTER(handed_down) },
    { "comms", "Communicators of this process that have a loomfilter module now (opted "
      "in)", MCA_BASE_PVAR_CLASS_SIZE, LOOMFILTER_COUNTER(comms) },
};

/* sent_bytes / dense_bytes over the filtered calls so far; 1 before any. */
static int loomfilter_read_density(const mca_base_pvar_t *pvar, void *value, void *obj)
{
    mca_coll_loomfilter_counters_t *k = &mca_coll_loomfilter_component.counters;
    unsigned long long dense = __atomic_load_n(&k->dense_bytes, __ATOMIC_RELAXED);
    unsigned long long sent = __atomic_load_n(&k->sent_bytes, __ATOMIC_RELAXED);

    (void)pvar;
    (void)obj;
    *(double *)value = dense == 0 ? 1.0 : (double)sent / (double)dense;
    return OMPI_SUCCESS;
}

static int loomfilter_register_pvars(void)
{
    mca_coll_loomfilter_component_t *c = &mca_coll_loomfilter_component;
    size_t i;
    int ret;

    for (i = 0; i < sizeof(loomfilter_pvars) / sizeof(loomfilter_pvars[0]); ++i) {
        ret = mca_base_component_pvar_register(
            &c->super.collm_version, loomfilter_pvars[i].name, loomfilter_pvars[i].help,
            OPAL_INFO_LVL_4, loomfilter_pvars[i].cls, MCA_BASE_VAR_TYPE_UNSIGNED_LONG_LONG,
            NULL, MCA_BASE_VAR_BIND_NO_OBJECT,
            MCA_BASE_PVAR_FLAG_READONLY | MCA_BASE_PVAR_FLAG_CONTINUOUS, NULL, NULL, NULL,
            (char *)&c->counters + loomfilter_pvars[i].offset);
        if (ret < 0) {
            return ret;
        }
    }
    ret = mca_base_component_pvar_register(
        &c->super.collm_version, "density", "Bytes sent over the bytes a dense allreduce "
        "would have sent, over this process's filtered calls so far (sent_bytes / "
        "dense_bytes; 1 before the first)", OPAL_INFO_LVL_4, MCA_BASE_PVAR_CLASS_LEVEL,
        MCA_BASE_VAR_TYPE_DOUBLE, NULL, MCA_BASE_VAR_BIND_NO_OBJECT,
        MCA_BASE_PVAR_FLAG_READONLY | MCA_BASE_PVAR_FLAG_CONTINUOUS, loomfilter_read_density,
        NULL, NULL, NULL);
    return ret < 0 ? ret : OMPI_SUCCESS;
}

int mca_coll_loomfilter_register(void)
{
    mca_coll_loomfilter_component_t *c = &mca_coll_loomfilter_component;

    (void)mca_base_component_var_register(
        &c->super.collm_version, "priority",
        "Priority of the loomfilter coll component: above coll_loom_priority (40 by "
        "default) so that the filter's allreduce is the one called on a communicator that "
        "opted in; it gives no module anywhere else.  Negative disables it",
        MCA_BASE_VAR_TYPE_INT, NULL, 0, 0, OPAL_INFO_LVL_4, MCA_BASE_VAR_SCOPE_READONLY,
        &c->priority);
    c->filter = NULL;
    (void)mca_base_component_var_register(
        &c->super.collm_version, "filter",
        "Filter every intra-communicator of the job (for programs that cannot set the "
        "info key loom_filter, which takes precedence on a communicator): none (default), "
        "or topk:<density>[,warmup=N][,min_bytes=SIZE][,momentum=M][,exact_max=N]"
        "[,residual_max=SIZE][,every=N][,exchange=auto|allgather|merge|split], "
        "e.g. topk:0.01.  Lossy: only MPI_SUM of float and double "
        "from min_bytes (4K) on.  Must be the same on every rank",
        MCA_BASE_VAR_TYPE_STRING, NULL, 0, 0, OPAL_INFO_LVL_4, MCA_BASE_VAR_SCOPE_READONLY,
        &c->filter);
    return loomfilter_register_pvars();
}
