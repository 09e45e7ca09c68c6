/*
 * The verifier (verifier.h) on reduce_scatter_block: every algorithm, the
 * reproducible one included, over rank counts 1..40 and a few larger ones,
 * counts 0, 1, odd and larger, in place or not, segment sizes for the
 * segmented ones, steps run in random orders, and the non-commutative
 * fingerprint op for the algorithms that keep rank order: every block must
 * be the rank-order combination of its element of every input.
 */
#include "test/unit/support/verifier.h"

#include <check.h>
#include "test/unit/support/check_main.h"

#define E LOOM_VERIFY_ELEM_SIZE

static const size_t rs_segs[] = { 0, 1 * E, 3 * E, 40 };
#define NSEGS (sizeof(rs_segs) / sizeof(rs_segs[0]))

static const size_t rs_counts[] = { 0, 1, 2, 7, 33 };
#define NCOUNTS (sizeof(rs_counts) / sizeof(rs_counts[0]))

static void rs_case(int alg, int p, size_t count, unsigned which)
{
    const loom_algorithm_t *a = &loom_reduce_scatter_algorithms[alg];
    loom_verify_params_t pa = {
        .name = a->name, .coll = &loom_verify_reduce_scatter_block, .plan = a->plan,
        .nranks = p, .count = count, .in_place = (int)(which % 2),
        .seg_bytes = a->segmented ? rs_segs[(which / 2) % NSEGS] : 0,
        .depth = a->segmented ? (int)(which % 3) + 1 : 0,
        .ranks_per_node = (int)(which % 3),
        .seed = ((uint64_t)p << 32) ^ ((uint64_t)count << 8) ^ which,
        .order = (which / 3) % 2 ? LOOM_VERIFY_ORDER_LATE_DELIVERY
                                 : LOOM_VERIFY_ORDER_UNIFORM,
        .rank_permute = (int)((which / 2) % 2),   /* a random rank order, every other */
    };
    loom_verify_report_t rep;
    int op, last = a->noncommutative ? LOOM_VERIFY_OP_MATRIX : LOOM_VERIFY_OP_SUM;

    for (op = LOOM_VERIFY_OP_SUM; op <= last; ++op) {
        pa.op = (loom_verify_op_t)op;
        ck_assert_int_eq(loom_verify_run(&pa, &rep), LOOM_OK);
        ck_assert_msg(rep.verdict == LOOM_VERIFY_PASS, "reduce_scatter_block %s: %s",
                      loom_verify_verdict_name(rep.verdict), rep.message);
    }
}

/* p = 1..40 in chunks of 8. */
START_TEST(test_sweep)
{
    unsigned which = (unsigned)_i * 1000;
    size_t k;
    int alg, p;

    for (p = _i * 8 + 1; p <= _i * 8 + 8; ++p) {
        for (alg = 1; alg < LOOM_REDUCE_SCATTER_ALG_COUNT; ++alg) {
            for (k = 0; k < NCOUNTS; ++k) {
                rs_case(alg, p, rs_counts[k], which++);
            }
        }
    }
}
END_TEST

START_TEST(test_sweep_large)
{
    static const int ps[] = { 63, 64, 100 };
    int alg;

    for (alg = 1; alg < LOOM_REDUCE_SCATTER_ALG_COUNT; ++alg) {
        rs_case(alg, ps[_i], 1, (unsigned)_i);
        rs_case(alg, ps[_i], 5, (unsigned)_i + 3);
    }
}
END_TEST

int main(void)
{
    Suite *s = suite_create("verifier_reduce_scatter");
    TCase *tc = tcase_create("sweep");

    tcase_set_timeout(tc, 120);
    tcase_add_loop_test(tc, test_sweep, 0, 5);
    tcase_add_loop_test(tc, test_sweep_large, 0, 3);
    suite_add_tcase(s, tc);
    return loom_check_run(s);
}
