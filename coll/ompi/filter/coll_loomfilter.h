/*
 * mca_coll_loomfilter: gradient filtering (lossy, opt-in) as an Open MPI
 * coll component of its own, beside mca_coll_loom.
 *
 * It shares the engine and the process's UCX context with mca_coll_loom
 * through libloom_ompi (coll/ompi/shared/loom_ompi.h), and nothing else:
 * it never includes mca_coll_loom's headers.  Its priority is above
 * loom's, so on a communicator that opted in (the info key loom_filter,
 * or the MCA parameter coll_loomfilter_filter for every communicator) its
 * allreduce and iallreduce are the ones MPI calls; on any other
 * communicator it gives no module and nothing changes.
 *
 * The files, by concept: coll_loomfilter_component.c (the structure Open
 * MPI loads, open, close, comm_query), coll_loomfilter_optin.c (whether a
 * communicator opted in, and the warnings), coll_loomfilter_params.c
 * (MCA parameters and MPI_T variables), coll_loomfilter_module.c (enable,
 * and which calls are filtered), coll_loomfilter_filtered.c (the filtered
 * allreduce itself, the one place filtering happens),
 * coll_loomfilter_request.c (the requests of nonblocking filtered calls),
 * coll_loomfilter_api.c (what libloom-filter, include/loom/filter.h,
 * asks of it, through the hook it finds with dlsym).
 */
#ifndef MCA_COLL_LOOMFILTER_H
#define MCA_COLL_LOOMFILTER_H

#include "ompi_config.h"

#include "ompi/communicator/communicator.h"
#include "ompi/datatype/ompi_datatype.h"
#include "ompi/mca/coll/coll.h"
#include "ompi/request/request.h"

#include "coll/core/engine/sched.h"
#include "coll/core/engine/team.h"
#include "coll/core/filter/feedback.h"
#include "coll/core/filter/filter_spec.h"
#include "coll/core/filter/residual.h"
#include "coll/core/filter/steps.h"
#include "coll/core/select/coll_config.h"
#include "coll/core/transport/transport_ucx.h"

#include <stdbool.h>
#include <stddef.h>

BEGIN_C_DECLS

/* What a communicator asks of filtering (the value of loom_filter or
 * coll_loomfilter_filter), parsed by the engine's loom_filter_spec_parse. */
typedef loom_filter_spec_t mca_coll_loomfilter_spec_t;

/* The process's counters, read by the MPI_T performance variables
 * coll_loomfilter_<field> (coll_loomfilter_params.c).  Update them with
 * mca_coll_loomfilter_count: several threads may call at once. */
typedef struct mca_coll_loomfilter_counters {
    unsigned long long  calls;          /* allreduce calls taken by the filtered path */
    unsigned long long  dense_bytes;    /* bytes a dense allreduce would have sent */
    unsigned long long  sent_bytes;     /* bytes this process sent for them */
    unsigned long long  dense_switches; /* filtered calls that ran dense instead */
    unsigned long long  residual_bytes; /* memory held in residuals now (a level) */
    unsigned long long  handed_down;    /* calls on an opted-in communicator left to the
                                           module below: not MPI_SUM of float or double,
                                           below min_bytes, ... */
    unsigned long long  comms;          /* communicators with a loomfilter module now */
} mca_coll_loomfilter_counters_t;

static inline void mca_coll_loomfilter_count(unsigned long long *counter,
                                             unsigned long long n)
{
    __atomic_add_fetch(counter, n, __ATOMIC_RELAXED);
}

typedef struct mca_coll_loomfilter_component {
    mca_coll_base_component_2_0_0_t super;

    /* MCA parameters */
    int                 priority;
    char                *filter;        /* coll_loomfilter_filter: every communicator */

    /* The MCA parameter parsed at open; filter_ok: it parsed (or is unset). */
    mca_coll_loomfilter_spec_t  filter_spec;
    bool                        filter_set;
    bool                        filter_ok;

    /* The process's transport (libloom_ompi), NULL: no module anywhere;
     * proc_opened: this component holds a reference on it. */
    loom_ucx_t          *ucx;
    bool                proc_opened;
    const uint64_t      *node_keys;     /* per world rank, after init_query */
    int                 priority_warned;/* loom above loomfilter: said once */

    mca_coll_loomfilter_counters_t  counters;
} mca_coll_loomfilter_component_t;

OMPI_MODULE_DECLSPEC extern mca_coll_loomfilter_component_t mca_coll_loomfilter_component;

typedef struct mca_coll_loomfilter_module {
    mca_coll_base_module_t              super;
    ompi_communicator_t                 *comm;
    /* The engine team of the filter's messages on this communicator, in
     * libloom_ompi's filter context-id space: they never match loom's. */
    loom_team_t                         *team;
    mca_coll_loomfilter_spec_t          spec;
    mca_coll_loomfilter_counters_t      *counters;  /* the component's */
    /* Where each call sits in the training step (steps.h), and the
     * engine's settings its sparse allreduce plans with (the defaults:
     * coll_loom_* parameters are mca_coll_loom's). */
    loom_filter_steps_t                 *steps;
    loom_coll_config_t                  config;
    /* The slot name the next filtered call takes (loom_filter_name), ""
     * for none; under the residual store's lock. */
    char                                next_name[LOOM_RESIDUAL_NAME_MAX + 1];
    /* The module below, where every call not filtered goes. */
    mca_coll_base_module_allreduce_fn_t previous_allreduce;
    mca_coll_base_module_t              *previous_allreduce_module;
    mca_coll_base_module_iallreduce_fn_t previous_iallreduce;
    mca_coll_base_module_t              *previous_iallreduce_module;
} mca_coll_loomfilter_module_t;

OBJ_CLASS_DECLARATION(mca_coll_loomfilter_module_t);

/* MCA parameters and MPI_T variables (coll_loomfilter_params.c). */
int mca_coll_loomfilter_register(void);

/* The opt-in (coll_loomfilter_optin.c).  At open: parse
 * coll_loomfilter_filter (a wrong value warned once).  At comm_query:
 * true and *spec_p when comm opted in, by its info key loom_filter
 * (which takes precedence) or by the MCA parameter; false (dense) when
 * it did not, said no, or gave a wrong value (warned once per
 * communicator, by its rank 0). */
void mca_coll_loomfilter_optin_open(mca_coll_loomfilter_component_t *c);
bool mca_coll_loomfilter_optin(ompi_communicator_t *comm, mca_coll_loomfilter_spec_t *spec_p);
/* Whether coll_loom_priority is above coll_loomfilter_priority, where
 * loom's allreduce would replace the filter's: then comm gets no module,
 * and the first time, its rank 0 says so at level warn. */
bool mca_coll_loomfilter_below_loom(mca_coll_loomfilter_component_t *c,
                                    ompi_communicator_t *comm);

/* The module (coll_loomfilter_module.c). */
mca_coll_loomfilter_module_t *mca_coll_loomfilter_module_new(ompi_communicator_t *comm,
                                                             const mca_coll_loomfilter_spec_t *spec);
int mca_coll_loomfilter_allreduce(const void *sbuf, void *rbuf, int count,
                                  struct ompi_datatype_t *dtype, struct ompi_op_t *op,
                                  struct ompi_communicator_t *comm,
                                  mca_coll_base_module_t *module);
int mca_coll_loomfilter_iallreduce(const void *sbuf, void *rbuf, int count,
                                   struct ompi_datatype_t *dtype, struct ompi_op_t *op,
                                   struct ompi_communicator_t *comm, ompi_request_t **request,
                                   mca_coll_base_module_t *module);

/*
 * The filtered allreduce (coll_loomfilter_filtered.c): the one place
 * where filtering happens.  The module calls these only for a call it
 * filters: op is MPI_SUM, dtype is MPI_FLOAT or MPI_DOUBLE (predefined,
 * contiguous), count > 0 and count * size >= module->spec.min_bytes,
 * module->team is the communicator's team; sbuf may be MPI_IN_PLACE.
 * Every rank of the communicator makes the same decision (it depends on
 * count, type, op and the spec only).  They update module->counters and
 * return an Open MPI code.
 */
int mca_coll_loomfilter_filtered_allreduce(const void *sbuf, void *rbuf, int count,
                                           struct ompi_datatype_t *dtype,
                                           struct ompi_op_t *op,
                                           mca_coll_loomfilter_module_t *module);
int mca_coll_loomfilter_filtered_iallreduce(const void *sbuf, void *rbuf, int count,
                                            struct ompi_datatype_t *dtype,
                                            struct ompi_op_t *op, ompi_request_t **request,
                                            mca_coll_loomfilter_module_t *module);

/* One filtered call in flight (coll_loomfilter_filtered.c): its
 * schedule, and the selection its first step makes. */
typedef struct mca_coll_loomfilter_call {
    mca_coll_loomfilter_module_t    *module;
    loom_sched_t                    *sched;
    loom_feedback_args_t            fb;         /* the select step's; owns the outputs */
    size_t                          bytes;      /* the vector's */
} mca_coll_loomfilter_call_t;

/* Starts a filtered call: its residual slot, its selection's buffers and
 * its planned schedule (nothing runs yet).  LOOM_ERR_UNSUPPORTED: run it
 * dense below (the step tracker is still learning, or the residual store
 * is full); nothing was kept. */
loom_status_t mca_coll_loomfilter_call_start(const void *sbuf, void *rbuf, size_t count,
                                             loom_filter_type_t type,
                                             mca_coll_loomfilter_module_t *module,
                                             mca_coll_loomfilter_call_t **call_p);
/* Ends it: counted when status is LOOM_OK, its memory freed. */
void mca_coll_loomfilter_call_end(mca_coll_loomfilter_call_t *call, loom_status_t status);

/* Nonblocking calls (coll_loomfilter_request.c): a request that runs the
 * call's schedule from Open MPI's progress; waiting, at a start, until
 * a call started now stays within the sequence numbers tags tell apart
 * from the module's calls in flight; the progress callback. */
int mca_coll_loomfilter_request_start(mca_coll_loomfilter_call_t *call,
                                      ompi_request_t **request_p);
void mca_coll_loomfilter_request_room(mca_coll_loomfilter_module_t *module);
int mca_coll_loomfilter_progress(void);

/* The process's residuals (coll_loomfilter_filtered.c): drop those of a
 * communicator that is gone, and all of them at close. */
void mca_coll_loomfilter_residuals_release(uint64_t comm);
void mca_coll_loomfilter_residuals_fini(void);

/* What libloom-filter reaches (coll_loomfilter_filtered.c), each under
 * the store's lock: the name the module's next filtered call takes; fn
 * for each of the module's slots until it returns nonzero (then
 * LOOM_ERR_IO); the slot of key made (if need be) and given data's
 * residual; the residual of key copied out (LOOM_ERR_NOT_FOUND: none);
 * the bytes the store holds. */
void mca_coll_loomfilter_name_next(mca_coll_loomfilter_module_t *module, const char *name);
loom_status_t mca_coll_loomfilter_residuals_each(mca_coll_loomfilter_module_t *module,
                                                 int (*fn)(loom_residual_slot_t *slot, void *ctx),
                                                 void *ctx);
loom_status_t mca_coll_loomfilter_residual_load(mca_coll_loomfilter_module_t *module,
                                                loom_residual_key_t *key, const void *data);
loom_status_t mca_coll_loomfilter_residual_read(mca_coll_loomfilter_module_t *module,
                                                loom_residual_key_t *key, void *out);
size_t mca_coll_loomfilter_residuals_bytes(void);

/* libloom-filter's hook (coll_loomfilter_api.c): filled when the first
 * module is enabled, if the application links the library; emptied at
 * close. */
void mca_coll_loomfilter_api_attach(void);
void mca_coll_loomfilter_api_detach(void);

END_C_DECLS

#endif
