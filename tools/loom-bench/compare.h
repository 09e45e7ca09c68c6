/*
 * The contenders of one job and how each is reached.
 *
 *   loom          Loom runs the collective
 *   default       the module Open MPI selects without Loom
 *   default(A/A)  the default again: its ratio to default is pure noise
 *
 * Two ways to reach the default, chosen once for all ranks:
 *
 * cvar: one communicator; before each batch every rank writes Loom's
 *   control variable coll_loom_enable (1 for loom, 0 for the default),
 *   then meets the others in a barrier, so all ranks run the batch with
 *   the same setting.  The default is then exactly the module below Loom
 *   on the very communicator Loom runs on.
 * comm: when Loom has no such variable: Loom's contender runs on a
 *   duplicate of MPI_COMM_WORLD, the default's on a duplicate whose info
 *   key ompi_comm_coll_preference is "^loom", so Open MPI selects its
 *   components for it as if Loom were not there.
 *
 * The barriers and time reductions run on a third communicator that
 * refuses Loom, so they never show in Loom's counters.
 */
#ifndef LOOM_BENCH_COMPARE_H
#define LOOM_BENCH_COMPARE_H

#include "mpit.h"
#include "options.h"

#include <mpi.h>

enum { LOOM_BENCH_LOOM, LOOM_BENCH_DEFAULT, LOOM_BENCH_DEFAULT_AA, LOOM_BENCH_MAX_CONTENDERS };

typedef struct loom_bench_contender {
    const char  *name;     /* "loom", "default", "default(A/A)" */
    MPI_Comm     comm;
    int          enable;   /* coll_loom_enable to write first; -1: none */
} loom_bench_contender_t;

typedef struct loom_bench_compare {
    loom_bench_switch_t     mode;      /* CVAR or COMM once created */
    int                     count;     /* contenders: 1 with --no-compare, else 3 */
    loom_bench_contender_t  contender[LOOM_BENCH_MAX_CONTENDERS];
    MPI_Comm                sync;      /* barriers and timing reductions */
    MPI_Comm                loom_comm;
    MPI_Comm                default_comm;   /* == loom_comm in cvar mode */
    char                    why[400];  /* why this mode, for the header */
} loom_bench_compare_t;

/* Collective over MPI_COMM_WORLD: all ranks agree on the mode.  Returns
 * MPI_SUCCESS or the MPI error; rank 0 has printed why. */
int loom_bench_compare_create(const loom_bench_options_t *opts, const loom_bench_mpit_t *mpit,
                              loom_bench_compare_t *cmp_p);

/* Make contender c the one the next collective on its comm reaches:
 * writes coll_loom_enable where that is the switch.  Every rank calls it
 * at the same point, before the barrier that starts a batch. */
int loom_bench_compare_apply(const loom_bench_compare_t *cmp, const loom_bench_mpit_t *mpit,
                             int c);

/* Leaves coll_loom_enable as it was and frees the communicators. */
void loom_bench_compare_destroy(loom_bench_compare_t *cmp, const loom_bench_mpit_t *mpit);

#endif
