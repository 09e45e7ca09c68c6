/*
 * Every predefined op on every predefined C type MPI 3.1 (5.9.2) defines it
 * for, at counts around the ring's block boundaries, in place and not;
 * MIN/MAX with NaN and signed zeros.  User-defined ops and derived
 * datatypes are in mpi_allreduce_ops_user.c.  All on MPI_COMM_WORLD.
 *
 * Each rank generates every rank's input from (rank, index, type, op), so
 * it computes the reference alone: all inputs folded in rank order with
 * MPI_Reduce_local.  Inputs are small integers, so any order of reduction
 * gives the same exact result and results compare bitwise.
 */
#include "mpi_allreduce_ops.h"

#include <math.h>
#include <stdbool.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

int world_rank, world_size;

/* ------------------------------------------------------------ the types */

typedef enum kind {
    K_SINT, K_UINT, K_MULTI, K_REAL, K_COMPLEX, K_BOOL, K_BYTE, K_PAIR
} kind_t;

#define KIND(k) (1u << (k))

#define PAIR(T) struct { T v; int i; }

/* C storage of each type: name, element type. */
#define SCALARS(X)                                                               \
    X(S_SCHAR, signed char) X(S_UCHAR, unsigned char) X(S_SHORT, short)          \
    X(S_USHORT, unsigned short) X(S_INT, int) X(S_UINT, unsigned)                \
    X(S_LONG, long) X(S_ULONG, unsigned long) X(S_LLONG, long long)              \
    X(S_ULLONG, unsigned long long) X(S_I8, int8_t) X(S_I16, int16_t)            \
    X(S_I32, int32_t) X(S_I64, int64_t) X(S_U8, uint8_t) X(S_U16, uint16_t)      \
    X(S_U32, uint32_t) X(S_U64, uint64_t) X(S_AINT, MPI_Aint)                    \
    X(S_OFFSET, MPI_Offset) X(S_COUNT, MPI_Count) X(S_FLOAT, float)              \
    X(S_DOUBLE, double) X(S_LDOUBLE, long double) X(S_BOOL, _Bool)               \
    X(S_BYTE, unsigned char)
/* Complex: an array of two reals (C11 6.2.5p13). */
#define COMPLEXES(X) X(S_CFLOAT, float) X(S_CDOUBLE, double) X(S_CLDOUBLE, long double)
#define PAIRS(X)                                                                 \
    X(S_FLOAT_INT, float) X(S_DOUBLE_INT, double) X(S_LONG_INT, long)            \
    X(S_2INT, int) X(S_SHORT_INT, short) X(S_LDOUBLE_INT, long double)

typedef enum storage {
#define STORAGE_ENUM(S, T) S,
    SCALARS(STORAGE_ENUM) COMPLEXES(STORAGE_ENUM) PAIRS(STORAGE_ENUM)
#undef STORAGE_ENUM
} storage_t;

typedef struct type_desc {
    const char      *name;
    MPI_Datatype    type;
    kind_t          kind;
    storage_t       st;
    MPI_Op          large_op;   /* also run at a large count with this op */
} type_desc_t;

#define TYPE(t, k, s) { #t, t, k, s, MPI_OP_NULL }
/* Large counts cost every rank all ranks' inputs to compute the reference:
 * one type per kind and element size, each with another op. */
#define TYPE_LARGE(t, k, s, op) { #t, t, k, s, op }

static const type_desc_t types[] = {
    TYPE_LARGE(MPI_SIGNED_CHAR, K_SINT, S_SCHAR, MPI_SUM),
    TYPE(MPI_UNSIGNED_CHAR, K_UINT, S_UCHAR),
    TYPE(MPI_SHORT, K_SINT, S_SHORT),
    TYPE_LARGE(MPI_UNSIGNED_SHORT, K_UINT, S_USHORT, MPI_MAX),
    TYPE_LARGE(MPI_INT, K_SINT, S_INT, MPI_SUM), TYPE(MPI_UNSIGNED, K_UINT, S_UINT),
    TYPE(MPI_LONG, K_SINT, S_LONG),
    TYPE_LARGE(MPI_UNSIGNED_LONG, K_UINT, S_ULONG, MPI_BXOR),
    TYPE(MPI_LONG_LONG, K_SINT, S_LLONG),
    TYPE(MPI_UNSIGNED_LONG_LONG, K_UINT, S_ULLONG),
    TYPE(MPI_INT8_T, K_SINT, S_I8), TYPE(MPI_INT16_T, K_SINT, S_I16),
    TYPE(MPI_INT32_T, K_SINT, S_I32), TYPE(MPI_INT64_T, K_SINT, S_I64),
    TYPE(MPI_UINT8_T, K_UINT, S_U8), TYPE(MPI_UINT16_T, K_UINT, S_U16),
    TYPE(MPI_UINT32_T, K_UINT, S_U32), TYPE(MPI_UINT64_T, K_UINT, S_U64),
    TYPE(MPI_AINT, K_MULTI, S_AINT), TYPE(MPI_OFFSET, K_MULTI, S_OFFSET),
    TYPE_LARGE(MPI_COUNT, K_MULTI, S_COUNT, MPI_MIN),
    TYPE_LARGE(MPI_FLOAT, K_REAL, S_FLOAT, MPI_SUM),
    TYPE_LARGE(MPI_DOUBLE, K_REAL, S_DOUBLE, MPI_PROD),
    TYPE_LARGE(MPI_LONG_DOUBLE, K_REAL, S_LDOUBLE, MPI_SUM),
    TYPE_LARGE(MPI_C_BOOL, K_BOOL, S_BOOL, MPI_LXOR),
    TYPE_LARGE(MPI_BYTE, K_BYTE, S_BYTE, MPI_BOR),
    TYPE_LARGE(MPI_C_FLOAT_COMPLEX, K_COMPLEX, S_CFLOAT, MPI_PROD),
    TYPE(MPI_C_DOUBLE_COMPLEX, K_COMPLEX, S_CDOUBLE),
    TYPE_LARGE(MPI_C_LONG_DOUBLE_COMPLEX, K_COMPLEX, S_CLDOUBLE, MPI_SUM),
    TYPE(MPI_FLOAT_INT, K_PAIR, S_FLOAT_INT),
    TYPE_LARGE(MPI_DOUBLE_INT, K_PAIR, S_DOUBLE_INT, MPI_MINLOC),
    TYPE(MPI_LONG_INT, K_PAIR, S_LONG_INT),
    TYPE_LARGE(MPI_2INT, K_PAIR, S_2INT, MPI_MAXLOC),
    TYPE(MPI_SHORT_INT, K_PAIR, S_SHORT_INT),
    TYPE(MPI_LONG_DOUBLE_INT, K_PAIR, S_LDOUBLE_INT),
};

#define NUM_TYPES ((int)(sizeof(types) / sizeof(types[0])))

/* Store a (and b: the imaginary part, or the index of a pair) in element e. */
static void put(storage_t st, void *e, long long a, long long b)
{
    switch (st) {
#define PUT_SCALAR(S, T) case S: *(T *)e = (T)a; break;
#define PUT_COMPLEX(S, T) case S: ((T *)e)[0] = (T)a; ((T *)e)[1] = (T)b; break;
#define PUT_PAIR(S, T) case S: ((PAIR(T) *)e)->v = (T)a; ((PAIR(T) *)e)->i = (int)b; break;
    SCALARS(PUT_SCALAR) COMPLEXES(PUT_COMPLEX) PAIRS(PUT_PAIR)
#undef PUT_SCALAR
#undef PUT_COMPLEX
#undef PUT_PAIR
    }
}

/* Part 0 (the value, the real part) or 1 (imaginary part, index) of e. */
static long double get(storage_t st, const void *e, int part)
{
    switch (st) {
#define GET_SCALAR(S, T) case S: return (long double)*(const T *)e;
#define GET_COMPLEX(S, T) case S: return (long double)((const T *)e)[part];
#define GET_PAIR(S, T) \
    case S: return part ? ((const PAIR(T) *)e)->i : (long double)((const PAIR(T) *)e)->v;
    SCALARS(GET_SCALAR) COMPLEXES(GET_COMPLEX) PAIRS(GET_PAIR)
#undef GET_SCALAR
#undef GET_COMPLEX
#undef GET_PAIR
    }
    return 0;
}

/* -------------------------------------------------------------- the ops */

typedef enum group { G_SUM, G_PROD, G_ORDER, G_LOGICAL, G_BITWISE, G_LOC } group_t;

typedef struct op_desc {
    const char  *name;
    MPI_Op      op;
    group_t     group;
    unsigned    kinds;  /* KIND() of the types MPI 3.1 defines it for */
} op_desc_t;

#define C_INTEGER (KIND(K_SINT) | KIND(K_UINT))
#define ARITH (C_INTEGER | KIND(K_MULTI) | KIND(K_REAL) | KIND(K_COMPLEX))
#define ORDERED (C_INTEGER | KIND(K_MULTI) | KIND(K_REAL))
/* MPI 3.1 leaves MPI_AINT, MPI_OFFSET and MPI_COUNT out of the logical ops. */
#define LOGICAL (C_INTEGER | KIND(K_BOOL))
#define BITWISE (C_INTEGER | KIND(K_MULTI) | KIND(K_BYTE))

#define OP(o, g, k) { #o, o, g, k }

static const op_desc_t ops[] = {
    OP(MPI_SUM, G_SUM, ARITH), OP(MPI_PROD, G_PROD, ARITH),
    OP(MPI_MIN, G_ORDER, ORDERED), OP(MPI_MAX, G_ORDER, ORDERED),
    OP(MPI_LAND, G_LOGICAL, LOGICAL), OP(MPI_LOR, G_LOGICAL, LOGICAL),
    OP(MPI_LXOR, G_LOGICAL, LOGICAL),
    OP(MPI_BAND, G_BITWISE, BITWISE), OP(MPI_BOR, G_BITWISE, BITWISE),
    OP(MPI_BXOR, G_BITWISE, BITWISE),
    OP(MPI_MAXLOC, G_LOC, KIND(K_PAIR)), OP(MPI_MINLOC, G_LOC, KIND(K_PAIR)),
};

#define NUM_OPS ((int)(sizeof(ops) / sizeof(ops[0])))

/* ------------------------------------------------------------ the inputs */

uint64_t mix(uint64_t x)
{
    x += UINT64_C(0x9e3779b97f4a7c15);
    x = (x ^ (x >> 30)) * UINT64_C(0xbf58476d1ce4e5b9);
    x = (x ^ (x >> 27)) * UINT64_C(0x94d049bb133111eb);
    return x ^ (x >> 31);
}

/* The seed of one rank's inputs to one (type, op) case. */
uint64_t input_seed(int rank, int ti, int oi)
{
    return mix(((uint64_t)rank << 32) | ((uint64_t)ti << 8) | (uint64_t)oi);
}

/* PROD factors: at most six 2s (ranks 0..5) keep |product| <= 64, within
 * a signed char, for up to 8 ranks. */
static long long prod_factor(uint64_t h, int rank, bool is_signed)
{
    switch (h % 3) {
    case 0:  return 1;
    case 1:  return is_signed ? -1 : 1;
    default: return rank < 6 ? 2 : 1;
    }
}

/* The value (a) and imaginary part or index (b) of one input element. */
static void input_value(group_t g, kind_t k, int rank, uint64_t h, long long *a,
                        long long *b)
{
    bool is_signed = k == K_SINT || k == K_MULTI || k == K_REAL || k == K_COMPLEX ||
                     k == K_PAIR;

    *a = 0;
    *b = 0;
    switch (g) {
    case G_SUM:
        *a = is_signed ? (long long)(h % 7) - 3 : (long long)(h % 4);
        *b = (long long)((h >> 8) % 7) - 3;
        break;
    case G_PROD:
        *a = prod_factor(h, rank, is_signed);
        *b = (long long)((h >> 8) % 3) - 1;
        break;
    case G_ORDER:
        *a = is_signed ? (long long)(h % 101) - 50 : (long long)(h % 101);
        break;
    case G_LOGICAL:
        /* True three times in four; as 2 as well as 1 where the type allows,
         * since any nonzero value is true. */
        *a = (h & 3) == 0 ? 0 : (k != K_BOOL && (h & 4)) ? 2 : 1;
        break;
    case G_LOC:
        /* A narrow range, so values tie and the lowest index must win. */
        *a = (long long)(h % 7) - 3;
        *b = (long long)((h >> 8) % 50);
        break;
    case G_BITWISE:
        break;
    }
}

/* rank's input to case (ti, oi): count elements, extent bytes apart. */
static void fill_input(int ti, int oi, int rank, char *buf, int count, MPI_Aint extent)
{
    const type_desc_t *t = &types[ti];
    const op_desc_t *o = &ops[oi];
    uint64_t seed = input_seed(rank, ti, oi), h, h2;
    long long a, b;
    int size, i;

    MPI_Type_size(t->type, &size);
    /* Padding bytes too are the same on every fill: buffers compare whole. */
    memset(buf, 0, (size_t)count * (size_t)extent);
    for (i = 0; i < count; ++i) {
        h = mix(seed + (uint64_t)i);
        if (o->group == G_BITWISE) {
            /* Random bits, set three times in four so that BAND over 8
             * ranks still leaves some set. */
            h2 = mix(h);
            h = o->op == MPI_BAND ? (h | h2) : h;
            memcpy(buf + (size_t)i * (size_t)extent, &h, (size_t)size);
            continue;
        }
        input_value(o->group, t->kind, rank, h, &a, &b);
        put(t->st, buf + (size_t)i * (size_t)extent, a, b);
    }
}

/* ------------------------------------------------------------ the checks */

static long double abs_ld(long double x)
{
    return x < 0 ? -x : x;
}

static bool close_enough(long double got, long double want)
{
    long double scale = abs_ld(want) > 1 ? abs_ld(want) : 1;

    return abs_ld(got - want) <= 1e-6L * scale;
}

static bool elem_equal(const type_desc_t *t, const char *got, const char *want, int size)
{
    switch (t->kind) {
    case K_COMPLEX:
        /* Open MPI's complex PROD may give -0 or +0 depending on the order
         * of the products: compare numerically. */
        return close_enough(get(t->st, got, 0), get(t->st, want, 0)) &&
               close_enough(get(t->st, got, 1), get(t->st, want, 1));
    case K_PAIR:
        /* Field by field: pair types have padding (MPI_DOUBLE_INT has 4
         * trailing bytes) that no reduction writes. */
        return get(t->st, got, 0) == get(t->st, want, 0) &&
               get(t->st, got, 1) == get(t->st, want, 1);
    default:
        /* x87 long double has 6 padding bytes in its 16: compare its value
         * (exact: inputs are integers). */
        if (t->st == S_LDOUBLE) {
            return get(t->st, got, 0) == get(t->st, want, 0);
        }
        return memcmp(got, want, (size_t)size) == 0;
    }
}

static void compare(const type_desc_t *t, const char *got, const char *want, int count,
                    MPI_Aint extent, const char *what)
{
    int i, size, bad = 0, first = -1;
    const char *g, *w;

    MPI_Type_size(t->type, &size);
    for (i = 0; i < count; ++i) {
        if (!elem_equal(t, got + (size_t)i * (size_t)extent,
                        want + (size_t)i * (size_t)extent, size)) {
            first = first < 0 ? i : first;
            ++bad;
        }
    }
    g = got + (size_t)(first < 0 ? 0 : first) * (size_t)extent;
    w = want + (size_t)(first < 0 ? 0 : first) * (size_t)extent;
    CHECK(bad == 0, "%s: %d of %d elements wrong; first [%d] = (%.21Lg, %.21Lg), "
          "expected (%.21Lg, %.21Lg)", what, bad, count, first, get(t->st, g, 0),
          get(t->st, g, 1), get(t->st, w, 0), get(t->st, w, 1));
}

/* The type the reference folds with.  Open MPI 4.1.4 compares MPI_OFFSET
 * as if it were unsigned (MPI_MIN of -15 and 8 gives 8), but MPI_Offset
 * is a signed integer: the reference uses the signed type of its width. */
static MPI_Datatype reference_type(MPI_Datatype type)
{
    return type == MPI_OFFSET ? MPI_INT64_T : type;
}

/* All ranks' inputs folded in rank order, as MPI defines the result. */
static void reference(int ti, int oi, char *ref, char *tmp, int count, MPI_Aint extent)
{
    int r, rc;

    fill_input(ti, oi, 0, ref, count, extent);
    for (r = 1; r < world_size && count > 0; ++r) {
        fill_input(ti, oi, r, tmp, count, extent);
        rc = MPI_Reduce_local(tmp, ref, count, reference_type(types[ti].type), ops[oi].op);
        CHECK(rc == MPI_SUCCESS, "MPI_Reduce_local(%s, %s) failed: %d", types[ti].name,
              ops[oi].name, rc);
    }
}


static void run_case(int ti, int oi, int count, bool in_place, tally_t *tally)
{
    const type_desc_t *t = &types[ti];
    MPI_Aint lb, extent;
    size_t bytes;
    char *in, *out, *ref, *tmp, what[160];
    int rc;

    MPI_Type_get_extent(t->type, &lb, &extent);
    bytes = (size_t)count * (size_t)extent;
    in = alloc_buf(bytes);
    out = alloc_buf(bytes);
    ref = alloc_buf(bytes);
    tmp = alloc_buf(bytes);
    snprintf(what, sizeof(what), "%s %s count %d %s", t->name, ops[oi].name, count,
             in_place ? "in place" : "out of place");

    reference(ti, oi, ref, tmp, count, extent);
    fill_input(ti, oi, world_rank, in, count, extent);
    if (in_place) {
        memcpy(out, in, bytes);
        rc = MPI_Allreduce(MPI_IN_PLACE, out, count, t->type, ops[oi].op, MPI_COMM_WORLD);
    } else {
        memset(out, 0x5a, bytes);
        rc = MPI_Allreduce(in, out, count, t->type, ops[oi].op, MPI_COMM_WORLD);
    }
    tally_call(tally, t->type, count, true);
    CHECK(rc == MPI_SUCCESS, "%s: MPI_Allreduce returned %d", what, rc);
    compare(t, out, ref, count, extent, what);
    if (!in_place) {
        fill_input(ti, oi, world_rank, tmp, count, extent);
        CHECK(memcmp(in, tmp, bytes) == 0, "%s: the send buffer changed", what);
    }
    free(in);
    free(out);
    free(ref);
    free(tmp);
}

/* About 1.2 MB, so that ring blocks are large enough for UCX to send them
 * by rendezvous rather than eagerly; at most 300001 elements, as the
 * reference costs every rank all ranks' inputs. */
static int large_count(MPI_Datatype type)
{
    MPI_Aint lb, extent;
    long n;

    MPI_Type_get_extent(type, &lb, &extent);
    n = 1200000L / (long)extent;
    n = n > 300001 ? 300001 : n;
    return (int)(n | 1);
}

static bool op_applies(int ti, int oi)
{
    return (ops[oi].kinds & KIND(types[ti].kind)) != 0;
}

static void check_type_op(int ti, int oi)
{
    /* Fewer elements than ranks leaves ring blocks empty; 7 and 1001 split
     * unevenly over most rank counts. */
    int counts[] = { 0, 1, world_size - 1, 7, 1001 }, n = 5, c, in_place;
    loom_test_counters_t before = loom_test_counters();
    tally_t tally = { 0, 0 };
    char what[96];

    for (c = 0; c < n; ++c) {
        if (c == 2 && (counts[c] <= 1 || counts[c] == 7)) {
            continue;
        }
        for (in_place = 0; in_place < 2; ++in_place) {
            run_case(ti, oi, counts[c], in_place, &tally);
        }
    }
    if (ops[oi].op == types[ti].large_op) {
        run_case(ti, oi, large_count(types[ti].type), ti % 2, &tally);
    }
    snprintf(what, sizeof(what), "%s %s", types[ti].name, ops[oi].name);
    CHECK_LOOM_COUNTERS(before, tally.calls, tally.fallbacks, what);
}

static void check_predefined(void)
{
    int ti, oi, large;

    for (ti = 0; ti < NUM_TYPES; ++ti) {
        for (large = 0, oi = 0; oi < NUM_OPS; ++oi) {
            if (op_applies(ti, oi)) {
                check_type_op(ti, oi);
                large += ops[oi].op == types[ti].large_op;
            }
        }
        CHECK(large == (types[ti].large_op != MPI_OP_NULL),
              "%s: the large count's op does not apply to it", types[ti].name);
    }
}

/* ------------------------------------------------ NaN and signed zeros */

#define NAN_COUNT 1001

/* Element classes by i % 5: plain values; NaN from one rank (a different
 * one along the buffer); NaN from all; zeros of both signs; zeros among
 * +-1. */
static double nan_input(int rank, int i)
{
    static const double mixed[] = { -0.0, 0.0, 1.0, -1.0 };
    uint64_t h = mix(input_seed(rank, 200, 0) + (uint64_t)i);

    switch (i % 5) {
    case 0:  return (double)(h % 101) - 50;
    case 1:  return rank == (i / 5) % world_size ? NAN : (double)(h % 101) - 50;
    case 2:  return NAN;
    case 3:  return (h & 1) ? -0.0 : 0.0;
    default: return mixed[h % 4];
    }
}

/* Where no NaN takes part the result is the true min/max (either zero is
 * right for zeros, and == accepts either).  Where one does, MPI leaves the
 * result to the order of reduction, and Open MPI's MIN, (a < b) ? a : b,
 * drops a NaN when it comes first: even a fold in rank order gives 7 for
 * MIN(5, NaN, 7).  So the result must be NaN or one of the inputs. */
static void check_nan_elem(double got, int i, bool is_max, const char *what)
{
    bool any_nan = false, any_value = false, is_input = false;
    double best = 0, v;
    int r;

    for (r = 0; r < world_size; ++r) {
        v = nan_input(r, i);
        is_input = is_input || v == got;
        if (isnan(v)) {
            any_nan = true;
        } else if (!any_value || (is_max ? v > best : v < best)) {
            best = v;
            any_value = true;
        }
    }
    if (!any_value) {
        CHECK(isnan(got), "%s: [%d] = %g, expected NaN", what, i, got);
    } else if (any_nan) {
        CHECK(isnan(got) || is_input, "%s: [%d] = %g, expected NaN or an input", what, i,
              got);
    } else {
        CHECK(got == best, "%s: [%d] = %g, expected %g", what, i, got, best);
    }
}

/* Every rank must hold the same bits: gather them (MPI_Gather does not go
 * through Loom) and compare on rank 0. */
static void check_same_everywhere(const void *buf, int bytes, const char *what)
{
    char *all = world_rank == 0 ? alloc_buf((size_t)bytes * (size_t)world_size) : NULL;
    int r;

    MPI_Gather(buf, bytes, MPI_BYTE, all, bytes, MPI_BYTE, 0, MPI_COMM_WORLD);
    for (r = 1; world_rank == 0 && r < world_size; ++r) {
        CHECK(memcmp(all, all + (size_t)r * (size_t)bytes, (size_t)bytes) == 0,
              "%s: rank %d's result differs from rank 0's", what, r);
    }
    free(all);
}

static void check_nan_case(bool is_float, bool is_max, bool in_place, tally_t *tally)
{
    MPI_Datatype type = is_float ? MPI_FLOAT : MPI_DOUBLE;
    MPI_Op op = is_max ? MPI_MAX : MPI_MIN;
    size_t esize = is_float ? sizeof(float) : sizeof(double);
    char *in = alloc_buf(NAN_COUNT * esize), *out = alloc_buf(NAN_COUNT * esize);
    char what[96];
    int i, rc;

    snprintf(what, sizeof(what), "NaN/zeros %s %s %s", is_float ? "MPI_FLOAT" : "MPI_DOUBLE",
             is_max ? "MPI_MAX" : "MPI_MIN", in_place ? "in place" : "out of place");
    for (i = 0; i < NAN_COUNT; ++i) {
        if (is_float) {
            ((float *)in)[i] = (float)nan_input(world_rank, i);
        } else {
            ((double *)in)[i] = nan_input(world_rank, i);
        }
    }
    if (in_place) {
        memcpy(out, in, NAN_COUNT * esize);
    } else {
        memset(out, 0x5a, NAN_COUNT * esize);
    }
    rc = MPI_Allreduce(in_place ? MPI_IN_PLACE : in, out, NAN_COUNT, type, op,
                       MPI_COMM_WORLD);
    tally_call(tally, type, NAN_COUNT, true);
    CHECK(rc == MPI_SUCCESS, "%s: MPI_Allreduce returned %d", what, rc);
    for (i = 0; i < NAN_COUNT; ++i) {
        check_nan_elem(is_float ? ((float *)out)[i] : ((double *)out)[i], i, is_max, what);
    }
    check_same_everywhere(out, (int)(NAN_COUNT * esize), what);
    free(in);
    free(out);
}

static void check_nan_and_zeros(void)
{
    loom_test_counters_t before = loom_test_counters();
    tally_t tally = { 0, 0 };
    int v;

    for (v = 0; v < 8; ++v) {
        check_nan_case(v & 1, v & 2, v & 4, &tally);
    }
    CHECK_LOOM_COUNTERS(before, tally.calls, tally.fallbacks, "NaN and signed zeros");
}

/* Loom takes a call whose data is one gap-free block of a predefined type
 * that starts at the buffer address.  Pair types with trailing padding, such as MPI_DOUBLE_INT's 12 bytes in a
 * 16-byte extent, are gap-free for one element only; MPI_SHORT_INT has a
 * hole in every element. */
bool loom_takes(MPI_Datatype type, int count)
{
    MPI_Aint lb, extent, true_lb, true_extent;
    int size;

    MPI_Type_size(type, &size);
    MPI_Type_get_extent(type, &lb, &extent);
    MPI_Type_get_true_extent(type, &true_lb, &true_extent);
    if (true_lb != 0 || true_extent != size) {
        return false;
    }
    return count == 1 || extent == size;
}

/* Count one call on world: what Loom should do with it.  Open MPI's
 * MPI_Allreduce returns before any component sees a count of 0.  Loom
 * takes non-commutative ops too, reducing them in rank order. */
void tally_call(tally_t *tally, MPI_Datatype type, int count, bool commutative)
{
    (void)commutative;
    if (world_size < 2 || count == 0) {
        return;
    }
    if (loom_takes(type, count)) {
        ++tally->calls;
    } else {
        ++tally->fallbacks;
    }
}

char *alloc_buf(size_t bytes)
{
    char *buf = malloc(bytes ? bytes : 1);

    if (buf == NULL) {
        fprintf(stderr, "out of memory (%zu bytes)\n", bytes);
        MPI_Abort(MPI_COMM_WORLD, 1);
    }
    return buf;
}

int main(int argc, char **argv)
{
    loom_test_init(&argc, &argv, MPI_THREAD_SINGLE);
    MPI_Comm_rank(MPI_COMM_WORLD, &world_rank);
    MPI_Comm_size(MPI_COMM_WORLD, &world_size);
    /* A failing call is a failed check, not an abort with no context. */
    MPI_Comm_set_errhandler(MPI_COMM_WORLD, MPI_ERRORS_RETURN);
    check_user_setup();

    check_predefined();
    check_nan_and_zeros();
    check_user_commutative();
    check_user_noncommutative();
    check_derived();

    check_user_teardown();
    return loom_test_finish("mpi_allreduce_ops");
}
