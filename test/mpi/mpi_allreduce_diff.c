/*
 * Differential stress test: thousands of random allreduces (random
 * communicator splits, sizes up to 4 MiB, ops, types, in place or not)
 * run through Loom and through Open MPI's own modules on a twin
 * communicator that refuses Loom, compared bitwise.  Inputs are small
 * integers (powers of two for products), so every reduction order gives
 * the same bits and any difference is a bug.
 *
 * usage: mpi_allreduce_diff [iterations] [seed]
 */
#include <mpi.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

typedef struct diff_type {
    MPI_Datatype    type;
    const char      *name;
    int             is_float;  /* floating: no bitwise or logical ops */
    int             is_signed;
} diff_type_t;

typedef struct diff_op {
    MPI_Op          op;
    const char      *name;
    int             on_float;
} diff_op_t;

static const diff_type_t diff_types[] = {
    { MPI_INT8_T, "int8", 0, 1 },     { MPI_UINT8_T, "uint8", 0, 0 },
    { MPI_INT16_T, "int16", 0, 1 },   { MPI_UINT16_T, "uint16", 0, 0 },
    { MPI_INT32_T, "int32", 0, 1 },   { MPI_UINT32_T, "uint32", 0, 0 },
    { MPI_INT64_T, "int64", 0, 1 },   { MPI_UINT64_T, "uint64", 0, 0 },
    { MPI_FLOAT, "float", 1, 1 },     { MPI_DOUBLE, "double", 1, 1 },
};

static const diff_op_t diff_ops[] = {
    { MPI_SUM, "sum", 1 },   { MPI_PROD, "prod", 1 }, { MPI_MIN, "min", 1 },
    { MPI_MAX, "max", 1 },   { MPI_LAND, "land", 0 }, { MPI_LOR, "lor", 0 },
    { MPI_LXOR, "lxor", 0 }, { MPI_BAND, "band", 0 }, { MPI_BOR, "bor", 0 },
    { MPI_BXOR, "bxor", 0 },
};

#define NTYPES (int)(sizeof(diff_types) / sizeof(diff_types[0]))
#define NOPS   (int)(sizeof(diff_ops) / sizeof(diff_ops[0]))

/* A small deterministic generator, the same sequence on every rank. */
static uint64_t diff_next(uint64_t *state)
{
    *state ^= *state << 13;
    *state ^= *state >> 7;
    *state ^= *state << 17;
    return *state;
}

/* Element i of this rank's input: small values, powers of two for PROD so
 * that products stay exact and within range at up to 8 ranks. */
static void diff_fill(const diff_type_t *t, MPI_Op op, void *buf, size_t count, int rank,
                      unsigned salt)
{
    size_t i;
    long v;

    for (i = 0; i < count; ++i) {
        uint64_t h = (i + 1) * 0x9E3779B97F4A7C15ull ^ ((uint64_t)(rank + 1) << 32) ^ salt;
        h ^= h >> 29;
        if (op == MPI_PROD) {
            v = (h % 3 == 0) ? 2 : (h % 3 == 1) ? 1 : (t->is_signed ? -1 : 1);
        } else {
            v = (long)(h % 7) - (t->is_signed ? 3 : 0);
        }
        if (t->type == MPI_INT8_T) ((int8_t *)buf)[i] = (int8_t)v;
        else if (t->type == MPI_UINT8_T) ((uint8_t *)buf)[i] = (uint8_t)v;
        else if (t->type == MPI_INT16_T) ((int16_t *)buf)[i] = (int16_t)v;
        else if (t->type == MPI_UINT16_T) ((uint16_t *)buf)[i] = (uint16_t)v;
        else if (t->type == MPI_INT32_T) ((int32_t *)buf)[i] = (int32_t)v;
        else if (t->type == MPI_UINT32_T) ((uint32_t *)buf)[i] = (uint32_t)v;
        else if (t->type == MPI_INT64_T) ((int64_t *)buf)[i] = (int64_t)v;
        else if (t->type == MPI_UINT64_T) ((uint64_t *)buf)[i] = (uint64_t)v;
        else if (t->type == MPI_FLOAT) ((float *)buf)[i] = (float)v;
        else ((double *)buf)[i] = (double)v;
    }
}

static size_t diff_count(uint64_t *state, size_t elem, int comm_size)
{
    uint64_t pick = diff_next(state) % 100;
    size_t max_bytes = pick < 55 ? 1024 : pick < 90 ? (64 << 10) : (4 << 20);
    size_t count = (size_t)(diff_next(state) % (max_bytes / elem + 1));

    if (pick < 5) {
        count = (size_t)(diff_next(state) % (size_t)(comm_size + 1)); /* 0..p */
    }
    return count;
}

/* Open MPI's counters count from the moment a handle is allocated, so one
 * handle is kept open for the whole run. */
static MPI_T_pvar_session diff_session = MPI_T_PVAR_SESSION_NULL;
static MPI_T_pvar_handle diff_handle = MPI_T_PVAR_HANDLE_NULL;

static void diff_open_counter(void)
{
    int i, n, verbosity, bind, readonly, continuous, atomic, count;
    int name_len, desc_len, var_class;
    char name[256], desc[256];
    MPI_Datatype dtype;
    MPI_T_enum enumtype;

    MPI_T_pvar_get_num(&n);
    for (i = 0; i < n; ++i) {
        name_len = sizeof(name);
        desc_len = sizeof(desc);
        if (MPI_T_pvar_get_info(i, name, &name_len, &verbosity, &var_class, &dtype,
                                &enumtype, desc, &desc_len, &bind, &readonly,
                                &continuous, &atomic) == MPI_SUCCESS &&
            strcmp(name, "coll_loom_allreduce_calls") == 0) {
            MPI_T_pvar_session_create(&diff_session);
            MPI_T_pvar_handle_alloc(diff_session, i, NULL, &diff_handle, &count);
            return;
        }
    }
}

/* Calls Loom ran since diff_open_counter, or -1 without Loom. */
static unsigned long long diff_loom_calls(void)
{
    unsigned long long value = 0;

    if (diff_handle == MPI_T_PVAR_HANDLE_NULL) {
        return (unsigned long long)-1;
    }
    MPI_T_pvar_read(diff_session, diff_handle, &value);
    return value;
}

static void diff_close_counter(void)
{
    if (diff_handle != MPI_T_PVAR_HANDLE_NULL) {
        MPI_T_pvar_handle_free(diff_session, &diff_handle);
        MPI_T_pvar_session_free(&diff_session);
    }
}

int main(int argc, char **argv)
{
    int iters = argc > 1 ? atoi(argv[1]) : 2000, provided, rank, size, sub_rank, sub_size;
    uint64_t state = argc > 2 ? strtoull(argv[2], NULL, 0) : 0x1234567ull;
    unsigned long long calls_before, calls_after, expected_loom = 0;
    long mismatches = 0, total_mismatches;
    MPI_Comm loom_comm = MPI_COMM_NULL, ref_comm = MPI_COMM_NULL;
    size_t max_bytes = (4 << 20) + 64, count, elem;
    char *in, *out_loom, *out_ref;
    MPI_Info refuse;
    int it, ti, oi, in_place, color, tsize, expect_loom;

    MPI_Init(&argc, &argv);
    MPI_T_init_thread(MPI_THREAD_SINGLE, &provided);
    MPI_Comm_rank(MPI_COMM_WORLD, &rank);
    MPI_Comm_size(MPI_COMM_WORLD, &size);
    in = malloc(max_bytes);
    out_loom = malloc(max_bytes);
    out_ref = malloc(max_bytes);
    MPI_Info_create(&refuse);
    MPI_Info_set(refuse, "ompi_comm_coll_preference", "^loom");
    diff_open_counter();
    expect_loom = getenv("LOOM_TEST_EXPECT_LOOM") == NULL ||
                  atoi(getenv("LOOM_TEST_EXPECT_LOOM")) != 0;

    for (it = 0; it < iters; ++it) {
        /* A fresh random split every 100 calls (same choice on every rank). */
        if (it % 100 == 0) {
            if (loom_comm != MPI_COMM_NULL) {
                MPI_Comm_free(&loom_comm);
                MPI_Comm_free(&ref_comm);
            }
            color = (int)((diff_next(&state) >> 8) % 3);
            color = color == 0 ? 0 : (int)((unsigned)rank * 2654435761u >> (color * 3)) % 2;
            MPI_Comm_split(MPI_COMM_WORLD, color, (int)(diff_next(&state) % 5) - rank, &loom_comm);
            MPI_Comm_dup_with_info(loom_comm, refuse, &ref_comm);
        }
        MPI_Comm_rank(loom_comm, &sub_rank);
        MPI_Comm_size(loom_comm, &sub_size);
        /* Every rank draws the same numbers: the sequence is shared, and
         * the per-communicator size only shapes counts the same way on
         * every member (sizes differ across split halves, so draw with a
         * world-wide sequence and a size-independent count). */
        ti = (int)(diff_next(&state) % NTYPES);
        oi = (int)(diff_next(&state) % NOPS);
        if (diff_types[ti].is_float && !diff_ops[oi].on_float) {
            oi = (int)(diff_next(&state) % 4);
        }
        in_place = (int)(diff_next(&state) % 2);
        MPI_Type_size(diff_types[ti].type, &tsize);
        elem = (size_t)tsize;
        count = diff_count(&state, elem, size);

        diff_fill(&diff_types[ti], diff_ops[oi].op, in, count, rank, (unsigned)it);
        if (in_place) {
            memcpy(out_loom, in, count * elem);
            memcpy(out_ref, in, count * elem);
        }
        calls_before = diff_loom_calls();
        MPI_Allreduce(in_place ? MPI_IN_PLACE : in, out_loom, (int)count,
                      diff_types[ti].type, diff_ops[oi].op, loom_comm);
        calls_after = diff_loom_calls();
        MPI_Allreduce(in_place ? MPI_IN_PLACE : in, out_ref, (int)count,
                      diff_types[ti].type, diff_ops[oi].op, ref_comm);
        /* Loom runs every call on two or more ranks (Open MPI itself
         * returns before any module for count 0), and none on the twin. */
        expected_loom = (sub_size > 1 && count > 0) ? 1 : 0;
        if (expect_loom && (calls_after - calls_before != expected_loom ||
                            diff_loom_calls() != calls_after)) {
            if (mismatches < 10) {
                fprintf(stderr, "rank %d: iteration %d: Loom ran %llu calls, expected %llu\n",
                        rank, it, calls_after - calls_before, expected_loom);
            }
            ++mismatches;
        }
        if (memcmp(out_loom, out_ref, count * elem) != 0) {
            if (mismatches < 10) {
                fprintf(stderr, "rank %d: iteration %d: %s %s count %zu in_place %d on %d "
                        "ranks differs from Open MPI\n", rank, it, diff_types[ti].name,
                        diff_ops[oi].name, count, in_place, sub_size);
            }
            ++mismatches;
        }
    }
    MPI_Comm_free(&loom_comm);
    MPI_Comm_free(&ref_comm);
    MPI_Info_free(&refuse);

    if (expect_loom && diff_handle == MPI_T_PVAR_HANDLE_NULL) {
        fprintf(stderr, "rank %d: Loom's counters are missing: is Loom loaded?\n", rank);
        ++mismatches;
    }
    MPI_Reduce(&mismatches, &total_mismatches, 1, MPI_LONG, MPI_SUM, 0, MPI_COMM_WORLD);
    MPI_Bcast(&total_mismatches, 1, MPI_LONG, 0, MPI_COMM_WORLD);
    if (rank == 0) {
        printf("%s mpi_allreduce_diff np=%d: %d allreduces, %ld mismatches\n",
               total_mismatches ? "FAIL" : "PASS", size, iters, total_mismatches);
    }
    free(in);
    free(out_loom);
    free(out_ref);
    diff_close_counter();
    MPI_T_finalize();
    MPI_Finalize();
    return total_mismatches ? 1 : 0;
}
