/* The start-up calibration's measurement: both constants inside the
 * range their settings accept, and in the range any memory system lies
 * in, run after run. */
#include "coll/core/select/calibrate.h"

#include <check.h>
#include "test/unit/support/check_main.h"

START_TEST(test_calibrate_plausible)
{
    loom_calibration_t a, b;

    ck_assert_int_eq(loom_calibrate_measure(&a), LOOM_OK);
    ck_assert_int_eq(loom_calibrate_measure(&b), LOOM_OK);
    /* 100 MB/s to 10 TB/s: a loaded test machine stays far above the
     * floor, and a memcpy no faster than 10 TB/s proves it was not
     * optimized away. */
    ck_assert_int_ge(a.bandwidth_mbs, 100);
    ck_assert_int_le(a.bandwidth_mbs, 10000000);
    ck_assert_int_ge(a.reduce_mbs, 100);
    ck_assert_int_le(a.reduce_mbs, 10000000);
    ck_assert_int_ge(b.bandwidth_mbs, 100);
    ck_assert_int_ge(b.reduce_mbs, 100);
}
END_TEST

int main(void)
{
    Suite *s = suite_create("calibrate");
    TCase *tc = tcase_create("calibrate");

    tcase_add_test(tc, test_calibrate_plausible);
    suite_add_tcase(s, tc);
    return loom_check_run(s);
}
