/*
 * The rank order through MPI_T (coll_loom_rank_order, docs/rank_order.md):
 * every rank writes the same order between collectives (reversed, a
 * random one rank 0 draws and broadcasts, the identity again), on
 * MPI_COMM_WORLD and on a duplicate of it, with every algorithm of every
 * collective forced in turn through its _algorithm control variable, and
 * every result stays right: allreduce, bcast and reduce from two roots,
 * allgather and reduce_scatter_block, blocking and nonblocking, with
 * exact integer sums and a non-commutative op (composition of affine maps
 * mod 2^32) that must keep rank order whatever the order says.  The
 * counters show that every order was taken; bad values (syntax, unknown
 * communicator, wrong length, a rank twice, a sequence number that has
 * passed) are refused with a message that says why, and change nothing.
 */
#include "loom_test.h"

#include <limits.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#define SMALL 200      /* elements: blocking calls below the node segment's size */
#define LARGE 20000    /* nonblocking: several pipeline segments of the chains */
#define MAX_ALGS 16

static int world_rank, world_size;

/* ------------------------------------------------------------ MPI_T */

static void write_order(const char *value)
{
    MPI_T_cvar_handle handle;
    int index, count;

    if (MPI_T_cvar_get_index("coll_loom_rank_order", &index) != MPI_SUCCESS ||
        MPI_T_cvar_handle_alloc(index, NULL, &handle, &count) != MPI_SUCCESS) {
        loom_test_fail(__FILE__, __LINE__, "no control variable coll_loom_rank_order");
        return;
    }
    CHECK(MPI_T_cvar_write(handle, value) == MPI_SUCCESS, "cvar_write('%s') failed", value);
    MPI_T_cvar_handle_free(&handle);
}

/* A performance variable bound to comm (coll_loom_comm_*). */
static unsigned comm_pvar(MPI_Comm comm, const char *name)
{
    MPI_T_pvar_session session;
    MPI_T_pvar_handle handle;
    unsigned value = UINT_MAX;
    int index, count = 0;

    if (MPI_T_pvar_get_index(name, MPI_T_PVAR_CLASS_LEVEL, &index) != MPI_SUCCESS) {
        loom_test_fail(__FILE__, __LINE__, "no performance variable %s", name);
        return UINT_MAX;
    }
    MPI_T_pvar_session_create(&session);
    if (MPI_T_pvar_handle_alloc(session, index, &comm, &handle, &count) == MPI_SUCCESS) {
        CHECK(count == 1, "%s: %d values per communicator", name, count);
        CHECK(MPI_T_pvar_read(session, handle, &value) == MPI_SUCCESS, "%s: read failed",
              name);
        MPI_T_pvar_handle_free(session, &handle);
    } else {
        loom_test_fail(__FILE__, __LINE__, "%s: cannot bind a handle to a communicator",
                       name);
    }
    MPI_T_pvar_session_free(&session);
    return value;
}

/* "<cid>:<seq>:<order>" with order the rank at each position. */
static void write_comm_order(MPI_Comm comm, const char *seq, const int *order, int n)
{
    char *text = malloc(64 + 12 * (size_t)n);
    size_t len;
    int i;

    len = (size_t)sprintf(text, "%u:%s:", comm_pvar(comm, "coll_loom_comm_context_id"), seq);
    for (i = 0; i < n; ++i) {
        len += (size_t)sprintf(text + len, i ? ",%d" : "%d", order[i]);
    }
    write_order(text);
    free(text);
}

/* ------------------------------------------------- a non-commutative op */

/* x -> m x + c mod 2^32 in one 64-bit element (m high, c low); a op b
 * applies a, then b: not commutative, associative. */
static uint64_t affine(uint32_t m, uint32_t c) { return (uint64_t)m << 32 | c; }

static uint64_t compose(uint64_t a, uint64_t b)
{
    uint32_t am = (uint32_t)(a >> 32), ac = (uint32_t)a, bm = (uint32_t)(b >> 32),
             bc = (uint32_t)b;

    return affine(am * bm, ac * bm + bc);
}

static void compose_fn(void *in, void *inout, int *len, MPI_Datatype *type)
{
    const uint64_t *a = in;
    uint64_t *b = inout;
    int k;

    (void)type;
    for (k = 0; k < *len; ++k) {
        b[k] = compose(a[k], b[k]);   /* in: the lower ranks */
    }
}

static uint64_t affine_input(int r, int i)
{
    return affine(2u * (uint32_t)(r * 131 + i) + 3u, (uint32_t)(r * 7 + i * 5 + 1));
}

static uint64_t affine_want(int p, int i)
{
    uint64_t acc = affine_input(0, i);
    int r;

    for (r = 1; r < p; ++r) {
        acc = compose(acc, affine_input(r, i));
    }
    return acc;
}

/* ------------------------------------------------------ the collectives */

static long long val(int r, int i, int salt) { return (long long)(r + 1) * 1009 + i * 7 + salt; }

static long long sum_of(int p, int i, int salt)
{
    long long s = 0;
    int r;

    for (r = 0; r < p; ++r) {
        s += val(r, i, salt);
    }
    return s;
}

static void run_allreduce(MPI_Comm comm, int salt, MPI_Op noncomm)
{
    static long long in[LARGE], out[LARGE];
    static uint64_t ain[SMALL], aout[SMALL];
    int r, p, i, bad = 0, n, k;
    MPI_Request req;

    MPI_Comm_rank(comm, &r);
    MPI_Comm_size(comm, &p);
    for (k = 0; k < 3; ++k) {
        n = k == 0 ? 3 : k == 1 ? SMALL : LARGE;
        for (i = 0; i < n; ++i) {
            in[i] = val(r, i, salt + k);
        }
        if (n == LARGE) {
            MPI_Iallreduce(in, out, n, MPI_LONG_LONG, MPI_SUM, comm, &req);
            MPI_Wait(&req, MPI_STATUS_IGNORE);
        } else {
            MPI_Allreduce(in, out, n, MPI_LONG_LONG, MPI_SUM, comm);
        }
        for (i = 0; i < n; ++i) {
            bad += out[i] != sum_of(p, i, salt + k);
        }
    }
    CHECK(bad == 0, "allreduce salt %d: %d wrong sums", salt, bad);
    for (i = 0; i < SMALL; ++i) {
        ain[i] = affine_input(r, i);
    }
    MPI_Allreduce(ain, aout, SMALL, MPI_UINT64_T, noncomm, comm);
    for (i = 0, bad = 0; i < SMALL; ++i) {
        bad += aout[i] != affine_want(p, i);
    }
    CHECK(bad == 0, "allreduce salt %d, non-commutative: %d out of rank order", salt, bad);
}

static void run_bcast(MPI_Comm comm, int salt)
{
    static long long buf[LARGE];
    int r, p, i, bad = 0, k, root, n;
    MPI_Request req;

    MPI_Comm_rank(comm, &r);
    MPI_Comm_size(comm, &p);
    for (k = 0; k < 4; ++k) {
        root = k % 2 ? p - 1 : p / 2;
        n = k < 2 ? SMALL : LARGE;
        for (i = 0; i < n; ++i) {
            buf[i] = r == root ? val(root, i, salt + k) : -1;
        }
        if (n == LARGE) {
            MPI_Ibcast(buf, n, MPI_LONG_LONG, root, comm, &req);
            MPI_Wait(&req, MPI_STATUS_IGNORE);
        } else {
            MPI_Bcast(buf, n, MPI_LONG_LONG, root, comm);
        }
        for (i = 0; i < n; ++i) {
            bad += buf[i] != val(root, i, salt + k);
        }
    }
    CHECK(bad == 0, "bcast salt %d: %d wrong", salt, bad);
}

static void run_reduce(MPI_Comm comm, int salt, MPI_Op noncomm)
{
    static long long in[LARGE], out[LARGE];
    static uint64_t ain[SMALL], aout[SMALL];
    int r, p, i, bad = 0, k, root, n;
    MPI_Request req;

    MPI_Comm_rank(comm, &r);
    MPI_Comm_size(comm, &p);
    for (k = 0; k < 4; ++k) {
        root = k % 2 ? p - 1 : p / 2;
        n = k < 2 ? SMALL : LARGE;
        for (i = 0; i < n; ++i) {
            in[i] = val(r, i, salt + k);
            out[i] = -1;
        }
        if (n == LARGE) {
            MPI_Ireduce(in, out, n, MPI_LONG_LONG, MPI_SUM, root, comm, &req);
            MPI_Wait(&req, MPI_STATUS_IGNORE);
        } else {
            MPI_Reduce(in, out, n, MPI_LONG_LONG, MPI_SUM, root, comm);
        }
        for (i = 0; r == root && i < n; ++i) {
            bad += out[i] != sum_of(p, i, salt + k);
        }
    }
    CHECK(bad == 0, "reduce salt %d: %d wrong sums", salt, bad);
    for (i = 0; i < SMALL; ++i) {
        ain[i] = affine_input(r, i);
        aout[i] = 0;
    }
    root = p - 1;
    MPI_Reduce(ain, aout, SMALL, MPI_UINT64_T, noncomm, root, comm);
    for (i = 0, bad = 0; r == root && i < SMALL; ++i) {
        bad += aout[i] != affine_want(p, i);
    }
    CHECK(bad == 0, "reduce salt %d, non-commutative: %d out of rank order", salt, bad);
}

static void run_allgather(MPI_Comm comm, int salt)
{
    static long long in[SMALL], out[64 * SMALL];
    int r, p, i, q, bad = 0, n = SMALL / 4;

    MPI_Comm_rank(comm, &r);
    MPI_Comm_size(comm, &p);
    for (i = 0; i < n; ++i) {
        in[i] = val(r, i, salt);
    }
    MPI_Allgather(in, n, MPI_LONG_LONG, out, n, MPI_LONG_LONG, comm);
    for (q = 0; q < p; ++q) {
        for (i = 0; i < n; ++i) {
            bad += out[q * n + i] != val(q, i, salt);   /* each block its rank's */
        }
    }
    CHECK(bad == 0, "allgather salt %d: %d wrong", salt, bad);
}

static void run_reduce_scatter(MPI_Comm comm, int salt)
{
    static long long in[64 * SMALL], out[SMALL];
    int r, p, i, bad = 0, n = SMALL / 4;

    MPI_Comm_rank(comm, &r);
    MPI_Comm_size(comm, &p);
    for (i = 0; i < p * n; ++i) {
        in[i] = val(r, i, salt);
    }
    MPI_Reduce_scatter_block(in, out, n, MPI_LONG_LONG, MPI_SUM, comm);
    for (i = 0; i < n; ++i) {
        bad += out[i] != sum_of(p, r * n + i, salt);   /* the rank's own block */
    }
    CHECK(bad == 0, "reduce_scatter salt %d: %d wrong", salt, bad);
}

/* Every collective with each algorithm of each in turn, then auto. */
static void run_all(MPI_Comm comm, int salt, MPI_Op noncomm)
{
    static const char *const colls[] = { "allreduce", "bcast", "reduce", "allgather",
                                         "reduce_scatter" };
    char names[MAX_ALGS][64], cvar[64];
    int c, a, n;

    for (c = 0; c < 5; ++c) {
        snprintf(cvar, sizeof(cvar), "coll_loom_%s_algorithm", colls[c]);
        n = loom_test_cvar_enum_names(cvar, names, MAX_ALGS);
        CHECK(n > 1, "%s: no algorithms listed", cvar);
        for (a = 0; a < n; ++a) {
            CHECK(loom_test_cvar_write_int(cvar, a), "%s = %s refused", cvar, names[a]);
            switch (c) {
            case 0: run_allreduce(comm, salt + a, noncomm); break;
            case 1: run_bcast(comm, salt + a); break;
            case 2: run_reduce(comm, salt + a, noncomm); break;
            case 3: run_allgather(comm, salt + a); break;
            default: run_reduce_scatter(comm, salt + a); break;
            }
        }
        loom_test_cvar_write_int(cvar, 0);
    }
}

/* ------------------------------------------------------- bad values */

/* Writes value on every rank, runs one collective on world, and checks
 * that it was refused with a message containing words. */
static void expect_refused(const char *value, const char *words)
{
    unsigned long long rejected = loom_test_pvar("coll_loom_rank_order_rejected");
    long long x = world_rank, y = 0;
    char *msg;

    loom_test_capture_start();
    write_order(value);
    MPI_Allreduce(&x, &y, 1, MPI_LONG_LONG, MPI_SUM, MPI_COMM_WORLD);
    msg = loom_test_capture_end();
    CHECK(y == (long long)world_size * (world_size - 1) / 2, "'%s': wrong sum after it",
          value);
    CHECK(loom_test_pvar("coll_loom_rank_order_rejected") - rejected == 1,
          "'%s' was not counted as refused", value);
    CHECK(msg != NULL && strstr(msg, words) != NULL, "'%s': the message '%s' does not say '%s'",
          value, msg != NULL ? msg : "", words);
    free(msg);
}

int main(int argc, char **argv)
{
    unsigned long long accepted;
    int *order, i, j, t;
    unsigned seeded;
    unsigned cid, seq;
    MPI_Comm dup;
    MPI_Op noncomm;
    char text[128];

    loom_test_init(&argc, &argv, MPI_THREAD_SINGLE);
    MPI_Comm_rank(MPI_COMM_WORLD, &world_rank);
    MPI_Comm_size(MPI_COMM_WORLD, &world_size);
    if (world_size < 2) {
        return loom_test_skip("mpi_rank_order", "Loom joins 2 ranks or more");
    }
    MPI_Op_create(compose_fn, 0, &noncomm);
    MPI_Comm_dup(MPI_COMM_WORLD, &dup);
    order = malloc(sizeof(int) * (size_t)world_size);
    accepted = loom_test_pvar("coll_loom_rank_order_accepted");
    loom_test_pvar("coll_loom_rank_order_rejected");   /* start the counter */

    /* What a program reads to name a communicator and a collective. */
    cid = comm_pvar(MPI_COMM_WORLD, "coll_loom_comm_context_id");
    CHECK(cid != comm_pvar(dup, "coll_loom_comm_context_id"),
          "world and its duplicate have one context id (%u)", cid);
    seq = comm_pvar(MPI_COMM_WORLD, "coll_loom_comm_next_seq");
    CHECK(seq != UINT_MAX, "Loom does not run MPI_COMM_WORLD");
    {
        /* Nonblocking: a schedule, never the node segment. */
        long long x = world_rank, y = 0;
        MPI_Request req;

        MPI_Iallreduce(&x, &y, 1, MPI_LONG_LONG, MPI_SUM, MPI_COMM_WORLD, &req);
        MPI_Wait(&req, MPI_STATUS_IGNORE);
        CHECK(y == (long long)world_size * (world_size - 1) / 2, "iallreduce: %lld", y);
    }
    CHECK(comm_pvar(MPI_COMM_WORLD, "coll_loom_comm_next_seq") == seq + 1,
          "an iallreduce took sequence numbers %u to %u", seq,
          comm_pvar(MPI_COMM_WORLD, "coll_loom_comm_next_seq"));

    /* Reversed on world from the next collective on. */
    for (i = 0; i < world_size; ++i) {
        order[i] = world_size - 1 - i;
    }
    write_comm_order(MPI_COMM_WORLD, "next", order, world_size);
    run_all(MPI_COMM_WORLD, 100, noncomm);
    run_all(dup, 200, noncomm);

    /* A random order, drawn by rank 0 and agreed through a bcast; on the
     * duplicate, from the third collective after the next on, by its
     * sequence number: identity for two more calls first. */
    if (world_rank == 0) {
        seeded = 12345u + (unsigned)world_size;
        for (i = 0; i < world_size; ++i) {
            order[i] = i;
        }
        for (i = world_size - 1; i > 0; --i) {
            seeded = seeded * 1103515245u + 12345u;
            j = (int)(seeded % (unsigned)(i + 1));
            t = order[i];
            order[i] = order[j];
            order[j] = t;
        }
    }
    MPI_Bcast(order, world_size, MPI_INT, 0, MPI_COMM_WORLD);
    seq = comm_pvar(dup, "coll_loom_comm_next_seq");
    snprintf(text, sizeof(text), "%u", seq + 2);
    write_comm_order(dup, text, order, world_size);
    run_all(dup, 300, noncomm);
    write_comm_order(MPI_COMM_WORLD, "+1", order, world_size);
    run_all(MPI_COMM_WORLD, 400, noncomm);

    /* Back to rank order by keyword, world reversed by keyword. */
    snprintf(text, sizeof(text), "%u:next:identity", comm_pvar(dup, "coll_loom_comm_context_id"));
    write_order(text);
    run_all(dup, 500, noncomm);
    snprintf(text, sizeof(text), "%u:next:reverse", cid);
    write_order(text);
    run_all(MPI_COMM_WORLD, 600, noncomm);
    CHECK(loom_test_pvar("coll_loom_rank_order_accepted") - accepted == 5,
          "%llu orders taken, 5 written",
          loom_test_pvar("coll_loom_rank_order_accepted") - accepted);

    /* Refused, each with its reason; the calls stay right. */
    expect_refused("reverse", "is not <context id>");
    snprintf(text, sizeof(text), "%u:soon:reverse", cid);
    expect_refused(text, "is not <context id>");
    expect_refused("65000:next:reverse", "no communicator");
    snprintf(text, sizeof(text), "%u:next:0", cid);
    expect_refused(text, "1 ranks for a communicator");
    snprintf(text, sizeof(text), "%u:next:0,0", cid);
    expect_refused(text, "stands at positions");
    snprintf(text, sizeof(text), "%u:next:%d", cid, world_size);
    expect_refused(text, "beyond its size");
    seq = comm_pvar(MPI_COMM_WORLD, "coll_loom_comm_next_seq");
    snprintf(text, sizeof(text), "%u:%u:identity", cid, seq - 1);
    expect_refused(text, "has already begun");
    run_all(MPI_COMM_WORLD, 700, noncomm);

    free(order);
    MPI_Comm_free(&dup);
    MPI_Op_free(&noncomm);
    return loom_test_finish("mpi_rank_order");
}
