/* Reading Loom's MPI_T counter (see loom_counter.h). */
#include "loom_counter.h"

#include <string.h>

#define LOOM_CALLS_PVAR "coll_loom_allreduce_calls"

/* The index of the pvar, or -1.  Loom registers it as an unsigned long
 * long counter bound to no object; anything else is not Loom's. */
static int find_pvar(void)
{
    int i, num = 0, verbosity, var_class, bind, readonly, continuous, atomic;
    int name_len, desc_len;
    char name[256], desc[1024];
    MPI_Datatype type;
    MPI_T_enum enumtype;

    if (MPI_T_pvar_get_num(&num) != MPI_SUCCESS) {
        return -1;
    }
    for (i = 0; i < num; ++i) {
        name_len = sizeof(name);
        desc_len = sizeof(desc);
        if (MPI_T_pvar_get_info(i, name, &name_len, &verbosity, &var_class, &type, &enumtype,
                                desc, &desc_len, &bind, &readonly, &continuous,
                                &atomic) == MPI_SUCCESS &&
            strcmp(name, LOOM_CALLS_PVAR) == 0) {
            return type == MPI_UNSIGNED_LONG_LONG && bind == MPI_T_BIND_NO_OBJECT ? i : -1;
        }
    }
    return -1;
}

void mlp_loom_counter_start(mlp_loom_counter_t *c)
{
    int provided, index, count;

    memset(c, 0, sizeof(*c));
    if (MPI_T_init_thread(MPI_THREAD_SINGLE, &provided) != MPI_SUCCESS) {
        return;
    }
    c->mpit = 1;
    index = find_pvar();
    if (index < 0 || MPI_T_pvar_session_create(&c->session) != MPI_SUCCESS) {
        return;
    }
    if (MPI_T_pvar_handle_alloc(c->session, index, NULL, &c->handle, &count) != MPI_SUCCESS ||
        count != 1) {
        MPI_T_pvar_session_free(&c->session);
        return;
    }
    c->found = 1;
}

int mlp_loom_counter_read(const mlp_loom_counter_t *c, unsigned long long *calls_p)
{
    unsigned long long value = 0;

    if (!c->found || MPI_T_pvar_read(c->session, c->handle, &value) != MPI_SUCCESS) {
        return 0;
    }
    *calls_p = value;
    return 1;
}

void mlp_loom_counter_stop(mlp_loom_counter_t *c)
{
    if (c->found) {
        MPI_T_pvar_handle_free(c->session, &c->handle);
        MPI_T_pvar_session_free(&c->session);
        c->found = 0;
    }
    if (c->mpit) {
        MPI_T_finalize();
        c->mpit = 0;
    }
}
