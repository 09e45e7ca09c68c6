/*
 * Differential stress test: thousands of random collectives -- allreduce,
 * allgather, reduce_scatter_block, bcast and reduce (random roots),
 * blocking and nonblocking, with up to
 * six nonblocking ones in flight while blocking ones run (random
 * communicator splits, sizes up to 4 MiB, ops, types, in place or not) --
 * run through Loom and through Open MPI's own modules on a twin
 * communicator that refuses Loom, compared bitwise.  Inputs are small
 * integers (powers of two for products), so every reduction order gives
 * the same bits and any difference is a bug.  Loom's counters must show
 * that Loom ran every call it should have.
 *
 * usage: mpi_diff [iterations] [seed]
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

/* The collectives exercised; odd kinds are the nonblocking forms. */
enum { ALLREDUCE, IALLREDUCE, ALLGATHER, IALLGATHER, RSB, IRSB, BCAST, IBCAST, REDUCE,
       IREDUCE, NKINDS };
static const char *const diff_kind_names[NKINDS] = {
    "allreduce", "iallreduce", "allgather", "iallgather", "reduce_scatter_block",
    "ireduce_scatter_block", "bcast", "ibcast", "reduce", "ireduce",
};

/* One call, run on Loom's communicator and on the twin that refuses Loom. */
typedef struct diff_call {
    int             it, kind, ti, oi, in_place, sub_size, sub_rank, root;
    size_t          count;          /* elements: the vector, or one rank's block */
    size_t          out_bytes;      /* what is compared */
    char            *in, *out_loom, *out_ref;
    MPI_Request     req[2];
} diff_call_t;

#define WINDOW 6   /* nonblocking calls in flight at most */

/* Open MPI's counters count from the moment a handle is allocated, so the
 * handles stay open for the whole run; Loom's calls are the sum over the
 * collectives it runs. */
static const char *const diff_counter_names[] = {
    "coll_loom_allreduce_calls", "coll_loom_allgather_calls", "coll_loom_reduce_scatter_calls",
    "coll_loom_bcast_calls", "coll_loom_reduce_calls",
};
#define NCOUNTERS (int)(sizeof(diff_counter_names) / sizeof(diff_counter_names[0]))
static MPI_T_pvar_session diff_session = MPI_T_PVAR_SESSION_NULL;
static MPI_T_pvar_handle diff_handles[NCOUNTERS];
static int diff_found;

static void diff_open_counters(void)
{
    int i, k, n, verbosity, bind, readonly, continuous, atomic, count;
    int name_len, desc_len, var_class;
    char name[256], desc[256];
    MPI_Datatype dtype;
    MPI_T_enum enumtype;

    MPI_T_pvar_session_create(&diff_session);
    MPI_T_pvar_get_num(&n);
    for (i = 0; i < n; ++i) {
        name_len = sizeof(name);
        desc_len = sizeof(desc);
        if (MPI_T_pvar_get_info(i, name, &name_len, &verbosity, &var_class, &dtype,
                                &enumtype, desc, &desc_len, &bind, &readonly,
                                &continuous, &atomic) != MPI_SUCCESS) {
            continue;
        }
        for (k = 0; k < NCOUNTERS; ++k) {
            if (strcmp(name, diff_counter_names[k]) == 0 &&
                MPI_T_pvar_handle_alloc(diff_session, i, NULL, &diff_handles[k], &count) ==
                    MPI_SUCCESS) {
                ++diff_found;
            }
        }
    }
}

/* Calls Loom ran since diff_open_counters. */
static unsigned long long diff_loom_calls(void)
{
    unsigned long long value, total = 0;
    int k;

    for (k = 0; diff_found == NCOUNTERS && k < NCOUNTERS; ++k) {
        value = 0;
        MPI_T_pvar_read(diff_session, diff_handles[k], &value);
        total += value;
    }
    return total;
}

static void diff_close_counters(void)
{
    int k;

    for (k = 0; diff_found == NCOUNTERS && k < NCOUNTERS; ++k) {
        MPI_T_pvar_handle_free(diff_session, &diff_handles[k]);
    }
    MPI_T_pvar_session_free(&diff_session);
}

/* Draw a call (the same numbers on every rank), fill its buffers, start it
 * on both communicators; blocking kinds are complete on return. */
static void diff_start(diff_call_t *c, uint64_t *state, int it, int world_size,
                       MPI_Comm loom_comm, MPI_Comm ref_comm)
{
    const diff_type_t *t;
    size_t elem, in_elems, out_elems;
    MPI_Op op;
    int tsize, block_form;

    memset(c, 0, sizeof(*c));
    c->it = it;
    c->kind = (int)(diff_next(state) % NKINDS);
    c->ti = (int)(diff_next(state) % NTYPES);
    c->oi = (int)(diff_next(state) % NOPS);
    if (diff_types[c->ti].is_float && !diff_ops[c->oi].on_float) {
        c->oi = (int)(diff_next(state) % 4);
    }
    c->in_place = (int)(diff_next(state) % 2);
    MPI_Comm_rank(loom_comm, &c->sub_rank);
    MPI_Comm_size(loom_comm, &c->sub_size);
    t = &diff_types[c->ti];
    op = diff_ops[c->oi].op;
    MPI_Type_size(t->type, &tsize);
    elem = (size_t)tsize;
    c->count = diff_count(state, elem, world_size);
    block_form = c->kind >= ALLGATHER && c->kind <= IRSB;
    c->root = (int)(diff_next(state) % (uint64_t)world_size) % c->sub_size;
    if (block_form) {
        /* Per-rank blocks: keep the whole buffer near the drawn size, and
         * at least one element (a zero count may never reach a module). */
        c->count = c->count / (size_t)world_size + 1;
    }
    in_elems = c->kind == RSB || c->kind == IRSB ? c->count * (size_t)c->sub_size : c->count;
    out_elems = c->kind == ALLGATHER || c->kind == IALLGATHER ? c->count * (size_t)c->sub_size
                                                               : in_elems;
    c->in = malloc(in_elems * elem + 1);
    c->out_loom = malloc(out_elems * elem + 1);
    c->out_ref = malloc(out_elems * elem + 1);
    c->out_bytes = (c->kind == RSB || c->kind == IRSB ? c->count : out_elems) * elem;
    if ((c->kind == REDUCE || c->kind == IREDUCE) && c->sub_rank != c->root) {
        c->out_bytes = 0;   /* only the root's result exists */
    }
    memset(c->out_loom, 0x5a, out_elems * elem + 1);
    memset(c->out_ref, 0x5a, out_elems * elem + 1);
    diff_fill(t, op, c->in, in_elems, c->sub_rank, (unsigned)it);
    if (c->kind == BCAST || c->kind == IBCAST) {
        c->in_place = 0;
        if (c->sub_rank == c->root) {   /* the root's data, poison elsewhere */
            memcpy(c->out_loom, c->in, in_elems * elem);
            memcpy(c->out_ref, c->in, in_elems * elem);
        }
    } else if ((c->kind == REDUCE || c->kind == IREDUCE) && c->sub_rank != c->root) {
        c->in_place = 0;                /* MPI_IN_PLACE is for the root only */
    }
    if (c->in_place) {
        if (c->kind == ALLGATHER || c->kind == IALLGATHER) {
            memcpy(c->out_loom + (size_t)c->sub_rank * c->count * elem, c->in, c->count * elem);
            memcpy(c->out_ref + (size_t)c->sub_rank * c->count * elem, c->in, c->count * elem);
        } else {
            memcpy(c->out_loom, c->in, in_elems * elem);
            memcpy(c->out_ref, c->in, in_elems * elem);
        }
    }
    c->req[0] = c->req[1] = MPI_REQUEST_NULL;
    switch (c->kind) {
    case ALLREDUCE:
        MPI_Allreduce(c->in_place ? MPI_IN_PLACE : c->in, c->out_loom, (int)c->count, t->type,
                      op, loom_comm);
        MPI_Allreduce(c->in_place ? MPI_IN_PLACE : c->in, c->out_ref, (int)c->count, t->type,
                      op, ref_comm);
        break;
    case IALLREDUCE:
        MPI_Iallreduce(c->in_place ? MPI_IN_PLACE : c->in, c->out_loom, (int)c->count, t->type,
                       op, loom_comm, &c->req[0]);
        MPI_Iallreduce(c->in_place ? MPI_IN_PLACE : c->in, c->out_ref, (int)c->count, t->type,
                       op, ref_comm, &c->req[1]);
        break;
    case ALLGATHER:
        MPI_Allgather(c->in_place ? MPI_IN_PLACE : c->in, (int)c->count, t->type, c->out_loom,
                      (int)c->count, t->type, loom_comm);
        MPI_Allgather(c->in_place ? MPI_IN_PLACE : c->in, (int)c->count, t->type, c->out_ref,
                      (int)c->count, t->type, ref_comm);
        break;
    case IALLGATHER:
        MPI_Iallgather(c->in_place ? MPI_IN_PLACE : c->in, (int)c->count, t->type, c->out_loom,
                       (int)c->count, t->type, loom_comm, &c->req[0]);
        MPI_Iallgather(c->in_place ? MPI_IN_PLACE : c->in, (int)c->count, t->type, c->out_ref,
                       (int)c->count, t->type, ref_comm, &c->req[1]);
        break;
    case RSB:
        MPI_Reduce_scatter_block(c->in_place ? MPI_IN_PLACE : c->in, c->out_loom, (int)c->count,
                                 t->type, op, loom_comm);
        MPI_Reduce_scatter_block(c->in_place ? MPI_IN_PLACE : c->in, c->out_ref, (int)c->count,
                                 t->type, op, ref_comm);
        break;
    case IRSB:
        MPI_Ireduce_scatter_block(c->in_place ? MPI_IN_PLACE : c->in, c->out_loom,
                                  (int)c->count, t->type, op, loom_comm, &c->req[0]);
        MPI_Ireduce_scatter_block(c->in_place ? MPI_IN_PLACE : c->in, c->out_ref,
                                  (int)c->count, t->type, op, ref_comm, &c->req[1]);
        break;
    case BCAST:
        MPI_Bcast(c->out_loom, (int)c->count, t->type, c->root, loom_comm);
        MPI_Bcast(c->out_ref, (int)c->count, t->type, c->root, ref_comm);
        break;
    case IBCAST:
        MPI_Ibcast(c->out_loom, (int)c->count, t->type, c->root, loom_comm, &c->req[0]);
        MPI_Ibcast(c->out_ref, (int)c->count, t->type, c->root, ref_comm, &c->req[1]);
        break;
    case REDUCE:
        MPI_Reduce(c->in_place ? MPI_IN_PLACE : c->in, c->out_loom, (int)c->count, t->type, op,
                   c->root, loom_comm);
        MPI_Reduce(c->in_place ? MPI_IN_PLACE : c->in, c->out_ref, (int)c->count, t->type, op,
                   c->root, ref_comm);
        break;
    default:
        MPI_Ireduce(c->in_place ? MPI_IN_PLACE : c->in, c->out_loom, (int)c->count, t->type,
                    op, c->root, loom_comm, &c->req[0]);
        MPI_Ireduce(c->in_place ? MPI_IN_PLACE : c->in, c->out_ref, (int)c->count, t->type,
                    op, c->root, ref_comm, &c->req[1]);
        break;
    }
}

/* Compare a completed call and free it; returns 1 on a mismatch. */
static int diff_finish(diff_call_t *c, int rank)
{
    int bad = memcmp(c->out_loom, c->out_ref, c->out_bytes) != 0;

    if (bad) {
        fprintf(stderr, "rank %d: iteration %d: %s %s %s count %zu in_place %d on %d ranks "
                "differs from Open MPI\n", rank, c->it, diff_kind_names[c->kind],
                diff_types[c->ti].name, diff_ops[c->oi].name, c->count, c->in_place,
                c->sub_size);
    }
    free(c->in);
    free(c->out_loom);
    free(c->out_ref);
    return bad;
}

int main(int argc, char **argv)
{
    int iters = argc > 1 ? atoi(argv[1]) : 2000, provided, rank, size;
    uint64_t state = argc > 2 ? strtoull(argv[2], NULL, 0) : 0x1234567ull;
    unsigned long long expected_loom = 0, counted;
    long mismatches = 0, total_mismatches;
    MPI_Comm loom_comm = MPI_COMM_NULL, ref_comm = MPI_COMM_NULL;
    diff_call_t window[WINDOW], blocking;
    MPI_Request reqs[2 * WINDOW];
    int it, k, color, expect_loom, inflight = 0;
    MPI_Info refuse;

    MPI_Init(&argc, &argv);
    MPI_T_init_thread(MPI_THREAD_SINGLE, &provided);
    MPI_Comm_rank(MPI_COMM_WORLD, &rank);
    MPI_Comm_size(MPI_COMM_WORLD, &size);
    MPI_Info_create(&refuse);
    MPI_Info_set(refuse, "ompi_comm_coll_preference", "^loom");
    diff_open_counters();
    expect_loom = getenv("LOOM_TEST_EXPECT_LOOM") == NULL ||
                  atoi(getenv("LOOM_TEST_EXPECT_LOOM")) != 0;

    for (it = 0; it <= iters; ++it) {
        /* Drain the nonblocking window now and then, before a new split,
         * and at the end; then Loom's counters must match exactly. */
        if (inflight > 0 && (it % 100 == 0 || it == iters || diff_next(&state) % 4 == 0)) {
            for (k = 0; k < inflight; ++k) {
                reqs[2 * k] = window[k].req[0];
                reqs[2 * k + 1] = window[k].req[1];
            }
            MPI_Waitall(2 * inflight, reqs, MPI_STATUSES_IGNORE);
            for (k = 0; k < inflight; ++k) {
                mismatches += diff_finish(&window[k], rank);
            }
            inflight = 0;
        }
        if (inflight == 0 && expect_loom && diff_loom_calls() != expected_loom) {
            if (mismatches < 10) {
                fprintf(stderr, "rank %d: before iteration %d: Loom ran %llu calls, expected "
                        "%llu\n", rank, it, diff_loom_calls(), expected_loom);
            }
            ++mismatches;
            expected_loom = diff_loom_calls();
        }
        if (it == iters) {
            break;
        }
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
            counted = diff_loom_calls();   /* creating a communicator runs collectives */
            expected_loom = counted;
        }
        if (inflight < WINDOW) {
            diff_call_t *c = &window[inflight];

            diff_start(c, &state, it, size, loom_comm, ref_comm);
            /* Open MPI returns before any module for an allreduce of 0. */
            expected_loom += c->sub_size > 1 && c->count > 0;
            if (c->kind % 2 == 1) {
                ++inflight;
            } else {
                mismatches += diff_finish(c, rank);
            }
        } else {
            diff_start(&blocking, &state, it, size, loom_comm, ref_comm);
            expected_loom += blocking.sub_size > 1 && blocking.count > 0;
            if (blocking.kind % 2 == 1) {
                MPI_Wait(&blocking.req[0], MPI_STATUS_IGNORE);
                MPI_Wait(&blocking.req[1], MPI_STATUS_IGNORE);
            }
            mismatches += diff_finish(&blocking, rank);
        }
    }
    MPI_Comm_free(&loom_comm);
    MPI_Comm_free(&ref_comm);
    MPI_Info_free(&refuse);

    if (expect_loom && diff_found != NCOUNTERS) {
        fprintf(stderr, "rank %d: Loom's counters are missing: is Loom loaded?\n", rank);
        ++mismatches;
    }
    MPI_Reduce(&mismatches, &total_mismatches, 1, MPI_LONG, MPI_SUM, 0, MPI_COMM_WORLD);
    MPI_Bcast(&total_mismatches, 1, MPI_LONG, 0, MPI_COMM_WORLD);
    if (rank == 0) {
        printf("%s mpi_diff np=%d: %d collectives, %ld mismatches\n",
               total_mismatches ? "FAIL" : "PASS", size, iters, total_mismatches);
    }
    diff_close_counters();
    MPI_T_finalize();
    MPI_Finalize();
    return total_mismatches ? 1 : 0;
}
