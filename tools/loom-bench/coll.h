/*
 * The collectives loom-bench measures: one small file per collective
 * (coll_allreduce.c, ...) fills in this table entry.  A collective that
 * lands in Loom joins the benchmark by adding its file and its entry in
 * coll.c; its output layout may need new fields here (allgather's output
 * is n times its input), added when it lands.
 */
#ifndef LOOM_BENCH_COLL_H
#define LOOM_BENCH_COLL_H

#include "types.h"

#include <mpi.h>

typedef struct loom_bench_call {
    const void    *in;
    void          *out;
    int            count;
    MPI_Datatype   dtype;
    MPI_Op         op;
    MPI_Comm       comm;
} loom_bench_call_t;

typedef struct loom_bench_coll {
    const char *name;
    /* Loom's MPI_T performance variables for it begin with this. */
    const char *pvar_prefix;
    /* busbw = algbw * factor: what each rank's links must carry, so that
     * sizes and rank counts compare (nccl-tests' convention). */
    double (*bus_factor)(int nranks);
    /* values[PERIOD] this rank puts in and expects out (see check.h). */
    void (*check_values)(const loom_bench_op_t *op, int rank, int nranks,
                         int64_t *in_values, int64_t *out_values);
    /* One call; returns the MPI error code. */
    int (*run)(const loom_bench_call_t *call);
} loom_bench_coll_t;

extern const loom_bench_coll_t loom_bench_coll_allreduce;
extern const loom_bench_coll_t loom_bench_coll_iallreduce;

/* Shared by allreduce and its nonblocking form (coll_allreduce.c). */
double loom_bench_allreduce_bus_factor(int nranks);
void loom_bench_allreduce_check_values(const loom_bench_op_t *op, int rank, int nranks,
                                       int64_t *in_values, int64_t *out_values);

const loom_bench_coll_t *loom_bench_coll_find(const char *name);
const char *loom_bench_coll_names(void);

#endif
