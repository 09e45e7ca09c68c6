/*
 * MPI_SUM of 8- and 16-bit integers wraps as C arithmetic does.
 *
 * Open MPI 4.1.4's vectorized op component saturates these sums from
 * about one vector of elements up; Loom keeps them right whether it runs
 * the call or hands it down (small calls on one node, intercommunicators).
 * All eight types (C and fixed-width names, signed and unsigned), counts
 * 1, 63, 64, 65 and 4095, through every collective that reduces, blocking
 * and not, on the world and on an intercommunicator.  The inputs overflow,
 * and each rank computes the wrapped sums itself.  run.sh runs this at
 * Loom's defaults (where the small calls are handed down) and with every
 * hand-off at 0.
 *
 * Open MPI's argument checks refuse a predefined op on a derived datatype
 * (MPI_ERR_OP), so such a sum reaches Loom only with mpi_param_check off,
 * where Open MPI reduces it by its one predefined type: this program turns
 * the checks off to run the sums on a contiguous derived type too.
 */
#include "loom_test.h"

#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>


static const int counts[] = { 1, 63, 64, 65, 4095 };
#define NCOUNTS (sizeof(counts) / sizeof(counts[0]))

typedef struct itype {
    MPI_Datatype    type;
    int             width;  /* bytes */
    const char      *name;
} itype_t;

enum layout { PLAIN, CONTIG, NLAYOUTS };
static const char *const layout_names[] = { "predefined", "contiguous derived" };

enum coll { ALLREDUCE, IALLREDUCE, REDUCE, IREDUCE, RS_BLOCK, IRS_BLOCK, RS, NCOLLS };
static const char *const coll_names[] = { "allreduce", "iallreduce", "reduce", "ireduce",
                                          "reduce_scatter_block", "ireduce_scatter_block",
                                          "reduce_scatter" };

/* Rank wr's element i, as bits: large enough that two ranks overflow. */
static unsigned raw(int wr, size_t i, int width)
{
    return width == 1 ? (unsigned)(wr * 37 + i * 11 + 100) & 0xffu
                      : (unsigned)(wr * 9973 + i * 7919 + 20000) & 0xffffu;
}

/* The wrapped sum over the world ranks in [lo, hi): what C computes. */
static unsigned wrapped_sum(int lo, int hi, size_t i, int width)
{
    unsigned s = 0;
    int q;

    for (q = lo; q < hi; ++q) {
        s += raw(q, i, width);
    }
    return s & (width == 1 ? 0xffu : 0xffffu);
}

static void put(unsigned char *p, unsigned v, int width)
{
    uint16_t x = (uint16_t)v;

    if (width == 1) {
        *p = (unsigned char)v;
    } else {
        memcpy(p, &x, 2);
    }
}

static unsigned get(const unsigned char *p, int width)
{
    uint16_t x;

    if (width == 1) {
        return *p;
    }
    memcpy(&x, p, 2);
    return x;
}

/* Where a call runs, and whose inputs reach this rank's result: on the
 * world everyone's, on the intercommunicator the other group's. */
typedef struct where {
    MPI_Comm    comm;
    int         inter;
    int         wr;             /* world rank */
    int         lrank, lsize;   /* in the local group */
    int         rlo, rhi;       /* world ranks whose inputs are summed */
    int         rsize;          /* ranks in the group reduced (remote or all) */
} where_t;

typedef struct call {
    const where_t   *w;
    const itype_t   *t;
    MPI_Datatype    dtype;  /* the layout's type */
    int             layout, count, coll;
} call_t;

static unsigned char *new_buf(const call_t *c, size_t elems)
{
    size_t bytes = (elems + 1) * (size_t)c->t->width;
    unsigned char *b = malloc(bytes);

    memset(b, 0xee, bytes);
    return b;
}

static void fill(const call_t *c, unsigned char *b, size_t elems)
{
    size_t i;

    for (i = 0; i < elems; ++i) {
        put(b + i * (size_t)c->t->width, raw(c->w->wr, i, c->t->width),
            c->t->width);
    }
}

/* Elements [0, elems) of b must be the wrapped sums of inputs from first
 * on. */
static void expect_sums(const call_t *c, const unsigned char *b, size_t elems, size_t first)
{
    size_t i, bad = 0, at = 0, w = (size_t)c->t->width;
    unsigned got = 0, want = 0;

    for (i = 0; i < elems; ++i) {
        const unsigned char *e = b + i * w;

        if (get(e, c->t->width) != wrapped_sum(c->w->rlo, c->w->rhi, first + i, c->t->width) &&
            bad++ == 0) {
            at = i;
            got = get(e, c->t->width);
            want = wrapped_sum(c->w->rlo, c->w->rhi, first + i, c->t->width);
        }
    }
    CHECK(bad == 0, "%s of %d %s (%s) on %s: %zu of %zu sums wrong, the first at %zu: %u, "
          "expected %u", coll_names[c->coll], c->count, c->t->name, layout_names[c->layout],
          c->w->inter ? "an intercommunicator" : "the world", bad, elems, at, got, want);
}

static void run_call(const call_t *c)
{
    const where_t *w = c->w;
    int n = c->count, root, i, *rcounts = NULL, here;
    size_t in_elems, out_elems, first = 0;
    unsigned char *in, *out;
    MPI_Request req = MPI_REQUEST_NULL;

    /* A reduce_scatter's vector: a block of n for every rank it goes to
     * (on an intercommunicator each group splits the other's vector, so
     * both must see the same length: n x both group sizes). */
    if (c->coll == RS_BLOCK || c->coll == IRS_BLOCK || c->coll == RS) {
        int block = w->inter ? n * w->rsize : n;

        in_elems = (size_t)block * (size_t)w->lsize;
        out_elems = (size_t)block;
        first = (size_t)w->lrank * (size_t)block;
        n = block;
    } else {
        in_elems = out_elems = (size_t)n;
    }
    in = new_buf(c, in_elems);
    out = new_buf(c, out_elems);
    fill(c, in, in_elems);
    switch (c->coll) {
    case ALLREDUCE:
        MPI_Allreduce(in, out, n, c->dtype, MPI_SUM, w->comm);
        break;
    case IALLREDUCE:
        MPI_Iallreduce(in, out, n, c->dtype, MPI_SUM, w->comm, &req);
        break;
    case REDUCE:
    case IREDUCE:
        /* To world rank 0: on the intercommunicator the first group's
         * rank 0 is the root, the rest of its group stands aside. */
        here = w->wr == 0;
        root = !w->inter ? 0 : here ? MPI_ROOT : w->rlo == 0 ? 0 : MPI_PROC_NULL;
        if (c->coll == REDUCE) {
            MPI_Reduce(in, out, n, c->dtype, MPI_SUM, root, w->comm);
        } else {
            MPI_Ireduce(in, out, n, c->dtype, MPI_SUM, root, w->comm, &req);
        }
        if (!here) {
            out_elems = 0;
        }
        break;
    case RS_BLOCK:
        MPI_Reduce_scatter_block(in, out, n, c->dtype, MPI_SUM, w->comm);
        break;
    case IRS_BLOCK:
        MPI_Ireduce_scatter_block(in, out, n, c->dtype, MPI_SUM, w->comm, &req);
        break;
    case RS:
        rcounts = malloc(sizeof(int) * (size_t)w->lsize);
        for (i = 0; i < w->lsize; ++i) {
            rcounts[i] = n;
        }
        MPI_Reduce_scatter(in, out, rcounts, c->dtype, MPI_SUM, w->comm);
        free(rcounts);
        break;
    }
    MPI_Wait(&req, MPI_STATUS_IGNORE);
    expect_sums(c, out, out_elems, first);
    free(in);
    free(out);
}

static unsigned long long fallbacks(void)
{
    return loom_test_pvar("coll_loom_allreduce_fallbacks") +
           loom_test_pvar("coll_loom_reduce_fallbacks") +
           loom_test_pvar("coll_loom_reduce_scatter_fallbacks");
}

static void run_where(const where_t *w, int loom)
{
    const itype_t types[] = {
        { MPI_SIGNED_CHAR, 1, "MPI_SIGNED_CHAR" }, { MPI_UNSIGNED_CHAR, 1, "MPI_UNSIGNED_CHAR" },
        { MPI_INT8_T, 1, "MPI_INT8_T" },           { MPI_UINT8_T, 1, "MPI_UINT8_T" },
        { MPI_SHORT, 2, "MPI_SHORT" },             { MPI_UNSIGNED_SHORT, 2, "MPI_UNSIGNED_SHORT" },
        { MPI_INT16_T, 2, "MPI_INT16_T" },         { MPI_UINT16_T, 2, "MPI_UINT16_T" },
    };
    unsigned long long before = fallbacks();
    size_t t, k;
    int layout, coll;

    for (t = 0; t < sizeof(types) / sizeof(types[0]); ++t) {
        for (layout = 0; layout < NLAYOUTS; ++layout) {
            call_t c = { .w = w, .t = &types[t], .layout = layout, .dtype = types[t].type };

            if (layout == CONTIG) {
                MPI_Type_contiguous(1, types[t].type, &c.dtype);
                MPI_Type_commit(&c.dtype);
            }
            for (coll = 0; coll < NCOLLS; ++coll) {
                for (k = 0; k < NCOUNTS; ++k) {
                    c.coll = coll;
                    c.count = counts[k];
                    run_call(&c);
                }
            }
            if (layout != PLAIN) {
                MPI_Type_free(&c.dtype);
            }
        }
    }
    /* Everything on an intercommunicator is handed down: Loom must have
     * seen those calls to keep their sums right. */
    if (loom && w->inter) {
        CHECK(fallbacks() > before, "%s: Loom handed no call down",
              w->inter ? "intercommunicator" : "world");
    }
}

int main(int argc, char **argv)
{
    int loom, p, wr, color;
    MPI_Comm local, inter;
    where_t world;

    setenv("OMPI_MCA_mpi_param_check", "0", 1);  /* read at MPI_Init: see above */
    loom_test_init(&argc, &argv, MPI_THREAD_SINGLE);
    loom = loom_test_expect_loom();
    MPI_Comm_rank(MPI_COMM_WORLD, &wr);
    MPI_Comm_size(MPI_COMM_WORLD, &p);
    world = (where_t){ .comm = MPI_COMM_WORLD, .wr = wr, .lrank = wr, .lsize = p,
                       .rlo = 0, .rhi = p, .rsize = p };
    run_where(&world, loom);
    if (p >= 2) {
        /* Two groups, world ranks [0, p/2) and [p/2, p). */
        where_t w = { .inter = 1, .wr = wr };

        color = wr < p / 2 ? 0 : 1;
        MPI_Comm_split(MPI_COMM_WORLD, color, wr, &local);
        MPI_Intercomm_create(local, 0, MPI_COMM_WORLD, color == 0 ? p / 2 : 0, 77, &inter);
        w.comm = inter;
        MPI_Comm_rank(local, &w.lrank);
        MPI_Comm_size(local, &w.lsize);
        w.rlo = color == 0 ? p / 2 : 0;
        w.rhi = color == 0 ? p : p / 2;
        w.rsize = w.rhi - w.rlo;
        run_where(&w, loom);
        MPI_Comm_free(&inter);
        MPI_Comm_free(&local);
    }
    return loom_test_finish("mpi_small_ints");
}
