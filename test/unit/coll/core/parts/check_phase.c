/* The phases (coll/core/parts/phase.h) on their own, on the loopback
 * transport: each built into a schedule of its own over some of the team's
 * ranks in an order that is not the team's, with blocks placed elsewhere
 * than their index says, and every member's result compared with a
 * reference computed here; the other ranks' buffers stay untouched.
 *   - a reduce-scatter ring then an allgather ring: an allreduce (sums),
 *     segmented and not, with fewer elements than positions too;
 *   - halving then doubling: an allreduce of a non-commutative op that
 *     must come out in the positions' order, not the ranks';
 *   - halving alone: position i holds block bitrev(i);
 *   - halving then gather: position 0 holds everything;
 *   - Bruck: every member gathers every member's block, of sizes that
 *     differ, in rotated order. */
#include "test/unit/support/loopback_harness.h"
#include "coll/core/parts/partition.h"
#include "coll/core/parts/phase.h"

#include <check.h>
#include "test/unit/support/check_main.h"
#include <stdint.h>
#include <stdlib.h>
#include <string.h>

#define MAXN     16
#define SENTINEL 0xA5u

/* The phases' ranks and blocks, the same for every rank of a run: plans
 * are loom_plan_fn_t, so they read them from here. */
typedef struct phase_case {
    int         p;              /* team size */
    int         n;              /* positions */
    int         ranks[MAXN];    /* team rank of each position */
    int         where[MAXN];    /* block j of the phase is the buffer's block where[j] */
    size_t      seg_bytes;
    int         depth;
} phase_case_t;

static phase_case_t g;

static int position_of(int rank)
{
    int i;

    for (i = 0; i < g.n; ++i) {
        if (g.ranks[i] == rank) {
            return i;
        }
    }
    return -1;
}

/* ------------------------------------------------------------ rings */

static loom_phase_block_t ring_block(const loom_phase_cut_t *cut, int j)
{
    size_t count = *(const size_t *)cut->ctx, first;

    first = loom_block_offset(count, g.n, g.where[j]);
    return (loom_phase_block_t){ .at = cut->at + first * cut->esize,
                                 .in = cut->in + first * cut->esize,
                                 .n = loom_block_count(count, g.n, g.where[j]) };
}

static loom_status_t plan_ring_allreduce(const loom_coll_args_t *args, loom_team_t *team,
                                         loom_sched_t **sched_p)
{
    int me = position_of(team->rank), depth = g.depth, *ints, i, nlast;
    size_t count = args->count;
    loom_ring_phase_t ph = {
        .ranks = g.ranks, .n = g.n, .me = me,
        .cut = { .block = ring_block, .at = args->recvbuf, .in = args->sendbuf,
                 .esize = args->elem_size, .ctx = &count },
    };
    loom_slots_t slots = { .depth = depth };
    loom_status_t status;
    char *scratch;

    status = loom_sched_create(team, args, 0, &ph.sched);
    if (status != LOOM_OK || me < 0 || count == 0) {
        return status != LOOM_OK ? status : loom_sched_plan_done(ph.sched, sched_p);
    }
    ph.segs = loom_segs_make(g.seg_bytes, args->elem_size, loom_block_count(count, g.n, 0),
                             2 * (uint64_t)(g.n - 1));
    nlast = g.n * ph.segs.nseg_max;
    ck_assert_int_eq(loom_sched_alloc_ints(ph.sched, nlast + depth, &ints), LOOM_OK);
    ph.last = ints;
    slots.reader = ints + nlast;
    for (i = 0; i < nlast + depth; ++i) {
        ints[i] = -1;
    }
    slots.bytes = ph.segs.seg * args->elem_size;
    ck_assert_int_eq(loom_sched_alloc_scratch(ph.sched, (size_t)depth * slots.bytes,
                                              (void **)&scratch), LOOM_OK);
    slots.base = scratch;
    ph.slots = &slots;
    loom_phase_rs_ring(&ph);
    ph.cut.in = ph.cut.at;
    ph.tag_base = (uint32_t)loom_ring_phase_tags(g.n, &ph.segs);
    loom_phase_ag_ring(&ph);
    return loom_sched_plan_done(ph.sched, sched_p);
}

static uint32_t input_u32(int rank, size_t i)
{
    return (uint32_t)(rank * 100003 + (int)i * 7 + 1);
}

static void run_ring(size_t count, size_t seg_bytes, int depth, unsigned seed)
{
    harness_t h;
    loom_coll_args_t args[MAXN];
    uint32_t *in[MAXN], *out[MAXN], want;
    size_t i;
    int r, k;

    g.seg_bytes = seg_bytes;
    g.depth = depth;
    harness_init(&h, g.p);
    for (r = 0; r < g.p; ++r) {
        in[r] = malloc(sizeof(uint32_t) * (count + 1));
        out[r] = malloc(sizeof(uint32_t) * (count + 1));
        memset(out[r], SENTINEL, sizeof(uint32_t) * (count + 1));
        for (i = 0; i < count; ++i) {
            in[r][i] = input_u32(r, i);
        }
        args[r] = (loom_coll_args_t){ .sendbuf = in[r], .recvbuf = out[r], .count = count,
                                      .elem_size = sizeof(uint32_t),
                                      .op = { .fn = harness_sum_u32, .commutative = 1 } };
    }
    ck_assert_int_eq(harness_run(&h, plan_ring_allreduce, args, seed), LOOM_OK);
    for (r = 0; r < g.p; ++r) {
        for (i = 0; i < count + 1; ++i) {
            if (position_of(r) < 0 || i == count) {
                ck_assert_uint_eq(((const uint8_t *)&out[r][i])[0], SENTINEL);
                continue;
            }
            for (want = 0, k = 0; k < g.n; ++k) {
                want += input_u32(g.ranks[k], i);
            }
            ck_assert_msg(out[r][i] == want, "rank %d element %zu: %u, want %u", r, i,
                          out[r][i], want);
        }
        free(in[r]);
        free(out[r]);
    }
    harness_fini(&h);
}

START_TEST(test_ring_allreduce)
{
    /* Four of seven ranks, in an order of their own; block j of the
     * phases lies where block 3-j of the buffer is. */
    static const size_t counts[] = { 1, 3, 4, 9, 1000 };
    size_t c;

    g = (phase_case_t){ .p = 7, .n = 4, .ranks = { 5, 1, 3, 6 }, .where = { 3, 2, 1, 0 } };
    for (c = 0; c < sizeof(counts) / sizeof(counts[0]); ++c) {
        run_ring(counts[c], 0, 1, 11u + (unsigned)c);
        run_ring(counts[c], 3 * sizeof(uint32_t), 2, 23u + (unsigned)c);
    }
}
END_TEST

START_TEST(test_ring_two)
{
    /* Two positions, the higher rank first. */
    g = (phase_case_t){ .p = 3, .n = 2, .ranks = { 2, 0 }, .where = { 1, 0 } };
    run_ring(5, 0, 1, 3u);
    run_ring(5, sizeof(uint32_t), 3, 4u);
}
END_TEST

/* ---------------------------------------------------------- halving */

/* x -> a x + b mod 2^32: composing is associative but not commutative.
 * dst = src o dst, src being the lower positions' (args.h's order). */
typedef struct affine { uint32_t a, b; } affine_t;

static affine_t compose(affine_t f, affine_t h)
{
    return (affine_t){ f.a * h.a, f.a * h.b + f.b };
}

static void affine_op(const void *src, void *dst, size_t count, void *ctx)
{
    const affine_t *s = src;
    affine_t *d = dst;
    size_t i;

    (void)ctx;
    for (i = 0; i < count; ++i) {
        d[i] = compose(s[i], d[i]);
    }
}

static affine_t input_affine(int rank, size_t i)
{
    return (affine_t){ (uint32_t)(2 * (rank * 31 + (int)i) + 3), (uint32_t)(rank * 7 + (int)i) };
}

typedef enum { HALVING_ONLY, HALVING_DOUBLING, HALVING_GATHER } halving_kind_t;

static halving_kind_t g_halving;

static char *halving_range(const loom_halving_phase_t *ph, int lo, int hi, size_t *bytes_p)
{
    const loom_cut_t *cut = ph->ctx;

    return loom_cut_range(cut, lo, hi, bytes_p);
}

/* The input copied into the receive buffer, then the phases on it. */
static loom_status_t plan_halving(const loom_coll_args_t *args, loom_team_t *team,
                                  loom_sched_t **sched_p)
{
    loom_cut_t cut = { .buf = args->recvbuf, .count = args->count, .esize = args->elem_size,
                       .p = g.n };
    loom_halving_phase_t ph = { .ranks = g.ranks, .n = g.n, .me = position_of(team->rank),
                                .range = halving_range, .ctx = &cut, .tag_base = 1,
                                .ordered = 1, .tmp_free = -1 };
    size_t bytes = args->count * args->elem_size;
    loom_status_t status;

    status = loom_sched_create(team, args, 0, &ph.sched);
    if (status != LOOM_OK || ph.me < 0 || bytes == 0) {
        return status != LOOM_OK ? status : loom_sched_plan_done(ph.sched, sched_p);
    }
    ck_assert_int_eq(loom_sched_alloc_scratch(ph.sched, bytes, (void **)&ph.tmp), LOOM_OK);
    ph.last = loom_sched_copy_input(ph.sched);
    loom_phase_halving(&ph);
    ph.tag_base += (uint32_t)ph.rounds;
    if (g_halving == HALVING_DOUBLING) {
        loom_phase_doubling(&ph);
    } else if (g_halving == HALVING_GATHER) {
        loom_phase_gather(&ph);
    }
    return loom_sched_plan_done(ph.sched, sched_p);
}

static int bitrev(int i, int n)
{
    int out = 0, k;

    for (k = 1; k < n; k *= 2) {
        out = out * 2 + ((i / k) & 1);
    }
    return out;
}

/* Whether position pos ends the run with element i reduced. */
static int halving_has(int pos, size_t count, size_t i)
{
    int b = bitrev(pos, g.n);

    switch (g_halving) {
    case HALVING_ONLY:
        return i >= loom_block_offset(count, g.n, b) && i < loom_block_offset(count, g.n, b + 1);
    case HALVING_GATHER:
        return pos == 0;
    default:
        return 1;
    }
}

static void run_halving(halving_kind_t kind, size_t count, unsigned seed)
{
    harness_t h;
    loom_coll_args_t args[MAXN];
    affine_t *in[MAXN], *out[MAXN], want;
    size_t i;
    int r, k, pos;

    g_halving = kind;
    harness_init(&h, g.p);
    for (r = 0; r < g.p; ++r) {
        in[r] = malloc(sizeof(affine_t) * (count + 1));
        out[r] = malloc(sizeof(affine_t) * (count + 1));
        memset(out[r], SENTINEL, sizeof(affine_t) * (count + 1));
        for (i = 0; i < count; ++i) {
            in[r][i] = input_affine(r, i);
        }
        args[r] = (loom_coll_args_t){ .sendbuf = in[r], .recvbuf = out[r], .count = count,
                                      .elem_size = sizeof(affine_t),
                                      .op = { .fn = affine_op, .commutative = 0 } };
    }
    ck_assert_int_eq(harness_run(&h, plan_halving, args, seed), LOOM_OK);
    for (r = 0; r < g.p; ++r) {
        pos = position_of(r);
        for (i = 0; i < count + 1; ++i) {
            if (pos < 0 || i == count) {
                ck_assert_uint_eq(((const uint8_t *)&out[r][i])[0], SENTINEL);
                continue;
            }
            if (!halving_has(pos, count, i)) {
                continue;
            }
            /* In the positions' order, whatever the ranks are. */
            want = input_affine(g.ranks[0], i);
            for (k = 1; k < g.n; ++k) {
                want = compose(want, input_affine(g.ranks[k], i));
            }
            ck_assert_msg(out[r][i].a == want.a && out[r][i].b == want.b,
                          "kind %d rank %d element %zu: (%u,%u), want (%u,%u)", (int)kind, r, i,
                          out[r][i].a, out[r][i].b, want.a, want.b);
        }
        free(in[r]);
        free(out[r]);
    }
    harness_fini(&h);
}

START_TEST(test_halving)
{
    static const size_t counts[] = { 1, 3, 8, 1001 };
    size_t c;
    int kind;

    g = (phase_case_t){ .p = 7, .n = 4, .ranks = { 6, 0, 4, 2 } };
    for (kind = HALVING_ONLY; kind <= HALVING_GATHER; ++kind) {
        for (c = 0; c < sizeof(counts) / sizeof(counts[0]); ++c) {
            run_halving((halving_kind_t)kind, counts[c], 5u + (unsigned)c);
        }
    }
    g = (phase_case_t){ .p = 9, .n = 8, .ranks = { 8, 3, 0, 7, 1, 6, 2, 5 } };
    for (kind = HALVING_ONLY; kind <= HALVING_GATHER; ++kind) {
        run_halving((halving_kind_t)kind, 77, 9u);
    }
}
END_TEST

/* ------------------------------------------------------------ Bruck */

/* Position i's block: i + 2 elements (the sizes differ, so a wrong run
 * shows). */
static size_t bruck_count(int pos)
{
    return (size_t)pos + 2;
}

static size_t bruck_run(const loom_bruck_phase_t *ph, int i, int m)
{
    size_t n = 0;
    int k;

    for (k = 0; k < m; ++k) {
        n += bruck_count((i + k) % ph->n);
    }
    return n * sizeof(uint32_t);
}

/* recvbuf: the gathering buffer, rotated from this position's block. */
static loom_status_t plan_bruck(const loom_coll_args_t *args, loom_team_t *team,
                                loom_sched_t **sched_p)
{
    loom_bruck_phase_t ph = { .ranks = g.ranks, .n = g.n, .me = position_of(team->rank),
                              .run = bruck_run, .tag_base = 1, .tmp = args->recvbuf };
    loom_status_t status;

    status = loom_sched_create(team, args, 0, &ph.sched);
    if (status != LOOM_OK || ph.me < 0) {
        return status != LOOM_OK ? status : loom_sched_plan_done(ph.sched, sched_p);
    }
    ph.last = loom_sched_copy(ph.sched, args->sendbuf, ph.tmp,
                              bruck_count(ph.me) * sizeof(uint32_t), LOOM_NO_DEPS);
    loom_phase_bruck(&ph);
    return loom_sched_plan_done(ph.sched, sched_p);
}

START_TEST(test_bruck)
{
    static const int ns[] = { 1, 2, 3, 5, 7 };
    static const int orders[][MAXN] = { { 4 }, { 4, 0 }, { 2, 6, 0 }, { 3, 1, 6, 2, 5 },
                                        { 6, 5, 4, 3, 2, 1, 0 } };
    harness_t h;
    loom_coll_args_t args[MAXN];
    uint32_t *in[MAXN], *out[MAXN];
    size_t total, at, e;
    int c, r, k, pos, q;

    for (c = 0; c < 5; ++c) {
        g = (phase_case_t){ .p = 7, .n = ns[c] };
        memcpy(g.ranks, orders[c], sizeof(g.ranks));
        for (total = 0, k = 0; k < g.n; ++k) {
            total += bruck_count(k);
        }
        harness_init(&h, g.p);
        for (r = 0; r < g.p; ++r) {
            pos = position_of(r);
            in[r] = malloc(sizeof(uint32_t) * (total + 1));
            out[r] = malloc(sizeof(uint32_t) * (total + 1));
            memset(out[r], SENTINEL, sizeof(uint32_t) * (total + 1));
            for (e = 0; pos >= 0 && e < bruck_count(pos); ++e) {
                in[r][e] = input_u32(r, e);
            }
            args[r] = (loom_coll_args_t){ .sendbuf = in[r], .recvbuf = out[r], .count = total,
                                          .elem_size = sizeof(uint32_t) };
        }
        ck_assert_int_eq(harness_run(&h, plan_bruck, args, 17u + (unsigned)c), LOOM_OK);
        for (r = 0; r < g.p; ++r) {
            pos = position_of(r);
            for (at = 0, k = 0; pos >= 0 && k < g.n; ++k) {
                q = (pos + k) % g.n;
                for (e = 0; e < bruck_count(q); ++e, ++at) {
                    ck_assert_msg(out[r][at] == input_u32(g.ranks[q], e),
                                  "n %d rank %d: block of position %d, element %zu", g.n, r, q,
                                  e);
                }
            }
            ck_assert_uint_eq(((const uint8_t *)&out[r][pos >= 0 ? total : 0])[0], SENTINEL);
            free(in[r]);
            free(out[r]);
        }
        harness_fini(&h);
    }
}
END_TEST

static Suite *phase_suite(void)
{
    Suite *s = suite_create("phase");
    TCase *tc = tcase_create("phases");

    tcase_add_test(tc, test_ring_allreduce);
    tcase_add_test(tc, test_ring_two);
    tcase_add_test(tc, test_halving);
    tcase_add_test(tc, test_bruck);
    suite_add_tcase(s, tc);
    return s;
}

int main(void)
{
    return loom_check_run(phase_suite());
}
