/* The benchmarks' turn order (tools/common/turns.h): every round a
 * permutation; over a period every contender in every position, and
 * right behind every other contender, equally often. */
#include "tools/common/turns.h"

#include <check.h>
#include <string.h>
#include "test/unit/support/check_main.h"

#define MAX_N 9

START_TEST(test_turns_balanced)
{
    int n, round, i, a, b;

    for (n = 1; n <= MAX_N; ++n) {
        int period = loom_tool_turns_period(n), order[MAX_N];
        int position[MAX_N][MAX_N], follows[MAX_N][MAX_N];

        ck_assert_int_eq(period % n, 0);
        memset(position, 0, sizeof(position));
        memset(follows, 0, sizeof(follows));
        for (round = 0; round < period; ++round) {
            int seen[MAX_N] = {0};

            loom_tool_turns(round, n, order);
            for (i = 0; i < n; ++i) {
                ck_assert_int_ge(order[i], 0);
                ck_assert_int_lt(order[i], n);
                ck_assert_int_eq(seen[order[i]]++, 0);
                position[order[i]][i]++;
                if (i > 0) {
                    follows[order[i - 1]][order[i]]++;
                }
            }
        }
        for (a = 0; a < n; ++a) {
            for (b = 0; b < n; ++b) {
                ck_assert_msg(position[a][b] == period / n,
                              "n=%d: contender %d at position %d %d times", n, a, b,
                              position[a][b]);
                ck_assert_msg(follows[a][b] == (a == b ? 0 : period / n),
                              "n=%d: %d right after %d %d times", n, b, a, follows[a][b]);
            }
        }
    }
}
END_TEST

/* A plain rotation would fail the test above; this one pins that the
 * period repeats, so a benchmark's later rounds keep the balance. */
START_TEST(test_turns_repeat)
{
    int n, round, i, x[MAX_N], y[MAX_N];

    for (n = 1; n <= MAX_N; ++n) {
        for (round = 0; round < 3 * loom_tool_turns_period(n); ++round) {
            loom_tool_turns(round, n, x);
            loom_tool_turns(round + loom_tool_turns_period(n), n, y);
            for (i = 0; i < n; ++i) {
                ck_assert_int_eq(x[i], y[i]);
            }
        }
    }
}
END_TEST

int main(void)
{
    Suite *s = suite_create("turns");
    TCase *tc = tcase_create("turns");

    tcase_add_test(tc, test_turns_balanced);
    tcase_add_test(tc, test_turns_repeat);
    suite_add_tcase(s, tc);
    return loom_check_run(s);
}
