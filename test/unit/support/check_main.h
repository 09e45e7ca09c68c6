/* The end of every Check test program: run the suite, exit 0 only if
 * every test passed. */
#ifndef LOOM_TEST_CHECK_MAIN_H
#define LOOM_TEST_CHECK_MAIN_H

#include <check.h>
#include <stdlib.h>

static inline int loom_check_run(Suite *suite)
{
    SRunner *sr = srunner_create(suite);
    int failed;

    srunner_run_all(sr, CK_NORMAL);
    failed = srunner_ntests_failed(sr);
    srunner_free(sr);
    return failed == 0 ? EXIT_SUCCESS : EXIT_FAILURE;
}

#endif
