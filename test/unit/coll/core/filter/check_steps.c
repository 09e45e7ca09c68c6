/*
 * The step tracker on realistic call sequences: distinct counts, counts
 * repeated within a step (transformer blocks, fusion buffers), a sequence
 * that changes mid-run, no pattern at all, and explicit marks (from the
 * first call, and after learning).  In the
 * steady state every step must give the same positions to the same calls,
 * distinct within the step, and the step number must advance once per
 * step.
 */
#include "coll/core/filter/steps.h"

#include <check.h>
#include "test/unit/support/check_main.h"
#include <stdint.h>
#include <stdlib.h>
#include <string.h>

#define TEST_MAX_CALLS 4096

typedef struct test_run {
    loom_filter_call_t  *calls;
    size_t              n;
    uint64_t            resets;
    size_t              period;
} test_run_t;

/* Runs reps repetitions of the step seq[0..len) through steps. */
static void test_feed(loom_filter_steps_t *steps, const size_t *seq,
                      size_t len, size_t reps, test_run_t *run)
{
    size_t r, j;

    run->calls = realloc(run->calls,
                         (run->n + reps * len) * sizeof(*run->calls));
    ck_assert_ptr_nonnull(run->calls);
    for (r = 0; r < reps; r++) {
        for (j = 0; j < len; j++) {
            ck_assert_int_eq(loom_filter_steps_next(steps, seq[j],
                                                    &run->calls[run->n]),
                             LOOM_OK);
            if (run->n > 0) {
                ck_assert_uint_ge(run->calls[run->n].step,
                                  run->calls[run->n - 1].step);
            }
            run->n++;
        }
    }
    run->resets = loom_filter_steps_resets(steps);
    run->period = loom_filter_steps_period(steps);
}

/* The last reps steps of len calls each: all locked, positions the same
 * every step and distinct within it, the step number one more each step.
 * The tracker's steps may start elsewhere than seq[0] (its frame begins
 * where it learned), so "a step" here is any len calls in a row. */
static void test_steady(const test_run_t *run, size_t len, size_t reps)
{
    size_t first = run->n - reps * len, r, j, i;
    const loom_filter_call_t *c = run->calls + first;

    for (r = 0; r < reps; r++) {
        for (j = 0; j < len; j++) {
            const loom_filter_call_t *call = &c[r * len + j];
            ck_assert_msg(call->locked, "call %zu of step %zu not locked", j, r);
            ck_assert(!call->reset);
            ck_assert_uint_eq(call->step, c[j].step + r);
            ck_assert_uint_eq(call->position, c[j].position);
            for (i = 0; i < j; i++) {
                ck_assert_uint_ne(call->position, c[r * len + i].position);
            }
            ck_assert_uint_lt(call->position, len);
        }
    }
}

static loom_filter_steps_t *test_create(void)
{
    loom_filter_steps_t *steps;

    ck_assert_int_eq(loom_filter_steps_create(TEST_MAX_CALLS, &steps),
                     LOOM_OK);
    return steps;
}

START_TEST(test_distinct_counts)
{
    static const size_t seq[] = { 1000, 20, 5000, 300 };
    loom_filter_steps_t *steps = test_create();
    test_run_t run = { 0 };
    size_t i;

    test_feed(steps, seq, 4, 10, &run);
    /* Learning: the first step and the second up to its last call. */
    for (i = 0; i < 7; i++) {
        ck_assert(!run.calls[i].locked);
    }
    ck_assert(run.calls[7].locked);
    ck_assert_uint_eq(run.calls[7].step, 1);
    ck_assert_uint_eq(run.calls[7].position, 3);
    ck_assert_uint_eq(run.calls[8].step, 2);
    ck_assert_uint_eq(run.calls[8].position, 0);
    test_steady(&run, 4, 8);
    ck_assert_uint_eq(run.resets, 0);
    ck_assert_uint_eq(run.period, 4);
    free(run.calls);
    loom_filter_steps_destroy(steps);
}
END_TEST

/* A transformer's backward pass: head, twelve blocks of four same-shaped
 * matrices and a norm, embeddings.  Learning starts at the head, which
 * occurs once, so the repeated blocks never fool it. */
START_TEST(test_transformer_blocks)
{
    size_t seq[2 + 12 * 5], len = 0, b;
    loom_filter_steps_t *steps = test_create();
    test_run_t run = { 0 };

    seq[len++] = 768 * 50257;
    for (b = 0; b < 12; b++) {
        seq[len++] = 768 * 3072;
        seq[len++] = 768 * 3072;
        seq[len++] = 768 * 768;
        seq[len++] = 768 * 768;
        seq[len++] = 768;
    }
    seq[len++] = 768 * 1024;
    test_feed(steps, seq, len, 6, &run);
    test_steady(&run, len, 4);
    ck_assert_uint_eq(run.resets, 0);
    ck_assert_uint_eq(run.period, len);
    free(run.calls);
    loom_filter_steps_destroy(steps);
}
END_TEST

/* Failure mode 2 (steps.h): a step that opens with a repeating run locks
 * early, breaks at the first different count, then finds the true
 * period. */
START_TEST(test_repeated_run_first)
{
    static const size_t fused[] = { 4096, 4096, 4096, 100 };
    static const size_t pairs[] = { 64, 32, 64, 32, 8 };
    loom_filter_steps_t *steps = test_create();
    test_run_t run = { 0 };

    test_feed(steps, fused, 4, 8, &run);
    ck_assert_uint_eq(run.resets, 1);
    ck_assert_uint_eq(run.period, 4);
    test_steady(&run, 4, 4);
    free(run.calls);
    loom_filter_steps_destroy(steps);

    steps = test_create();
    memset(&run, 0, sizeof(run));
    test_feed(steps, pairs, 5, 8, &run);
    ck_assert_uint_eq(run.resets, 1);
    ck_assert_uint_eq(run.period, 5);
    test_steady(&run, 5, 4);
    free(run.calls);
    loom_filter_steps_destroy(steps);
}
END_TEST

/* Another sequence mid-run (and mid-step): one reset, two steps of
 * learning, then the new sequence is steady; step numbers never go
 * back. */
START_TEST(test_sequence_changes)
{
    static const size_t before[] = { 10, 20, 30 };
    static const size_t after[] = { 40, 50 };
    loom_filter_steps_t *steps = test_create();
    test_run_t run = { 0 };
    uint64_t step_before;

    test_feed(steps, before, 3, 5, &run);
    test_feed(steps, before, 1, 1, &run);      /* a step cut short */
    step_before = run.calls[run.n - 1].step;
    test_feed(steps, after, 2, 6, &run);
    ck_assert_uint_eq(run.resets, 1);
    ck_assert(run.calls[16].reset);
    ck_assert(!run.calls[16].locked);
    ck_assert_uint_gt(run.calls[16].step, step_before);
    ck_assert_uint_eq(run.period, 2);
    test_steady(&run, 2, 3);
    /* And back: the old sequence is learned again. */
    test_feed(steps, before, 3, 4, &run);
    ck_assert_uint_eq(run.resets, 2);
    test_steady(&run, 3, 2);
    free(run.calls);
    loom_filter_steps_destroy(steps);
}
END_TEST

/* Failure mode 1: no period within max_calls never locks. */
START_TEST(test_no_pattern)
{
    loom_filter_steps_t *steps;
    loom_filter_call_t call;
    size_t i;

    ck_assert_int_eq(loom_filter_steps_create(1, &steps),
                     LOOM_ERR_INVALID_PARAM);
    ck_assert_int_eq(loom_filter_steps_create(8, &steps), LOOM_OK);
    for (i = 0; i < 100; i++) {
        ck_assert_int_eq(loom_filter_steps_next(steps, 1000 + i, &call),
                         LOOM_OK);
        ck_assert(!call.locked);
    }
    ck_assert_uint_eq(loom_filter_steps_resets(steps), 99 / 8);
    ck_assert_uint_eq(loom_filter_steps_period(steps), 0);
    loom_filter_steps_destroy(steps);
    loom_filter_steps_destroy(NULL);
}
END_TEST

/* Failure mode 3: one count everywhere locks with period 1; marks from
 * the application give real positions from then on. */
START_TEST(test_same_count_and_marks)
{
    static const size_t fusion[] = { 1 << 20, 1 << 20, 1 << 20 };
    loom_filter_steps_t *steps = test_create();
    test_run_t run = { 0 };
    size_t r;

    test_feed(steps, fusion, 3, 2, &run);
    ck_assert_uint_eq(run.period, 1);
    for (r = 0; r < 4; r++) {
        loom_filter_steps_mark(steps);
        test_feed(steps, fusion, 3, 1, &run);
    }
    test_steady(&run, 3, 4);
    ck_assert_uint_eq(run.calls[run.n - 1].position, 2);
    ck_assert_uint_eq(run.calls[run.n - 1].step,
                      run.calls[run.n - 4].step + 1);
    free(run.calls);
    loom_filter_steps_destroy(steps);
}
END_TEST

/* Marks from the first call: no learning, every call locked at once,
 * position its index since the mark, step 0 first and one more per mark,
 * whatever the counts; current() follows the marks. */
START_TEST(test_marks_from_start)
{
    static const size_t seq[] = { 100, 7, 100, 5000 };
    loom_filter_steps_t *steps = test_create();
    loom_filter_call_t call;
    uint64_t s;
    size_t j;

    ck_assert_int_eq(loom_filter_steps_explicit(steps), 0);
    ck_assert_uint_eq(loom_filter_steps_current(steps), 0);
    for (s = 0; s < 3; s++) {
        loom_filter_steps_mark(steps);
        ck_assert_int_eq(loom_filter_steps_explicit(steps), 1);
        ck_assert_uint_eq(loom_filter_steps_current(steps), s);
        for (j = 0; j < 4 - s; j++) {      /* steps need not be alike */
            ck_assert_int_eq(loom_filter_steps_next(steps, seq[j], &call), LOOM_OK);
            ck_assert_int_eq(call.locked, 1);
            ck_assert_int_eq(call.reset, 0);
            ck_assert_uint_eq(call.position, j);
            ck_assert_uint_eq(call.step, s);
        }
    }
    ck_assert_uint_eq(loom_filter_steps_resets(steps), 0);
    loom_filter_steps_destroy(steps);
}
END_TEST

/* Mixed use: calls before the first mark are learned (dense until the
 * lock); the first mark starts the step after the last one answered;
 * without marks current() is the last call's step. */
START_TEST(test_mark_after_learning)
{
    static const size_t seq[] = { 10, 20, 30 };
    loom_filter_steps_t *steps = test_create();
    loom_filter_call_t call;
    test_run_t run = { 0 };
    uint64_t last;

    test_feed(steps, seq, 3, 1, &run);
    ck_assert_int_eq(run.calls[0].locked, 0);
    ck_assert_uint_eq(loom_filter_steps_current(steps), run.calls[2].step);
    last = run.calls[2].step;
    loom_filter_steps_mark(steps);
    ck_assert_uint_eq(loom_filter_steps_current(steps), last + 1);
    ck_assert_int_eq(loom_filter_steps_next(steps, 30, &call), LOOM_OK);
    ck_assert_int_eq(call.locked, 1);
    ck_assert_uint_eq(call.position, 0);
    ck_assert_uint_eq(call.step, last + 1);
    free(run.calls);
    loom_filter_steps_destroy(steps);
}
END_TEST

int main(void)
{
    Suite *s = suite_create("steps");
    TCase *tc = tcase_create("steps");

    tcase_add_test(tc, test_distinct_counts);
    tcase_add_test(tc, test_transformer_blocks);
    tcase_add_test(tc, test_repeated_run_first);
    tcase_add_test(tc, test_sequence_changes);
    tcase_add_test(tc, test_no_pattern);
    tcase_add_test(tc, test_same_count_and_marks);
    tcase_add_test(tc, test_marks_from_start);
    tcase_add_test(tc, test_mark_after_learning);
    suite_add_tcase(s, tc);
    return loom_check_run(s);
}
