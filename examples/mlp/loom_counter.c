/* Reading Loom's MPI_T counters (see loom_counter.h). */
#include "loom_counter.h"

#include <string.h>

static const char *const counter_names[MLP_COUNTER_COUNT] = {
    [MLP_COUNTER_LOOM_CALLS]            = "coll_loom_allreduce_calls",
    [MLP_COUNTER_FILTER_CALLS]          = "coll_loomfilter_calls",
    [MLP_COUNTER_FILTER_DENSE_BYTES]    = "coll_loomfilter_dense_bytes",
    [MLP_COUNTER_FILTER_SENT_BYTES]     = "coll_loomfilter_sent_bytes",
    [MLP_COUNTER_FILTER_DENSE_SWITCHES] = "coll_loomfilter_dense_switches",
    [MLP_COUNTER_FILTER_RESIDUAL_BYTES] = "coll_loomfilter_residual_bytes",
};

/* The index of the pvar called `name`, or -1; *wide_p and *continuous_p
 * describe it.  Loom registers its variables as unsigned 64-bit integers
 * bound to no object; anything else is not Loom's. */
static int find_pvar(const char *name, int *wide_p, int *continuous_p)
{
    int i, num = 0, verbosity, var_class, bind, readonly, continuous, atomic;
    int name_len, desc_len;
    char found[256], desc[1024];
    MPI_Datatype type;
    MPI_T_enum enumtype;

    if (MPI_T_pvar_get_num(&num) != MPI_SUCCESS) {
        return -1;
    }
    for (i = 0; i < num; ++i) {
        name_len = sizeof(found);
        desc_len = sizeof(desc);
        if (MPI_T_pvar_get_info(i, found, &name_len, &verbosity, &var_class, &type, &enumtype,
                                desc, &desc_len, &bind, &readonly, &continuous,
                                &atomic) != MPI_SUCCESS || strcmp(found, name) != 0) {
            continue;
        }
        if (bind != MPI_T_BIND_NO_OBJECT ||
            (type != MPI_UNSIGNED_LONG_LONG &&
             (type != MPI_UNSIGNED_LONG || sizeof(unsigned long) != 8))) {
            return -1;
        }
        *wide_p = type == MPI_UNSIGNED_LONG_LONG;
        *continuous_p = continuous;
        return i;
    }
    return -1;
}

/* A handle on variable `id` when it is there; started when it is not
 * continuous (a continuous one counts from the component's start). */
static void counter_open(mlp_loom_counter_t *c, mlp_counter_id_t id)
{
    int index, count, wide = 0, continuous = 1;

    index = find_pvar(counter_names[id], &wide, &continuous);
    if (index < 0 ||
        MPI_T_pvar_handle_alloc(c->session, index, NULL, &c->var[id].handle, &count) !=
            MPI_SUCCESS) {
        return;
    }
    if (count != 1 || (!continuous && MPI_T_pvar_start(c->session, c->var[id].handle) !=
                                          MPI_SUCCESS)) {
        MPI_T_pvar_handle_free(c->session, &c->var[id].handle);
        return;
    }
    c->var[id].wide = wide;
    c->var[id].found = 1;
}

void mlp_loom_counter_start(mlp_loom_counter_t *c)
{
    int provided, id;

    memset(c, 0, sizeof(*c));
    if (MPI_T_init_thread(MPI_THREAD_SINGLE, &provided) != MPI_SUCCESS) {
        return;
    }
    c->mpit = 1;
    if (MPI_T_pvar_session_create(&c->session) != MPI_SUCCESS) {
        return;
    }
    c->session_open = 1;
    for (id = 0; id < MLP_COUNTER_COUNT; ++id) {
        counter_open(c, (mlp_counter_id_t)id);
    }
}

int mlp_loom_counter_get(const mlp_loom_counter_t *c, mlp_counter_id_t id,
                         unsigned long long *value_p)
{
    unsigned long long wide = 0;
    unsigned long narrow = 0;

    if (id < 0 || id >= MLP_COUNTER_COUNT || !c->var[id].found) {
        return 0;
    }
    if (MPI_T_pvar_read(c->session, c->var[id].handle,
                        c->var[id].wide ? (void *)&wide : (void *)&narrow) != MPI_SUCCESS) {
        return 0;
    }
    *value_p = c->var[id].wide ? wide : narrow;
    return 1;
}

int mlp_loom_counter_read(const mlp_loom_counter_t *c, unsigned long long *calls_p)
{
    return mlp_loom_counter_get(c, MLP_COUNTER_LOOM_CALLS, calls_p);
}

void mlp_loom_counter_stop(mlp_loom_counter_t *c)
{
    int id;

    for (id = 0; id < MLP_COUNTER_COUNT; ++id) {
        if (c->var[id].found) {
            MPI_T_pvar_handle_free(c->session, &c->var[id].handle);
            c->var[id].found = 0;
        }
    }
    if (c->session_open) {
        MPI_T_pvar_session_free(&c->session);
        c->session_open = 0;
    }
    if (c->mpit) {
        MPI_T_finalize();
        c->mpit = 0;
    }
}
