/* Loom's MPI_T control and performance variables (mpit.h). */
#include "mpit.h"

#include <stdio.h>
#include <string.h>

static const struct {
    const char *suffix;   /* after the collective's prefix */
    const char *label;    /* in the algorithm column */
} loom_bench_pvar_names[LOOM_BENCH_PVAR_COUNT] = {
    [LOOM_BENCH_PVAR_CALLS] = { "calls", "loom" },
    [LOOM_BENCH_PVAR_FALLBACKS] = { "fallbacks", "fallback" },
    [LOOM_BENCH_PVAR_HANDOFFS] = { "handoffs", "handoff" },
    [LOOM_BENCH_PVAR_DISABLED] = { "disabled", "disabled" },
    [LOOM_BENCH_PVAR_ALG_RING] = { "alg_ring", "ring" },
    [LOOM_BENCH_PVAR_ALG_RD] = { "alg_recursive_doubling", "recursive_doubling" },
    [LOOM_BENCH_PVAR_ALG_RABENSEIFNER] = { "alg_rabenseifner", "rabenseifner" },
    [LOOM_BENCH_PVAR_ALG_DBTREE] = { "alg_double_binary_tree", "double_binary_tree" },
    [LOOM_BENCH_PVAR_ALG_BRUCK] = { "alg_bruck", "bruck" },
    [LOOM_BENCH_PVAR_ALG_HALVING] = { "alg_recursive_halving", "recursive_halving" },
    [LOOM_BENCH_PVAR_ALG_BINOMIAL] = { "alg_binomial", "binomial" },
    [LOOM_BENCH_PVAR_ALG_CHAIN] = { "alg_chain", "chain" },
    [LOOM_BENCH_PVAR_ALG_SCATTER_ALLGATHER] = { "alg_scatter_allgather", "scatter_allgather" },
    [LOOM_BENCH_PVAR_ALG_REDUCE_SCATTER_GATHER] = { "alg_reduce_scatter_gather",
                                                    "reduce_scatter_gather" },
    [LOOM_BENCH_PVAR_ALG_SHM] = { "alg_shm", "shm" },
    [LOOM_BENCH_PVAR_ALG_HIER] = { "alg_hierarchical", "hierarchical" },
};

/* MPI 3.1 has no lookup by name (MPI_T_*_get_index is MPI 4.0). */
static int loom_bench_cvar_find(const char *want, MPI_Datatype *type_p, int *bind_p)
{
    int i, num = 0, name_len, desc_len, verbosity, bind, scope;
    char name[256], desc[1024];
    MPI_Datatype type;
    MPI_T_enum enumtype;

    if (MPI_T_cvar_get_num(&num) != MPI_SUCCESS) {
        return -1;
    }
    for (i = 0; i < num; ++i) {
        name_len = sizeof(name);
        desc_len = sizeof(desc);
        if (MPI_T_cvar_get_info(i, name, &name_len, &verbosity, &type, &enumtype, desc,
                                &desc_len, &bind, &scope) == MPI_SUCCESS &&
            strcmp(name, want) == 0) {
            *type_p = type;
            *bind_p = bind;
            return i;
        }
    }
    return -1;
}

static int loom_bench_pvar_find(const char *want)
{
    int i, num = 0, name_len, desc_len, verbosity, var_class, bind, readonly, continuous;
    int atomic;
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
            strcmp(name, want) == 0) {
            /* Loom's counters are unsigned long long, bound to nothing,
             * and counting from the handle's allocation on. */
            return type == MPI_UNSIGNED_LONG_LONG && bind == MPI_T_BIND_NO_OBJECT &&
                   continuous ? i : -1;
        }
    }
    return -1;
}

/* Found, an int bound to nothing, and accepting a write of its own value
 * (a read-only variable refuses it): only then can loom-bench switch. */
static void loom_bench_cvar_open(loom_bench_mpit_t *mpit)
{
    MPI_Datatype type;
    int index, bind, count, value;

    index = loom_bench_cvar_find(LOOM_BENCH_ENABLE_CVAR, &type, &bind);
    if (index < 0) {
        snprintf(mpit->cvar_problem, sizeof(mpit->cvar_problem),
                 "Loom has no MPI_T control variable %s", LOOM_BENCH_ENABLE_CVAR);
        return;
    }
    if (type != MPI_INT || bind != MPI_T_BIND_NO_OBJECT) {
        snprintf(mpit->cvar_problem, sizeof(mpit->cvar_problem),
                 "%s is not an MPI_INT bound to no object", LOOM_BENCH_ENABLE_CVAR);
        return;
    }
    if (MPI_T_cvar_handle_alloc(index, NULL, &mpit->cvar, &count) != MPI_SUCCESS) {
        snprintf(mpit->cvar_problem, sizeof(mpit->cvar_problem),
                 "%s: MPI_T_cvar_handle_alloc failed", LOOM_BENCH_ENABLE_CVAR);
        return;
    }
    if (count != 1 || MPI_T_cvar_read(mpit->cvar, &value) != MPI_SUCCESS ||
        MPI_T_cvar_write(mpit->cvar, &value) != MPI_SUCCESS) {
        snprintf(mpit->cvar_problem, sizeof(mpit->cvar_problem),
                 "%s cannot be written through MPI_T", LOOM_BENCH_ENABLE_CVAR);
        MPI_T_cvar_handle_free(&mpit->cvar);
        return;
    }
    mpit->enable_initial = value;
    mpit->have_cvar = 1;
}

/* mpi_yield_when_idle, for the header and the oversubscription warning. */
static void loom_bench_yield_read(loom_bench_mpit_t *mpit)
{
    MPI_T_cvar_handle handle;
    MPI_Datatype type;
    int index, bind, count;
    unsigned char value[16] = { 0 };

    mpit->yield_when_idle = -1;
    index = loom_bench_cvar_find("mpi_yield_when_idle", &type, &bind);
    if (index < 0 || bind != MPI_T_BIND_NO_OBJECT ||
        MPI_T_cvar_handle_alloc(index, NULL, &handle, &count) != MPI_SUCCESS) {
        return;
    }
    /* Open MPI exposes booleans as MPI_C_BOOL; take an int too. */
    if (count == 1 && MPI_T_cvar_read(handle, value) == MPI_SUCCESS) {
        if (type == MPI_C_BOOL) {
            mpit->yield_when_idle = *(_Bool *)value ? 1 : 0;
        } else if (type == MPI_INT) {
            mpit->yield_when_idle = *(int *)value ? 1 : 0;
        }
    }
    MPI_T_cvar_handle_free(&handle);
}

void loom_bench_mpit_open(const char *pvar_prefix, loom_bench_mpit_t *mpit_p)
{
    char name[128];
    int provided, i, index, count;

    memset(mpit_p, 0, sizeof(*mpit_p));
    mpit_p->yield_when_idle = -1;
    if (MPI_T_init_thread(MPI_THREAD_SINGLE, &provided) != MPI_SUCCESS) {
        snprintf(mpit_p->cvar_problem, sizeof(mpit_p->cvar_problem), "MPI_T is not available");
        return;
    }
    mpit_p->initialized = 1;
    loom_bench_cvar_open(mpit_p);
    loom_bench_yield_read(mpit_p);
    if (MPI_T_pvar_session_create(&mpit_p->session) != MPI_SUCCESS) {
        return;
    }
    mpit_p->have_session = 1;
    for (i = 0; i < LOOM_BENCH_PVAR_COUNT; ++i) {
        snprintf(name, sizeof(name), "%s%s", pvar_prefix, loom_bench_pvar_names[i].suffix);
        index = loom_bench_pvar_find(name);
        if (index >= 0 &&
            MPI_T_pvar_handle_alloc(mpit_p->session, index, NULL, &mpit_p->pvar[i], &count) ==
                MPI_SUCCESS) {
            if (count == 1) {
                mpit_p->have_pvar[i] = 1;
            } else {
                MPI_T_pvar_handle_free(mpit_p->session, &mpit_p->pvar[i]);
            }
        }
    }
}

void loom_bench_mpit_close(loom_bench_mpit_t *mpit)
{
    int i;

    if (mpit->have_cvar) {
        MPI_T_cvar_handle_free(&mpit->cvar);
        mpit->have_cvar = 0;
    }
    for (i = LOOM_BENCH_PVAR_COUNT - 1; i >= 0; --i) {
        if (mpit->have_pvar[i]) {
            MPI_T_pvar_handle_free(mpit->session, &mpit->pvar[i]);
            mpit->have_pvar[i] = 0;
        }
    }
    if (mpit->have_session) {
        MPI_T_pvar_session_free(&mpit->session);
        mpit->have_session = 0;
    }
    if (mpit->initialized) {
        MPI_T_finalize();
        mpit->initialized = 0;
    }
}

void loom_bench_mpit_read(const loom_bench_mpit_t *mpit, loom_bench_counters_t *counters_p)
{
    int i;

    for (i = 0; i < LOOM_BENCH_PVAR_COUNT; ++i) {
        counters_p->value[i] = 0;
        if (mpit->have_pvar[i]) {
            MPI_T_pvar_read(mpit->session, mpit->pvar[i], &counters_p->value[i]);
        }
    }
}

int loom_bench_mpit_set_enable(const loom_bench_mpit_t *mpit, int enable)
{
    if (!mpit->have_cvar) {
        return MPI_T_ERR_INVALID_HANDLE;
    }
    return MPI_T_cvar_write(mpit->cvar, &enable);
}

/* Append label to buf, '+' separated. */
static void loom_bench_append(char *buf, size_t len, const char *label)
{
    size_t used = strlen(buf);

    snprintf(buf + used, len - used, "%s%s", used > 0 ? "+" : "", label);
}

void loom_bench_mpit_describe(const loom_bench_mpit_t *mpit, const loom_bench_counters_t *before,
                              const loom_bench_counters_t *after, char *buf, size_t len)
{
    int i, have_alg = 0;

    buf[0] = '\0';
    for (i = LOOM_BENCH_PVAR_ALG_FIRST; i <= LOOM_BENCH_PVAR_ALG_LAST; ++i) {
        have_alg |= mpit->have_pvar[i];
        if (after->value[i] > before->value[i]) {
            loom_bench_append(buf, len, loom_bench_pvar_names[i].label);
        }
    }
    /* Without algorithm counters, "loom" at least says Loom ran them. */
    if (!have_alg && after->value[LOOM_BENCH_PVAR_CALLS] > before->value[LOOM_BENCH_PVAR_CALLS]) {
        loom_bench_append(buf, len, loom_bench_pvar_names[LOOM_BENCH_PVAR_CALLS].label);
    }
    for (i = LOOM_BENCH_PVAR_FALLBACKS; i <= LOOM_BENCH_PVAR_DISABLED; ++i) {
        if (after->value[i] > before->value[i]) {
            loom_bench_append(buf, len, loom_bench_pvar_names[i].label);
        }
    }
    if (buf[0] == '\0') {
        snprintf(buf, len, "-");
    }
}
