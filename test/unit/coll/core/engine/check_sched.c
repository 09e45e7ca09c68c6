/* The executor, the team and the loopback transport. */
#include "test/unit/support/loopback_harness.h"
#include "coll/core/engine/pool.h"
#include "coll/core/engine/tag.h"

#include <check.h>
#include "test/unit/support/check_main.h"
#include <stdint.h>
#include <stdlib.h>
#include <string.h>

START_TEST(test_tag_fields)
{
    uint64_t tag = loom_tag_make(0xBEEF, 65535, 1023, 9, 12345);

    ck_assert_int_eq(loom_tag_rank(tag), 65535);
    ck_assert_uint_eq(loom_tag_alg(tag), 9);
    ck_assert_uint_eq(loom_tag_step(tag), 12345);
    ck_assert_uint_eq(tag >> 48, 0xBEEF);
    ck_assert_uint_eq((tag >> LOOM_TAG_SEQ_SHIFT) & LOOM_TAG_MASK(LOOM_TAG_SEQ_BITS), 1023);
    /* Sequence numbers 1024 apart share a tag: hence LOOM_TAG_MAX_INFLIGHT. */
    ck_assert(loom_tag_make(1, 2, 3, 1, 4) == loom_tag_make(1, 2, 3 + 1024, 1, 4));
    ck_assert(loom_tag_make(1, 2, 3, 1, 4) != loom_tag_make(1, 2, 3 + 512, 1, 4));
    ck_assert_int_lt(LOOM_TAG_MAX_INFLIGHT, 1 << LOOM_TAG_SEQ_BITS);
    /* Different algorithms never share a tag. */
    ck_assert(loom_tag_make(1, 2, 3, 1, 4) != loom_tag_make(1, 2, 3, 2, 4));
}
END_TEST

START_TEST(test_team_nodes)
{
    const uint64_t keys[6] = { 77, 12, 77, 99, 12, 77 };
    const int peers[6] = { 10, 11, 12, 13, 14, 15 };
    loom_team_params_t params = { .size = 6, .rank = 2, .peers = peers,
                                  .node_keys = keys, .context_id = 3 };
    loom_team_t *team;

    ck_assert_int_eq(loom_team_create(&params, &team), LOOM_OK);
    ck_assert_int_eq(team->num_nodes, 3);
    ck_assert_int_eq(team->node_of[0], 0);
    ck_assert_int_eq(team->node_of[1], 1);
    ck_assert_int_eq(team->node_of[2], 0);
    ck_assert_int_eq(team->node_of[3], 2);
    ck_assert_int_eq(team->node_of[4], 1);
    ck_assert_int_eq(team->peers[5], 15);
    ck_assert_int_eq(team->num_racks, 1);
    ck_assert_int_eq(team->rack_of[3], 0);
    ck_assert_uint_eq(loom_team_next_seq(team), 0);
    ck_assert_uint_eq(loom_team_next_seq(team), 1);
    loom_team_destroy(team);

    params.rank = 6;
    ck_assert_int_eq(loom_team_create(&params, &team), LOOM_ERR_INVALID_PARAM);
    params.rank = 0;
    params.context_id = LOOM_TAG_MAX_CONTEXT + 1;
    ck_assert_int_eq(loom_team_create(&params, &team), LOOM_ERR_INVALID_PARAM);
}
END_TEST

/* Racks number like nodes, and a rank whose rack key disagrees with the
 * first rank of its node follows that rank: a rack never splits a node. */
START_TEST(test_team_racks)
{
    const uint64_t nodes[6] = { 77, 12, 77, 99, 12, 55 };
    const uint64_t racks[6] = { 5, 8, 6, 5, 8, 8 };
    const int peers[6] = { 0, 1, 2, 3, 4, 5 };
    loom_team_params_t params = { .size = 6, .rank = 1, .peers = peers,
                                  .node_keys = nodes, .rack_keys = racks };
    loom_team_t *team;

    ck_assert_int_eq(loom_team_create(&params, &team), LOOM_OK);
    ck_assert_int_eq(team->num_nodes, 4);
    ck_assert_int_eq(team->num_racks, 2);
    ck_assert_int_eq(team->rack_of[0], 0);
    ck_assert_int_eq(team->rack_of[1], 1);
    ck_assert_int_eq(team->rack_of[2], 0); /* key 6, but node 77 is in rack 0 */
    ck_assert_int_eq(team->rack_of[3], 0);
    ck_assert_int_eq(team->rack_of[4], 1);
    ck_assert_int_eq(team->rack_of[5], 1);
    /* nodes 77 {0,2}, 12 {1,4}, 99 {3}, 55 {5}; racks {77,99} {12,55} */
    ck_assert_int_eq(team->shape.max_node, 2);
    ck_assert_int_eq(team->shape.max_rack, 2);
    ck_assert_int_eq(team->shape.max_rack_ranks, 3);
    /* ring 0>1>2>3>4>5>0: node 77 sends 0>1 and 2>3, node 12 1>2 and 4>5 */
    ck_assert_int_eq(team->shape.ring_nic, 2);
    /* rack 0 (ranks 0, 2, 3) sends 0>1 and 3>4, rack 1 sends 1>2 and 5>0 */
    ck_assert_int_eq(team->shape.ring_uplink, 2);
    loom_team_destroy(team);
}
END_TEST

/* Rank 0 sends a, then b; rank 1 receives b first (different tags), then a,
 * then copies a into c only after the receive of a: dependencies hold. */
static char a_in[16] = "first message", b_in[16] = "second", a_out[16], b_out[16], c_out[16];

static loom_status_t plan_pair(const loom_coll_args_t *args, loom_team_t *team,
                               loom_sched_t **sched_p)
{
    loom_sched_t *s;
    int recv_a = -1;

    loom_sched_create(team, args, 1, &s);
    if (team->rank == 0) {
        loom_sched_add(s, &(loom_step_desc_t){ .type = LOOM_STEP_SEND, .peer = 1,
                       .tag_step = 1, .src = a_in, .bytes = 16 }, NULL);
        loom_sched_add(s, &(loom_step_desc_t){ .type = LOOM_STEP_SEND, .peer = 1,
                       .tag_step = 2, .src = b_in, .bytes = 16 }, NULL);
    } else {
        loom_sched_add(s, &(loom_step_desc_t){ .type = LOOM_STEP_RECV, .peer = 0,
                       .tag_step = 2, .dst = b_out, .bytes = 16 }, NULL);
        loom_sched_add(s, &(loom_step_desc_t){ .type = LOOM_STEP_RECV, .peer = 0,
                       .tag_step = 1, .dst = a_out, .bytes = 16 }, &recv_a);
        loom_sched_add(s, &(loom_step_desc_t){ .type = LOOM_STEP_COPY, .src = a_out,
                       .dst = c_out, .bytes = 16, .deps = { recv_a }, .ndeps = 1 }, NULL);
    }
    *sched_p = s;
    return LOOM_OK;
}

START_TEST(test_sched_tags_and_deps)
{
    loom_coll_args_t args[2] = { { .elem_size = 1 }, { .elem_size = 1 } };
    harness_t h;

    memset(a_out, 0, 16);
    memset(b_out, 0, 16);
    memset(c_out, 0, 16);
    harness_init(&h, 2);
    ck_assert_int_eq(harness_run(&h, plan_pair, args, 1), LOOM_OK);
    ck_assert_str_eq(a_out, "first message");
    ck_assert_str_eq(b_out, "second");
    ck_assert_str_eq(c_out, "first message");
    ck_assert_uint_eq(loom_loopback_bytes_sent(h.lb, 0), 32);
    ck_assert_uint_eq(loom_loopback_bytes_received(h.lb, 1), 32);
    ck_assert_int_eq(loom_loopback_pending(h.lb), 0);
    harness_fini(&h);
}
END_TEST

/* Both ranks receive before they send: a true deadlock, reported. */
static loom_status_t plan_deadlock(const loom_coll_args_t *args, loom_team_t *team,
                                   loom_sched_t **sched_p)
{
    loom_sched_t *s;
    int recv;

    loom_sched_create(team, args, 1, &s);
    loom_sched_add(s, &(loom_step_desc_t){ .type = LOOM_STEP_RECV, .peer = 1 - team->rank,
                   .tag_step = 0, .dst = a_out, .bytes = 4 }, &recv);
    loom_sched_add(s, &(loom_step_desc_t){ .type = LOOM_STEP_SEND, .peer = 1 - team->rank,
                   .tag_step = 0, .src = a_in, .bytes = 4, .deps = { recv },
                   .ndeps = 1 }, NULL);
    *sched_p = s;
    return LOOM_OK;
}

START_TEST(test_sched_deadlock_detected)
{
    loom_coll_args_t args[2] = { { .elem_size = 1 }, { .elem_size = 1 } };
    harness_t h;

    harness_init(&h, 2);
    ck_assert_int_eq(harness_run(&h, plan_deadlock, args, 3), LOOM_ERR_DEADLOCK);
    harness_fini(&h);
}
END_TEST

/* A message longer or shorter than the receive is an error, never a silent
 * partial result. */
static size_t recv_bytes;

static loom_status_t plan_mismatch(const loom_coll_args_t *args, loom_team_t *team,
                                   loom_sched_t **sched_p)
{
    loom_sched_t *s;

    loom_sched_create(team, args, 1, &s);
    if (team->rank == 0) {
        loom_sched_add(s, &(loom_step_desc_t){ .type = LOOM_STEP_SEND, .peer = 1,
                       .src = a_in, .bytes = 8 }, NULL);
    } else {
        loom_sched_add(s, &(loom_step_desc_t){ .type = LOOM_STEP_RECV, .peer = 0,
                       .dst = a_out, .bytes = recv_bytes }, NULL);
    }
    *sched_p = s;
    return LOOM_OK;
}

/* The hang report names the pending step, its size and its peer. */
START_TEST(test_sched_describe_wait)
{
    loom_coll_args_t args = { .elem_size = 1 };
    loom_sched_t *s;
    harness_t h;
    char text[256], tiny[24];

    harness_init(&h, 2);
    loom_sched_create(h.teams[1], &args, 1, &s);
    loom_sched_recv(s, 0, 7, b_out, 12, LOOM_NO_DEPS);
    loom_sched_copy(s, b_out, c_out, 12, LOOM_DEPS(0));
    ck_assert_int_eq(loom_sched_progress(s), LOOM_INPROGRESS); /* rank 0 never sends */
    loom_sched_describe_wait(s, text, sizeof(text));
    ck_assert_msg(strstr(text, "0 of 2 steps done") != NULL, "%s", text);
    ck_assert_msg(strstr(text, "step 0: receive of 12 bytes from rank 0") != NULL, "%s", text);
    /* Truncated, still terminated. */
    ck_assert_uint_eq(loom_sched_describe_wait(s, tiny, sizeof(tiny)), sizeof(tiny) - 1);
    ck_assert_uint_eq(strlen(tiny), sizeof(tiny) - 1);
    /* Satisfy the receive so the schedule can be put away. */
    {
        loom_sched_t *send;

        loom_sched_create(h.teams[0], &args, 1, &send);
        loom_sched_send(send, 1, 7, a_in, 12, LOOM_NO_DEPS);
        while (loom_sched_progress(send) == LOOM_INPROGRESS ||
               loom_sched_progress(s) == LOOM_INPROGRESS) {
        }
        loom_sched_describe_wait(s, text, sizeof(text));
        ck_assert_msg(strstr(text, "2 of 2 steps done; no posted step is pending") != NULL,
                      "%s", text);
        loom_sched_destroy(send);
    }
    loom_sched_destroy(s);
    harness_fini(&h);
}
END_TEST

START_TEST(test_sched_size_mismatch)
{
    loom_coll_args_t args[2] = { { .elem_size = 1 }, { .elem_size = 1 } };
    harness_t h;

    loom_log_set_level((loom_log_level_t)-1);
    recv_bytes = 4;
    harness_init(&h, 2);
    ck_assert_int_eq(harness_run(&h, plan_mismatch, args, 1), LOOM_ERR_TRUNCATED);
    harness_fini(&h);
    recv_bytes = 12;
    harness_init(&h, 2);
    ck_assert_int_eq(harness_run(&h, plan_mismatch, args, 1), LOOM_ERR_TRUNCATED);
    harness_fini(&h);
    loom_log_set_level(LOOM_LOG_WARN);
}
END_TEST

START_TEST(test_sched_rejects_forward_deps)
{
    loom_coll_args_t args = { .elem_size = 1 };
    loom_team_t *team;
    loom_sched_t *s;
    int peer = 0;
    loom_team_params_t params = { .size = 1, .rank = 0, .peers = &peer };

    ck_assert_int_eq(loom_team_create(&params, &team), LOOM_OK);
    ck_assert_int_eq(loom_sched_create(team, &args, 1, &s), LOOM_OK);
    ck_assert_int_eq(loom_sched_add(s, &(loom_step_desc_t){ .type = LOOM_STEP_COPY,
                     .deps = { 0 }, .ndeps = 1 }, NULL), LOOM_ERR_INVALID_PARAM);
    ck_assert_int_eq(loom_sched_add(s, &(loom_step_desc_t){ .type = LOOM_STEP_COPY,
                     .ndeps = LOOM_STEP_MAX_DEPS + 1 }, NULL), LOOM_ERR_INVALID_PARAM);
    ck_assert_int_eq(s->nsteps, 0);
    /* An empty schedule is done at once. */
    ck_assert_int_eq(loom_sched_progress(s), LOOM_OK);
    loom_sched_destroy(s);
    loom_team_destroy(team);
}
END_TEST

/* A progress call made while the same schedule is progressing (Open MPI's
 * progress hook inside a blocking wait) returns without touching it. */
static loom_sched_t *reentrant_sched;
static loom_status_t reentrant_inner;

static void reduce_reenter(const void *src, void *dst, size_t count, void *ctx)
{
    (void)src; (void)dst; (void)count; (void)ctx;
    reentrant_inner = loom_sched_progress(reentrant_sched);
}

START_TEST(test_sched_reentrant)
{
    double x = 1, y = 2;
    loom_coll_args_t args = { .elem_size = sizeof(double),
                              .op = { .fn = reduce_reenter, .commutative = 1 } };
    loom_team_t *team;
    int peer = 0;
    loom_team_params_t params = { .size = 1, .rank = 0, .peers = &peer };

    ck_assert_int_eq(loom_team_create(&params, &team), LOOM_OK);
    ck_assert_int_eq(loom_sched_create(team, &args, 1, &reentrant_sched), LOOM_OK);
    loom_sched_add(reentrant_sched, &(loom_step_desc_t){ .type = LOOM_STEP_REDUCE,
                   .src = &x, .dst = &y, .bytes = sizeof(double) }, NULL);
    reentrant_inner = LOOM_ERR_LAST;
    ck_assert_int_eq(loom_sched_progress(reentrant_sched), LOOM_OK);
    ck_assert_int_eq(reentrant_inner, LOOM_INPROGRESS);
    loom_sched_destroy(reentrant_sched);
    loom_team_destroy(team);
}
END_TEST

/* The scratch pool hands a freed buffer out again (no new page faults),
 * aligned, and keeps a bounded number per size class. */
START_TEST(test_pool_reuse)
{
    void *a, *b, *c, *bufs[8];
    int i;

    loom_pool_trim();
    ck_assert_uint_eq(loom_pool_cached_bytes(), 0);
    ck_assert_int_eq(loom_pool_get(100000, &a), LOOM_OK);
    ck_assert_uint_eq((uintptr_t)a % 64, 0);
    memset(a, 0xab, 100000);
    loom_pool_put(a);
    ck_assert_uint_eq(loom_pool_cached_bytes(), 131072); /* its power-of-two class */
    ck_assert_int_eq(loom_pool_get(70000, &b), LOOM_OK);  /* same class */
    ck_assert_ptr_eq(a, b);
    ck_assert_uint_eq(loom_pool_cached_bytes(), 0);
    ck_assert_int_eq(loom_pool_get(1, &c), LOOM_OK);       /* another class */
    ck_assert_ptr_ne(c, b);
    loom_pool_put(b);
    loom_pool_put(c);
    loom_pool_put(NULL);
    ck_assert_uint_eq(loom_pool_cached_bytes(), 131072 + 4096);

    /* At most a few buffers per class stay cached. */
    for (i = 0; i < 8; ++i) {
        ck_assert_int_eq(loom_pool_get(5000, &bufs[i]), LOOM_OK);
    }
    for (i = 0; i < 8; ++i) {
        loom_pool_put(bufs[i]);
    }
    ck_assert_uint_le(loom_pool_cached_bytes(), 131072 + 4096 + 4 * 8192);
    loom_pool_trim();
    ck_assert_uint_eq(loom_pool_cached_bytes(), 0);
}
END_TEST

/* A team reuses its schedules: the second collective allocates nothing new. */
START_TEST(test_sched_reused)
{
    loom_coll_args_t args = { .elem_size = 1 };
    loom_sched_t *s1, *s2;
    loom_team_t *team;
    int peer = 0;
    loom_team_params_t params = { .size = 1, .rank = 0, .peers = &peer };

    ck_assert_int_eq(loom_team_create(&params, &team), LOOM_OK);
    ck_assert_int_eq(loom_sched_create(team, &args, 1, &s1), LOOM_OK);
    loom_sched_copy(s1, a_in, a_out, 4, LOOM_NO_DEPS);
    ck_assert_int_eq(loom_sched_progress(s1), LOOM_OK);
    loom_sched_destroy(s1);
    ck_assert_int_eq(loom_sched_create(team, &args, 1, &s2), LOOM_OK);
    ck_assert_ptr_eq(s1, s2);
    ck_assert_int_eq(s2->nsteps, 0);
    ck_assert_uint_eq(s2->seq, 1);
    loom_sched_destroy(s2);
    loom_team_destroy(team);
}
END_TEST

int main(void)
{
    Suite *s = suite_create("sched");
    TCase *tc = tcase_create("executor");

    tcase_add_test(tc, test_tag_fields);
    tcase_add_test(tc, test_team_nodes);
    tcase_add_test(tc, test_team_racks);
    tcase_add_test(tc, test_sched_tags_and_deps);
    tcase_add_test(tc, test_sched_deadlock_detected);
    tcase_add_test(tc, test_sched_size_mismatch);
    tcase_add_test(tc, test_sched_describe_wait);
    tcase_add_test(tc, test_sched_rejects_forward_deps);
    tcase_add_test(tc, test_sched_reentrant);
    tcase_add_test(tc, test_pool_reuse);
    tcase_add_test(tc, test_sched_reused);
    suite_add_tcase(s, tc);
    return loom_check_run(s);
}
