/*
 * The filter spec parser: good specs give the values they name, each
 * kind of wrong spec is refused with a message naming the wrong part and
 * what is accepted, and leaves the caller's struct untouched.
 */
#include "coll/core/filter/filter_spec.h"

#include <check.h>
#include "test/unit/support/check_main.h"
#include <string.h>

static loom_filter_spec_t test_parse_ok(const char *text)
{
    loom_filter_spec_t spec;
    char why[256] = "";
    loom_status_t status;

    memset(&spec, 0x5a, sizeof(spec));
    status = loom_filter_spec_parse(text, &spec, why, sizeof(why));
    ck_assert_msg(status == LOOM_OK, "'%s' refused: %s", text, why);
    return spec;
}

START_TEST(test_off)
{
    static const char *const offs[] = { "", "none", "dense", "  none ", " " };
    loom_filter_spec_t spec;
    size_t i;

    for (i = 0; i < sizeof(offs) / sizeof(offs[0]); i++) {
        spec = test_parse_ok(offs[i]);
        ck_assert_int_eq(spec.enabled, 0);
        ck_assert(spec.density == 1.0);
        ck_assert_uint_eq(spec.min_bytes, LOOM_FILTER_MIN_BYTES_DEFAULT);
    }
    ck_assert_int_eq(loom_filter_spec_parse(NULL, &spec, NULL, 0), LOOM_OK);
    ck_assert_int_eq(spec.enabled, 0);
}
END_TEST

START_TEST(test_density_only)
{
    loom_filter_spec_t spec = test_parse_ok("topk:0.01");

    ck_assert_int_eq(spec.enabled, 1);
    ck_assert(spec.density == 0.01);
    ck_assert_uint_eq(spec.warmup, 0);
    ck_assert_uint_eq(spec.min_bytes, 4096);
    ck_assert(spec.momentum == 0.0);
    ck_assert_uint_eq(spec.exact_max, 65536);
    ck_assert_uint_eq(spec.residual_max, (size_t)1 << 30);
    ck_assert_uint_eq(spec.every, 16);

    ck_assert(test_parse_ok("topk:1").density == 1.0);
    ck_assert(test_parse_ok("topk:1e-3").density == 1e-3);
    ck_assert(test_parse_ok("topk:1%").density == 0.01);
    ck_assert(test_parse_ok("topk:100%").density == 1.0);
    ck_assert(test_parse_ok("topk:0.1 %").density == 0.001);
    ck_assert(test_parse_ok(" topk: 0.5 ").density == 0.5);
}
END_TEST

START_TEST(test_options)
{
    loom_filter_spec_t spec;
    char text[256];

    spec = test_parse_ok("topk:0.001,warmup=4,min_bytes=64K,momentum=0.9,"
                         "exact_max=1M,residual_max=2G");
    ck_assert_int_eq(spec.enabled, 1);
    ck_assert(spec.density == 0.001);
    ck_assert_uint_eq(spec.warmup, 4);
    ck_assert_uint_eq(spec.min_bytes, (size_t)64 << 10);
    ck_assert(spec.momentum == 0.9);
    ck_assert_uint_eq(spec.exact_max, (size_t)1 << 20);
    ck_assert_uint_eq(spec.residual_max, (size_t)2 << 30);

    spec = test_parse_ok("topk:0.01 , residual_max = 512m , min_bytes=0");
    ck_assert_uint_eq(spec.residual_max, (size_t)512 << 20);
    ck_assert_uint_eq(spec.min_bytes, 0);
    ck_assert_uint_eq(test_parse_ok("topk:0.1,warmup=1000000").warmup, 1000000);
    ck_assert(test_parse_ok("topk:0.1,momentum=0").momentum == 0.0);
    ck_assert_uint_eq(test_parse_ok("topk:0.1,exact_max=4294967295").exact_max,
                      4294967295u);
    ck_assert_uint_eq(test_parse_ok("topk:0.1,every=1").every, 1);
    ck_assert_uint_eq(test_parse_ok("topk:0.1, every = 64").every, 64);
    ck_assert_uint_eq(test_parse_ok("topk:0.1,every=1000000").every, 1000000);
    ck_assert_int_eq(test_parse_ok("topk:0.1").exchange, LOOM_FILTER_EXCHANGE_AUTO);
    ck_assert_int_eq(test_parse_ok("topk:0.1,exchange=allgather").exchange,
                     LOOM_FILTER_EXCHANGE_ALLGATHER);
    ck_assert_int_eq(test_parse_ok("topk:0.1, exchange = merge").exchange,
                     LOOM_FILTER_EXCHANGE_MERGE);
    ck_assert_int_eq(test_parse_ok("topk:0.1,exchange=split").exchange,
                     LOOM_FILTER_EXCHANGE_SPLIT);

    /* The canonical text parses back to the same spec. */
    spec = test_parse_ok("topk:0.003,warmup=7,momentum=0.5,every=5,exchange=split");
    loom_filter_spec_format(&spec, text, sizeof(text));
    {
        loom_filter_spec_t again = test_parse_ok(text);
        ck_assert_int_eq(again.enabled, spec.enabled);
        ck_assert(again.density == spec.density);
        ck_assert_uint_eq(again.warmup, spec.warmup);
        ck_assert_uint_eq(again.min_bytes, spec.min_bytes);
        ck_assert(again.momentum == spec.momentum);
        ck_assert_uint_eq(again.exact_max, spec.exact_max);
        ck_assert_uint_eq(again.residual_max, spec.residual_max);
        ck_assert_int_eq(again.exchange, LOOM_FILTER_EXCHANGE_SPLIT);
        ck_assert_uint_eq(again.every, 5);
    }
    ck_assert(loom_filter_spec_format(&(loom_filter_spec_t){ .enabled = 0 },
                                      text, sizeof(text)) == 4);
    ck_assert_str_eq(text, "none");
}
END_TEST

/* Each kind of wrong spec, and words its message must contain. */
static const struct {
    const char *text;
    const char *names;      /* the wrong part */
    const char *accepted;   /* what is accepted */
} bad_specs[] = {
    { "topk",                       "'topk'",        "topk:DENSITY" },
    { "random:0.1",                 "'random:0.1'",  "topk:DENSITY" },
    { "TOPK:0.1",                   "'TOPK:0.1'",    "none, dense" },
    { "nonsense,warmup=1",          "'nonsense'",    "topk:DENSITY" },
    { "topk:",                      "density ''",    "(0, 1]" },
    { "topk:abc",                   "'abc'",         "(0, 1]" },
    { "topk:0",                     "'0'",           "(0, 1]" },
    { "topk:-0.1",                  "'-0.1'",        "(0, 1]" },
    { "topk:2",                     "'2'",           "(0, 1]" },
    { "topk:101%",                  "'101%'",        "100%" },
    { "topk:0%",                    "'0%'",          "100%" },
    { "topk:nan",                   "'nan'",         "(0, 1]" },
    { "topk:inf",                   "'inf'",         "(0, 1]" },
    { "topk:0x1p-3",                "'0x1p-3'",      "(0, 1]" },
    { "topk:1e999",                 "'1e999'",       "(0, 1]" },
    { "topk:0.1,",                  "empty option",  "warmup=N" },
    { "topk:0.1,,warmup=1",         "empty option",  "warmup=N" },
    { "topk:0.1,warmup",            "'warmup'",      "warmup=N" },
    { "topk:0.1,speed=3",           "'speed'",       "residual_max=SIZE" },
    { "topk:0.1,Warmup=3",          "'Warmup'",      "warmup=N" },
    { "topk:0.1,warmup=-1",         "'-1'",          "0 .. 1000000" },
    { "topk:0.1,warmup=1.5",        "'1.5'",         "0 .. 1000000" },
    { "topk:0.1,warmup=1000001",    "'1000001'",     "0 .. 1000000" },
    { "topk:0.1,warmup=",           "''",            "0 .. 1000000" },
    { "topk:0.1,warmup=1,warmup=2", "'warmup'",      "twice" },
    { "topk:0.1,min_bytes=4X",      "'4X'",          "K, M or G" },
    { "topk:0.1,min_bytes=-4K",     "'-4K'",         "K, M or G" },
    { "topk:0.1,min_bytes=K",       "'K'",           "K, M or G" },
    { "topk:0.1,min_bytes=99999999999999999999", "'99999999999999999999'",
      "K, M or G" },
    { "topk:0.1,min_bytes=17179869184G", "'17179869184G'", "K, M or G" },
    { "topk:0.1,momentum=1",        "'1'",           "[0, 1)" },
    { "topk:0.1,momentum=-0.5",     "'-0.5'",        "[0, 1)" },
    { "topk:0.1,momentum=high",     "'high'",        "[0, 1)" },
    { "topk:0.1,exact_max=0",       "'0'",           "1 .. 4294967295" },
    { "topk:0.1,exact_max=4G",      "'4G'",          "1 .. 4294967295" },
    { "topk:0.1,residual_max=0",    "'0'",           "at least 1 byte" },
    { "topk:0.1,residual_max=lots", "'lots'",        "such as 1G" },
    { "topk:0.1,every=0",           "'0'",           "1 .. 1000000" },
    { "topk:0.1,every=1000001",     "'1000001'",     "1 .. 1000000" },
    { "topk:0.1,every=often",       "'often'",       "1 .. 1000000" },
    { "topk:0.1,every=2,every=3",   "'every'",       "twice" },
    { "topk:0.1,exchange=ring",     "'ring'",        "auto, allgather, merge, split" },
    { "topk:0.1,exchange=",         "''",            "auto, allgather, merge, split" },
};

START_TEST(test_bad)
{
    loom_filter_spec_t spec, before;
    char why[256];
    loom_status_t status;

    memset(&spec, 0x5a, sizeof(spec));
    memcpy(&before, &spec, sizeof(spec));
    memset(why, 0, sizeof(why));
    status = loom_filter_spec_parse(bad_specs[_i].text, &spec, why,
                                    sizeof(why));
    ck_assert_msg(status == LOOM_ERR_INVALID_PARAM, "'%s' accepted",
                  bad_specs[_i].text);
    ck_assert_msg(memcmp(&spec, &before, sizeof(spec)) == 0,
                  "'%s' changed the spec", bad_specs[_i].text);
    ck_assert_msg(strstr(why, "loom_filter: ") == why, "'%s': %s",
                  bad_specs[_i].text, why);
    ck_assert_msg(strstr(why, bad_specs[_i].names) != NULL,
                  "'%s': '%s' does not name %s", bad_specs[_i].text, why,
                  bad_specs[_i].names);
    ck_assert_msg(strstr(why, bad_specs[_i].accepted) != NULL,
                  "'%s': '%s' does not say %s", bad_specs[_i].text, why,
                  bad_specs[_i].accepted);
}
END_TEST

START_TEST(test_why_truncated)
{
    loom_filter_spec_t spec;
    char why[8];

    memset(why, 'x', sizeof(why));
    ck_assert_int_eq(loom_filter_spec_parse("topk:7", &spec, why, sizeof(why)),
                     LOOM_ERR_INVALID_PARAM);
    ck_assert_uint_eq(strlen(why), sizeof(why) - 1);
    /* No message buffer at all is fine too. */
    ck_assert_int_eq(loom_filter_spec_parse("topk:7", &spec, NULL, 0),
                     LOOM_ERR_INVALID_PARAM);
}
END_TEST

int main(void)
{
    Suite *s = suite_create("filter_spec");
    TCase *tc = tcase_create("spec");

    tcase_add_test(tc, test_off);
    tcase_add_test(tc, test_density_only);
    tcase_add_test(tc, test_options);
    tcase_add_loop_test(tc, test_bad, 0,
                        (int)(sizeof(bad_specs) / sizeof(bad_specs[0])));
    tcase_add_test(tc, test_why_truncated);
    suite_add_tcase(s, tc);
    return loom_check_run(s);
}
