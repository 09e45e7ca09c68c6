/*
 * The component's MCA parameters: its own (priority, the tables, the
 * progress thread, rules and calibration) and every engine setting of
 * loom_coll_config_table as coll_loom_<name>, then those of the topology
 * file, libloom-ckpt and MPI_T.
 */
#include "coll_loom.h"

#include "opal/mca/base/mca_base_var_enum.h"

#include <stddef.h>
#include <stdio.h>
#include <stdlib.h>

/* Register one table of engine settings as coll_loom_<name> parameters;
 * the storage is the settings struct itself, so MCA's value is the one
 * the engine reads.  A runtime setting (the algorithms) is writable
 * through MPI_T_cvar_write: every call reads it when it is planned, so a
 * value written on every rank at the same point between collectives
 * applies from the next one on. */
static int loom_register_table(const loom_config_field_t *table, void *obj)
{
    mca_base_var_enum_value_t *values;
    mca_base_var_enum_t *enumerator;
    static const char loom_runtime_help[] =
        ".  Writable at run time through MPI_T_cvar_write: write the same value on every "
        "rank at the same point between collectives";
    const loom_config_field_t *f;
    char help[2048];
    int i, n, ret;

    for (f = table; f->name != NULL; ++f) {
        enumerator = NULL;
        if (f->type == LOOM_CONFIG_ENUM) {
            for (n = 0; f->enum_names[n] != NULL; ++n) {
            }
            values = calloc((size_t)n + 1, sizeof(*values));
            if (values == NULL) {
                return OMPI_ERR_OUT_OF_RESOURCE;
            }
            for (i = 0; i < n; ++i) {
                values[i].value = i;
                values[i].string = f->enum_names[i];
            }
            ret = mca_base_var_enum_create(f->name, values, &enumerator);
            free(values);
            if (ret != OPAL_SUCCESS) {
                return ret;
            }
        }
        snprintf(help, sizeof(help), "%s%s", f->help, f->runtime ? loom_runtime_help : "");
        ret = mca_base_component_var_register(
            &mca_coll_loom_component.super.collm_version, f->name, help,
            f->type == LOOM_CONFIG_SIZE ? MCA_BASE_VAR_TYPE_SIZE_T : MCA_BASE_VAR_TYPE_INT,
            enumerator, 0, f->runtime ? MCA_BASE_VAR_FLAG_SETTABLE : 0, OPAL_INFO_LVL_5,
            f->runtime ? MCA_BASE_VAR_SCOPE_ALL_EQ : MCA_BASE_VAR_SCOPE_READONLY,
            (char *)obj + f->offset);
        if (enumerator != NULL) {
            OBJ_RELEASE(enumerator);
        }
        if (ret < 0) {
            return ret;
        }
    }
    return OMPI_SUCCESS;
}

/* The component's own parameters, beside the engine's table: one row
 * each, registered alike. */
typedef struct loom_param {
    const char          *name;
    const char          *help;
    mca_base_var_type_t type;
    mca_base_var_info_lvl_t level;
    size_t              offset;     /* in mca_coll_loom_component_t */
} loom_param_t;

static const loom_param_t loom_params[] = {
    { "priority",
      "Priority of the loom coll component: above 30 it replaces tuned's "
      "allreduce; negative disables it",
      MCA_BASE_VAR_TYPE_INT, OPAL_INFO_LVL_6, offsetof(mca_coll_loom_component_t, priority) },
    { "print_table",
      "Print, for every communicator Loom joins, which component provides "
      "each collective function",
      MCA_BASE_VAR_TYPE_BOOL, OPAL_INFO_LVL_5,
      offsetof(mca_coll_loom_component_t, print_table) },
    { "progress_thread",
      "Start a thread that only advances Loom's UCX worker, so that "
      "nonblocking collectives move data while the application computes "
      "between posting and waiting (docs/progress_thread.md).  It polls "
      "only while operations are in flight and sleeps otherwise; the "
      "collectives still complete inside MPI calls.  Needs UCX built with "
      "multi-thread support; without it Loom warns and runs without the thread",
      MCA_BASE_VAR_TYPE_BOOL, OPAL_INFO_LVL_4,
      offsetof(mca_coll_loom_component_t, progress_thread) },
    { "rules",
      "Selection rules and cost constants, grammar v2 (docs/rules.md), e.g. "
      "\"allreduce:0-64K:@recursive_doubling;allreduce:64K-inf:np=2-8:@ring:seg=256K\"; "
      "must be the same on every rank",
      MCA_BASE_VAR_TYPE_STRING, OPAL_INFO_LVL_5,
      offsetof(mca_coll_loom_component_t, rules_text) },
    { "rules_file",
      "A tuning file of selection rules and cost constants, one per line, grammar v2 "
      "(docs/rules.md)",
      MCA_BASE_VAR_TYPE_STRING, OPAL_INFO_LVL_5,
      offsetof(mca_coll_loom_component_t, rules_file) },
    { "calibrate",
      "Measure the cost model's bandwidth (memcpy) and reduce rate (Loom's double "
      "sum) on world rank 0 in MPI_Init, and have every rank use rank 0's values, "
      "which then show in coll_loom_cost_bandwidth_mbs and coll_loom_cost_reduce_mbs; "
      "must be the same on every rank",
      MCA_BASE_VAR_TYPE_BOOL, OPAL_INFO_LVL_5,
      offsetof(mca_coll_loom_component_t, calibrate) },
};

int mca_coll_loom_register(void)
{
    mca_coll_loom_component_t *c = &mca_coll_loom_component;
    size_t i;
    int ret;

    /* Defaults: the priority keeps its initializer; booleans off, strings
     * unset. */
    c->print_table = false;
    c->progress_thread = false;
    c->rules_text = NULL;
    c->rules_file = NULL;
    c->calibrate = false;
    for (i = 0; i < sizeof(loom_params) / sizeof(loom_params[0]); ++i) {
        const loom_param_t *prm = &loom_params[i];

        (void)mca_base_component_var_register(
            &c->super.collm_version, prm->name, prm->help, prm->type, NULL, 0, 0,
            prm->level, MCA_BASE_VAR_SCOPE_READONLY, (char *)c + prm->offset);
    }

    if (loom_coll_config_init(&c->config) != LOOM_OK) {
        return OMPI_ERROR;
    }
    ret = loom_register_table(loom_coll_config_table, &c->config);
    if (ret != OMPI_SUCCESS) {
        return ret;
    }
    ret = mca_coll_loom_topo_register();
    if (ret < 0) {
        return ret;
    }
    ret = mca_coll_loom_ckpt_register();
    if (ret != OMPI_SUCCESS) {
        return ret;
    }
    return mca_coll_loom_mpit_register();
}
