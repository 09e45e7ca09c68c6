/* Reduce_scatter and reduce_scatter_block on the loopback transport: every
 * algorithm at 1..33, 64 and 100 ranks; counts 0, 1, < p, odd and large;
 * uneven counts with zeros; in place or not; a commutative sum (uint32,
 * wrapping) and a non-commutative op (2x2 matrix products mod a prime,
 * whose result tells the order of the factors) checked for rank order;
 * every rank's result compared bytewise with a reference computed here,
 * and the bytes after it untouched; and the selection. */
#include "test/unit/support/loopback_harness.h"
#include "coll/core/reduce_scatter/reduce_scatter.h"
#include "coll/core/select/coll_config.h"
#include "coll/core/engine/tag.h"

#include <check.h>
#include "test/unit/support/check_main.h"
#include <stdint.h>
#include <stdlib.h>
#include <string.h>

#define SENTINEL 0x5A
#define PRIME    65521u

typedef enum { OP_SUM_U32, OP_MATMUL } op_kind_t;

typedef struct rs_case {
    int         alg;        /* LOOM_REDUCE_SCATTER_AUTO: through the plan */
    int         p;
    int         uneven;     /* counts with zeros (reduce_scatter), else _block */
    size_t      count;      /* per block, or the mean */
    op_kind_t   op;
    int         in_place;
    size_t      seg_bytes;
    int         depth;
    unsigned    seed;
} rs_case_t;

static loom_coll_config_t g_cfg;

static loom_status_t plan_auto(const loom_coll_args_t *args, loom_team_t *team,
                               loom_sched_t **sched_p)
{
    return loom_coll_plan(&loom_reduce_scatter_collective, args, team, &g_cfg, sched_p, NULL);
}

/* One element is a 2x2 matrix mod PRIME, row-major; dst = src * dst, src
 * being the lower ranks' product (args.h's order). */
typedef struct mat { uint32_t a, b, c, d; } mat_t;

static void matmul(const void *src, void *dst, size_t count, void *ctx)
{
    const mat_t *x = src;
    mat_t *y = dst, m;
    size_t i;

    (void)ctx;
    for (i = 0; i < count; ++i) {
        m.a = (uint32_t)(((uint64_t)x[i].a * y[i].a + (uint64_t)x[i].b * y[i].c) % PRIME);
        m.b = (uint32_t)(((uint64_t)x[i].a * y[i].b + (uint64_t)x[i].b * y[i].d) % PRIME);
        m.c = (uint32_t)(((uint64_t)x[i].c * y[i].a + (uint64_t)x[i].d * y[i].c) % PRIME);
        m.d = (uint32_t)(((uint64_t)x[i].c * y[i].b + (uint64_t)x[i].d * y[i].d) % PRIME);
        y[i] = m;
    }
}

static uint32_t value(int r, size_t i, unsigned seed)
{
    return (uint32_t)((i * 2654435761u + (unsigned)r * 40503u + seed) * 2246822519u);
}

static void fill(const rs_case_t *t, int r, void *buf, size_t n)
{
    size_t i;

    for (i = 0; i < n; ++i) {
        if (t->op == OP_SUM_U32) {
            ((uint32_t *)buf)[i] = value(r, i, t->seed);
        } else {
            /* Random invertible-ish matrices: products of them do not commute. */
            ((mat_t *)buf)[i] = (mat_t){ value(r, 4 * i, t->seed) % PRIME,
                                         value(r, 4 * i + 1, t->seed) % PRIME,
                                         value(r, 4 * i + 2, t->seed) % PRIME,
                                         value(r, 4 * i + 3, t->seed) % PRIME };
        }
    }
}

static void run_case(const rs_case_t *t)
{
    int p = t->p, r;
    size_t es = t->op == OP_SUM_U32 ? 4 : sizeof(mat_t);
    size_t *counts = malloc(sizeof(size_t) * (size_t)p), *offs = malloc(sizeof(size_t) * (size_t)p);
    loom_coll_args_t *args = calloc((size_t)p, sizeof(*args));
    unsigned char **in = calloc((size_t)p, sizeof(*in));
    unsigned char **out = calloc((size_t)p, sizeof(*out));
    unsigned char *expect, *tmp;
    loom_reduce_fn_t fn = t->op == OP_SUM_U32 ? harness_sum_u32 : matmul;
    loom_plan_fn_t plan = t->alg == LOOM_REDUCE_SCATTER_AUTO
                              ? plan_auto : loom_reduce_scatter_algorithms[t->alg].plan;
    size_t total = 0, tbytes, obytes, i;
    loom_status_t st;
    harness_t h;

    srand(t->seed);
    for (r = 0; r < p; ++r) {
        counts[r] = !t->uneven ? t->count
                    : rand() % 3 == 0 ? 0 : (size_t)rand() % (2 * t->count + 1);
        offs[r] = total;
        total += counts[r];
    }
    tbytes = total * es;
    /* The reference: inputs combined in rank order, expect = in0 op in1 ... */
    expect = malloc(tbytes + 1);
    tmp = malloc(tbytes + 1);
    for (r = 0; r < p; ++r) {
        in[r] = malloc(tbytes + 1);
        fill(t, r, in[r], total);
        if (r == 0) {
            memcpy(expect, in[0], tbytes);
        } else {
            memcpy(tmp, in[r], tbytes);
            fn(expect, tmp, total, NULL);
            memcpy(expect, tmp, tbytes);
        }
    }
    for (r = 0; r < p; ++r) {
        obytes = t->in_place ? tbytes + es : (counts[r] + 1) * es;
        out[r] = malloc(obytes);
        memset(out[r], SENTINEL, obytes);
        if (t->in_place) {
            memcpy(out[r], in[r], tbytes);
        }
        args[r] = (loom_coll_args_t){
            .sendbuf = t->in_place ? NULL : in[r], .recvbuf = out[r],
            .count = t->uneven ? 0 : t->count, .elem_size = es, .in_place = t->in_place,
            .counts = t->uneven ? counts : NULL,
            .op = { .fn = fn, .commutative = t->op == OP_SUM_U32 },
            .seg_bytes = t->seg_bytes, .depth = t->depth,
        };
    }

    harness_init(&h, p);
    st = harness_run(&h, plan, args, t->seed);
    ck_assert_msg(st == LOOM_OK, "%s p=%d uneven=%d count=%zu op=%d in_place=%d seg=%zu: %s",
                  loom_reduce_scatter_alg_names[t->alg], p, t->uneven, t->count, t->op,
                  t->in_place, t->seg_bytes, loom_status_string(st));
    for (r = 0; r < p; ++r) {
        /* Plain comparisons in loops: every ck_assert that passes still
         * costs Check a write to its log. */
        for (i = 0; i < counts[r] * es; ++i) {
            if (out[r][i] == expect[offs[r] * es + i]) {
                continue;
            }
            ck_abort_msg("%s p=%d uneven=%d count=%zu op=%d in_place=%d seg=%zu depth=%d: "
                         "rank %d byte %zu of %zu is wrong",
                         loom_reduce_scatter_alg_names[t->alg], p, t->uneven, t->count,
                         t->op, t->in_place, t->seg_bytes, t->depth, r, i, counts[r] * es);
        }
        if (t->in_place) {
            /* Past the result the buffer keeps the rank's input, as MPI's
             * other implementations leave it, and past that the sentinel. */
            for (i = counts[r] * es; i < tbytes; ++i) {
                if (out[r][i] != in[r][i]) {
                    ck_abort_msg("%s p=%d uneven=%d count=%zu in place: rank %d byte %zu "
                                 "past its result changed", loom_reduce_scatter_alg_names[t->alg],
                                 p, t->uneven, t->count, r, i);
                }
            }
            for (i = 0; i < es; ++i) {
                ck_assert_msg(out[r][tbytes + i] == SENTINEL,
                              "rank %d: byte %zu after the buffer written", r, i);
            }
        } else {
            for (i = 0; i < es; ++i) {   /* nothing written past the result */
                if (out[r][counts[r] * es + i] != SENTINEL) {
                    ck_abort_msg("rank %d: byte %zu after the result written", r, i);
                }
            }
            memcpy(tmp, in[r], tbytes);
            fill(t, r, in[r], total);
            ck_assert(memcmp(tmp, in[r], tbytes) == 0);   /* input untouched */
        }
    }
    ck_assert_int_eq(loom_loopback_pending(h.lb), 0);
    harness_fini(&h);

    for (r = 0; r < p; ++r) {
        free(in[r]);
        free(out[r]);
    }
    free(in);
    free(out);
    free(expect);
    free(tmp);
    free(args);
    free(counts);
    free(offs);
}

/* Both shapes, in place and not, with each op the algorithm can take. */
static void run_all(int alg, int p, size_t count, size_t seg, int depth, unsigned seed)
{
    int uneven, in_place, op;

    for (op = OP_SUM_U32; op <= OP_MATMUL; ++op) {
        if (op == OP_MATMUL && alg != LOOM_REDUCE_SCATTER_AUTO &&
            !loom_reduce_scatter_algorithms[alg].noncommutative) {
            continue;
        }
        for (uneven = 0; uneven <= 1; ++uneven) {
            for (in_place = 0; in_place <= 1; ++in_place) {
                run_case(&(rs_case_t){ .alg = alg, .p = p, .uneven = uneven,
                                       .count = count, .op = (op_kind_t)op,
                                       .in_place = in_place, .seg_bytes = seg,
                                       .depth = depth,
                                       .seed = seed + (unsigned)(4 * op + 2 * uneven +
                                                                 in_place) });
            }
        }
    }
}

START_TEST(test_every_rank_count)
{
    int p = _i, alg;

    for (alg = 1; alg < LOOM_REDUCE_SCATTER_ALG_COUNT; ++alg) {
        run_all(alg, p, 0, 0, 0, 10);
        run_all(alg, p, 1, 0, 0, 20);
        if (p > 2) {
            run_all(alg, p, (size_t)p - 1, 0, 0, 30);   /* p-1 per block */
        }
        run_all(alg, p, 2 * (size_t)p + 1, 0, 0, 40);   /* odd */
        run_all(alg, p, 37, 16, 2, 50);                 /* segmented, shallow */
    }
}
END_TEST

START_TEST(test_large_rank_counts)
{
    static const int ps[] = { 64, 100 };
    int alg, p = ps[_i];

    for (alg = 1; alg < LOOM_REDUCE_SCATTER_ALG_COUNT; ++alg) {
        run_all(alg, p, 3, 0, 0, 60);
        run_all(alg, p, 41, 64, 3, 70);
    }
}
END_TEST

/* Large vectors, random segments and depths. */
START_TEST(test_large_counts)
{
    unsigned seed = 100u + (unsigned)_i;
    int alg, p;

    srand(seed);
    for (alg = 1; alg < LOOM_REDUCE_SCATTER_ALG_COUNT; ++alg) {
        p = 2 + rand() % 9;
        run_case(&(rs_case_t){ .alg = alg, .p = p, .uneven = rand() % 2,
                               .count = 5000 + (size_t)(rand() % 5000),
                               .op = OP_SUM_U32, .in_place = rand() % 2,
                               .seg_bytes = (size_t)(rand() % 2) * 1024 * (size_t)(1 + rand() % 12),
                               .depth = rand() % 5, .seed = seed });
    }
    /* Rank order on a long vector. */
    run_case(&(rs_case_t){ .alg = LOOM_REDUCE_SCATTER_HALVING, .p = 13, .uneven = 1,
                           .count = 3000, .op = OP_MATMUL, .in_place = _i % 2,
                           .seed = seed });
}
END_TEST

/* Through loom_reduce_scatter_plan: the cost model's choice, and a forced
 * ring that must hand a non-commutative op to recursive halving. */
START_TEST(test_plan_auto)
{
    static const size_t counts[] = { 0, 1, 5, 300, 40000 };
    size_t k;
    int p;

    ck_assert_int_eq(loom_coll_config_init(&g_cfg), LOOM_OK);
    for (k = 0; k < sizeof(counts) / sizeof(counts[0]); ++k) {
        for (p = 1; p <= 9; p += 4) {
            run_all(LOOM_REDUCE_SCATTER_AUTO, p, counts[k], 0, 0, 80 + (unsigned)k);
        }
    }
    g_cfg.reduce_scatter_algorithm = LOOM_REDUCE_SCATTER_RING;
    g_cfg.reduce_scatter_segment = 64;
    run_all(LOOM_REDUCE_SCATTER_AUTO, 6, 100, 0, 0, 90);
}
END_TEST

START_TEST(test_ring_refuses_noncommutative)
{
    uint32_t x[4] = { 0 }, y[4];
    loom_coll_args_t args = { .sendbuf = x, .recvbuf = y, .count = 1, .elem_size = 16,
                              .op = { .fn = matmul, .commutative = 0 } };
    loom_sched_t *sched = NULL;
    harness_t h;

    harness_init(&h, 3);
    ck_assert_int_eq(loom_reduce_scatter_ring_plan(&args, h.teams[0], &sched),
                     LOOM_ERR_UNSUPPORTED);
    ck_assert_ptr_null(sched);
    harness_fini(&h);
}
END_TEST

/* The ring's volume: p-1 blocks out, p-1 in. */
START_TEST(test_ring_volume)
{
    enum { P = 6, N = 11 };
    uint32_t in[P][P * N], out[P][N];
    loom_coll_args_t args[P];
    harness_t h;
    int r;

    for (r = 0; r < P; ++r) {
        memset(in[r], r, sizeof(in[r]));
        args[r] = (loom_coll_args_t){ .sendbuf = in[r], .recvbuf = out[r], .count = N,
                                      .elem_size = 4,
                                      .op = { .fn = harness_sum_u32, .commutative = 1 } };
    }
    harness_init(&h, P);
    ck_assert_int_eq(harness_run(&h, loom_reduce_scatter_ring_plan, args, 3), LOOM_OK);
    for (r = 0; r < P; ++r) {
        ck_assert_uint_eq(loom_loopback_bytes_sent(h.lb, r), (P - 1) * N * 4);
    }
    harness_fini(&h);
}
END_TEST

START_TEST(test_tag_budget)
{
    static uint32_t buf[3 * 300000];
    loom_coll_args_t args = { .recvbuf = buf, .count = 300000, .elem_size = 4,
                              .in_place = 1, .seg_bytes = 4, .depth = 2,
                              .op = { .fn = harness_sum_u32, .commutative = 1 } };
    loom_sched_t *sched;
    harness_t h;
    int i;

    harness_init(&h, 3);
    ck_assert_int_eq(loom_reduce_scatter_ring_plan(&args, h.teams[1], &sched), LOOM_OK);
    for (i = 0; i < sched->nsteps; ++i) {
        ck_assert_uint_le(sched->steps[i].desc.tag_step, LOOM_TAG_MAX_STEPS);
    }
    loom_sched_destroy(sched);
    harness_fini(&h);
}
END_TEST

START_TEST(test_select)
{
    loom_coll_config_t cfg;
    loom_choice_t ch, again;
    size_t bytes;
    int p, comm;

    ck_assert_int_eq(loom_coll_config_init(&cfg), LOOM_OK);
    ck_assert_int_eq(cfg.reduce_scatter_algorithm, LOOM_REDUCE_SCATTER_AUTO);
    ck_assert_uint_eq(cfg.reduce_scatter_segment, 0);
    /* (At 2, 3 and 5 ranks the ring takes no more rounds than halving with
     * its fold, and copies less: it wins at every size there.) */
    for (p = 4; p <= 1024; p = p * 2 + 1) {
        /* Small: recursive halving; large: the pipelined ring. */
        loom_reduce_scatter_select(&cfg, p, 4 * (size_t)p, 1, &ch);
        ck_assert_int_eq(ch.alg, LOOM_REDUCE_SCATTER_HALVING);
        ck_assert_int_eq(ch.forced, 0);
        ck_assert(ch.cost_s > 0 && ch.next_alg == LOOM_REDUCE_SCATTER_RING &&
                  ch.next_cost_s >= ch.cost_s);
        loom_reduce_scatter_select(&cfg, p, (size_t)p << 22, 1, &ch);
        ck_assert_int_eq(ch.alg, LOOM_REDUCE_SCATTER_RING);
        ck_assert_uint_gt(ch.seg_bytes, 0);
        ck_assert_int_gt(ch.depth, 0);
    }
    /* Non-commutative: rank order at every size; the same answer twice. */
    for (p = 1; p <= 200; p += 13) {
        for (bytes = 0; bytes < (1u << 30); bytes = bytes * 3 + 1) {
            for (comm = 0; comm <= 1; ++comm) {
                loom_reduce_scatter_select(&cfg, p, bytes, comm, &ch);
                loom_reduce_scatter_select(&cfg, p, bytes, comm, &again);
                ck_assert(ch.alg == again.alg && ch.seg_bytes == again.seg_bytes &&
                          ch.depth == again.depth && ch.forced == again.forced &&
                          ch.cost_s == again.cost_s && ch.next_alg == again.next_alg);
                ck_assert(comm || loom_reduce_scatter_algorithms[ch.alg].noncommutative);
                ck_assert_int_ne(ch.alg, LOOM_REDUCE_SCATTER_HIER);   /* forced only */
            }
        }
    }
    /* Forced: taken as given, except where rank order cannot be kept. */
    cfg.reduce_scatter_algorithm = LOOM_REDUCE_SCATTER_HIER;
    loom_reduce_scatter_select(&cfg, 16, 1u << 20, 1, &ch);
    ck_assert_int_eq(ch.alg, LOOM_REDUCE_SCATTER_HIER);
    loom_reduce_scatter_select(&cfg, 16, 1u << 20, 0, &ch);
    ck_assert_int_eq(ch.alg, LOOM_REDUCE_SCATTER_HALVING);
    cfg.reduce_scatter_algorithm = LOOM_REDUCE_SCATTER_RING;
    cfg.reduce_scatter_segment = 12345;
    loom_reduce_scatter_select(&cfg, 16, 8, 1, &ch);
    ck_assert_int_eq(ch.alg, LOOM_REDUCE_SCATTER_RING);
    ck_assert_int_eq(ch.forced, 1);
    ck_assert_uint_eq(ch.seg_bytes, 12345);
    loom_reduce_scatter_select(&cfg, 16, 8, 0, &ch);
    ck_assert_int_eq(ch.alg, LOOM_REDUCE_SCATTER_HALVING);
    cfg.reduce_scatter_algorithm = LOOM_REDUCE_SCATTER_HALVING;
    loom_reduce_scatter_select(&cfg, 16, 1u << 30, 1, &ch);
    ck_assert_int_eq(ch.alg, LOOM_REDUCE_SCATTER_HALVING);
    ck_assert_uint_eq(ch.seg_bytes, 0);
}
END_TEST

START_TEST(test_names_and_config)
{
    loom_coll_config_t cfg;
    loom_coll_args_t args = { .count = 10, .elem_size = 8 };
    loom_sched_t *sched = NULL;
    harness_t h;
    int i;

    ck_assert_str_eq(loom_reduce_scatter_alg_names[LOOM_REDUCE_SCATTER_AUTO], "auto");
    for (i = 1; i < LOOM_REDUCE_SCATTER_ALG_COUNT; ++i) {
        ck_assert_str_eq(loom_reduce_scatter_alg_names[i],
                         loom_reduce_scatter_algorithms[i].name);
    }
    ck_assert_ptr_null(loom_reduce_scatter_alg_names[LOOM_REDUCE_SCATTER_ALG_COUNT]);
    ck_assert_int_eq(loom_coll_config_init(&cfg), LOOM_OK);
    ck_assert_int_eq(loom_config_set(loom_coll_config_table, &cfg, "reduce_scatter_algorithm",
                                     "recursive_halving"), LOOM_OK);
    ck_assert_int_eq(cfg.reduce_scatter_algorithm, LOOM_REDUCE_SCATTER_HALVING);
    ck_assert_int_eq(loom_config_set(loom_coll_config_table, &cfg, "reduce_scatter_algorithm",
                                     "hierarchical"), LOOM_OK);
    ck_assert_int_eq(cfg.reduce_scatter_algorithm, LOOM_REDUCE_SCATTER_HIER);
    ck_assert_int_eq(loom_config_set(loom_coll_config_table, &cfg, "reduce_scatter_segment",
                                     "1m"), LOOM_OK);
    ck_assert_uint_eq(cfg.reduce_scatter_segment, 1u << 20);

    harness_init(&h, 2);
    cfg.reduce_scatter_algorithm = LOOM_REDUCE_SCATTER_ALG_COUNT;
    loom_log_set_level((loom_log_level_t)-1);
    ck_assert_int_eq(loom_config_set(loom_coll_config_table, &cfg, "reduce_scatter_algorithm",
                                     "bogus"), LOOM_ERR_INVALID_PARAM);
    ck_assert_int_eq(loom_coll_plan(&loom_reduce_scatter_collective, &args, h.teams[0], &cfg,
                                    &sched, NULL),
                     LOOM_ERR_INVALID_PARAM);
    loom_log_set_level(LOOM_LOG_WARN);
    ck_assert_ptr_null(sched);
    harness_fini(&h);
}
END_TEST

int main(void)
{
    Suite *s = suite_create("reduce_scatter");
    TCase *tc = tcase_create("reduce_scatter");

    tcase_set_timeout(tc, 300);
    tcase_add_loop_test(tc, test_every_rank_count, 1, 34);
    tcase_add_loop_test(tc, test_large_rank_counts, 0, 2);
    tcase_add_loop_test(tc, test_large_counts, 0, 4);
    tcase_add_test(tc, test_plan_auto);
    tcase_add_test(tc, test_ring_refuses_noncommutative);
    tcase_add_test(tc, test_ring_volume);
    tcase_add_test(tc, test_tag_budget);
    tcase_add_test(tc, test_select);
    tcase_add_test(tc, test_names_and_config);
    suite_add_tcase(s, tc);
    return loom_check_run(s);
}
