/*
 * The verifier (verifier.h) on steps the data decides: a hand-built
 * two-rank allreduce whose deciding compute step sets the exchange's
 * run-time length and takes one of two arms (arm 1: a send and receive
 * of run-time length, arm 2: plain ones), each followed by the same
 * reduction.  Both arms must pass in both step orders; broken variants
 * must get the verdict that names their bug.
 */
#include "test/unit/support/verifier.h"
#include "common/log.h"

#include <check.h>
#include "test/unit/support/check_main.h"
#include <string.h>

#define E LOOM_VERIFY_ELEM_SIZE
#define P 2

typedef enum variant {
    V_GOOD,
    V_LEN_DIFFERS,      /* rank 1's run-time length is an element short */
    V_OVER_BOUND,       /* every rank's length is an element over the bound */
    V_ZERO_ON_ONE,      /* rank 0's length is 0 (no message), rank 1's is not */
    V_EARLY_ARM,        /* an arm's step is ready before the decision */
    V_TWO_ARMS,         /* the decision takes both arms */
    V_COMPUTE_FAILS
} variant_t;

/* One rank's decision: the length it computes, the arm it takes. */
typedef struct decision {
    int         rank;
    size_t      len;
    size_t      bytes;
    int         arm;
} decision_t;

static variant_t variant;
static int chosen_arm;
static decision_t decisions[P];

static loom_status_t fn_decide(loom_sched_t *sched, void *arg)
{
    decision_t *dc = arg;

    if (variant == V_COMPUTE_FAILS) {
        return LOOM_ERR_IO;
    }
    dc->len = dc->bytes;
    if (variant == V_LEN_DIFFERS && dc->rank == 1) {
        dc->len -= E;
    } else if (variant == V_OVER_BOUND) {
        dc->len += E;
    } else if (variant == V_ZERO_ON_ONE && dc->rank == 0) {
        dc->len = 0;
    }
    loom_sched_take_arm(sched, dc->arm);
    if (variant == V_TWO_ARMS) {
        loom_sched_take_arm(sched, 3 - dc->arm);
    }
    return LOOM_OK;
}

static loom_status_t plan_steps(const loom_coll_args_t *args, loom_team_t *team,
                                loom_sched_t **sched_p)
{
    size_t n = args->count * args->elem_size;
    int peer = 1 - team->rank, cp, c, r1, r2, early = -1;
    decision_t *dc = &decisions[team->rank];
    loom_sched_t *s;
    loom_status_t status;
    void *scratch;

    status = loom_sched_create(team, args, 1, &s);
    if (status != LOOM_OK) {
        return status;
    }
    if (loom_sched_alloc_scratch(s, n, &scratch) != LOOM_OK) {
        return loom_sched_plan_done(s, sched_p);
    }
    *dc = (decision_t){ .rank = team->rank, .bytes = n, .arm = chosen_arm };
    cp = loom_sched_copy_input(s);
    if (variant == V_EARLY_ARM) {
        /* The decision waits for a step of arm 1. */
        loom_sched_build_arm(s, 1);
        early = loom_sched_copy(s, args->sendbuf, scratch, n, LOOM_NO_DEPS);
        loom_sched_build_arm(s, 0);
    }
    c = loom_sched_compute(s, fn_decide, dc, 0, LOOM_DEPS(early));
    loom_sched_build_arm(s, 1);
    loom_sched_send_len(s, peer, 1, args->sendbuf, n, &dc->len, LOOM_DEPS(c));
    r1 = loom_sched_recv_len(s, peer, 1, scratch, n, &dc->len, LOOM_DEPS(c));
    loom_sched_reduce(s, scratch, args->recvbuf, n, LOOM_DEPS(r1, cp));
    loom_sched_build_arm(s, 2);
    loom_sched_send(s, peer, 2, args->sendbuf, n, LOOM_DEPS(c));
    r2 = loom_sched_recv(s, peer, 2, scratch, n, LOOM_DEPS(c));
    loom_sched_reduce(s, scratch, args->recvbuf, n, LOOM_DEPS(r2, cp));
    loom_sched_build_arm(s, 0);
    return loom_sched_plan_done(s, sched_p);
}

static loom_verify_verdict_t verify(variant_t v, int arm, uint64_t seed,
                                    loom_verify_report_t *rep)
{
    loom_verify_params_t pa = {
        .name = "steps", .plan = plan_steps, .nranks = P, .count = 5,
        .op = LOOM_VERIFY_OP_SUM, .seed = seed,
        .order = seed % 2 ? LOOM_VERIFY_ORDER_LATE_DELIVERY : LOOM_VERIFY_ORDER_UNIFORM,
    };

    variant = v;
    chosen_arm = arm;
    ck_assert_int_eq(loom_verify_run(&pa, rep), LOOM_OK);
    return rep->verdict;
}

START_TEST(test_both_arms_pass)
{
    loom_verify_report_t rep;
    uint64_t seed;
    int arm;

    for (arm = 1; arm <= 2; ++arm) {
        for (seed = 1; seed <= 8; ++seed) {
            ck_assert_msg(verify(V_GOOD, arm, seed, &rep) == LOOM_VERIFY_PASS,
                          "arm %d seed %d: %s: %s", arm, (int)seed,
                          loom_verify_verdict_name(rep.verdict), rep.message);
        }
    }
}
END_TEST

static void expect(variant_t v, int arm, loom_verify_verdict_t want, const char *words)
{
    loom_verify_report_t rep;
    uint64_t seed;

    for (seed = 1; seed <= 4; ++seed) {
        ck_assert_msg(verify(v, arm, seed, &rep) == want, "variant %d seed %d: %s: %s",
                      (int)v, (int)seed, loom_verify_verdict_name(rep.verdict), rep.message);
        ck_assert_msg(strstr(rep.message, words) != NULL, "variant %d: %s", (int)v,
                      rep.message);
    }
}

START_TEST(test_broken_caught)
{
    loom_log_set_level((loom_log_level_t)-1);   /* take_arm's own error */
    expect(V_LEN_DIFFERS, 1, LOOM_VERIFY_SIZE_MISMATCH, "of at most 80, arm 1): ");
    expect(V_OVER_BOUND, 1, LOOM_VERIFY_BAD_STEP, "run-time length 96 is over its bound");
    /* Rank 0 skips its receive, so its reduction reads what no step wrote. */
    expect(V_ZERO_ON_ONE, 1, LOOM_VERIFY_UNINITIALIZED, "rank 0 step 4 (reduce");
    expect(V_EARLY_ARM, 1, LOOM_VERIFY_BAD_STEP, "is ready before the schedule took an arm");
    expect(V_TWO_ARMS, 1, LOOM_VERIFY_BAD_STEP, "took a second arm");
    expect(V_COMPUTE_FAILS, 2, LOOM_VERIFY_BAD_STEP, "(compute) failed");
    loom_log_set_level(LOOM_LOG_WARN);
    /* Lengths do not matter on the arm not taken. */
    expect(V_LEN_DIFFERS, 2, LOOM_VERIFY_PASS, "");
}
END_TEST

int main(void)
{
    Suite *s = suite_create("verifier_steps");
    TCase *tc = tcase_create("steps");

    tcase_add_test(tc, test_both_arms_pass);
    tcase_add_test(tc, test_broken_caught);
    suite_add_tcase(s, tc);
    return loom_check_run(s);
}
