/* Base layer: status strings, logging levels, configuration tables. */
#include "common/config.h"
#include "common/log.h"
#include "loom/status.h"

#include <check.h>
#include "test/unit/support/check_main.h"
#include "test/unit/support/log_capture.h"
#include <stddef.h>
#include <stdlib.h>
#include <string.h>

typedef struct test_settings {
    int     level;
    int     count;
    int     flag;
    size_t  segment;
} test_settings_t;

static const char *const test_levels[] = { "low", "mid", "high", NULL };

static const loom_config_field_t test_table[] = {
    { .name = "level", .type = LOOM_CONFIG_ENUM, .default_value = "mid",
      .enum_names = test_levels, .help = "a level",
      .offset = offsetof(test_settings_t, level) },
    { .name = "count", .type = LOOM_CONFIG_INT, .default_value = "4",
      .min = 1, .max = 64, .help = "a count",
      .offset = offsetof(test_settings_t, count) },
    { .name = "flag", .type = LOOM_CONFIG_BOOL, .default_value = "no",
      .help = "a flag", .offset = offsetof(test_settings_t, flag) },
    { .name = "segment", .type = LOOM_CONFIG_SIZE, .default_value = "64k",
      .min = 1, .max = 1L << 30, .help = "a size",
      .offset = offsetof(test_settings_t, segment) },
    LOOM_CONFIG_LAST
};

START_TEST(test_status_strings)
{
    ck_assert_str_eq(loom_status_string(LOOM_OK), "success");
    ck_assert_str_eq(loom_status_string(LOOM_ERR_UNSUPPORTED), "not supported by loom");
    ck_assert_str_eq(loom_status_string((loom_status_t)-100), "unknown status");
    ck_assert_int_eq(LOOM_INPROGRESS, 1);
    ck_assert_int_lt(LOOM_ERR_NO_MEMORY, 0);
}
END_TEST

START_TEST(test_log_levels)
{
    loom_log_set_level(LOOM_LOG_WARN);
    loom_log_set_prefix("rank 7");
    capture_start();
    loom_info("coll", "hidden %d", 1);
    loom_warn("coll", "shown %d", 2);
    capture_stop();
    ck_assert_ptr_null(strstr(log_buf, "hidden"));
    ck_assert_ptr_nonnull(strstr(log_buf, "[loom rank 7] warn coll: shown 2"));

    loom_log_set_level(LOOM_LOG_DEBUG);
    capture_start();
    loom_debug("topo", "now %s", "visible");
    capture_stop();
    ck_assert_ptr_nonnull(strstr(log_buf, "debug topo: now visible (check_common.c:"));
    loom_log_set_level(LOOM_LOG_WARN);
    loom_log_set_prefix(NULL);
}
END_TEST

/* A message below the level must not evaluate its arguments. */
static int side_effects;
static int touch(void) { return ++side_effects; }

START_TEST(test_log_lazy)
{
    loom_log_set_level(LOOM_LOG_ERROR);
    side_effects = 0;
    loom_trace("coll", "%d", touch());
    ck_assert_int_eq(side_effects, 0);
    loom_log_set_level(LOOM_LOG_WARN);
}
END_TEST

START_TEST(test_config_defaults_and_set)
{
    test_settings_t s;

    ck_assert_int_eq(loom_config_set_defaults(test_table, &s), LOOM_OK);
    ck_assert_int_eq(s.level, 1);
    ck_assert_int_eq(s.count, 4);
    ck_assert_int_eq(s.flag, 0);
    ck_assert_uint_eq(s.segment, 65536);

    ck_assert_int_eq(loom_config_set(test_table, &s, "level", "HIGH"), LOOM_OK);
    ck_assert_int_eq(s.level, 2);
    ck_assert_int_eq(loom_config_set(test_table, &s, "flag", "on"), LOOM_OK);
    ck_assert_int_eq(s.flag, 1);
    ck_assert_int_eq(loom_config_set(test_table, &s, "segment", "2MiB"), LOOM_OK);
    ck_assert_uint_eq(s.segment, 2u << 20);
    ck_assert_int_eq(loom_config_set(test_table, &s, "count", "0x10"), LOOM_OK);
    ck_assert_int_eq(s.count, 16);
}
END_TEST

START_TEST(test_config_rejects_with_message)
{
    test_settings_t s;

    loom_config_set_defaults(test_table, &s);
    capture_start();
    ck_assert_int_eq(loom_config_set(test_table, &s, "level", "extreme"),
                     LOOM_ERR_INVALID_PARAM);
    capture_stop();
    ck_assert_int_eq(s.level, 1); /* unchanged */
    ck_assert_ptr_nonnull(strstr(log_buf, "level: 'extreme' is not accepted; "
                                          "expected low, mid, high"));

    capture_start();
    ck_assert_int_eq(loom_config_set(test_table, &s, "count", "65"),
                     LOOM_ERR_INVALID_PARAM);
    ck_assert_int_eq(loom_config_set(test_table, &s, "count", "3x"),
                     LOOM_ERR_INVALID_PARAM);
    ck_assert_int_eq(loom_config_set(test_table, &s, "segment", "-1k"),
                     LOOM_ERR_INVALID_PARAM);
    ck_assert_int_eq(loom_config_set(test_table, &s, "flag", "maybe"),
                     LOOM_ERR_INVALID_PARAM);
    ck_assert_int_eq(loom_config_set(test_table, &s, "colour", "red"),
                     LOOM_ERR_INVALID_PARAM);
    capture_stop();
    ck_assert_int_eq(s.count, 4);
    ck_assert_ptr_nonnull(strstr(log_buf, "an integer from 1 to 64"));
    ck_assert_ptr_nonnull(strstr(log_buf, "unknown setting 'colour'; known settings: "
                                          "level, count, flag, segment"));
}
END_TEST

START_TEST(test_config_env)
{
    test_settings_t s;

    loom_config_set_defaults(test_table, &s);
    setenv("LOOMTEST_COUNT", "9", 1);
    setenv("LOOMTEST_LEVEL", "nonsense", 1);
    capture_start();
    ck_assert_int_eq(loom_config_read_env(test_table, &s, "LOOMTEST"),
                     LOOM_ERR_INVALID_PARAM);
    capture_stop();
    ck_assert_int_eq(s.count, 9);
    ck_assert_int_eq(s.level, 1);
    ck_assert_ptr_nonnull(strstr(log_buf, "LOOMTEST_LEVEL: 'nonsense'"));
    unsetenv("LOOMTEST_COUNT");
    unsetenv("LOOMTEST_LEVEL");
}
END_TEST

START_TEST(test_config_help)
{
    char *text = NULL;
    size_t len = 0;
    FILE *out = open_memstream(&text, &len);

    loom_config_print_help(test_table, "LOOM", out);
    fclose(out);
    ck_assert_ptr_nonnull(strstr(text, "LOOM_SEGMENT (default 64k)\n    a size\n"));
    ck_assert_ptr_nonnull(strstr(text, "accepted: low, mid, high"));
    free(text);
}
END_TEST

int main(void)
{
    Suite *s = suite_create("common");
    TCase *tc = tcase_create("base");

    tcase_add_test(tc, test_status_strings);
    tcase_add_test(tc, test_log_levels);
    tcase_add_test(tc, test_log_lazy);
    tcase_add_test(tc, test_config_defaults_and_set);
    tcase_add_test(tc, test_config_rejects_with_message);
    tcase_add_test(tc, test_config_env);
    tcase_add_test(tc, test_config_help);
    suite_add_tcase(s, tc);
    return loom_check_run(s);
}
