/*
 * Loom's MPI_T variables as loom-bench uses them: the control variable
 * coll_loom_enable that switches Loom off and on, and the performance
 * counters that say what Loom did with the calls of a batch (ran them,
 * and with which algorithm, or handed them down).  Any of them may be
 * missing (an older Loom, or no Loom at all): every function here works
 * with what exists.
 */
#ifndef LOOM_BENCH_MPIT_H
#define LOOM_BENCH_MPIT_H

#include <mpi.h>
#include <stddef.h>

#define LOOM_BENCH_ENABLE_CVAR "coll_loom_enable"

typedef enum {
    LOOM_BENCH_PVAR_CALLS, LOOM_BENCH_PVAR_FALLBACKS, LOOM_BENCH_PVAR_HANDOFFS,
    LOOM_BENCH_PVAR_DISABLED,
    /* The algorithm counters of every collective, each looked up under
     * the collective's prefix: a collective has only its own. */
    LOOM_BENCH_PVAR_ALG_RING, LOOM_BENCH_PVAR_ALG_RD, LOOM_BENCH_PVAR_ALG_RABENSEIFNER,
    LOOM_BENCH_PVAR_ALG_DBTREE, LOOM_BENCH_PVAR_ALG_BRUCK, LOOM_BENCH_PVAR_ALG_HALVING,
    LOOM_BENCH_PVAR_ALG_BINOMIAL, LOOM_BENCH_PVAR_ALG_CHAIN,
    LOOM_BENCH_PVAR_ALG_SCATTER_ALLGATHER, LOOM_BENCH_PVAR_ALG_REDUCE_SCATTER_GATHER,
    LOOM_BENCH_PVAR_ALG_SHM, LOOM_BENCH_PVAR_ALG_HIER,
    LOOM_BENCH_PVAR_COUNT
} loom_bench_pvar_t;

#define LOOM_BENCH_PVAR_ALG_FIRST LOOM_BENCH_PVAR_ALG_RING
#define LOOM_BENCH_PVAR_ALG_LAST  LOOM_BENCH_PVAR_ALG_HIER

typedef struct loom_bench_counters {
    unsigned long long value[LOOM_BENCH_PVAR_COUNT];
} loom_bench_counters_t;

typedef struct loom_bench_mpit {
    int                 initialized;
    int                 have_cvar;         /* coll_loom_enable found and writable */
    MPI_T_cvar_handle   cvar;
    int                 enable_initial;    /* its value at open */
    int                 have_session;
    MPI_T_pvar_session  session;
    int                 have_pvar[LOOM_BENCH_PVAR_COUNT];
    MPI_T_pvar_handle   pvar[LOOM_BENCH_PVAR_COUNT];
    int                 yield_when_idle;   /* mpi_yield_when_idle; -1 unknown */
    char                cvar_problem[160]; /* why have_cvar is 0 */
} loom_bench_mpit_t;

/* After MPI_Init.  pvar_prefix names the collective's counters
 * ("coll_loom_allreduce_").  Never fails: what is missing stays off. */
void loom_bench_mpit_open(const char *pvar_prefix, loom_bench_mpit_t *mpit_p);

/* Before MPI_Finalize (Open MPI 4.1 fails when MPI_T outlives MPI). */
void loom_bench_mpit_close(loom_bench_mpit_t *mpit);

/* Every counter now (missing ones read 0). */
void loom_bench_mpit_read(const loom_bench_mpit_t *mpit, loom_bench_counters_t *counters_p);

/* Write coll_loom_enable in this process; MPI_SUCCESS or the error. */
int loom_bench_mpit_set_enable(const loom_bench_mpit_t *mpit, int enable);

/* What Loom did with the calls between before and after, for the
 * algorithm column: the algorithms whose counters grew ("ring",
 * "rabenseifner+ring", "bruck"), "handoff", "fallback", "disabled", "loom" when
 * Loom ran them but exposes no algorithm counters, "-" when no counter
 * grew. */
void loom_bench_mpit_describe(const loom_bench_mpit_t *mpit, const loom_bench_counters_t *before,
                              const loom_bench_counters_t *after, char *buf, size_t len);

#endif
