/* Selection rules: the grammar, its errors, matching, the hash, cost
 * constants, and what each collective's selection does with a rule. */
#include "test/unit/support/loopback_harness.h"
#include "coll/core/allgather/allgather.h"
#include "coll/core/bcast/bcast.h"
#include "coll/core/reduce/reduce.h"
#include "coll/core/reduce_scatter/reduce_scatter.h"
#include "coll/core/select/rules.h"

#include <check.h>
#include "test/unit/support/check_main.h"
#include "test/unit/support/log_capture.h"
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
    expect_error("v9; allreduce:0-1K:@ring", "position 1", "one of: v1, v2");
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
    ck_assert_msg(strstr(log_buf, path) != NULL && strstr(log_buf, "line 3, column 12") != NULL &&
                  strstr(log_buf, "one of: auto, binomial, chain, scatter_allgather") != NULL,
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
    loom_choice_t ch;
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

/* Every collective, under its own name and its v variant's, with its own
 * algorithm names. */
START_TEST(test_rules_every_coll)
{
    loom_rules_t *r, *v;

    ck_assert_int_eq(loom_rules_parse("bcast:0-inf:@chain:seg=32K; reduce:1M-inf:"
                                      "@reduce_scatter_gather; allgather:0-1K:@bruck; "
                                      "allgatherv:1K-inf:np=2-4:@ring; reduce_scatter:0-inf:"
                                      "@recursive_halving; reduce_scatter_block:0-inf:@ring",
                                      "test", &r), LOOM_OK);
    ck_assert_int_eq(r->count, 6);
    ck_assert_int_eq(r->rule[0].coll, LOOM_COLL_BCAST);
    ck_assert_int_eq(r->rule[0].alg, LOOM_BCAST_CHAIN);
    ck_assert_uint_eq(r->rule[0].seg_bytes, 32768);
    ck_assert_int_eq(r->rule[1].coll, LOOM_COLL_REDUCE);
    ck_assert_int_eq(r->rule[1].alg, LOOM_REDUCE_SCATTER_GATHER);
    ck_assert_int_eq(r->rule[2].coll, LOOM_COLL_ALLGATHER);
    ck_assert_int_eq(r->rule[2].alg, LOOM_ALLGATHER_BRUCK);
    ck_assert_int_eq(r->rule[3].coll, LOOM_COLL_ALLGATHER);   /* allgatherv */
    ck_assert_int_eq(r->rule[3].alg, LOOM_ALLGATHER_RING);
    ck_assert_int_eq(r->rule[4].coll, LOOM_COLL_REDUCE_SCATTER);
    ck_assert_int_eq(r->rule[4].alg, LOOM_REDUCE_SCATTER_HALVING);
    ck_assert_int_eq(r->rule[5].coll, LOOM_COLL_REDUCE_SCATTER);   /* _block */
    ck_assert_int_eq(r->rule[5].alg, LOOM_REDUCE_SCATTER_RING);
    /* "reduce" does not match a reduce_scatter call, nor the reverse. */
    ck_assert_ptr_eq(loom_rules_match(r, LOOM_COLL_REDUCE, 2u << 20, 4), &r->rule[1]);
    ck_assert_ptr_null(loom_rules_match(r, LOOM_COLL_REDUCE, 100, 4));
    ck_assert_int_eq(loom_rules_find(r, LOOM_COLL_ALLGATHER, 4096, 4), 3);
    ck_assert_int_eq(loom_rules_find(r, LOOM_COLL_ALLGATHER, 4096, 5), -1);
    ck_assert_int_eq(loom_rules_find(r, LOOM_COLL_ALLREDUCE, 4096, 4), -1);

    /* A v variant names the same rules as its collective. */
    loom_rules_destroy(r);
    ck_assert_int_eq(loom_rules_parse("allgather:0-1K:@ring", "a", &v), LOOM_OK);
    ck_assert_int_eq(loom_rules_parse("allgatherv:0-1024:@ring", "b", &r), LOOM_OK);
    ck_assert_uint_eq(r->hash, v->hash);
    loom_rules_destroy(r);
    loom_rules_destroy(v);
}
END_TEST

/* Each collective's errors list that collective's algorithms. */
START_TEST(test_rules_every_coll_errors)
{
    expect_error("bcast:0-1K:@ring", "position 13",
                 "one of: auto, binomial, chain, scatter_allgather, hierarchical)");
    expect_error("reduce:0-1K:@ring", "position 14", "one of: auto, binomial, "
                 "reduce_scatter_gather, reproducible, chain, hierarchical)");
    expect_error("allgatherv:0-1K:@rabenseifner", "position 18", "one of: auto, bruck, ring, hierarchical)");
    expect_error("reduce_scatter_block:0-1K:@chain", "position 28",
                 "one of: auto, recursive_halving, ring, reproducible, hierarchical)");
    expect_error("bcast:0-1K:@chain:seg=0", "position 19", "segment size");
    expect_error("gather:0-1K:@ring", "position 1", "one of: allreduce, bcast, reduce, "
                 "allgather, allgatherv, reduce_scatter, reduce_scatter_block, cost)");
}
END_TEST

/* Each collective's selection follows a matching rule ahead of its MCA
 * settings, and says which rule decided. */
START_TEST(test_rules_drive_every_selection)
{
    loom_coll_config_t cfg;
    loom_choice_t bc;
    loom_choice_t rc;
    loom_choice_t ac;
    loom_choice_t sc;
    loom_rules_t *r;

    ck_assert_int_eq(loom_coll_config_init(&cfg), LOOM_OK);
    ck_assert_int_eq(loom_rules_parse("bcast:0-1K:@chain:seg=256; bcast:1K-2K:@auto:seg=512;"
                                      "reduce:0-inf:np=3-3:@reduce_scatter_gather;"
                                      "allgather:0-inf:np=2-4:@ring:seg=1K;"
                                      "reduce_scatter:0-1M:@ring:seg=2K",
                                      "test", &r), LOOM_OK);
    cfg.rules = r;

    /* Bcast: 8 bytes would be binomial by the model and the setting. */
    cfg.bcast_algorithm = LOOM_BCAST_BINOMIAL;
    loom_bcast_select(&cfg, 16, 8, 1, &bc);
    ck_assert_int_eq(bc.alg, LOOM_BCAST_CHAIN);
    ck_assert_uint_eq(bc.seg_bytes, 256);
    ck_assert_int_eq(bc.rule, 0);
    ck_assert(bc.forced);
    loom_bcast_select(&cfg, 16, 1500, 1, &bc);   /* auto: the setting's algorithm stays */
    ck_assert_int_eq(bc.alg, LOOM_BCAST_BINOMIAL);
    ck_assert_uint_eq(bc.seg_bytes, 0);      /* binomial is not segmented */
    ck_assert_int_eq(bc.rule, 1);
    cfg.bcast_algorithm = LOOM_BCAST_CHAIN;
    loom_bcast_select(&cfg, 16, 1500, 1, &bc);
    ck_assert_uint_eq(bc.seg_bytes, 512);
    loom_bcast_select(&cfg, 16, 4096, 1, &bc);   /* no rule */
    ck_assert_int_eq(bc.rule, -1);
    ck_assert_int_eq(bc.alg, LOOM_BCAST_CHAIN);

    /* Reduce: only on 3 ranks; either op order, every algorithm keeps it. */
    loom_reduce_select(&cfg, 3, 8, 0, &rc);
    ck_assert_int_eq(rc.alg, LOOM_REDUCE_SCATTER_GATHER);
    ck_assert_int_eq(rc.rule, 2);
    loom_reduce_select(&cfg, 4, 8, 0, &rc);
    ck_assert_int_eq(rc.alg, LOOM_REDUCE_BINOMIAL);
    ck_assert_int_eq(rc.rule, -1);

    /* Allgather: 8 bytes would go to Bruck. */
    cfg.allgather_segment = 4096;
    loom_allgather_select(&cfg, 4, 8, 1, &ac);
    ck_assert_int_eq(ac.alg, LOOM_ALLGATHER_RING);
    ck_assert_uint_eq(ac.seg_bytes, 1024);
    ck_assert_int_eq(ac.rule, 3);
    loom_allgather_select(&cfg, 8, 8, 1, &ac);
    ck_assert_int_eq(ac.alg, LOOM_ALLGATHER_BRUCK);
    ck_assert_int_eq(ac.rule, -1);

    /* Reduce_scatter: the ring cannot keep rank order. */
    loom_reduce_scatter_select(&cfg, 16, 64, 1, &sc);
    ck_assert_int_eq(sc.alg, LOOM_REDUCE_SCATTER_RING);
    ck_assert_uint_eq(sc.seg_bytes, 2048);
    ck_assert_int_eq(sc.rule, 4);
    loom_reduce_scatter_select(&cfg, 16, 64, 0, &sc);
    ck_assert_int_eq(sc.alg, LOOM_REDUCE_SCATTER_HALVING);
    ck_assert_uint_eq(sc.seg_bytes, 0);
    loom_rules_destroy(r);
}
END_TEST

/* A rule may name the hierarchical algorithms, which the model never
 * picks; for a non-commutative reduce the choice so far stays. */
START_TEST(test_rules_hierarchical)
{
    loom_coll_config_t cfg;
    loom_choice_t bc;
    loom_choice_t rc;
    loom_choice_t ac;
    loom_choice_t sc;
    loom_rules_t *r;

    ck_assert_int_eq(loom_coll_config_init(&cfg), LOOM_OK);
    ck_assert_int_eq(loom_rules_parse("bcast:0-inf:@hierarchical:seg=8K;"
                                      "reduce:0-inf:@hierarchical;"
                                      "allgather:0-inf:@hierarchical;"
                                      "reduce_scatter:0-inf:@hierarchical",
                                      "test", &r), LOOM_OK);
    cfg.rules = r;
    loom_bcast_select(&cfg, 16, 1u << 20, 1, &bc);
    ck_assert_int_eq(bc.alg, LOOM_BCAST_HIER);
    ck_assert_uint_eq(bc.seg_bytes, 8192);
    loom_reduce_select(&cfg, 16, 1u << 20, 1, &rc);
    ck_assert_int_eq(rc.alg, LOOM_REDUCE_HIER);
    loom_reduce_select(&cfg, 16, 1u << 20, 0, &rc);
    ck_assert(loom_reduce_algorithms[rc.alg].noncommutative);
    loom_allgather_select(&cfg, 16, 1u << 20, 1, &ac);
    ck_assert_int_eq(ac.alg, LOOM_ALLGATHER_HIER);
    loom_reduce_scatter_select(&cfg, 16, 1u << 20, 1, &sc);
    ck_assert_int_eq(sc.alg, LOOM_REDUCE_SCATTER_HIER);
    loom_reduce_scatter_select(&cfg, 16, 1u << 20, 0, &sc);
    ck_assert_int_eq(sc.alg, LOOM_REDUCE_SCATTER_HALVING);
    loom_rules_destroy(r);
}
END_TEST

/* Cost constants: a v2 line, applied over the settings, hashed. */
START_TEST(test_rules_cost)
{
    loom_coll_config_t cfg;
    loom_rules_t *r, *same, *other;

    ck_assert_int_eq(loom_coll_config_init(&cfg), LOOM_OK);
    ck_assert_int_eq(loom_rules_parse("v2\ncost:alpha_ns=2500:bandwidth_mbs=12000\n"
                                      "bcast:0-inf:@chain\n", "test", &r), LOOM_OK);
    ck_assert_int_eq(r->count, 1);
    ck_assert_int_eq(r->cost.alpha_ns, 2500);
    ck_assert_int_eq(r->cost.bandwidth_mbs, 12000);
    ck_assert_int_eq(r->cost.reduce_mbs, -1);
    loom_rules_apply_cost(r, &cfg);
    ck_assert_int_eq(cfg.cost_alpha_ns, 2500);
    ck_assert_int_eq(cfg.cost_bandwidth_mbs, 12000);
    ck_assert_int_eq(cfg.cost_reduce_mbs, 6000);   /* not given: the default stays */

    /* No header means the latest grammar; lines in any order. */
    ck_assert_int_eq(loom_rules_parse("bcast:0-inf:@chain; cost: bandwidth_mbs=12000 ; "
                                      "cost:alpha_ns=2500", "test", &same), LOOM_OK);
    ck_assert_uint_eq(same->hash, r->hash);
    ck_assert_int_eq(loom_rules_parse("bcast:0-inf:@chain; cost:alpha_ns=2500:"
                                      "bandwidth_mbs=12001", "test", &other), LOOM_OK);
    ck_assert_uint_ne(other->hash, r->hash);
    loom_rules_destroy(other);
    /* Constants alone are a valid text, and count in the hash. */
    ck_assert_int_eq(loom_rules_parse("cost:reduce_mbs=9000", "test", &other), LOOM_OK);
    ck_assert_int_eq(other->count, 0);
    ck_assert_int_eq(other->cost.reduce_mbs, 9000);
    loom_rules_apply_cost(other, &cfg);
    ck_assert_int_eq(cfg.cost_reduce_mbs, 9000);
    loom_rules_destroy(same);
    ck_assert_int_eq(loom_rules_parse("", "test", &same), LOOM_OK);
    ck_assert_uint_ne(other->hash, same->hash);
    loom_rules_destroy(same);
    loom_rules_destroy(other);
    loom_rules_destroy(r);

    expect_error("v1; cost:alpha_ns=1", "position 5", "cost constants need the v2 header");
    expect_error("v3; bcast:0-1:@chain", "position 1", "one of: v1, v2)");
    expect_error("cost:latency=5", "position 6",
                 "one of: alpha_ns, bandwidth_mbs, reduce_mbs)");
    expect_error("cost:alpha_ns=5:alpha_ns=6", "position 17", "each cost constant once");
    expect_error("cost:bandwidth_mbs=0", "position 20", "1 to 100000000");
    expect_error("cost:alpha_ns=3us", "position 15", "nanoseconds");
    expect_error("cost:alpha_ns", "position 14", "'='");
    expect_error("cost alpha_ns=1", "position 6", "':' after cost");
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
    tcase_add_test(tc, test_rules_every_coll);
    tcase_add_test(tc, test_rules_every_coll_errors);
    tcase_add_test(tc, test_rules_drive_every_selection);
    tcase_add_test(tc, test_rules_hierarchical);
    tcase_add_test(tc, test_rules_cost);
    suite_add_tcase(s, tc);
    return loom_check_run(s);
}
