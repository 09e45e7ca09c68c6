/*
 * Loom through MPI_T: every performance variable exists and reads, the
 * counters move by exactly what the test did (calls, bytes, algorithm,
 * time, fallbacks, disabled calls), and writing the control variable
 * coll_loom_enable on all ranks switches Loom off and on at the next
 * collective, with correct results either way.
 */
#include "loom_test.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#define COUNT 1000  /* doubles: above any hand-off (run.sh sets it to 0) */

static const char *const pvar_names[] = {
    "coll_loom_allreduce_calls", "coll_loom_allreduce_bytes",
    "coll_loom_allreduce_time_ns", "coll_loom_allreduce_fallbacks",
    "coll_loom_allreduce_handoffs", "coll_loom_allreduce_disabled",
    "coll_loom_allreduce_alg_ring", "coll_loom_allreduce_alg_recursive_doubling",
    "coll_loom_allreduce_alg_rabenseifner", "coll_loom_allreduce_alg_double_binary_tree",
    "coll_loom_allreduce_alg_reproducible", "coll_loom_allreduce_alg_shm",
    "coll_loom_allreduce_alg_hierarchical",
    /* The other collectives' counters: listed so that every pvar is known. */
    "coll_loom_allgather_calls", "coll_loom_allgather_bytes", "coll_loom_allgather_time_ns",
    "coll_loom_allgather_fallbacks", "coll_loom_allgather_handoffs",
    "coll_loom_allgather_disabled", "coll_loom_allgather_alg_bruck",
    "coll_loom_allgather_alg_ring", "coll_loom_allgather_alg_hierarchical",
    "coll_loom_allgather_alg_shm",
    "coll_loom_reduce_scatter_calls", "coll_loom_reduce_scatter_bytes",
    "coll_loom_reduce_scatter_time_ns", "coll_loom_reduce_scatter_fallbacks",
    "coll_loom_reduce_scatter_handoffs", "coll_loom_reduce_scatter_disabled",
    "coll_loom_reduce_scatter_alg_recursive_halving", "coll_loom_reduce_scatter_alg_ring",
    "coll_loom_reduce_scatter_alg_reproducible", "coll_loom_reduce_scatter_alg_hierarchical",
    "coll_loom_reduce_scatter_alg_shm",
    "coll_loom_bcast_calls", "coll_loom_bcast_bytes", "coll_loom_bcast_time_ns",
    "coll_loom_bcast_fallbacks", "coll_loom_bcast_handoffs", "coll_loom_bcast_disabled",
    "coll_loom_bcast_alg_binomial", "coll_loom_bcast_alg_chain",
    "coll_loom_bcast_alg_scatter_allgather", "coll_loom_bcast_alg_hierarchical",
    "coll_loom_bcast_alg_shm",
    "coll_loom_reduce_calls", "coll_loom_reduce_bytes", "coll_loom_reduce_time_ns",
    "coll_loom_reduce_fallbacks", "coll_loom_reduce_handoffs", "coll_loom_reduce_disabled",
    "coll_loom_reduce_alg_binomial", "coll_loom_reduce_alg_reduce_scatter_gather",
    "coll_loom_reduce_alg_reproducible", "coll_loom_reduce_alg_chain",
    "coll_loom_reduce_alg_hierarchical", "coll_loom_reduce_alg_shm",
    /* 0 throughout: the progress thread is off by default */
    "coll_loom_progress_thread_polls", "coll_loom_progress_thread_events",
    /* 0 throughout: this program does not link libloom-ckpt */
    "coll_loom_ckpt_saves", "coll_loom_ckpt_bytes_written", "coll_loom_ckpt_chunks_written",
    "coll_loom_ckpt_chunks_reused", "coll_loom_ckpt_stall_ns",
    /* 0 throughout: no rank order is written here (mpi_rank_order.c) */
    "coll_loom_rank_order_accepted", "coll_loom_rank_order_rejected",
};
#define NPVARS ((int)(sizeof(pvar_names) / sizeof(pvar_names[0])))
#define FIRST_ALG 6
/* The allreduce algorithm counters, from FIRST_ALG on (shm included: on
 * one node a call of COUNT doubles goes through the node segment). */
#define ALLREDUCE_ALGS 7

enum { CALLS, BYTES, TIME_NS, FALLBACKS, HANDOFFS, DISABLED };

static void read_all(unsigned long long *v)
{
    int i;

    for (i = 0; i < NPVARS; ++i) {
        v[i] = loom_test_pvar(pvar_names[i]);
    }
}

/* Every coll_loom_ pvar MPI_T lists is one the test knows, and the reverse. */
static void check_listing(void)
{
    char name[256], desc[1024];
    int num, i, k, name_len, desc_len, verbosity, var_class, bind, readonly, continuous,
        atomic, found[NPVARS] = { 0 }, unknown = 0;
    MPI_Datatype dtype;
    MPI_T_enum enumtype;

    MPI_T_pvar_get_num(&num);
    for (i = 0; i < num; ++i) {
        name_len = sizeof(name);
        desc_len = sizeof(desc);
        if (MPI_T_pvar_get_info(i, name, &name_len, &verbosity, &var_class, &dtype, &enumtype,
                                desc, &desc_len, &bind, &readonly, &continuous,
                                &atomic) != MPI_SUCCESS ||
            strncmp(name, "coll_loom_", 10) != 0) {
            continue;
        }
        /* Bound to a communicator, not counters: mpi_rank_order.c reads them. */
        if (strncmp(name, "coll_loom_comm_", 15) == 0) {
            CHECK(bind == MPI_T_BIND_MPI_COMM, "%s: not bound to a communicator", name);
            continue;
        }
        for (k = 0; k < NPVARS && strcmp(name, pvar_names[k]) != 0; ++k) {
        }
        if (k == NPVARS) {
            ++unknown;
            loom_test_fail(__FILE__, __LINE__, "pvar %s is not in this test's list", name);
            continue;
        }
        found[k] = 1;
        CHECK(var_class == MPI_T_PVAR_CLASS_COUNTER, "%s: class %d, not a counter", name,
              var_class);
        CHECK(dtype == MPI_UNSIGNED_LONG_LONG, "%s: not unsigned long long", name);
        CHECK(desc_len > 20, "%s: description too short (%d)", name, desc_len);
    }
    for (k = 0; k < NPVARS; ++k) {
        CHECK(found[k], "pvar %s is missing", pvar_names[k]);
    }
    (void)unknown;
}

static int set_enable(int value)
{
    MPI_T_cvar_handle handle;
    int index, count, back = -1;

    if (MPI_T_cvar_get_index("coll_loom_enable", &index) != MPI_SUCCESS ||
        MPI_T_cvar_handle_alloc(index, NULL, &handle, &count) != MPI_SUCCESS) {
        loom_test_fail(__FILE__, __LINE__, "no control variable coll_loom_enable");
        return -1;
    }
    CHECK(MPI_T_cvar_write(handle, &value) == MPI_SUCCESS, "cvar_write(%d) failed", value);
    MPI_T_cvar_read(handle, &back);
    CHECK(back == value, "coll_loom_enable reads %d after writing %d", back, value);
    MPI_T_cvar_handle_free(&handle);
    return back;
}

/* calls allreduces of COUNT doubles; checks the sums. */
static void sums(int calls, int rank, int size)
{
    double in[COUNT], out[COUNT];
    int c, i, bad = 0;

    for (c = 0; c < calls; ++c) {
        for (i = 0; i < COUNT; ++i) {
            in[i] = rank + i + c;
        }
        MPI_Allreduce(in, out, COUNT, MPI_DOUBLE, MPI_SUM, MPI_COMM_WORLD);
        for (i = 0; i < COUNT; ++i) {
            bad += out[i] != (double)size * (size - 1) / 2 + (double)size * (i + c);
        }
    }
    CHECK(bad == 0, "%d wrong sums", bad);
}

static void add_ints(void *in, void *inout, int *len, MPI_Datatype *type)
{
    (void)in, (void)inout, (void)len, (void)type;  /* results are not checked here */
}

/* The counters of one phase moved by exactly `expect` (-1: not checked). */
static void check_delta(const unsigned long long *before, const long long *expect,
                        const char *phase)
{
    unsigned long long now[NPVARS];
    int i;

    read_all(now);
    for (i = 0; i < NPVARS; ++i) {
        if (expect[i] >= 0) {
            CHECK(now[i] - before[i] == (unsigned long long)expect[i],
                  "%s: %s moved by %llu, expected %lld", phase, pvar_names[i],
                  now[i] - before[i], expect[i]);
        }
    }
}

int main(int argc, char **argv)
{
    unsigned long long before[NPVARS], after[NPVARS], algs = 0, grew[ALLREDUCE_ALGS], lo[ALLREDUCE_ALGS],
                       hi[ALLREDUCE_ALGS];
    long long expect[NPVARS];
    MPI_Datatype vec;
    MPI_Op noop;
    int rank, size, i, buf[8] = { 0 }, res[8];

    loom_test_init(&argc, &argv, MPI_THREAD_SINGLE);
    MPI_Comm_rank(MPI_COMM_WORLD, &rank);
    MPI_Comm_size(MPI_COMM_WORLD, &size);
    if (size < 2) {
        return loom_test_skip("mpi_mpit", "Loom joins 2 ranks or more");
    }
    check_listing();

    /* Loom runs: calls, bytes, one algorithm per call, time. */
    read_all(before);
    sums(5, rank, size);
    read_all(after);
    for (i = 0; i < NPVARS; ++i) {
        expect[i] = i >= FIRST_ALG || i == TIME_NS ? -1 : 0;
    }
    expect[CALLS] = 5;
    expect[BYTES] = 5LL * COUNT * (long long)sizeof(double);
    check_delta(before, expect, "Loom on");
    CHECK(after[TIME_NS] > before[TIME_NS], "time_ns did not grow");
    for (i = 0; i < ALLREDUCE_ALGS; ++i) {
        grew[i] = after[FIRST_ALG + i] - before[FIRST_ALG + i];
        algs += grew[i];
    }
    CHECK(algs == 5, "the algorithm counters grew by %llu for 5 calls", algs);
    /* Every rank must have run the same algorithms. */
    MPI_Allreduce(grew, lo, ALLREDUCE_ALGS, MPI_UNSIGNED_LONG_LONG, MPI_MIN, MPI_COMM_WORLD);
    MPI_Allreduce(grew, hi, ALLREDUCE_ALGS, MPI_UNSIGNED_LONG_LONG, MPI_MAX, MPI_COMM_WORLD);
    CHECK(memcmp(lo, hi, sizeof(lo)) == 0, "ranks ran different algorithms");

    /* A non-contiguous type goes down, counted as a fallback. */
    MPI_Type_vector(2, 1, 2, MPI_INT, &vec);
    MPI_Type_commit(&vec);
    MPI_Op_create(add_ints, 1, &noop);
    read_all(before);
    MPI_Allreduce(buf, res, 2, vec, noop, MPI_COMM_WORLD);
    memset(expect, 0, sizeof(expect));
    expect[TIME_NS] = -1;
    expect[FALLBACKS] = 1;
    check_delta(before, expect, "non-contiguous");
    MPI_Op_free(&noop);
    MPI_Type_free(&vec);

    /* Off on every rank at the same point: the module below answers. */
    MPI_Barrier(MPI_COMM_WORLD);
    set_enable(0);
    read_all(before);
    sums(3, rank, size);
    memset(expect, 0, sizeof(expect));
    expect[DISABLED] = 3;
    check_delta(before, expect, "Loom off");

    /* And on again. */
    MPI_Barrier(MPI_COMM_WORLD);
    set_enable(1);
    read_all(before);
    sums(2, rank, size);
    memset(expect, 0, sizeof(expect));
    expect[CALLS] = 2;
    expect[BYTES] = 2LL * COUNT * (long long)sizeof(double);
    expect[TIME_NS] = -1;
    for (i = FIRST_ALG; i < NPVARS; ++i) {
        expect[i] = -1;
    }
    check_delta(before, expect, "Loom on again");
    return loom_test_finish("mpi_mpit");
}
