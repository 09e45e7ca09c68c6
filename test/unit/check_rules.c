/* Selection rules: the grammar, its errors, matching, the hash, and what
 * the allreduce selection does with a rule. */
#include "loopback_harness.h"
#include "coll/core/rules.h"

#include <check.h>
#include "check_main.h"
#include "log_capture.h"
#include <limits.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <fcntl.h>
#include <unistd.h>

START_TEST(test_rules_parse)
{
    loom_rules_t *r;

    ck_assert_int_eq(loom_rules_parse("v1; allreduce:0-64K:@recursive_doubling; "
                                      "allreduce:64K-inf:np=2-8:@ring:seg=256K",
                                      "test", &r), LOOM_OK);
    ck_assert_int_eq(r->count, 2);
    ck_assert_int_eq(r->rule[0].coll, LOOM_COLL_ALLREDUCE);
    ck_assert_uint_eq(r->rule[0].min_bytes, 0);
    ck_assert_uint_eq(r->rule[0].max_bytes, 65536);
    ck_assert_int_eq(r->rule[0].alg, LOOM_ALLREDUCE_RD);
    ck_assert_int_eq(r->rule[0].min_ranks, 1);
    ck_assert_int_eq(r->rule[0].max_ranks, INT_MAX);
    ck_assert_uint_eq(r->rule[0].seg_bytes, 0);
    ck_assert_uint_eq(r->rule[1].min_bytes, 65536);
    ck_assert_uint_eq(r->rule[1].max_bytes, SIZE_MAX);
    ck_assert_int_eq(r->rule[1].min_ranks, 2);
    ck_assert_int_eq(r->rule[1].max_ranks, 8);
    ck_assert_int_eq(r->rule[1].alg, LOOM_ALLREDUCE_RING);
    ck_assert_uint_eq(r->rule[1].seg_bytes, 262144);

    /* First match wins; bounds: bytes [lo, hi), ranks [lo, hi]. */
    ck_assert_ptr_eq(loom_rules_match(r, LOOM_COLL_ALLREDUCE, 65535, 4), &r->rule[0]);
    ck_assert_ptr_eq(loom_rules_match(r, LOOM_COLL_ALLREDUCE, 65536, 8), &r->rule[1]);
    ck_assert_ptr_null(loom_rules_match(r, LOOM_COLL_ALLREDUCE, 65536, 9));
    ck_assert_ptr_null(loom_rules_match(NULL, LOOM_COLL_ALLREDUCE, 1, 2));
    loom_rules_destroy(r);

    /* No version, newlines, comments, an empty rule list. */
    ck_assert_int_eq(loom_rules_parse("# tuned for 2 ranks\nallreduce:1M-4M:@rabenseifner\n\n",
                                      "test", &r), LOOM_OK);
    ck_assert_int_eq(r->count, 1);
    ck_assert_uint_eq(r->rule[0].min_bytes, 1u << 20);
    loom_rules_destroy(r);
    ck_assert_int_eq(loom_rules_parse("  ", "test", &r), LOOM_OK);
    ck_assert_int_eq(r->count, 0);
    loom_rules_destroy(r);
}
END_TEST

/* What the rules mean is hashed, not how they are written. */
START_TEST(test_rules_hash)
{
    loom_rules_t *a, *b, *c;

    ck_assert_int_eq(loom_rules_parse("allreduce:0-64K:@ring", "a", &a), LOOM_OK);
    ck_assert_int_eq(loom_rules_parse("v1;  allreduce : 0 - 65536 : @ring # same\n", "b", &b),
                     LOOM_OK);
    ck_assert_int_eq(loom_rules_parse("allreduce:0-64K:@rabenseifner", "c", &c), LOOM_OK);
    ck_assert_uint_eq(a->hash, b->hash);
    ck_assert_uint_ne(a->hash, c->hash);
    loom_rules_destroy(a);
    loom_rules_destroy(b);
    loom_rules_destroy(c);
}
END_TEST

/* Each error names the place and the valid words, and yields no rules. */
static void expect_error(const char *text, const char *where, const char *what)
{
    loom_rules_t *r = (loom_rules_t *)0x1;

    capture_start();
    ck_assert_int_eq(loom_rules_parse(text, "coll_loom_rules", &r), LOOM_ERR_INVALID_PARAM);
    capture_stop();
    ck_assert_ptr_eq(r, (loom_rules_t *)0x1);  /* untouched */
    ck_assert_msg(strstr(log_buf, where) != NULL, "'%s': no '%s' in: %s", text, where, log_buf);
    ck_assert_msg(strstr(log_buf, what) != NULL, "'%s': no '%s' in: %s", text, what, log_buf);
    ck_assert_msg(strstr(log_buf, "keeps its defaults") != NULL, "%s", log_buf);
}

START_TEST(test_rules_errors)
{
    expect_error("allgatherx:0-1:@ring", "position 1", "one of: allreduce");
    expect_error("allreduce:0-1K:@rign", "position 17",
                 "one of: auto, ring, recursive_doubling, rabenseifner");
    expect_error("allreduce:64K-1K:@ring", "position 11", "lo < hi");
    expect_error("allreduce:0-1K:np=0-4:@ring", "position 19", "1 <= lo <= hi");
    expect_error("allreduce:0-1K:ring", "position 16", "one of: np=");
    expect_error("allreduce:0-1K:@ring:seg=0", "position 22", "segment size");
    expect_error("allreduce:0-1K:@ring allreduce:1K-2K:@ring", "position 22", "';' or a new line");
    expect_error("v2; allreduce:0-1K:@ring", "position 1", "one of: v1");
    expect_error("allreduce:0-99999999999999999999:@ring", "position 11", "byte range");
    expect_error("allreduce:0-1K:@ring;\nallreduce", "line 2, column 10", "':'");
}
END_TEST

START_TEST(test_rules_file)
{
    char path[] = "/tmp/loom-rules-XXXXXX";
    int fd = mkstemp(path);
    const char *text = "v1\n# two rules\nallreduce:0-4K:@recursive_doubling\n"
                       "allreduce:4K-inf:@ring:seg=64K\n";
    loom_rules_t *r;

    ck_assert_int_ge(fd, 0);
    ck_assert_int_eq(write(fd, text, strlen(text)), (int)strlen(text));
    close(fd);
    ck_assert_int_eq(loom_rules_load(path, &r), LOOM_OK);
    ck_assert_int_eq(r->count, 2);
    ck_assert_uint_eq(r->rule[1].seg_bytes, 65536);
    loom_rules_destroy(r);

    fd = open(path, O_WRONLY | O_TRUNC);
    ck_assert_int_eq(write(fd, "v1\nallreduce:0-4K:@ring\nbcast:0-1:@x\n", 37), 37);
    close(fd);
    capture_start();
    ck_assert_int_eq(loom_rules_load(path, &r), LOOM_ERR_INVALID_PARAM);
    capture_stop();
    ck_assert_msg(strstr(log_buf, path) != NULL && strstr(log_buf, "line 3, column 1") != NULL,
                  "%s", log_buf);
    unlink(path);
    capture_start();
    ck_assert_int_eq(loom_rules_load(path, &r), LOOM_ERR_NOT_FOUND);
    capture_stop();
    ck_assert_msg(strstr(log_buf, "cannot open") != NULL, "%s", log_buf);
}
END_TEST

/* The selection follows a matching rule, ahead of the MCA algorithm. */
START_TEST(test_rules_drive_selection)
{
    loom_coll_config_t cfg;
    loom_allreduce_choice_t ch;
    loom_rules_t *r;

    ck_assert_int_eq(loom_coll_config_init(&cfg), LOOM_OK);
    ck_assert_int_eq(loom_rules_parse("allreduce:0-1K:np=4-4:@ring:seg=512;"
                                      "allreduce:1M-inf:@auto:seg=128K;"
                                      "allreduce:1K-1M:@double_binary_tree",
                                      "test", &r), LOOM_OK);
    cfg.rules = r;
    cfg.allreduce_algorithm = LOOM_ALLREDUCE_RABENSEIFNER;
    loom_allreduce_select(&cfg, 4, 100, 1, &ch);
    ck_assert_int_eq(ch.alg, LOOM_ALLREDUCE_RING);
    ck_assert_uint_eq(ch.seg_bytes, 512);
    ck_assert_int_eq(ch.rule, 0);
    loom_allreduce_select(&cfg, 5, 100, 1, &ch);      /* no rule: the MCA setting */
    ck_assert_int_eq(ch.alg, LOOM_ALLREDUCE_RABENSEIFNER);
    ck_assert_int_eq(ch.rule, -1);
    cfg.allreduce_algorithm = LOOM_ALLREDUCE_AUTO;
    loom_allreduce_select(&cfg, 8, 8u << 20, 1, &ch);  /* auto with a segment */
    ck_assert_uint_eq(ch.seg_bytes, 131072);
    ck_assert_int_eq(ch.rule, 1);
    /* A tree cannot keep rank order: a non-commutative op keeps its pick. */
    loom_allreduce_select(&cfg, 8, 4096, 0, &ch);
    ck_assert(loom_allreduce_algorithms[ch.alg].noncommutative);
    loom_allreduce_select(&cfg, 8, 4096, 1, &ch);
    ck_assert_int_eq(ch.alg, LOOM_ALLREDUCE_DBTREE);
    loom_rules_destroy(r);
}
END_TEST

int main(void)
{
    Suite *s = suite_create("rules");
    TCase *tc = tcase_create("rules");

    tcase_add_test(tc, test_rules_parse);
    tcase_add_test(tc, test_rules_hash);
    tcase_add_test(tc, test_rules_errors);
    tcase_add_test(tc, test_rules_file);
    tcase_add_test(tc, test_rules_drive_selection);
    suite_add_tcase(s, tc);
    return loom_check_run(s);
}
