/*
 * Reproducible allreduce: with values chosen so that floating addition is
 * visibly not associative (magnitudes from 1e-3 to 1e16, both signs), every
 * rank must hold exactly the canonical combination -- adjacent partials
 * paired level by level over rank ids -- bitwise, whatever the arrival
 * order (shuffled by the harness seed), segment setting or in-place mode;
 * and the plan must be what loom_allreduce_plan picks when the arguments
 * ask for reproducibility.
 */
#include "loopback_harness.h"

#include <check.h>
#include "check_main.h"
#include <stdlib.h>
#include <string.h>

static double value(int r, size_t i)
{
    static const double scale[] = { 1e16, 1.0, -1e16, 3e-3, 7.25, -1e8, 1e-3 };

    return scale[(r * 3 + i) % 7] * (1.0 + (double)((r * 131 + i * 17) % 97) / 97.0);
}

/* The canonical order, computed here independently of the engine. */
static double canonical(int p, size_t i)
{
    double part[512];
    int n, j, k;

    for (j = 0; j < p; ++j) {
        part[j] = value(j, i);
    }
    for (n = p; n > 1; n = k) {
        for (j = 0, k = 0; j < n; j += 2, ++k) {
            part[k] = j + 1 < n ? part[j] + part[j + 1] : part[j];
        }
    }
    return part[0];
}

static void run(int p, size_t count, int in_place, unsigned seed, size_t seg)
{
    loom_coll_config_t cfg;
    loom_coll_args_t *args = calloc((size_t)p, sizeof(*args));
    double **in = calloc((size_t)p, sizeof(*in)), **out = calloc((size_t)p, sizeof(*out));
    loom_allreduce_choice_t choice;
    loom_sched_t *probe;
    double expect;
    harness_t h;
    size_t i;
    int r;

    for (r = 0; r < p; ++r) {
        in[r] = malloc(sizeof(double) * (count + 1));
        out[r] = malloc(sizeof(double) * (count + 1));
        for (i = 0; i < count; ++i) {
            in[r][i] = value(r, i);
            out[r][i] = in_place ? in[r][i] : -1.0;
        }
        args[r] = (loom_coll_args_t){
            .sendbuf = in_place ? NULL : in[r], .recvbuf = out[r], .count = count,
            .elem_size = sizeof(double), .in_place = in_place, .reproducible = 1,
            .op = { .fn = harness_sum_double, .commutative = 1 }, .seg_bytes = seg,
        };
    }
    harness_init(&h, p);
    /* The selection honours the request, whatever the size. */
    ck_assert_int_eq(loom_config_set_defaults(loom_coll_config_table, &cfg), LOOM_OK);
    ck_assert_int_eq(loom_allreduce_plan(&args[0], h.teams[0], &cfg, &probe, &choice), LOOM_OK);
    ck_assert_int_eq(choice.alg, LOOM_ALLREDUCE_REPRODUCIBLE);
    loom_sched_destroy(probe);
    harness_fini(&h);

    harness_init(&h, p);
    ck_assert_int_eq(harness_run(&h, loom_allreduce_canonical_plan, args, seed), LOOM_OK);
    for (r = 0; r < p; ++r) {
        for (i = 0; i < count; ++i) {
            expect = canonical(p, i);
            ck_assert_msg(memcmp(&out[r][i], &expect, sizeof(double)) == 0,
                          "p=%d count=%zu rank %d element %zu: %.17g, canonical %.17g", p,
                          count, r, i, out[r][i], expect);
        }
        if (!in_place) {
            for (i = 0; i < count; ++i) {
                ck_assert(in[r][i] == value(r, i));
            }
        }
        free(in[r]);
        free(out[r]);
    }
    ck_assert_int_eq(loom_loopback_pending(h.lb), 0);
    harness_fini(&h);
    free(in);
    free(out);
    free(args);
}

/* The data must actually expose non-associativity, or the test proves
 * nothing: the canonical tree and a left-to-right sum disagree. */
START_TEST(test_values_are_order_sensitive)
{
    int differ = 0, j;
    size_t i;
    double seq;

    for (i = 0; i < 64; ++i) {
        for (seq = 0, j = 0; j < 7; ++j) {
            seq += value(j, i);
        }
        differ += seq != canonical(7, i);
    }
    ck_assert_int_gt(differ, 8);
}
END_TEST

START_TEST(test_canonical_every_rank_count)
{
    static const size_t counts[] = { 0, 1, 2, 5, 64, 1001 };
    int p = _i;
    size_t c;

    for (c = 0; c < sizeof(counts) / sizeof(counts[0]); ++c) {
        run(p, counts[c], 0, (unsigned)(p * 7 + c), 0);
        run(p, counts[c], 1, (unsigned)(p * 11 + c), 4096);
    }
}
END_TEST

/* Arrival order must not matter: many shuffles, one answer. */
START_TEST(test_canonical_any_arrival_order)
{
    unsigned seed;

    for (seed = 1; seed < 20; ++seed) {
        run(6, 333, seed & 1, seed * 2654435761u, seed * 512);
    }
}
END_TEST

int main(void)
{
    Suite *s = suite_create("reproducible");
    TCase *tc = tcase_create("canonical");

    tcase_set_timeout(tc, 120);
    tcase_add_test(tc, test_values_are_order_sensitive);
    tcase_add_loop_test(tc, test_canonical_every_rank_count, 1, 18);
    tcase_add_test(tc, test_canonical_any_arrival_order);
    suite_add_tcase(s, tc);
    return loom_check_run(s);
}
