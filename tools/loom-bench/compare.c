/* Contenders and the switch between them (compare.h). */
#include "compare.h"

#include <stdio.h>
#include <string.h>

static int loom_bench_refusing_dup(MPI_Comm *comm_p)
{
    MPI_Info refuse;
    int ret;

    MPI_Info_create(&refuse);
    MPI_Info_set(refuse, "ompi_comm_coll_preference", "^loom");
    ret = MPI_Comm_dup_with_info(MPI_COMM_WORLD, refuse, comm_p);
    MPI_Info_free(&refuse);
    return ret;
}

/* The mode all ranks use: the control variable only when every rank has
 * it, since a rank that cannot switch would run another module. */
static loom_bench_switch_t loom_bench_compare_mode(const loom_bench_options_t *opts,
                                                   const loom_bench_mpit_t *mpit,
                                                   loom_bench_compare_t *cmp, int *error_p)
{
    int mine = mpit->have_cvar, all = 0;

    *error_p = 0;
    MPI_Allreduce(&mine, &all, 1, MPI_INT, MPI_MIN, MPI_COMM_WORLD);
    if (opts->switch_mode == LOOM_BENCH_SWITCH_COMM) {
        snprintf(cmp->why, sizeof(cmp->why),
                 "a communicator with ompi_comm_coll_preference=^loom (--switch comm)");
        return LOOM_BENCH_SWITCH_COMM;
    }
    if (all) {
        snprintf(cmp->why, sizeof(cmp->why),
                 "Loom's MPI_T control variable " LOOM_BENCH_ENABLE_CVAR
                 " switched on all ranks between batches");
        return LOOM_BENCH_SWITCH_CVAR;
    }
    if (opts->switch_mode == LOOM_BENCH_SWITCH_CVAR) {
        *error_p = 1;
    }
    snprintf(cmp->why, sizeof(cmp->why),
             "%s%s: falling back to a communicator with ompi_comm_coll_preference=^loom",
             mine ? "another rank reports that " : "",
             mine ? "it cannot write " LOOM_BENCH_ENABLE_CVAR : mpit->cvar_problem);
    return LOOM_BENCH_SWITCH_COMM;
}

int loom_bench_compare_create(const loom_bench_options_t *opts, const loom_bench_mpit_t *mpit,
                              loom_bench_compare_t *cmp_p)
{
    int rank, ret, error;

    memset(cmp_p, 0, sizeof(*cmp_p));
    cmp_p->sync = cmp_p->loom_comm = cmp_p->default_comm = MPI_COMM_NULL;
    MPI_Comm_rank(MPI_COMM_WORLD, &rank);
    cmp_p->mode = loom_bench_compare_mode(opts, mpit, cmp_p, &error);
    if (error) {
        if (rank == 0) {
            fprintf(stderr, "loom-bench: --switch cvar: %s\n", cmp_p->why);
        }
        return MPI_ERR_OTHER;
    }
    ret = loom_bench_refusing_dup(&cmp_p->sync);
    if (ret != MPI_SUCCESS) {
        return ret;
    }
    ret = MPI_Comm_dup(MPI_COMM_WORLD, &cmp_p->loom_comm);
    if (ret != MPI_SUCCESS) {
        goto err_sync;
    }
    if (cmp_p->mode == LOOM_BENCH_SWITCH_CVAR) {
        cmp_p->default_comm = cmp_p->loom_comm;
    } else if (opts->compare) {
        ret = loom_bench_refusing_dup(&cmp_p->default_comm);
        if (ret != MPI_SUCCESS) {
            goto err_loom;
        }
    }
    cmp_p->contender[LOOM_BENCH_LOOM] = (loom_bench_contender_t){
        .name = "loom", .comm = cmp_p->loom_comm,
        .enable = cmp_p->mode == LOOM_BENCH_SWITCH_CVAR ? 1 : -1,
    };
    cmp_p->contender[LOOM_BENCH_DEFAULT] = (loom_bench_contender_t){
        .name = "default", .comm = cmp_p->default_comm,
        .enable = cmp_p->mode == LOOM_BENCH_SWITCH_CVAR ? 0 : -1,
    };
    cmp_p->contender[LOOM_BENCH_DEFAULT_AA] = cmp_p->contender[LOOM_BENCH_DEFAULT];
    cmp_p->contender[LOOM_BENCH_DEFAULT_AA].name = "default(A/A)";
    cmp_p->count = opts->compare ? LOOM_BENCH_MAX_CONTENDERS : 1;
    return MPI_SUCCESS;

err_loom:
    MPI_Comm_free(&cmp_p->loom_comm);
err_sync:
    MPI_Comm_free(&cmp_p->sync);
    return ret;
}

int loom_bench_compare_apply(const loom_bench_compare_t *cmp, const loom_bench_mpit_t *mpit,
                             int c)
{
    if (cmp->contender[c].enable < 0) {
        return MPI_SUCCESS;
    }
    return loom_bench_mpit_set_enable(mpit, cmp->contender[c].enable);
}

void loom_bench_compare_destroy(loom_bench_compare_t *cmp, const loom_bench_mpit_t *mpit)
{
    if (cmp->mode == LOOM_BENCH_SWITCH_CVAR) {
        loom_bench_mpit_set_enable(mpit, mpit->enable_initial);   /* as it was */
    }
    if (cmp->default_comm != MPI_COMM_NULL && cmp->default_comm != cmp->loom_comm) {
        MPI_Comm_free(&cmp->default_comm);
    }
    if (cmp->loom_comm != MPI_COMM_NULL) {
        MPI_Comm_free(&cmp->loom_comm);
    }
    if (cmp->sync != MPI_COMM_NULL) {
        MPI_Comm_free(&cmp->sync);
    }
}

