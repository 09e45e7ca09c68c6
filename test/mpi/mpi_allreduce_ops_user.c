/*
 * The user-defined half of mpi_allreduce_ops: user ops, commutative or not,
 * on predefined and derived datatypes, contiguous or not.  Loom must hand
 * a user function the caller's datatype and whole elements of it, reduce
 * non-commutative ops in rank order, and give non-contiguous data to the
 * previous module.
 */
#include "mpi_allreduce_ops.h"

#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

/* --------------------------------------------------------- user-defined */

static const int user_counts[] = { 1, 7, 1001 };
#define NUM_USER_COUNTS 3
#define MAX_USER_COUNT 1001

/* Multiplication mod a prime: commutative, and exact in uint64 since both
 * factors are below 2^20. */
#define MUL_MOD 1000003u

static void mulmod_fn(void *in, void *inout, int *len, MPI_Datatype *type)
{
    const uint64_t *a = in;
    uint64_t *b = inout;
    int k;

    CHECK(*type == MPI_UINT64_T, "mulmod called with another datatype");
    for (k = 0; k < *len; ++k) {
        b[k] = a[k] * b[k] % MUL_MOD;
    }
}

static uint64_t mulmod_input(int rank, int i)
{
    return 1 + mix(input_seed(rank, 300, 0) + (uint64_t)i) % (MUL_MOD - 1);
}

static void check_mulmod_case(MPI_Op op, int count, bool in_place)
{
    uint64_t in[MAX_USER_COUNT], out[MAX_USER_COUNT], want;
    int i, r, rc;

    for (i = 0; i < count; ++i) {
        in[i] = out[i] = mulmod_input(world_rank, i);
    }
    rc = MPI_Allreduce(in_place ? MPI_IN_PLACE : in, out, count, MPI_UINT64_T, op,
                       MPI_COMM_WORLD);
    CHECK(rc == MPI_SUCCESS, "mulmod count %d: MPI_Allreduce returned %d", count, rc);
    for (i = 0; i < count; ++i) {
        for (want = 1, r = 0; r < world_size; ++r) {
            want = want * mulmod_input(r, i) % MUL_MOD;
        }
        CHECK(out[i] == want, "mulmod count %d %s: [%d] = %llu, expected %llu", count,
              in_place ? "in place" : "out of place", i, (unsigned long long)out[i],
              (unsigned long long)want);
    }
}

void check_user_commutative(void)
{
    loom_test_counters_t before = loom_test_counters();
    tally_t tally = { 0, 0 };
    MPI_Op op;
    int c, in_place;

    MPI_Op_create(mulmod_fn, 1, &op);
    for (c = 0; c < NUM_USER_COUNTS; ++c) {
        for (in_place = 0; in_place < 2; ++in_place) {
            check_mulmod_case(op, user_counts[c], in_place);
            tally_call(&tally, MPI_UINT64_T, user_counts[c], true);
        }
    }
    MPI_Op_free(&op);
    CHECK_LOOM_COUNTERS(before, tally.calls, tally.fallbacks, "commutative user op");
}

/* 2x2 matrices mod a prime, row major: their product does not commute, so
 * a result in any order but rank order is caught. */
#define MAT_MOD 1009
/* MPI_Type_contiguous(4, MPI_INT): a matrix here, a polynomial below. */
static MPI_Datatype int4_type;

static void mat_mul(const int *x, const int *y, int *out)
{
    int t[4] = {
        (x[0] * y[0] + x[1] * y[2]) % MAT_MOD, (x[0] * y[1] + x[1] * y[3]) % MAT_MOD,
        (x[2] * y[0] + x[3] * y[2]) % MAT_MOD, (x[2] * y[1] + x[3] * y[3]) % MAT_MOD,
    };

    memcpy(out, t, sizeof(t));
}

/* MPI's user function: inout = in op inout, in from the lower ranks. */
static void matmul_fn(void *in, void *inout, int *len, MPI_Datatype *type)
{
    int k;

    CHECK(*type == int4_type, "matmul called with another datatype");
    for (k = 0; k < *len; ++k) {
        mat_mul((int *)in + 4 * k, (int *)inout + 4 * k, (int *)inout + 4 * k);
    }
}

static int mat_input(int rank, int i, int j, int seed)
{
    return (int)(mix(input_seed(rank, seed, 0) + (uint64_t)(4 * i + j)) % MAT_MOD);
}

static void check_matmul_case(MPI_Op op, int count, bool in_place)
{
    static int in[4 * MAX_USER_COUNT], out[4 * MAX_USER_COUNT];
    int i, j, r, rc, want[4], x[4];

    for (i = 0; i < 4 * count; ++i) {
        in[i] = out[i] = mat_input(world_rank, i / 4, i % 4, 400);
    }
    rc = MPI_Allreduce(in_place ? MPI_IN_PLACE : in, out, count, int4_type, op,
                       MPI_COMM_WORLD);
    CHECK(rc == MPI_SUCCESS, "matmul count %d: MPI_Allreduce returned %d", count, rc);
    for (i = 0; i < count; ++i) {
        memcpy(want, (int[4]){ 1, 0, 0, 1 }, sizeof(want));
        for (r = 0; r < world_size; ++r) {
            for (j = 0; j < 4; ++j) {
                x[j] = mat_input(r, i, j, 400);
            }
            mat_mul(want, x, want);
        }
        CHECK(memcmp(out + 4 * i, want, sizeof(want)) == 0,
              "matmul count %d %s: [%d] = {%d %d %d %d}, expected {%d %d %d %d}", count,
              in_place ? "in place" : "out of place", i, out[4 * i], out[4 * i + 1],
              out[4 * i + 2], out[4 * i + 3], want[0], want[1], want[2], want[3]);
    }
}

/* A non-commutative op: Loom must reduce it in rank order (its selection
 * picks recursive doubling or Rabenseifner, never ring or tree). */
void check_user_noncommutative(void)
{
    loom_test_counters_t before = loom_test_counters();
    tally_t tally = { 0, 0 };
    MPI_Op op;
    int c, in_place;

    MPI_Op_create(matmul_fn, 0, &op);
    for (c = 0; c < NUM_USER_COUNTS; ++c) {
        for (in_place = 0; in_place < 2; ++in_place) {
            check_matmul_case(op, user_counts[c], in_place);
            tally_call(&tally, int4_type, user_counts[c], false);
        }
    }
    MPI_Op_free(&op);
    CHECK_LOOM_COUNTERS(before, tally.calls, tally.fallbacks, "non-commutative user op");
}

/* ---------------------------------------------------- derived datatypes */

/* MPI 3.1 defines the predefined ops on predefined types only (Open MPI
 * returns MPI_ERR_OP for MPI_SUM on a derived type), so derived types go
 * with a user op: the product of polynomials modulo x^n - 1 and a prime,
 * commutative and associative, one polynomial per element.  A reduction
 * that cut an element in two, or called the function with a datatype other
 * than the call's (MPI 3.1, 5.9.5), gets it wrong. */
static MPI_Datatype vec_type;      /* MPI_Type_vector(2, 1, 2, MPI_INT) */
static MPI_Datatype shifted_type;  /* one int, 4 bytes past the address */

typedef struct poly_layout {
    const char      *name;
    MPI_Datatype    *type;
    bool            loom;     /* whether Loom should take it */
    int             n;        /* coefficients per element */
    int             stride;   /* ints from one coefficient to the next */
    int             extent;   /* ints per element; the others are gaps */
    int             offset;   /* ints from the buffer address to element 0 */
} poly_layout_t;

static const poly_layout_t poly_layouts[] = {
    { "contiguous(4, MPI_INT)", &int4_type, true, 4, 1, 4, 0 },
    /* Coefficients at ints 0 and 2 of 3: int 1 is a gap. */
    { "vector(2, 1, 2, MPI_INT)", &vec_type, false, 2, 2, 3, 0 },
    /* Contiguous, but not from the buffer address: int 0 is a gap. */
    { "hindexed_block(1, 1, {4}, MPI_INT)", &shifted_type, false, 1, 1, 1, 1 },
};

#define NUM_POLY_LAYOUTS ((int)(sizeof(poly_layouts) / sizeof(poly_layouts[0])))
#define POLY_MAX_INTS (4 * MAX_USER_COUNT + 1)
#define POLY_GAP (-777)

/* b = a * b modulo x^n - 1 and MAT_MOD. */
static void poly_mul(const int *a, int *b, int n, int stride)
{
    int t[4] = { 0, 0, 0, 0 }, i, j;

    for (i = 0; i < n; ++i) {
        for (j = 0; j < n; ++j) {
            t[(i + j) % n] = (t[(i + j) % n] + a[i * stride] * b[j * stride]) % MAT_MOD;
        }
    }
    for (i = 0; i < n; ++i) {
        b[i * stride] = t[i];
    }
}

static void poly_mul_all(const poly_layout_t *l, const int *in, int *inout, int count)
{
    int k, base;

    for (k = 0; k < count; ++k) {
        base = l->offset + k * l->extent;
        poly_mul(in + base, inout + base, l->n, l->stride);
    }
}

static void poly_fn(void *in, void *inout, int *len, MPI_Datatype *type)
{
    const poly_layout_t *l = NULL;
    int i;

    for (i = 0; i < NUM_POLY_LAYOUTS; ++i) {
        l = *type == *poly_layouts[i].type ? &poly_layouts[i] : l;
    }
    CHECK(l != NULL, "polynomial op called with a datatype other than the call's");
    if (l != NULL) {
        poly_mul_all(l, in, inout, *len);
    }
}

static bool poly_gap(const poly_layout_t *l, int p)
{
    return p < l->offset || (p - l->offset) % l->extent % l->stride != 0;
}

/* Int p of rank's buffer: a coefficient, or a gap. */
static int poly_input(const poly_layout_t *l, int rank, int p)
{
    if (poly_gap(l, p)) {
        return POLY_GAP;
    }
    return (int)(mix(input_seed(rank, 500, 0) + (uint64_t)p) % MAT_MOD);
}

/* The product of all ranks' polynomials, from the unit polynomial, with
 * the gaps untouched. */
static void poly_expected(const poly_layout_t *l, int count, int *want)
{
    static int x[POLY_MAX_INTS];
    int ints = l->offset + count * l->extent, p, r;

    for (p = 0; p < ints; ++p) {
        want[p] = poly_gap(l, p) ? POLY_GAP : (p - l->offset) % l->extent == 0;
    }
    for (r = 0; r < world_size; ++r) {
        for (p = 0; p < ints; ++p) {
            x[p] = poly_input(l, r, p);
        }
        poly_mul_all(l, x, want, count);
    }
}

static void check_poly_case(const poly_layout_t *l, MPI_Op op, int count, bool in_place)
{
    static int in[POLY_MAX_INTS], out[POLY_MAX_INTS], want[POLY_MAX_INTS];
    int ints = l->offset + count * l->extent, p, rc, bad = 0, first = -1;

    for (p = 0; p < ints; ++p) {
        in[p] = poly_input(l, world_rank, p);
        out[p] = in_place ? in[p] : POLY_GAP;
    }
    rc = MPI_Allreduce(in_place ? MPI_IN_PLACE : in, out, count, *l->type, op,
                       MPI_COMM_WORLD);
    CHECK(rc == MPI_SUCCESS, "%s count %d: MPI_Allreduce returned %d", l->name, count, rc);
    poly_expected(l, count, want);
    for (p = 0; p < ints; ++p) {
        if (out[p] != want[p]) {
            first = first < 0 ? p : first;
            ++bad;
        }
    }
    CHECK(bad == 0, "%s count %d %s: %d ints wrong, first [%d] = %d, expected %d", l->name,
          count, in_place ? "in place" : "out of place", bad, first,
          out[first < 0 ? 0 : first], want[first < 0 ? 0 : first]);
}

static void check_poly_layout(const poly_layout_t *l, MPI_Op op)
{
    loom_test_counters_t before = loom_test_counters();
    tally_t tally = { 0, 0 };
    int c, in_place;

    for (c = 0; c < NUM_USER_COUNTS; ++c) {
        for (in_place = 0; in_place < 2; ++in_place) {
            check_poly_case(l, op, user_counts[c], in_place);
            tally_call(&tally, *l->type, user_counts[c], true);
        }
    }
    CHECK(loom_takes(*l->type, 2) == l->loom, "%s: the test's idea of what Loom takes "
          "is wrong", l->name);
    CHECK_LOOM_COUNTERS(before, tally.calls, tally.fallbacks, l->name);
}

void check_derived(void)
{
    MPI_Aint shift = sizeof(int);
    MPI_Op op;
    int li;

    MPI_Type_vector(2, 1, 2, MPI_INT, &vec_type);
    MPI_Type_commit(&vec_type);
    MPI_Type_create_hindexed_block(1, 1, &shift, MPI_INT, &shifted_type);
    MPI_Type_commit(&shifted_type);
    MPI_Op_create(poly_fn, 1, &op);
    for (li = 0; li < NUM_POLY_LAYOUTS; ++li) {
        check_poly_layout(&poly_layouts[li], op);
    }
    MPI_Op_free(&op);
    MPI_Type_free(&shifted_type);
    MPI_Type_free(&vec_type);
}

void check_user_setup(void)
{
    MPI_Type_contiguous(4, MPI_INT, &int4_type);
    MPI_Type_commit(&int4_type);
}

void check_user_teardown(void)
{
    MPI_Type_free(&int4_type);
}
