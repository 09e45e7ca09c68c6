/*
 * Reproducible allreduce, reduce and reduce_scatter: with values chosen so
 * that floating addition is visibly not associative (magnitudes from 1e-3
 * to 1e16, both signs), every result must be exactly the canonical
 * combination -- adjacent partials paired level by level over rank ids --
 * bitwise, whatever the arrival order (shuffled by the harness seed),
 * segment setting, forced algorithm, root, block sizes or in-place mode;
 * reduce's and reduce_scatter's results must equal allreduce's bit for
 * bit; and the plan must be what the selections pick when the arguments
 * ask for reproducibility.
 */
#include "test/unit/support/loopback_harness.h"
#include "coll/core/reduce/reduce.h"
#include "coll/core/reduce_scatter/reduce_scatter.h"

#include <check.h>
#include "test/unit/support/check_main.h"
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
    loom_choice_t choice;
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
    ck_assert_int_eq(loom_coll_config_init(&cfg), LOOM_OK);
    ck_assert_int_eq(loom_coll_plan(&loom_allreduce_collective, &args[0], h.teams[0], &cfg, &probe,
                                    &choice), LOOM_OK);
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

/* Bitwise comparison of n doubles, with the first difference named. */
static void same_bits(const double *got, const double *want, size_t n, const char *what,
                      int p, int r)
{
    size_t i;

    for (i = 0; i < n; ++i) {
        ck_assert_msg(memcmp(&got[i], &want[i], sizeof(double)) == 0,
                      "%s p=%d rank %d element %zu: %.17g, allreduce %.17g", what, p, r, i,
                      got[i], want[i]);
    }
}

/* Whatever algorithm or segment the settings force, a reproducible call
 * gets the canonical one. */
static void check_selection(harness_t *h, const loom_coll_args_t *args)
{
    static const size_t segs[] = { 0, 8, 4096 };
    loom_choice_t rsc;
    loom_choice_t rc;
    loom_coll_config_t cfg;
    loom_coll_args_t a = *args;
    loom_sched_t *probe;
    size_t s;
    int alg;

    ck_assert_int_eq(loom_coll_config_init(&cfg), LOOM_OK);
    for (s = 0; s < sizeof(segs) / sizeof(segs[0]); ++s) {
        cfg.reduce_segment = segs[s];
        cfg.reduce_scatter_segment = segs[s];
        for (alg = 0; alg < LOOM_REDUCE_ALG_COUNT; ++alg) {
            cfg.reduce_algorithm = alg;
            ck_assert_int_eq(loom_coll_plan(&loom_reduce_collective, &a, h->teams[0], &cfg, &probe,
                                            &rc), LOOM_OK);
            ck_assert_int_eq(rc.alg, LOOM_REDUCE_REPRODUCIBLE);
            loom_sched_destroy(probe);
        }
        for (alg = 0; alg < LOOM_REDUCE_SCATTER_ALG_COUNT; ++alg) {
            cfg.reduce_scatter_algorithm = alg;
            ck_assert_int_eq(loom_coll_plan(&loom_reduce_scatter_collective, &a, h->teams[0], &cfg,
                                            &probe, &rsc),
                             LOOM_OK);
            ck_assert_int_eq(rsc.alg, LOOM_REDUCE_SCATTER_REPRODUCIBLE);
            loom_sched_destroy(probe);
        }
    }
}

/*
 * One vector of p * block elements per rank, reduced four ways: allreduce
 * (checked against the independent canonical order), reduce to root, and
 * reduce_scatter in even blocks (the _block form) and in uneven ones
 * (block q gets q elements more than block 0, then the remainder is taken
 * from the last block); the last three must equal the first bitwise.
 */
static void run_all(int p, size_t block, int in_place, int root, unsigned seed)
{
    const size_t n = (size_t)p * block;
    loom_coll_args_t *args = calloc((size_t)p, sizeof(*args));
    double **in = calloc((size_t)p, sizeof(*in)), **ar = calloc((size_t)p, sizeof(*ar));
    double **out = calloc((size_t)p, sizeof(*out));
    size_t *counts = calloc((size_t)p, sizeof(*counts)), off, i, given = 0;
    loom_reduce_op_t sum = { .fn = harness_sum_double, .commutative = 1 };
    double expect;
    harness_t h;
    int r, q;

    for (q = 0; q < p; ++q) {
        counts[q] = (size_t)q * 2 + (block & 1);
        if (given + counts[q] > n || q == p - 1) {
            counts[q] = n - given;
        }
        given += counts[q];
    }
    for (r = 0; r < p; ++r) {
        in[r] = malloc(sizeof(double) * (n + 1));
        ar[r] = malloc(sizeof(double) * (n + 1));
        out[r] = malloc(sizeof(double) * (n + 1));
        for (i = 0; i < n; ++i) {
            in[r][i] = value(r, i);
        }
        args[r] = (loom_coll_args_t){ .sendbuf = in[r], .recvbuf = ar[r], .count = n,
                                      .elem_size = sizeof(double), .op = sum,
                                      .reproducible = 1, .root = root };
    }

    /* Allreduce: the reference. */
    harness_init(&h, p);
    ck_assert_int_eq(harness_run(&h, loom_allreduce_canonical_plan, args, seed), LOOM_OK);
    for (i = 0; i < n; ++i) {
        expect = canonical(p, i);
        ck_assert_msg(memcmp(&ar[0][i], &expect, sizeof(double)) == 0,
                      "allreduce p=%d element %zu: %.17g, canonical %.17g", p, i, ar[0][i],
                      expect);
    }
    check_selection(&h, &args[0]);
    harness_fini(&h);

    /* Reduce: only the root's buffer is written (the others pass NULL). */
    for (r = 0; r < p; ++r) {
        memcpy(out[r], in[r], sizeof(double) * n);
        args[r].recvbuf = r == root ? out[r] : NULL;
        args[r].in_place = in_place && r == root;
        args[r].sendbuf = args[r].in_place ? NULL : in[r];
    }
    harness_init(&h, p);
    ck_assert_int_eq(harness_run(&h, loom_reduce_canonical_plan, args, seed + 1), LOOM_OK);
    ck_assert_int_eq(loom_loopback_pending(h.lb), 0);
    harness_fini(&h);
    same_bits(out[root], ar[0], n, "reduce", p, root);

    /* Reduce_scatter_block, then reduce_scatter with uneven blocks. */
    for (q = 0; q < 2; ++q) {
        for (r = 0; r < p; ++r) {
            memcpy(out[r], in[r], sizeof(double) * n);
            args[r] = (loom_coll_args_t){ .sendbuf = in_place ? NULL : in[r],
                                          .recvbuf = out[r], .in_place = in_place,
                                          .count = block, .counts = q ? counts : NULL,
                                          .elem_size = sizeof(double), .op = sum,
                                          .reproducible = 1 };
        }
        harness_init(&h, p);
        ck_assert_int_eq(harness_run(&h, loom_reduce_scatter_canonical_plan, args, seed + 2),
                         LOOM_OK);
        ck_assert_int_eq(loom_loopback_pending(h.lb), 0);
        harness_fini(&h);
        for (r = 0, off = 0; r < p; off += q ? counts[r] : block, ++r) {
            same_bits(out[r], ar[0] + off, q ? counts[r] : block,
                      q ? "reduce_scatter" : "reduce_scatter_block", p, r);
        }
    }

    for (r = 0; r < p; ++r) {
        for (i = 0; i < n; ++i) {
            ck_assert(in[r][i] == value(r, i));
        }
        free(in[r]);
        free(ar[r]);
        free(out[r]);
    }
    free(in);
    free(ar);
    free(out);
    free(counts);
    free(args);
}

START_TEST(test_reduce_and_scatter_equal_allreduce)
{
    static const size_t blocks[] = { 0, 1, 3, 40 };
    int p = _i;
    size_t b;

    for (b = 0; b < sizeof(blocks) / sizeof(blocks[0]); ++b) {
        run_all(p, blocks[b], (int)(b & 1), (int)(b * 5) % p, (unsigned)(p * 13 + b));
        run_all(p, blocks[b], !(b & 1), p - 1, (unsigned)(p * 17 + b));
    }
}
END_TEST

/* Arrival order and root must not matter: many shuffles, one answer. */
START_TEST(test_reduce_any_arrival_order)
{
    unsigned seed;

    for (seed = 1; seed < 16; ++seed) {
        run_all(7, 29, seed & 1, (int)(seed % 7), seed * 2654435761u);
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
    tcase_add_loop_test(tc, test_reduce_and_scatter_equal_allreduce, 1, 18);
    tcase_add_test(tc, test_reduce_any_arrival_order);
    suite_add_tcase(s, tc);
    return loom_check_run(s);
}
