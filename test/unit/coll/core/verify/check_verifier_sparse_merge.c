/*
 * The verifier (verifier.h) on the sparse allreduce's merge
 * (coll/core/sparse/sparse_merge.c): its compute steps declare what they
 * read and write (sched.h), so the verifier checks every header, length
 * and payload against the messages in flight.  Every rank must end with
 * the exact dense sum of every rank's selection, the same bits: at 1 to
 * 9, 12, 16 and 17 ranks (folds and powers of two), random supports, all
 * empty and all full, both forced paths and the model's choice, in place
 * or not, under random rank orders, in both delivery orders.
 */
#include "test/unit/support/verifier.h"

#include <check.h>
#include "test/unit/support/check_main.h"

static const size_t counts[] = { 1, 4, 13 };
static const int rank_counts[] = { 1, 2, 3, 4, 5, 6, 7, 8, 9, 12, 16, 17 };

static void verify_one(int p, size_t count, const loom_verify_sparse_t *sp, uint64_t seed)
{
    loom_verify_params_t pa = {
        .name = "sparse merge", .coll = &loom_verify_sparse_allreduce,
        .plan = loom_sparse_merge_plan, .nranks = p, .count = count,
        .op = LOOM_VERIFY_OP_SUM, .seed = seed, .sparse = sp,
        /* The seed's low bits pick the order, the rank order and the
         * buffers, so that every combination meets every case. */
        .order = seed & 1 ? LOOM_VERIFY_ORDER_LATE_DELIVERY : LOOM_VERIFY_ORDER_UNIFORM,
        .rank_permute = (seed >> 1) & 1,
        .in_place = (seed >> 2) & 1,
    };
    loom_verify_report_t rep;

    ck_assert_int_eq(loom_verify_run(&pa, &rep), LOOM_OK);
    ck_assert_msg(rep.verdict == LOOM_VERIFY_PASS, "p %d count %zu support %d kmax %zu path %d: "
                  "%s: %s", p, count, (int)sp->support, sp->kmax, (int)sp->path,
                  loom_verify_verdict_name(rep.verdict), rep.message);
}

static void sweep(loom_verify_support_t support, int kmax_third, int nseeds)
{
    loom_verify_sparse_t sp = { .support = support };
    uint64_t seed;
    size_t ci;
    int pi, p, path;

    for (pi = 0; pi < (int)(sizeof(rank_counts) / sizeof(rank_counts[0])); ++pi) {
        p = rank_counts[pi];
        for (ci = 0; ci < sizeof(counts) / sizeof(counts[0]); ++ci) {
            for (path = LOOM_SPARSE_PATH_MODEL; path <= LOOM_SPARSE_PATH_DENSE; ++path) {
                sp.path = (loom_sparse_path_t)path;
                sp.kmax = kmax_third ? 2 * counts[ci] / 3 + 1 : 0;
                for (seed = 0; seed < (uint64_t)nseeds; ++seed) {
                    verify_one(p, counts[ci], &sp, seed * 0x9E3779B9u + (uint64_t)p);
                }
            }
        }
    }
}

START_TEST(test_random_supports)
{
    sweep(LOOM_VERIFY_SUPPORT_RANDOM, 0, 32);
    sweep(LOOM_VERIFY_SUPPORT_RANDOM, 1, 32);
}
END_TEST

START_TEST(test_all_empty)
{
    sweep(LOOM_VERIFY_SUPPORT_EMPTY, 0, 8);
}
END_TEST

START_TEST(test_all_full)
{
    sweep(LOOM_VERIFY_SUPPORT_FULL, 0, 8);
}
END_TEST

int main(void)
{
    Suite *s = suite_create("verifier_sparse_merge");
    TCase *tc = tcase_create("merge");

    tcase_set_timeout(tc, 120);
    tcase_add_test(tc, test_random_supports);
    tcase_add_test(tc, test_all_empty);
    tcase_add_test(tc, test_all_full);
    suite_add_tcase(s, tc);
    return loom_check_run(s);
}
