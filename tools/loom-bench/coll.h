/*
 * The collectives loom-bench measures: one small file per collective
 * (coll_allreduce.c, ...) fills in this table entry, and coll.c lists
 * them.  A collective that lands in Loom joins the benchmark by adding
 * its file and its entry in coll.c.
 *
 * The size column follows nccl-tests: it is the larger of the two
 * buffers, so the total that is reduced or gathered.  Allreduce reads and
 * writes size bytes; allgather reads size/n and writes size;
 * reduce_scatter reads size and writes size/n; bcast and reduce move the
 * one buffer of size bytes.  A collective's shape function turns the size
 * into the call's count and both buffers' lengths.
 */
#ifndef LOOM_BENCH_COLL_H
#define LOOM_BENCH_COLL_H

#include "types.h"

#include <mpi.h>
#include <stddef.h>
#include <stdint.h>

typedef struct loom_bench_call {
    const void    *in;
    void          *out;
    int            count;      /* loom_bench_shape_t.count */
    /* The v-variants' arrays, one entry per rank: every count equal to
     * count (the harness measures equal blocks), displacements i * count. */
    const int     *counts;
    const int     *displs;
    MPI_Datatype   dtype;
    MPI_Op         op;
    int            root;       /* rooted collectives only (--root) */
    int            rank;       /* this rank in comm */
    MPI_Comm       comm;
} loom_bench_call_t;

/* What one size means for one collective, in elements. */
typedef struct loom_bench_shape {
    size_t  count;        /* the call's count argument; 0: too small to measure */
    size_t  in_count;     /* elements of each rank's input */
    size_t  out_count;    /* elements of each rank's output */
    int     out_blocks;   /* the output in this many equal blocks, each with
                           * its own expected values (allgather: one per rank) */
} loom_bench_shape_t;

/* Which rank asks what its output must hold, for coll's expected(). */
typedef struct loom_bench_expect {
    const loom_bench_op_t *op;
    int                    rank;
    int                    nranks;
    int                    root;
    size_t                 count;   /* the call's count argument */
} loom_bench_expect_t;

/* What the memcpy reference (memref.h) stands for with this collective.
 * Every rank copies the size in bytes while the reference is timed,
 * except as said here; the fraction column exists only where a
 * single-copy scheme on shared memory is a bound (docs/loom-bench.md). */
typedef enum {
    LOOM_BENCH_REF_NONE,       /* memcpy GB/s for context; no fraction */
    LOOM_BENCH_REF_ALL,        /* each rank copies size bytes (allgather) */
    LOOM_BENCH_REF_BUT_ROOT    /* each rank but the root does (bcast) */
} loom_bench_ref_t;

typedef struct loom_bench_coll {
    const char *name;
    /* Loom's MPI_T performance variables for it begin with this. */
    const char *pvar_prefix;
    /* busbw = algbw * factor: what each rank's links must carry, so that
     * sizes and rank counts compare (nccl-tests' convention). */
    double (*bus_factor)(int nranks);
    /* The call for elems elements of size (the size column, rounded down
     * to whole elements) on nranks ranks, rounded down further to what
     * the collective can split evenly. */
    void (*shape)(size_t elems, int nranks, loom_bench_shape_t *shape_p);
    /* values[PERIOD] expected in output block `block` of e->rank: its
     * element i must be values[(i + seed) mod PERIOD] (check.h), where
     * rank r's input element i is loom_bench_check_value(op, r, (i + seed)
     * mod PERIOD).  Returns 0, filling nothing, where MPI leaves the
     * rank's output undefined or unused (reduce off the root, bcast on
     * it): that output is not checked. */
    int (*expected)(const loom_bench_expect_t *e, int block, int64_t *values);
    /* One call; returns the MPI error code. */
    int (*run)(const loom_bench_call_t *call);
    int rooted;   /* takes --root */
    loom_bench_ref_t memcpy_ref;
} loom_bench_coll_t;

extern const loom_bench_coll_t loom_bench_coll_allreduce;
extern const loom_bench_coll_t loom_bench_coll_iallreduce;
extern const loom_bench_coll_t loom_bench_coll_allgather;
extern const loom_bench_coll_t loom_bench_coll_iallgather;
extern const loom_bench_coll_t loom_bench_coll_reduce_scatter_block;
extern const loom_bench_coll_t loom_bench_coll_ireduce_scatter_block;
extern const loom_bench_coll_t loom_bench_coll_allgatherv;
extern const loom_bench_coll_t loom_bench_coll_reduce_scatter;
extern const loom_bench_coll_t loom_bench_coll_bcast;
extern const loom_bench_coll_t loom_bench_coll_ibcast;
extern const loom_bench_coll_t loom_bench_coll_reduce;
extern const loom_bench_coll_t loom_bench_coll_ireduce;

/* Shared by each collective and its nonblocking form (coll_<name>.c). */
double loom_bench_allreduce_bus_factor(int nranks);
void loom_bench_allreduce_shape(size_t elems, int nranks, loom_bench_shape_t *shape_p);
int loom_bench_allreduce_expected(const loom_bench_expect_t *e, int block, int64_t *values);
double loom_bench_allgather_bus_factor(int nranks);
void loom_bench_allgather_shape(size_t elems, int nranks, loom_bench_shape_t *shape_p);
int loom_bench_allgather_expected(const loom_bench_expect_t *e, int block, int64_t *values);
double loom_bench_reduce_scatter_bus_factor(int nranks);
void loom_bench_reduce_scatter_shape(size_t elems, int nranks, loom_bench_shape_t *shape_p);
int loom_bench_reduce_scatter_expected(const loom_bench_expect_t *e, int block,
                                       int64_t *values);
double loom_bench_rooted_bus_factor(int nranks);
void loom_bench_rooted_shape(size_t elems, int nranks, loom_bench_shape_t *shape_p);
int loom_bench_bcast_expected(const loom_bench_expect_t *e, int block, int64_t *values);
int loom_bench_reduce_expected(const loom_bench_expect_t *e, int block, int64_t *values);

const loom_bench_coll_t *loom_bench_coll_find(const char *name);
const char *loom_bench_coll_names(void);

#endif
