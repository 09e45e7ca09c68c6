/*
 * Datatypes that are not flat in the collectives that move data without
 * reducing it: bcast, allgather, allgatherv and their nonblocking forms.
 * Loom packs them through scratch, so it takes every such call (the calls
 * counter grows, fallbacks do not) and ranks may lay the same signature
 * out differently: here each rank uses one of a vector, an hindexed type
 * with a lower bound and gaps, and a contiguous type, all of three doubles
 * per element, rotated by rank and by call.  Every value lands where the
 * receive datatype says, and every gap byte keeps its sentinel.
 */
#include "loom_test.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#define GAP (-7.5)

static int rank, size;

/* Where an element's three doubles lie, in doubles from the element's start
 * (which is extent doubles after the previous one's). */
typedef struct layout {
    const char      *name;
    int             at[3];
    int             extent;
    MPI_Datatype    type;
} layout_t;

static layout_t layouts[3] = {
    { "vector(3, 1, 2, MPI_DOUBLE)", { 0, 2, 4 }, 5, MPI_DATATYPE_NULL },
    { "hindexed({1, 2}, {8, 40}, MPI_DOUBLE)", { 1, 5, 6 }, 6, MPI_DATATYPE_NULL },
    { "contiguous(3, MPI_DOUBLE)", { 0, 1, 2 }, 3, MPI_DATATYPE_NULL },
};

static void make_layouts(void)
{
    int blocklens[2] = { 1, 2 };
    MPI_Aint displs[2] = { 8, 40 };
    int i;

    MPI_Type_vector(3, 1, 2, MPI_DOUBLE, &layouts[0].type);
    MPI_Type_create_hindexed(2, blocklens, displs, MPI_DOUBLE, &layouts[1].type);
    MPI_Type_contiguous(3, MPI_DOUBLE, &layouts[2].type);
    for (i = 0; i < 3; ++i) {
        MPI_Type_commit(&layouts[i].type);
    }
}

/* The layout a rank uses for call number call: differs between ranks. */
static const layout_t *layout_of(int r, int call)
{
    return &layouts[(r + call) % 3];
}

/* A buffer of elems elements of l, every double a gap until written.  The
 * hindexed type's lower bound is its first double (8 bytes in), so its
 * elements still lie extent doubles apart from the buffer address. */
static double *alloc_gaps(const layout_t *l, int elems)
{
    size_t n = (size_t)elems * (size_t)l->extent + 8, i;
    double *buf = malloc(n * sizeof(double));

    for (i = 0; i < n; ++i) {
        buf[i] = GAP;
    }
    return buf;
}

static void put(const layout_t *l, double *buf, int e, int j, double v)
{
    buf[(size_t)e * (size_t)l->extent + (size_t)l->at[j]] = v;
}

/* Count the doubles of buf (elems elements of l) that differ from want(e,
 * j), and the gap doubles that lost their sentinel. */
static int check_buf(const layout_t *l, const double *buf, int elems,
                     double (*want)(int e, int j, const void *ctx), const void *ctx)
{
    size_t n = (size_t)elems * (size_t)l->extent + 8, i;
    char *is_data = calloc(n, 1);
    int e, j, bad = 0;

    for (e = 0; e < elems; ++e) {
        for (j = 0; j < 3; ++j) {
            i = (size_t)e * (size_t)l->extent + (size_t)l->at[j];
            is_data[i] = 1;
            bad += buf[i] != want(e, j, ctx);
        }
    }
    for (i = 0; i < n; ++i) {
        bad += !is_data[i] && buf[i] != GAP;
    }
    free(is_data);
    return bad;
}

static double bcast_value(int e, int j, const void *ctx)
{
    return *(const int *)ctx * 1000.0 + 3 * e + j;
}

/* What rank i contributed as its element e, double j. */
static double gather_value(int i, int e, int j)
{
    return i * 100000.0 + 3 * e + j;
}

typedef struct gather_ctx {
    const int   *counts, *displs;   /* in elements; the block of each rank */
} gather_ctx_t;

/* Element e of the receive buffer: the rank whose block holds it, or GAP
 * between blocks. */
static double gather_want(int e, int j, const void *ctx)
{
    const gather_ctx_t *g = ctx;
    int i;

    for (i = 0; i < size; ++i) {
        if (e >= g->displs[i] && e < g->displs[i] + g->counts[i]) {
            return gather_value(i, e - g->displs[i], j);
        }
    }
    return GAP;
}

typedef struct counts {
    unsigned long long calls, fallbacks;
} counts_t;

static counts_t read_counts(const char *coll)
{
    char name[64];
    counts_t c;

    snprintf(name, sizeof(name), "coll_loom_%s_calls", coll);
    c.calls = loom_test_pvar(name);
    snprintf(name, sizeof(name), "coll_loom_%s_fallbacks", coll);
    c.fallbacks = loom_test_pvar(name);
    return c;
}

static void check_taken(const char *coll, counts_t before, const char *what)
{
    counts_t now = read_counts(coll);

    if (!loom_test_expect_loom()) {
        return;
    }
    CHECK(now.calls - before.calls == 1 && now.fallbacks == before.fallbacks,
          "%s: Loom ran %llu %s calls and handed %llu down, expected 1 and 0", what,
          now.calls - before.calls, coll, now.fallbacks - before.fallbacks);
}

static void check_bcast(int k, int call, int nonblocking)
{
    const layout_t *l = layout_of(rank, call);
    int root = call % size, bad;
    double *buf = alloc_gaps(l, k);
    counts_t before = read_counts("bcast");
    MPI_Request req;
    int e, j, rc;

    for (e = 0; rank == root && e < k; ++e) {
        for (j = 0; j < 3; ++j) {
            put(l, buf, e, j, bcast_value(e, j, &root));
        }
    }
    rc = nonblocking ? MPI_Ibcast(buf, k, l->type, root, MPI_COMM_WORLD, &req)
                     : MPI_Bcast(buf, k, l->type, root, MPI_COMM_WORLD);
    if (nonblocking && rc == MPI_SUCCESS) {
        rc = MPI_Wait(&req, MPI_STATUS_IGNORE);
    }
    CHECK(rc == MPI_SUCCESS, "%sbcast of %d %s failed", nonblocking ? "i" : "", k, l->name);
    bad = check_buf(l, buf, k, bcast_value, &root);
    CHECK(bad == 0, "%sbcast of %d %s from %d: %d doubles wrong", nonblocking ? "i" : "", k,
          l->name, root, bad);
    check_taken("bcast", before, l->name);
    free(buf);
}

/* mode 0: allgather, 1: allgatherv with uneven blocks and gaps between
 * them, 2: allgather in place, 3: iallgather. */
static void check_allgather(int k, int call, int mode)
{
    const layout_t *sl = layout_of(rank, call), *rl = layout_of(rank, call + 1);
    int *counts = malloc(sizeof(int) * (size_t)size), *displs = malloc(sizeof(int) * (size_t)size);
    gather_ctx_t ctx = { counts, displs };
    counts_t before = read_counts("allgather");
    const char *names[] = { "allgather", "allgatherv", "allgather in place", "iallgather" };
    int i, e, j, rc, total = 0, bad;
    double *in, *out;
    MPI_Request req;

    for (i = 0; i < size; ++i) {
        counts[i] = mode == 1 ? k + i % 2 : k;
        displs[i] = total + (mode == 1 ? 1 : 0);
        total = displs[i] + counts[i];
    }
    in = alloc_gaps(sl, counts[rank]);
    out = alloc_gaps(rl, total);
    for (e = 0; e < counts[rank]; ++e) {
        for (j = 0; j < 3; ++j) {
            put(sl, in, e, j, gather_value(rank, e, j));
            if (mode == 2) {
                put(rl, out, displs[rank] + e, j, gather_value(rank, e, j));
            }
        }
    }
    if (mode == 1) {
        rc = MPI_Allgatherv(in, counts[rank], sl->type, out, counts, displs, rl->type,
                            MPI_COMM_WORLD);
    } else if (mode == 2) {
        rc = MPI_Allgather(MPI_IN_PLACE, 0, MPI_DATATYPE_NULL, out, k, rl->type,
                           MPI_COMM_WORLD);
    } else if (mode == 3) {
        rc = MPI_Iallgather(in, k, sl->type, out, k, rl->type, MPI_COMM_WORLD, &req);
        if (rc == MPI_SUCCESS) {
            rc = MPI_Wait(&req, MPI_STATUS_IGNORE);
        }
    } else {
        rc = MPI_Allgather(in, k, sl->type, out, k, rl->type, MPI_COMM_WORLD);
    }
    CHECK(rc == MPI_SUCCESS, "%s of %d, %s to %s failed", names[mode], k, sl->name, rl->name);
    bad = check_buf(rl, out, total, gather_want, &ctx);
    CHECK(bad == 0, "%s of %d, %s to %s: %d doubles wrong", names[mode], k, sl->name,
          rl->name, bad);
    check_taken("allgather", before, names[mode]);
    free(in);
    free(out);
    free(counts);
    free(displs);
}

int main(int argc, char **argv)
{
    const int ks[] = { 1, 7, 200, 5000 };
    int i, call = 0, mode;

    loom_test_init(&argc, &argv, MPI_THREAD_SINGLE);
    MPI_Comm_rank(MPI_COMM_WORLD, &rank);
    MPI_Comm_size(MPI_COMM_WORLD, &size);
    if (size < 2) {
        return loom_test_skip("mpi_stage", "Loom joins 2 ranks or more");
    }
    make_layouts();
    read_counts("bcast");
    read_counts("allgather");
    for (i = 0; i < (int)(sizeof(ks) / sizeof(ks[0])); ++i) {
        for (call = 0; call < 3; ++call) {
            check_bcast(ks[i], call, 0);
            check_bcast(ks[i], call, 1);
            for (mode = 0; mode < 4; ++mode) {
                check_allgather(ks[i], call, mode);
            }
        }
    }
    for (i = 0; i < 3; ++i) {
        MPI_Type_free(&layouts[i].type);
    }
    return loom_test_finish("mpi_stage");
}
