/* Timing the contenders size by size (sweep.h). */
#include "sweep.h"

#include "check.h"
#include "stats.h"
#include "tools/common/turns.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

/* What an output slot holds before a checked call: not a value any
 * reduction of check.h's values can produce in a float, and unlikely in
 * an integer type (check.c's seeds move the expected values anyway). */
#define LOOM_BENCH_POISON 0xA5

/* Calls per batch: about 1 MiB moved, or 1 ms at the microseconds a
 * small call takes, bounded to [1, 200]. */
static int loom_bench_batch(const loom_bench_options_t *opts, size_t bytes)
{
    size_t calls;

    if (opts->batch > 0) {
        return opts->batch;
    }
    calls = ((size_t)1 << 20) / (bytes + 4096);
    return calls < 1 ? 1 : calls > 200 ? 200 : (int)calls;
}

/* The call for a size of bytes; returns the size rounded down to what
 * the call really moves, 0 when that is nothing. */
static size_t loom_bench_shape_of(const loom_bench_options_t *opts, int nranks, size_t bytes,
                                  loom_bench_shape_t *shape_p)
{
    size_t esz = opts->dtype->size;

    opts->coll->shape(bytes / esz, nranks, shape_p);
    if (shape_p->count == 0) {
        return 0;
    }
    /* The larger buffer, as nccl-tests' size column counts it. */
    return (shape_p->in_count > shape_p->out_count ? shape_p->in_count : shape_p->out_count) *
           esz;
}

int loom_bench_sweep_sizes(const loom_bench_options_t *opts, int nranks, size_t **sizes_p,
                           int *n_p)
{
    size_t bytes, rounded, *sizes = NULL, *grown;
    loom_bench_shape_t shape;
    int n = 0;

    for (bytes = opts->min_bytes; bytes <= opts->max_bytes; bytes *= opts->step_factor) {
        rounded = loom_bench_shape_of(opts, nranks, bytes, &shape);
        if (rounded > 0 && (n == 0 || sizes[n - 1] != rounded)) {
            grown = realloc(sizes, (size_t)(n + 1) * sizeof(*sizes));
            if (grown == NULL) {
                free(sizes);
                return -1;
            }
            sizes = grown;
            sizes[n++] = rounded;
        }
        if (bytes > opts->max_bytes / opts->step_factor) {
            break;   /* the next step would overflow or pass the end */
        }
    }
    *sizes_p = sizes;
    *n_p = n;
    return 0;
}

int loom_bench_sweep_create(const loom_bench_options_t *opts, const loom_bench_compare_t *cmp,
                            const loom_bench_mpit_t *mpit, size_t span, const size_t *sizes,
                            int nsizes, loom_bench_sweep_t *sweep_p)
{
    loom_bench_layout_t l;
    loom_bench_shape_t shape;
    int64_t in_values[LOOM_BENCH_CHECK_PERIOD];
    size_t in_bytes = 0, out_bytes = 0, ref_bytes = 0, tile_bytes, esz = opts->dtype->size;
    int i, j;

    memset(sweep_p, 0, sizeof(*sweep_p));
    sweep_p->opts = opts;
    sweep_p->cmp = cmp;
    sweep_p->mpit = mpit;
    sweep_p->span = span;
    MPI_Comm_rank(MPI_COMM_WORLD, &sweep_p->rank);
    MPI_Comm_size(MPI_COMM_WORLD, &sweep_p->nranks);
    for (i = 0; i < nsizes; ++i) {
        loom_bench_shape_of(opts, sweep_p->nranks, sizes[i], &shape);
        l = loom_bench_layout(shape.in_count * esz, shape.out_count * esz,
                              loom_bench_batch(opts, sizes[i]), opts->fresh, span, opts->check);
        in_bytes = l.in_slots * l.in_stride > in_bytes ? l.in_slots * l.in_stride : in_bytes;
        out_bytes = l.out_slots * l.out_stride > out_bytes ? l.out_slots * l.out_stride
                                                           : out_bytes;
        l = loom_bench_memref_layout(sizes[i], loom_bench_batch(opts, sizes[i]), opts->fresh,
                                     span);
        ref_bytes = l.in_slots * l.in_stride > ref_bytes ? l.in_slots * l.in_stride : ref_bytes;
    }
    sweep_p->times =
        malloc((size_t)opts->iters * (LOOM_BENCH_MAX_CONTENDERS + 1) * sizeof(double));
    tile_bytes = 2 * LOOM_BENCH_CHECK_PERIOD * esz;
    sweep_p->in_tile = malloc(tile_bytes);
    sweep_p->out_tiles = malloc(tile_bytes * (size_t)sweep_p->nranks);
    sweep_p->vcounts = malloc(2 * (size_t)sweep_p->nranks * sizeof(int));
    if (sweep_p->times == NULL || sweep_p->in_tile == NULL || sweep_p->out_tiles == NULL ||
        sweep_p->vcounts == NULL ||
        loom_bench_buffers_create(in_bytes, out_bytes, &sweep_p->bufs) != 0) {
        loom_bench_sweep_destroy(sweep_p);
        return -1;
    }
    sweep_p->vdispls = sweep_p->vcounts + sweep_p->nranks;
    if (opts->memcpy_ref) {
        if (loom_bench_memref_create(ref_bytes, &sweep_p->memref) != 0) {
            loom_bench_sweep_destroy(sweep_p);
            return -1;
        }
        sweep_p->have_memref = 1;
    }
    for (j = 0; j < LOOM_BENCH_CHECK_PERIOD; ++j) {
        in_values[j] = loom_bench_check_value(opts->op, sweep_p->rank, j);
    }
    loom_bench_tile_fill(opts->dtype, in_values, sweep_p->in_tile);
    /* Unchecked runs reduce these values too: filled once, here. */
    loom_bench_tile_copy(sweep_p->in_tile, esz, 0, sweep_p->bufs.in,
                         sweep_p->bufs.in_bytes / esz);
    return 0;
}

void loom_bench_sweep_destroy(loom_bench_sweep_t *sweep)
{
    if (sweep->have_memref) {
        loom_bench_memref_destroy(&sweep->memref);
        sweep->have_memref = 0;
    }
    loom_bench_buffers_destroy(&sweep->bufs);
    free(sweep->vcounts);
    sweep->vcounts = sweep->vdispls = NULL;
    free(sweep->out_tiles);
    free(sweep->in_tile);
    free(sweep->times);
    sweep->times = NULL;
    sweep->in_tile = sweep->out_tiles = NULL;
}

/* A barrier whose waiters sleep instead of spinning on cores that the
 * ranks still working need. */
static void loom_bench_sleepy_barrier(MPI_Comm comm)
{
    struct timespec nap = { 0, 20000 };
    MPI_Request req;
    int done = 0;

    MPI_Ibarrier(comm, &req);
    while (!done) {
        MPI_Test(&req, &done, MPI_STATUS_IGNORE);
        if (!done) {
            nanosleep(&nap, NULL);
        }
    }
}

typedef struct loom_bench_batch_args {
    int                  contender;
    loom_bench_shape_t   shape;
    int                  batch;
    loom_bench_layout_t  layout;
} loom_bench_batch_args_t;

/* What this rank's output blocks must hold at this size: the expected
 * values can depend on the count (reduce_scatter's block starts count *
 * rank elements into the input's pattern).  A rank whose output MPI
 * leaves undefined (reduce off the root) checks nothing. */
static void loom_bench_out_tiles_fill(loom_bench_sweep_t *s, const loom_bench_shape_t *shape)
{
    const loom_bench_expect_t e = {
        .op = s->opts->op, .rank = s->rank, .nranks = s->nranks, .root = s->opts->root,
        .count = shape->count,
    };
    int64_t values[LOOM_BENCH_CHECK_PERIOD];
    size_t tile_bytes = 2 * LOOM_BENCH_CHECK_PERIOD * s->opts->dtype->size;
    int b;

    s->out_checked = 1;
    for (b = 0; b < shape->out_blocks; ++b) {
        if (!s->opts->coll->expected(&e, b, values)) {
            s->out_checked = 0;
            return;
        }
        loom_bench_tile_fill(s->opts->dtype, values, s->out_tiles + (size_t)b * tile_bytes);
    }
}

/* Fresh values for the inputs this batch reads, poison in the outputs it
 * writes, so that neither an old result nor an untouched buffer passes. */
static void loom_bench_batch_prepare(loom_bench_sweep_t *s, const loom_bench_batch_args_t *a)
{
    size_t i, esz = s->opts->dtype->size, n = (size_t)a->batch;

    ++s->seed;
    for (i = 0; i < n && i < a->layout.in_slots; ++i) {
        loom_bench_tile_copy(
            s->in_tile, esz, s->seed,
            s->bufs.in + (s->cursor + i) % a->layout.in_slots * a->layout.in_stride,
            a->shape.in_count);
    }
    for (i = 0; i < n; ++i) {
        memset(s->bufs.out + (s->cursor + i) % a->layout.out_slots * a->layout.out_stride,
               LOOM_BENCH_POISON, a->shape.out_count * esz);
    }
}

/* Wrong elements in this batch's outputs (all distinct in check mode),
 * every element of every block against the block's own tile. */
static long long loom_bench_batch_verify(const loom_bench_sweep_t *s,
                                         const loom_bench_batch_args_t *a)
{
    size_t i, esz = s->opts->dtype->size, tile_bytes = 2 * LOOM_BENCH_CHECK_PERIOD * esz;
    size_t block = a->shape.out_count / (size_t)a->shape.out_blocks;
    const unsigned char *out;
    long long bad = 0;
    int b;

    if (!s->out_checked) {
        return 0;
    }
    for (i = 0; i < (size_t)a->batch; ++i) {
        out = s->bufs.out + (s->cursor + i) % a->layout.out_slots * a->layout.out_stride;
        for (b = 0; b < a->shape.out_blocks; ++b) {
            bad += (long long)loom_bench_tile_compare(s->out_tiles + (size_t)b * tile_bytes,
                                                      esz, s->seed,
                                                      out + (size_t)b * block * esz, block);
        }
    }
    return bad;
}

/* One batch: the slowest rank's seconds per call or, timing single calls,
 * the ranks' average seconds for the one call (the allreduce that
 * gathers it is the closing barrier).  Loom's counter growth is added to
 * *grown, wrong elements to *bad. */
static double loom_bench_batch_run(loom_bench_sweep_t *s, const loom_bench_batch_args_t *a,
                                   loom_bench_counters_t *grown, long long *bad)
{
    const loom_bench_contender_t *c = &s->cmp->contender[a->contender];
    loom_bench_counters_t before, after;
    loom_bench_call_t call = {
        .count = (int)a->shape.count, .counts = s->vcounts, .displs = s->vdispls,
        .dtype = loom_bench_dtype_mpi(s->opts->dtype), .op = loom_bench_op_mpi(s->opts->op),
        .root = s->opts->root, .rank = s->rank, .comm = c->comm,
    };
    double t0, dt, worst = 0.0;
    int i, k;

    if (s->opts->check) {
        loom_bench_batch_prepare(s, a);
    }
    /* A rank that failed to switch would run another module than the
     * others: stop rather than time (or hang in) a mismatch. */
    if (loom_bench_compare_apply(s->cmp, s->mpit, a->contender) != MPI_SUCCESS) {
        fprintf(stderr, "loom-bench: rank %d: writing " LOOM_BENCH_ENABLE_CVAR " failed\n",
                s->rank);
        MPI_Abort(MPI_COMM_WORLD, 1);
    }
    loom_bench_sleepy_barrier(s->cmp->sync);
    MPI_Barrier(s->cmp->sync);
    loom_bench_mpit_read(s->mpit, &before);
    t0 = MPI_Wtime();
    for (i = 0; i < a->batch; ++i) {
        call.in = s->bufs.in +
                  (s->cursor + (size_t)i) % a->layout.in_slots * a->layout.in_stride;
        call.out = s->bufs.out +
                   (s->cursor + (size_t)i) % a->layout.out_slots * a->layout.out_stride;
        if (s->opts->coll->run(&call) != MPI_SUCCESS) {
            fprintf(stderr, "loom-bench: rank %d: %s of count %d failed\n", s->rank,
                    s->opts->coll->name, call.count);
            MPI_Abort(MPI_COMM_WORLD, 1);
        }
    }
    dt = (MPI_Wtime() - t0) / a->batch;
    loom_bench_mpit_read(s->mpit, &after);
    for (k = 0; k < LOOM_BENCH_PVAR_COUNT; ++k) {
        grown->value[k] += after.value[k] - before.value[k];
    }
    if (s->opts->check) {
        *bad += loom_bench_batch_verify(s, a);
    }
    s->cursor += (size_t)a->batch;
    if (s->opts->timing == LOOM_BENCH_TIMING_SINGLE) {
        MPI_Allreduce(&dt, &worst, 1, MPI_DOUBLE, MPI_SUM, s->cmp->sync);
        return worst / s->nranks;
    }
    MPI_Allreduce(&dt, &worst, 1, MPI_DOUBLE, MPI_MAX, s->cmp->sync);
    return worst;
}

/* One batch of the memcpy reference: the slowest copying rank's seconds
 * per copy, lined up as a contender's batch is.  Ranks that would not copy
 * in a single-copy scheme (bcast's root, coll.h) wait it out. */
static double loom_bench_memref_turn(loom_bench_sweep_t *s, const loom_bench_batch_args_t *a,
                                     size_t bytes)
{
    const loom_bench_options_t *o = s->opts;
    loom_bench_layout_t l = loom_bench_memref_layout(bytes, a->batch, o->fresh, s->span);
    double dt = 0.0, worst = 0.0;

    loom_bench_sleepy_barrier(s->cmp->sync);
    MPI_Barrier(s->cmp->sync);
    if (!(o->coll->memcpy_ref == LOOM_BENCH_REF_BUT_ROOT && s->rank == o->root)) {
        dt = loom_bench_memref_batch(&s->memref, &l, bytes, a->batch);
    }
    MPI_Allreduce(&dt, &worst, 1, MPI_DOUBLE, MPI_MAX, s->cmp->sync);
    return worst;
}

int loom_bench_sweep_run(loom_bench_sweep_t *s, size_t bytes, loom_bench_result_t *results_p)
{
    const loom_bench_options_t *o = s->opts;
    int nc = s->cmp->count, nt = nc + s->have_memref, c, k, w, i;
    int order[LOOM_BENCH_MAX_CONTENDERS + 1];
    loom_bench_batch_args_t a = { .batch = loom_bench_batch(o, bytes) };
    loom_bench_counters_t grown[LOOM_BENCH_MAX_CONTENDERS], zero;
    long long bad[LOOM_BENCH_MAX_CONTENDERS] = { 0 }, bad_all[LOOM_BENCH_MAX_CONTENDERS];
    double *t, ref_median = 0.0;

    loom_bench_shape_of(o, s->nranks, bytes, &a.shape);
    for (i = 0; i < s->nranks; ++i) {
        s->vcounts[i] = (int)a.shape.count;
        s->vdispls[i] = i * (int)a.shape.count;
    }
    a.layout = loom_bench_layout(a.shape.in_count * o->dtype->size,
                                 a.shape.out_count * o->dtype->size, a.batch, o->fresh, s->span,
                                 o->check);
    if (o->check) {
        loom_bench_out_tiles_fill(s, &a.shape);
    }
    memset(grown, 0, sizeof(grown));
    memset(&zero, 0, sizeof(zero));
    /* Warm-up: endpoints, pools and the pages of every slot, per contender. */
    for (c = 0; c < nc; ++c) {
        for (k = 0; k < o->warmup; ++k) {
            a.contender = c;
            loom_bench_batch_run(s, &a, &grown[c], &bad[c]);
        }
    }
    for (k = 0; k < o->warmup && s->have_memref; ++k) {
        loom_bench_memref_turn(s, &a, bytes);
    }
    /* Turn nc, when there is one, is the memcpy reference's. */
    for (k = 0; k < o->iters; ++k) {
        loom_tool_turns(k, nt, order);   /* balanced for carry-over: turns.h */
        for (w = 0; w < nt; ++w) {
            c = order[w];
            if (c == nc) {
                s->times[c * o->iters + k] = loom_bench_memref_turn(s, &a, bytes);
                continue;
            }
            a.contender = c;
            s->times[c * o->iters + k] = loom_bench_batch_run(s, &a, &grown[c], &bad[c]);
        }
    }
    if (s->have_memref) {
        t = &s->times[nc * o->iters];
        ref_median = loom_bench_median(t, (size_t)o->iters);
    }
    MPI_Allreduce(bad, bad_all, nc, MPI_LONG_LONG, MPI_SUM, s->cmp->sync);
    for (c = 0; c < nc; ++c) {
        loom_bench_result_t *r = &results_p[c];

        t = &s->times[c * o->iters];
        memset(r, 0, sizeof(*r));
        r->bytes = bytes;
        r->count = a.shape.count;
        r->contender = c;
        r->min = loom_bench_min(t, (size_t)o->iters);
        r->max = loom_bench_max(t, (size_t)o->iters);
        r->median = loom_bench_median(t, (size_t)o->iters);
        r->algbw = r->median > 0 ? (double)bytes / r->median / 1e9 : 0.0;
        r->busbw = r->algbw * o->coll->bus_factor(s->nranks);
        loom_bench_mpit_describe(s->mpit, &zero, &grown[c], r->algorithm, sizeof(r->algorithm));
        r->loom_calls = grown[c].value[LOOM_BENCH_PVAR_CALLS];
        r->check_failures = o->check ? bad_all[c] : -1;
        if (ref_median > 0) {
            r->memcpy_gbs = (double)bytes / ref_median / 1e9;
            r->memcpy_frac = o->coll->memcpy_ref != LOOM_BENCH_REF_NONE && r->median > 0
                               ? ref_median / r->median : 0.0;
        }
    }
    for (c = 0; c < nc; ++c) {
        results_p[c].ratio = nc > 1 && results_p[LOOM_BENCH_DEFAULT].median > 0
                               ? results_p[c].median / results_p[LOOM_BENCH_DEFAULT].median
                               : 0.0;
    }
    return 0;
}
