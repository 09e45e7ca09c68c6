/* Split-and-reduce's cost model (loom_sparse_split_model): its bytes at
 * 4096 ranks against Ok-Topk's bounds, and the plan the simulator runs
 * sending exactly what the model says, on both arms. */
#include "coll/core/sparse/sparse.h"
#include "test/unit/support/check_main.h"
#include "test/unit/support/loopback_harness.h"

#include <check.h>
#include <stddef.h>

/* The model: at 4096 ranks, 16M floats, 0.1% density, over 2k(p-1)/p
 * pairs (the pairs, the padded slots, the counts and reports) and under
 * 6k(p-1)/p; two alphas for the all-to-alls and ceil(log2 p) for each
 * Bruck, far under a ring's p-1. */
START_TEST(test_model)
{
    loom_cost_t m = { .alpha = 2e-6, .beta = 1e-10, .gamma = 1e-10 };
    size_t n = (size_t)16 << 20, k = n / 1000, bytes;
    double t = loom_sparse_split_model(&m, 4096, n, 4, k, &bytes);

    ck_assert_uint_gt(bytes, 2 * k * 4095 / 4096 * 8);
    ck_assert_uint_lt(bytes, 6 * k * 4095 / 4096 * 8);
    ck_assert(t > (2 + 2 * 12) * m.alpha);
    ck_assert(t < (2 + 2 * 12) * m.alpha + (double)bytes * m.beta +
                      (double)(k * 8 + n * 4) * m.gamma + 1e-12);
    /* 16 MiB of floats at 0.1%: k = 4195, about one pair an owner, where
     * the fixed bytes a peer (counts, reports) weigh most; still under. */
    k = 4195;
    (void)loom_sparse_split_model(&m, 4096, n / 4, 4, k, &bytes);
    ck_assert_uint_le(bytes, 6 * k * 4095 / 4096 * 8);
    ck_assert(loom_sparse_split_model(&m, 1, n, 4, k, &bytes) > 0);
    ck_assert_uint_eq(bytes, 0);
}
END_TEST

static loom_status_t never_select(void *ctx, void *block, size_t *k_p)
{
    (void)ctx;
    (void)block;
    (void)k_p;
    return LOOM_ERR_UNSUPPORTED;
}

/* A modeled plan (the simulator's) sets what every rank sends before it
 * runs; rank 0's is what the model says, on the sparse arm and, where
 * the slots outweigh the vector and latency costs nothing, on the dense
 * one. */
START_TEST(test_model_matches_plan)
{
    static const size_t counts[] = { 16000, 160 };
    loom_cost_t m = { .alpha = 2e-6, .beta = 1e-10, .gamma = 1e-10 };
    float buf[16000];
    const int p = 16;
    size_t ci, bytes, k = 160;
    loom_sched_t *sched;
    harness_t h;

    harness_init(&h, p);
    for (ci = 0; ci < 2; ++ci) {
        loom_sparse_args_t sp = { .select = never_select, .kmax = k, .cost = m,
                                  .modeled = 1, .model_k = k };
        loom_coll_args_t a = { .recvbuf = buf, .count = counts[ci], .elem_size = 4,
                               .op = { .fn = harness_sum_float, .commutative = 1 },
                               .sparse = &sp, .in_place = 1 };
        const loom_sparse_outcome_t *out;

        m.alpha = ci == 1 ? 0 : 2e-6;
        sp.cost = m;
        ck_assert_int_eq(loom_sparse_split_plan(&a, h.teams[0], &sched), LOOM_OK);
        out = &((const loom_sparse_head_t *)sched->scratch)->out;
        loom_sparse_split_model(&m, p, counts[ci], 4, k, &bytes);
        ck_assert_uint_eq(out->bytes_sent, bytes);
        ck_assert_int_eq(out->dense, ci == 1);
        ck_assert_int_eq(loom_sched_taken_arm(sched),
                         ci == 1 ? LOOM_SPARSE_PATH_DENSE : LOOM_SPARSE_PATH_SPARSE);
        loom_sched_destroy(sched);
    }
    harness_fini(&h);
}
END_TEST

int main(void)
{
    Suite *s = suite_create("sparse_split_model");
    TCase *tc = tcase_create("model");

    tcase_add_test(tc, test_model);
    tcase_add_test(tc, test_model_matches_plan);
    suite_add_tcase(s, tc);
    return loom_check_run(s);
}
