/*
 * The simulator (coll/sim/exec.h) on steps the data decides: a plan made
 * for it fills its run-time lengths and takes its arm before returning;
 * the program moves those lengths, drops the other arm's steps and the
 * steps of length 0 (no message, no time), and prices a compute step as a
 * pass over its bytes, like a copy.
 */
#include "coll/sim/exec.h"
#include "coll/sim/model.h"
#include "coll/core/engine/sched.h"
#include "test/unit/support/log_capture.h"

#include <check.h>
#include "test/unit/support/check_main.h"
#include <math.h>

#define P       4
#define BOUND   (1 << 20)
#define DENSE   (3 << 20)
#define CBYTES  ((size_t)8 << 20)

static size_t lens[P];     /* what each rank expects to move on arm 1 */
static size_t want_len;
static int want_arm;

/* Never called: the simulator's buffers are fake. */
static loom_status_t fn_never(loom_sched_t *sched, void *arg)
{
    (void)sched;
    (void)arg;
    ck_abort_msg("the simulator called a compute step");
    return LOOM_ERR_INVALID_PARAM;
}

/* A ring exchange: decide, then arm 1 sends a run-time length, arm 2 a
 * dense block; the plan fills the lengths and takes the arm itself. */
static loom_status_t plan_decided(const loom_coll_args_t *args, loom_team_t *team,
                                  loom_sched_t **sched_p)
{
    int r = team->rank, p = team->size, c;
    loom_sched_t *s;
    loom_status_t status = loom_sched_create(team, args, 1, &s);

    if (status != LOOM_OK) {
        return status;
    }
    c = loom_sched_compute(s, fn_never, NULL, CBYTES, LOOM_NO_DEPS);
    loom_sched_build_arm(s, 1);
    loom_sched_send_len(s, (r + 1) % p, 1, args->sendbuf, BOUND, &lens[r], LOOM_DEPS(c));
    loom_sched_recv_len(s, (r + p - 1) % p, 1, args->recvbuf, BOUND, &lens[r], LOOM_DEPS(c));
    loom_sched_build_arm(s, 2);
    loom_sched_send(s, (r + 1) % p, 2, args->sendbuf, DENSE, LOOM_DEPS(c));
    loom_sched_recv(s, (r + p - 1) % p, 2, args->recvbuf, DENSE, LOOM_DEPS(c));
    loom_sched_build_arm(s, 0);
    /* What a sparse plan for the simulator does from its expectations. */
    lens[r] = want_len;
    loom_sched_take_arm(s, want_arm);
    return loom_sched_plan_done(s, sched_p);
}

static loom_status_t sim(const loom_sim_model_t *m, int arm, size_t len,
                         loom_sim_result_t *res_p)
{
    loom_sim_layout_t *lay;
    loom_sim_prog_t *prog;
    loom_status_t status;

    want_arm = arm;
    want_len = len;
    ck_assert_int_eq(loom_sim_layout_create(m, P, &lay), LOOM_OK);
    status = loom_sim_prog_build(&(loom_sim_build_params_t){
                 .layout = lay, .plan = plan_decided, .bytes = DENSE }, &prog);
    if (status == LOOM_OK) {
        ck_assert_int_eq(loom_sim_prog_run(prog, m, res_p), LOOM_OK);
        loom_sim_prog_destroy(prog);
    }
    loom_sim_layout_destroy(lay);
    return status;
}

START_TEST(test_priced)
{
    loom_sim_result_t a, b, z, d;
    loom_sim_model_t m;
    double compute_s;

    loom_sim_model_default(&m);
    m.overhead_us = 0;
    compute_s = (double)CBYTES / (m.copy_gbs * 1e9);

    /* Arm 1, the run-time length: exactly that many bytes per message. */
    ck_assert_int_eq(sim(&m, 1, BOUND / 4, &a), LOOM_OK);
    ck_assert_int_eq(a.messages, P);
    ck_assert(a.bytes_sent == (double)P * (BOUND / 4));
    ck_assert_int_eq(a.steps, 5 * P);
    ck_assert(a.time_s > compute_s);
    ck_assert_int_eq(sim(&m, 1, BOUND, &b), LOOM_OK);
    ck_assert(b.bytes_sent == (double)P * BOUND);
    ck_assert(b.time_s > a.time_s);

    /* Length 0: no message, only the compute step's time. */
    ck_assert_int_eq(sim(&m, 1, 0, &z), LOOM_OK);
    ck_assert_int_eq(z.messages, 0);
    ck_assert(z.bytes_sent == 0);
    ck_assert_msg(fabs(z.time_s - compute_s) <= 1e-12 * compute_s, "%.17g s, want %.17g",
                  z.time_s, compute_s);

    /* Arm 2: the dense block, arm 1's steps dropped. */
    ck_assert_int_eq(sim(&m, 2, BOUND, &d), LOOM_OK);
    ck_assert_int_eq(d.messages, P);
    ck_assert(d.bytes_sent == (double)P * DENSE);
    ck_assert(d.time_s > b.time_s);

    /* A length over its bound is refused, naming the step. */
    capture_start();
    ck_assert_int_eq(sim(&m, 1, BOUND + 1, &a), LOOM_ERR_TRUNCATED);
    capture_stop();
    ck_assert_msg(strstr(log_buf, "rank 0 step 1 has run-time length 1048577, over its "
                         "bound of 1048576 bytes") != NULL, "%s", log_buf);
}
END_TEST

int main(void)
{
    Suite *s = suite_create("sim_steps");
    TCase *tc = tcase_create("steps");

    tcase_add_test(tc, test_priced);
    suite_add_tcase(s, tc);
    return loom_check_run(s);
}
