/* The rank order of a team (team.h): what loom_team_set_order accepts and
 * refuses with which words, the collective it takes effect at, and the
 * order a schedule keeps for its whole life. */
#include "coll/core/engine/sched.h"
#include "test/unit/support/log_capture.h"

#include <check.h>
#include "test/unit/support/check_main.h"
#include <stdint.h>
#include <stdlib.h>
#include <string.h>

#define P 5

static loom_team_t *make_team(void)
{
    static const int peers[P] = { 0, 1, 2, 3, 4 };
    loom_team_params_t params = { .size = P, .rank = 1, .peers = peers, .context_id = 7 };
    loom_team_t *team;

    ck_assert_int_eq(loom_team_create(&params, &team), LOOM_OK);
    return team;
}

static loom_sched_t *begin(loom_team_t *team)
{
    loom_coll_args_t args = { .count = 1, .elem_size = 4, .op = { .commutative = 1 } };
    loom_sched_t *sched;

    ck_assert_int_eq(loom_sched_create(team, &args, 1, &sched), LOOM_OK);
    return sched;
}

/* Each refusal names what was wrong and what is accepted; the team is
 * unchanged after it. */
START_TEST(test_order_refused)
{
    static const struct { int order[P + 1]; int n; uint32_t from; const char *words[2]; } bad[] = {
        { { 0, 1, 2, 3 }, 4, 0, { "4 entries for a team of 5", "one per position" } },
        { { 0, 1, 2, 3, 4, 5 }, 6, 0, { "6 entries", "team of 5" } },
        { { 0, 1, 5, 3, 4 }, 5, 3, { "position 2 holds 5", "0..4" } },
        { { 0, 1, -1, 3, 4 }, 5, 3, { "position 2 holds -1", "every rank once" } },
        { { 4, 1, 2, 1, 0 }, 5, 3, { "rank 1 stands at positions 1 and 3", "exactly once" } },
        { { 4, 3, 2, 1, 0 }, 5, 2, { "collective 2 of this team has already begun",
                                     "from the next one, 3" } },
    };
    loom_team_t *team = make_team();
    loom_sched_t *s;
    size_t i;
    int k;

    /* Collectives 0, 1 and 2 have begun. */
    for (k = 0; k < 3; ++k) {
        loom_sched_destroy(begin(team));
    }
    for (i = 0; i < sizeof(bad) / sizeof(bad[0]); ++i) {
        capture_start();
        ck_assert_int_eq(loom_team_set_order(team, bad[i].order, bad[i].n, bad[i].from),
                         LOOM_ERR_INVALID_PARAM);
        capture_stop();
        for (k = 0; k < 2; ++k) {
            ck_assert_msg(strstr(log_buf, bad[i].words[k]) != NULL,
                          "case %zu: '%s' does not say '%s'", i, log_buf, bad[i].words[k]);
        }
        ck_assert(!team->order_pending);
    }
    s = begin(team);
    ck_assert_ptr_null(s->order);
    loom_sched_destroy(s);
    loom_team_destroy(team);
}
END_TEST

/* An order waits for its sequence number, then stays; the identity is
 * NULL; a schedule keeps the order it began with while the team moves on. */
START_TEST(test_order_takes_effect)
{
    const int rev[P] = { 4, 3, 2, 1, 0 }, rot[P] = { 1, 2, 3, 4, 0 }, id[P] = { 0, 1, 2, 3, 4 };
    loom_team_t *team = make_team();
    loom_sched_t *s0, *s1, *s2, *s3, *s4;
    int r;

    ck_assert_int_eq(loom_team_set_order(team, rev, P, 2), LOOM_OK);
    ck_assert_int_eq(loom_team_pos(team, 4), 4);   /* not yet */
    s0 = begin(team);
    s1 = begin(team);
    ck_assert_ptr_null(s0->order);
    ck_assert_ptr_null(s1->order);
    s2 = begin(team);                               /* sequence number 2 */
    ck_assert_ptr_nonnull(s2->order);
    ck_assert_ptr_eq(loom_sched_order(s2), s2->order);
    for (r = 0; r < P; ++r) {
        ck_assert_int_eq(loom_order_at(s2->order, r), rev[r]);
        ck_assert_int_eq(loom_order_pos(s2->order, rev[r]), r);
        ck_assert_int_eq(loom_team_at(team, r), rev[r]);
        ck_assert_int_eq(loom_team_pos(team, rev[r]), r);
    }
    /* Virtual ranks from a root count positions: root 3 sits at
     * position 1, rank 0 at position 4, three places on. */
    ck_assert_int_eq(loom_order_vrank(s2->order, 0, 3, P), 3);
    ck_assert_int_eq(loom_order_vrank_real(s2->order, 3, 3, P), 0);
    ck_assert_int_eq(loom_order_vrank_real(s2->order, 4, 3, P), 4);

    /* The next order replaces it from collective 4 on; s2 keeps its own. */
    ck_assert_int_eq(loom_team_set_order(team, rot, P, 4), LOOM_OK);
    s3 = begin(team);
    ck_assert_ptr_eq(s3->order, s2->order);
    s4 = begin(team);
    ck_assert_int_eq(loom_order_at(s4->order, 0), 1);
    loom_sched_destroy(s3);
    for (r = 0; r < P; ++r) {
        ck_assert_int_eq(loom_order_at(s2->order, r), rev[r]);
    }

    /* A reduction under the order: the identity where rank order must
     * hold (non-commutative, reproducible). */
    ck_assert_ptr_eq(loom_sched_reduce_order(s4), s4->order);
    s4->args.op.commutative = 0;
    ck_assert_ptr_null(loom_sched_reduce_order(s4));
    s4->args.op.commutative = 1;
    s4->args.reproducible = 1;
    ck_assert_ptr_null(loom_sched_reduce_order(s4));
    ck_assert_ptr_eq(loom_sched_order(s4), s4->order);

    /* The identity, given as a list, is no order at all. */
    ck_assert_int_eq(loom_team_set_order(team, id, P, team->next_seq), LOOM_OK);
    s3 = begin(team);
    ck_assert_ptr_null(s3->order);
    ck_assert_int_eq(loom_team_at(team, 2), 2);
    loom_sched_destroy(s3);
    /* Orders outlive the team's switch as long as a schedule holds them. */
    loom_sched_destroy(s0);
    loom_sched_destroy(s1);
    loom_sched_destroy(s4);
    loom_sched_destroy(s2);
    loom_team_destroy(team);
}
END_TEST

/* Sequence numbers wrap: an order set from a number past the wrap is
 * still ahead. */
START_TEST(test_order_seq_wraps)
{
    const int rev[P] = { 4, 3, 2, 1, 0 };
    loom_team_t *team = make_team();
    loom_sched_t *s;

    team->next_seq = UINT32_MAX;
    ck_assert_int_eq(loom_team_set_order(team, rev, P, 1), LOOM_OK);
    s = begin(team);        /* UINT32_MAX */
    ck_assert_ptr_null(s->order);
    loom_sched_destroy(s);
    s = begin(team);        /* 0 */
    ck_assert_ptr_null(s->order);
    loom_sched_destroy(s);
    s = begin(team);        /* 1 */
    ck_assert_ptr_nonnull(s->order);
    loom_sched_destroy(s);
    capture_start();
    ck_assert_int_eq(loom_team_set_order(team, rev, P, UINT32_MAX), LOOM_ERR_INVALID_PARAM);
    capture_stop();
    loom_team_destroy(team);
}
END_TEST

static Suite *team_order_suite(void)
{
    Suite *s = suite_create("team_order");
    TCase *tc = tcase_create("order");

    tcase_add_test(tc, test_order_refused);
    tcase_add_test(tc, test_order_takes_effect);
    tcase_add_test(tc, test_order_seq_wraps);
    suite_add_tcase(s, tc);
    return s;
}

int main(void)
{
    return loom_check_run(team_order_suite());
}
