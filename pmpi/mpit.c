/*
 * What Loom chose, read through MPI_T (docs/observability.md): when Loom's
 * component is loaded it counts every call in coll_loom_<coll>_alg_<name>,
 * _handoffs or _fallbacks.  The library opens a session at MPI_Init, keeps a
 * handle for each such counter that exists, and around the first call of a
 * site and size class reads the collective's counters: the one that grew
 * names the algorithm.  Without Loom nothing is found and nothing is read.
 * The session ends before the next MPI_Finalize (Open MPI 4.1.4 crashes in
 * MPI_T_finalize after it).
 */
#include <stdio.h>
#include <string.h>

#include "pmpi.h"

#define LOOM_PMPI_ALG_NAMES 64

typedef struct {
    MPI_T_pvar_handle handle;
    int alg;                            /* index into loom_pmpi_alg_names */
} loom_pmpi_counter_t;

/* Loom's collectives and the blocking functions that run them. */
static const struct {
    const char *coll;
    int fn[2];
} loom_pmpi_colls[] = {
    { "allreduce", { LOOM_PMPI_ALLREDUCE, -1 } },
    { "bcast", { LOOM_PMPI_BCAST, -1 } },
    { "reduce", { LOOM_PMPI_REDUCE, -1 } },
    { "allgather", { LOOM_PMPI_ALLGATHER, LOOM_PMPI_ALLGATHERV } },
    { "reduce_scatter", { LOOM_PMPI_REDUCE_SCATTER, LOOM_PMPI_REDUCE_SCATTER_BLOCK } },
};
#define LOOM_PMPI_COLLS (sizeof(loom_pmpi_colls) / sizeof(loom_pmpi_colls[0]))

static struct {
    int open;
    MPI_T_pvar_session session;
    loom_pmpi_counter_t counters[LOOM_PMPI_COLLS][LOOM_PMPI_MPIT_MAX];
    int n[LOOM_PMPI_COLLS];
    char names[LOOM_PMPI_ALG_NAMES][48];
    int name_count;
    int coll_of_fn[LOOM_PMPI_FN_COUNT];  /* index into loom_pmpi_colls, or -1 */
} loom_pmpi_mpit;

const char *loom_pmpi_mpit_alg_name(int alg)
{
    return alg > 0 && alg <= loom_pmpi_mpit.name_count ? loom_pmpi_mpit.names[alg - 1] : NULL;
}

static int loom_pmpi_mpit_name_index(const char *name)
{
    int i;

    for (i = 0; i < loom_pmpi_mpit.name_count; ++i) {
        if (strcmp(loom_pmpi_mpit.names[i], name) == 0) {
            return i + 1;
        }
    }
    if (loom_pmpi_mpit.name_count == LOOM_PMPI_ALG_NAMES) {
        return 0;
    }
    snprintf(loom_pmpi_mpit.names[i], sizeof(loom_pmpi_mpit.names[i]), "%s", name);
    return ++loom_pmpi_mpit.name_count;
}

/* The algorithm a counter's name stands for ("ring", "handoff",
 * "fallback"), or NULL when it counts something else. */
static const char *loom_pmpi_mpit_alg_of(const char *rest, char *buf, size_t len)
{
    if (strncmp(rest, "alg_", 4) == 0) {
        return rest + 4;
    }
    if (strcmp(rest, "handoffs") == 0 || strcmp(rest, "fallbacks") == 0) {
        snprintf(buf, len, "%.*s", (int)strlen(rest) - 1, rest);
        return buf;
    }
    return NULL;
}

static void loom_pmpi_mpit_consider(int index, const char *name, MPI_Datatype type, int bind,
                                    int continuous)
{
    const char *alg;
    char buf[48];
    size_t k, len;
    loom_pmpi_counter_t *ctr;
    int count;

    if (type != MPI_UNSIGNED_LONG_LONG || bind != MPI_T_BIND_NO_OBJECT ||
        strncmp(name, "coll_loom_", 10) != 0) {
        return;
    }
    for (k = 0; k < LOOM_PMPI_COLLS; ++k) {
        len = strlen(loom_pmpi_colls[k].coll);
        if (strncmp(name + 10, loom_pmpi_colls[k].coll, len) != 0 || name[10 + len] != '_') {
            continue;
        }
        alg = loom_pmpi_mpit_alg_of(name + 11 + len, buf, sizeof(buf));
        if (alg == NULL || loom_pmpi_mpit.n[k] == LOOM_PMPI_MPIT_MAX) {
            continue;
        }
        ctr = &loom_pmpi_mpit.counters[k][loom_pmpi_mpit.n[k]];
        if (MPI_T_pvar_handle_alloc(loom_pmpi_mpit.session, index, NULL, &ctr->handle, &count) !=
            MPI_SUCCESS) {
            continue;
        }
        if (!continuous) {
            MPI_T_pvar_start(loom_pmpi_mpit.session, ctr->handle);
        }
        ctr->alg = loom_pmpi_mpit_name_index(alg);
        loom_pmpi_mpit.n[k]++;
    }
}

void loom_pmpi_mpit_open(void)
{
    int provided, num, i, k, j, name_len, desc_len, verb, cls, bind, ro, cont, atomic;
    char name[256], desc[16];
    MPI_Datatype type;
    MPI_T_enum et;

    for (i = 0; i < LOOM_PMPI_FN_COUNT; ++i) {
        loom_pmpi_mpit.coll_of_fn[i] = -1;
    }
    for (k = 0; k < (int)LOOM_PMPI_COLLS; ++k) {
        for (j = 0; j < 2; ++j) {
            if (loom_pmpi_colls[k].fn[j] >= 0) {
                loom_pmpi_mpit.coll_of_fn[loom_pmpi_colls[k].fn[j]] = k;
            }
        }
    }
    if (MPI_T_init_thread(MPI_THREAD_SINGLE, &provided) != MPI_SUCCESS) {
        return;
    }
    loom_pmpi_mpit.open = 1;
    if (MPI_T_pvar_session_create(&loom_pmpi_mpit.session) != MPI_SUCCESS ||
        MPI_T_pvar_get_num(&num) != MPI_SUCCESS) {
        num = 0;
    }
    for (i = 0; i < num; ++i) {
        name_len = sizeof(name);
        desc_len = sizeof(desc);
        if (MPI_T_pvar_get_info(i, name, &name_len, &verb, &cls, &type, &et, desc, &desc_len,
                                &bind, &ro, &cont, &atomic) == MPI_SUCCESS) {
            loom_pmpi_mpit_consider(i, name, type, bind, cont);
        }
    }
}

int loom_pmpi_mpit_snapshot(int fn, uint64_t *values)
{
    int k = loom_pmpi_mpit.coll_of_fn[fn], i;
    unsigned long long v;

    if (k < 0) {
        return 0;
    }
    for (i = 0; i < loom_pmpi_mpit.n[k]; ++i) {
        v = 0;
        MPI_T_pvar_read(loom_pmpi_mpit.session, loom_pmpi_mpit.counters[k][i].handle, &v);
        values[i] = v;
    }
    return loom_pmpi_mpit.n[k];
}

void loom_pmpi_mpit_attribute(loom_pmpi_site_t *s, int cls, const uint64_t *before)
{
    uint64_t after[LOOM_PMPI_MPIT_MAX], best = 0;
    int k = loom_pmpi_mpit.coll_of_fn[s->fn], n, i;

    n = loom_pmpi_mpit_snapshot(s->fn, after);
    for (i = 0; i < n; ++i) {
        if (after[i] - before[i] > best) {
            best = after[i] - before[i];
            s->alg[cls] = (uint8_t)loom_pmpi_mpit.counters[k][i].alg;
        }
    }
}

void loom_pmpi_mpit_close(void)
{
    size_t k;
    int i;

    if (!loom_pmpi_mpit.open) {
        return;
    }
    for (k = 0; k < LOOM_PMPI_COLLS; ++k) {
        for (i = 0; i < loom_pmpi_mpit.n[k]; ++i) {
            MPI_T_pvar_handle_free(loom_pmpi_mpit.session, &loom_pmpi_mpit.counters[k][i].handle);
        }
        loom_pmpi_mpit.n[k] = 0;
    }
    MPI_T_pvar_session_free(&loom_pmpi_mpit.session);
    MPI_T_finalize();
    loom_pmpi_mpit.open = 0;
}
