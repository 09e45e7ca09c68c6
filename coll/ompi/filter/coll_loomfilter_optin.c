/*
 * Whether a communicator opted in to filtering, and what it asked for.
 *
 * Filtering is lossy, so it applies only where asked: on a communicator
 * created with the info key loom_filter (MPI_Comm_dup_with_info,
 * MPI_Comm_split_type with info, ...), or on every intra-communicator of
 * the job when the MCA parameter coll_loomfilter_filter is set, for
 * programs that cannot be changed.  The info key takes precedence: a
 * communicator can say loom_filter=none under the MCA parameter.
 *
 * A wrong value is the user's mistake, not a failure: one warning that
 * names the value and what is accepted, and the communicator runs dense
 * (no module).  The MCA parameter's warning comes once per job (world
 * rank 0, at open); an info value's once per communicator (its rank 0).
 *
 * Every rank must give a communicator the same value: Open MPI does not
 * check that all ranks chose the same module, and ranks that disagree
 * would run different allreduces (docs/filter_component.md).
 */
#include "coll_loomfilter.h"

#include "common/log.h"
#include "opal/mca/base/mca_base_var.h"
#include "opal/util/info.h"
#include "ompi/proc/proc.h"

#include <string.h>

#define LOOMFILTER_INFO_KEY "loom_filter"

void mca_coll_loomfilter_optin_open(mca_coll_loomfilter_component_t *c)
{
    char why[512];

    c->filter_set = c->filter != NULL && c->filter[0] != '\0';
    c->filter_ok = true;
    if (!c->filter_set) {
        return;
    }
    if (loom_filter_spec_parse(c->filter, &c->filter_spec, why, sizeof(why)) != LOOM_OK) {
        c->filter_ok = false;
        if (OMPI_PROC_MY_NAME->vpid == 0) {
            loom_warn("coll", "coll_loomfilter_filter: %s; every communicator runs dense", why);
        }
    }
}

bool mca_coll_loomfilter_optin(ompi_communicator_t *comm, mca_coll_loomfilter_spec_t *spec_p)
{
    mca_coll_loomfilter_component_t *c = &mca_coll_loomfilter_component;
    char value[OPAL_MAX_INFO_VAL + 1], why[512];
    mca_coll_loomfilter_spec_t spec;
    int flag = 0;

    if (comm->super.s_info != NULL) {
        opal_info_get(comm->super.s_info, LOOMFILTER_INFO_KEY, OPAL_MAX_INFO_VAL, value, &flag);
    }
    if (!flag) {
        if (!c->filter_set || !c->filter_ok) {
            return false;
        }
        *spec_p = c->filter_spec;
        return c->filter_spec.enabled != 0;
    }
    if (loom_filter_spec_parse(value, &spec, why, sizeof(why)) != LOOM_OK) {
        if (ompi_comm_rank(comm) == 0) {
            loom_warn("coll", "communicator %s (cid %u): info key " LOOMFILTER_INFO_KEY
                      ": %s; this communicator runs dense", comm->c_name, comm->c_contextid,
                      why);
        }
        return false;
    }
    *spec_p = spec;
    return spec.enabled != 0;
}

bool mca_coll_loomfilter_below_loom(mca_coll_loomfilter_component_t *c,
                                    ompi_communicator_t *comm)
{
    const int *loom_priority = NULL;
    int index = mca_base_var_find("ompi", "coll", "loom", "priority");

    if (index < 0 || mca_base_var_get_value(index, &loom_priority, NULL, NULL) != OPAL_SUCCESS ||
        loom_priority == NULL || *loom_priority <= c->priority) {
        return false;
    }
    if (!c->priority_warned) {
        c->priority_warned = 1;
        if (ompi_comm_rank(comm) == 0) {
            loom_warn("coll", "coll_loom_priority (%d) is above coll_loomfilter_priority (%d): "
                      "loom's allreduce would replace the filter's, so nothing is filtered "
                      "(communicator %s asked for it); give loomfilter the higher priority",
                      *loom_priority, c->priority, comm->c_name);
        }
    }
    return true;
}
