/* The executor's steps that the data decides: compute steps, run-time
 * lengths and arms, on the loopback transport. */
#include "test/unit/support/loopback_harness.h"
#include "test/unit/support/log_capture.h"

#include <check.h>
#include "test/unit/support/check_main.h"
#include <string.h>

#define NMAX  3
#define BOUND 64
#define FILL  0xEE

/* One rank's memory; args[r].recvbuf points at it. */
typedef struct rank_mem {
    int             rank;
    size_t          len;          /* what the length-setting compute writes */
    size_t          set_len;      /* ... from this */
    int             choice;       /* the arm the deciding compute takes */
    int             second;       /* 0, or a second arm it also takes */
    loom_status_t   fail;         /* what the failing compute returns */
    int             log[8];
    int             nlog;
    unsigned char   src[BOUND + 8], dst[BOUND + 8], dst2[BOUND + 8];
} rank_mem_t;

static rank_mem_t mem[NMAX];

typedef struct note {
    rank_mem_t *m;
    int         id;
} note_t;

static note_t notes[NMAX][4];

static void mem_reset(int p)
{
    int r, i;

    memset(mem, 0, sizeof(mem));
    for (r = 0; r < p; ++r) {
        mem[r].rank = r;
        for (i = 0; i < BOUND + 8; ++i) {
            mem[r].src[i] = (unsigned char)(r * 50 + i + 1);
        }
        memset(mem[r].dst, FILL, sizeof(mem[r].dst));
        memset(mem[r].dst2, FILL, sizeof(mem[r].dst2));
        for (i = 0; i < 4; ++i) {
            notes[r][i] = (note_t){ .m = &mem[r], .id = i + 1 };
        }
    }
}

static void args_init(loom_coll_args_t *args, int p)
{
    int r;

    for (r = 0; r < p; ++r) {
        args[r] = (loom_coll_args_t){ .elem_size = 1, .recvbuf = &mem[r] };
    }
}

static int untouched(const unsigned char *buf, size_t from, size_t to)
{
    size_t i;

    for (i = from; i < to; ++i) {
        if (buf[i] != FILL) {
            return 0;
        }
    }
    return 1;
}

/* Computes: note their id; the second also checks the copy before it ran. */
static loom_status_t fn_note(loom_sched_t *sched, void *arg)
{
    note_t *n = arg;

    (void)sched;
    n->m->log[n->m->nlog++] = n->id;
    if (n->id == 2) {
        /* The copy it depends on is done. */
        if (n->m->dst[0] != n->m->src[0]) {
            return LOOM_ERR_INVALID_PARAM;
        }
    }
    return LOOM_OK;
}

static loom_status_t fn_fail(loom_sched_t *sched, void *arg)
{
    rank_mem_t *m = arg;

    (void)sched;
    m->log[m->nlog++] = 9;
    return m->fail;
}

static loom_status_t fn_set_len(loom_sched_t *sched, void *arg)
{
    rank_mem_t *m = arg;

    (void)sched;
    m->len = m->set_len;
    return LOOM_OK;
}

static loom_status_t fn_decide(loom_sched_t *sched, void *arg)
{
    rank_mem_t *m = arg;

    loom_sched_take_arm(sched, m->choice);
    if (m->second != 0) {
        loom_sched_take_arm(sched, m->second);
    }
    m->log[m->nlog++] = loom_sched_taken_arm(sched);
    return LOOM_OK;
}

/* compute 1 -> copy -> compute 2; then a compute that fails (fail != OK)
 * and a copy after it into dst2. */
static loom_status_t plan_computes(const loom_coll_args_t *args, loom_team_t *team,
                                   loom_sched_t **sched_p)
{
    rank_mem_t *m = args->recvbuf;
    loom_sched_t *s;
    int c1, cp, c2, cf;

    loom_sched_create(team, args, 1, &s);
    c1 = loom_sched_compute(s, fn_note, &notes[m->rank][0], 16, LOOM_NO_DEPS);
    cp = loom_sched_copy(s, m->src, m->dst, 16, LOOM_DEPS(c1));
    c2 = loom_sched_compute(s, fn_note, &notes[m->rank][1], 16, LOOM_DEPS(cp));
    cf = loom_sched_compute(s, fn_fail, m, 0, LOOM_DEPS(c2));
    loom_sched_copy(s, m->src, m->dst2, 16, LOOM_DEPS(cf));
    return loom_sched_plan_done(s, sched_p);
}

START_TEST(test_compute_order_and_errors)
{
    loom_coll_args_t args[NMAX];
    harness_t h;

    mem_reset(1);
    args_init(args, 1);
    harness_init(&h, 1);
    ck_assert_int_eq(harness_run(&h, plan_computes, args, 1), LOOM_OK);
    harness_fini(&h);
    ck_assert_int_eq(mem[0].nlog, 3);
    ck_assert_int_eq(mem[0].log[0], 1);
    ck_assert_int_eq(mem[0].log[1], 2);
    ck_assert_int_eq(mem[0].log[2], 9);
    ck_assert_int_eq(memcmp(mem[0].dst2, mem[0].src, 16), 0);

    /* A compute's error fails the schedule; what waits on it never runs. */
    mem_reset(1);
    mem[0].fail = LOOM_ERR_IO;
    capture_start();
    harness_init(&h, 1);
    ck_assert_int_eq(harness_run(&h, plan_computes, args, 1), LOOM_ERR_IO);
    harness_fini(&h);
    capture_stop();
    ck_assert_msg(strstr(log_buf, "compute step 3 failed") != NULL, "%s", log_buf);
    ck_assert_int_eq(mem[0].nlog, 3);
    ck_assert(untouched(mem[0].dst2, 0, sizeof(mem[0].dst2)));
}
END_TEST

/* Rank 0 computes its length, sends that many bytes to rank 1 and copies
 * them into its own dst; rank 1 computes its length and receives.  With
 * lonely 1 rank 1 builds no receive, with 2 rank 0 builds no send. */
static int lonely;

static loom_status_t plan_len(const loom_coll_args_t *args, loom_team_t *team,
                              loom_sched_t **sched_p)
{
    rank_mem_t *m = args->recvbuf;
    loom_sched_t *s;
    int c;

    loom_sched_create(team, args, 1, &s);
    c = loom_sched_compute(s, fn_set_len, m, sizeof(size_t), LOOM_NO_DEPS);
    if (team->rank == 0) {
        if (lonely != 2) {
            loom_sched_send_len(s, 1, 3, m->src, BOUND, &m->len, LOOM_DEPS(c));
        }
        loom_sched_copy_len(s, m->src, m->dst, BOUND, &m->len, LOOM_DEPS(c));
    } else if (lonely != 1) {
        loom_sched_recv_len(s, 0, 3, m->dst, BOUND, &m->len, LOOM_DEPS(c));
    }
    return loom_sched_plan_done(s, sched_p);
}

static loom_status_t run_len(size_t len0, size_t len1, size_t *sent_p)
{
    loom_coll_args_t args[NMAX];
    loom_status_t status;
    harness_t h;

    mem_reset(2);
    mem[0].set_len = len0;
    mem[1].set_len = len1;
    args_init(args, 2);
    harness_init(&h, 2);
    status = harness_run(&h, plan_len, args, 5);
    *sent_p = loom_loopback_bytes_sent(h.lb, 0);
    harness_fini(&h);
    return status;
}

START_TEST(test_runtime_lengths)
{
    size_t sent;

    /* Exactly the run-time length moves, the rest of the bound is untouched. */
    ck_assert_int_eq(run_len(23, 23, &sent), LOOM_OK);
    ck_assert_uint_eq(sent, 23);
    ck_assert_int_eq(memcmp(mem[1].dst, mem[0].src, 23), 0);
    ck_assert(untouched(mem[1].dst, 23, sizeof(mem[1].dst)));
    ck_assert_int_eq(memcmp(mem[0].dst, mem[0].src, 23), 0);
    ck_assert(untouched(mem[0].dst, 23, sizeof(mem[0].dst)));

    /* The full bound. */
    ck_assert_int_eq(run_len(BOUND, BOUND, &sent), LOOM_OK);
    ck_assert_uint_eq(sent, BOUND);
    ck_assert_int_eq(memcmp(mem[1].dst, mem[0].src, BOUND), 0);

    /* Zero: no message on either end, nothing written. */
    ck_assert_int_eq(run_len(0, 0, &sent), LOOM_OK);
    ck_assert_uint_eq(sent, 0);
    ck_assert(untouched(mem[1].dst, 0, sizeof(mem[1].dst)));
    ck_assert(untouched(mem[0].dst, 0, sizeof(mem[0].dst)));
    /* ... so either end alone finishes: neither posts anything. */
    lonely = 1;
    ck_assert_int_eq(run_len(0, 0, &sent), LOOM_OK);
    lonely = 2;
    ck_assert_int_eq(run_len(0, 0, &sent), LOOM_OK);
    lonely = 0;

    /* Over the bound: the schedule fails, saying which step and by how much. */
    capture_start();
    ck_assert_int_eq(run_len(BOUND + 1, BOUND + 1, &sent), LOOM_ERR_TRUNCATED);
    capture_stop();
    ck_assert_msg(strstr(log_buf, "step 1 (send) has run-time length 65, over its bound "
                         "of 64 bytes") != NULL, "%s", log_buf);
    ck_assert_uint_eq(sent, 0);
    ck_assert(untouched(mem[1].dst, 0, sizeof(mem[1].dst)));

    /* A receive checks the message against its run-time length. */
    capture_start();
    ck_assert_int_eq(run_len(8, 10, &sent), LOOM_ERR_TRUNCATED);
    capture_stop();
    ck_assert_msg(strstr(log_buf, "sent 8 bytes where 10 were expected") != NULL, "%s",
                  log_buf);
}
END_TEST

/* Every rank decides, then arm 1 sends src to the next rank and receives
 * into dst, arm 2 sends src + 8 and receives into dst2; after both, a
 * compute on every path notes it ran. */
static int arm_early;   /* build arm 1's send before the decision, with no dependency */

static loom_status_t plan_arms(const loom_coll_args_t *args, loom_team_t *team,
                               loom_sched_t **sched_p)
{
    rank_mem_t *m = args->recvbuf;
    int p = team->size, r = team->rank, next = (r + 1) % p, prev = (r + p - 1) % p;
    loom_sched_t *s;
    int d, s1, r1, s2, r2;

    loom_sched_create(team, args, 2, &s);
    if (arm_early) {
        loom_sched_build_arm(s, 1);
        loom_sched_copy(s, m->src, m->dst, 8, LOOM_NO_DEPS);
        loom_sched_build_arm(s, 0);
    }
    d = loom_sched_compute(s, fn_decide, m, 0, LOOM_NO_DEPS);
    loom_sched_build_arm(s, 1);
    s1 = loom_sched_send(s, next, 1, m->src, 16, LOOM_DEPS(d));
    r1 = loom_sched_recv(s, prev, 1, m->dst, 16, LOOM_DEPS(d));
    loom_sched_build_arm(s, 2);
    s2 = loom_sched_send(s, next, 2, m->src + 8, 24, LOOM_DEPS(d));
    r2 = loom_sched_recv(s, prev, 2, m->dst2, 24, LOOM_DEPS(d));
    loom_sched_build_arm(s, 0);
    loom_sched_compute(s, fn_note, &notes[r][2], 0, LOOM_DEPS(s1, r1, s2, r2));
    return loom_sched_plan_done(s, sched_p);
}

static loom_status_t run_arms(int p, int choice, int second)
{
    loom_coll_args_t args[NMAX];
    loom_status_t status;
    harness_t h;
    int r;

    mem_reset(p);
    for (r = 0; r < p; ++r) {
        mem[r].choice = choice;
        mem[r].second = second;
    }
    args_init(args, p);
    harness_init(&h, p);
    status = harness_run(&h, plan_arms, args, 7 + (unsigned)p);
    harness_fini(&h);
    return status;
}

START_TEST(test_arms)
{
    int p, r, prev;

    for (p = 2; p <= 3; ++p) {
        ck_assert_int_eq(run_arms(p, 1, 0), LOOM_OK);
        for (r = 0; r < p; ++r) {
            prev = (r + p - 1) % p;
            ck_assert_int_eq(memcmp(mem[r].dst, mem[prev].src, 16), 0);
            ck_assert(untouched(mem[r].dst, 16, sizeof(mem[r].dst)));
            ck_assert(untouched(mem[r].dst2, 0, sizeof(mem[r].dst2)));
            ck_assert_int_eq(mem[r].nlog, 2);
            ck_assert_int_eq(mem[r].log[0], 1);
            ck_assert_int_eq(mem[r].log[1], 3);
        }
        ck_assert_int_eq(run_arms(p, 2, 0), LOOM_OK);
        for (r = 0; r < p; ++r) {
            prev = (r + p - 1) % p;
            ck_assert_int_eq(memcmp(mem[r].dst2, mem[prev].src + 8, 24), 0);
            ck_assert(untouched(mem[r].dst2, 24, sizeof(mem[r].dst2)));
            ck_assert(untouched(mem[r].dst, 0, sizeof(mem[r].dst)));
            ck_assert_int_eq(mem[r].nlog, 2);
            ck_assert_int_eq(mem[r].log[0], 2);
        }
        /* Taking the same arm again is no change. */
        ck_assert_int_eq(run_arms(p, 2, 2), LOOM_OK);
    }
}
END_TEST

START_TEST(test_arm_errors)
{
    /* Taking a second, different arm fails the schedule. */
    capture_start();
    ck_assert_int_eq(run_arms(2, 1, 2), LOOM_ERR_INVALID_PARAM);
    capture_stop();
    ck_assert_msg(strstr(log_buf, "took arm 2 after arm 1 was taken") != NULL, "%s", log_buf);
    ck_assert(untouched(mem[0].dst, 0, sizeof(mem[0].dst)));
    ck_assert(untouched(mem[1].dst2, 0, sizeof(mem[1].dst2)));

    /* An arm's step ready before the decision fails, touching nothing. */
    arm_early = 1;
    capture_start();
    ck_assert_int_eq(run_arms(2, 1, 0), LOOM_ERR_INVALID_PARAM);
    capture_stop();
    arm_early = 0;
    ck_assert_msg(strstr(log_buf, "step 0 of arm 1 became ready before any arm was taken")
                  != NULL, "%s", log_buf);
    ck_assert(untouched(mem[0].dst, 0, sizeof(mem[0].dst)));
    ck_assert_int_eq(mem[0].nlog, 0);

    /* An arm out of range fails the build. */
    capture_start();
    ck_assert_int_eq(run_arms(2, 0, 0), LOOM_ERR_INVALID_PARAM);
    capture_stop();
}
END_TEST

/* A reused schedule starts with no arm taken and builds on every path. */
START_TEST(test_arm_reset_on_reuse)
{
    loom_coll_args_t args = { .elem_size = 1, .recvbuf = &mem[0] };
    loom_sched_t *s1, *s2;
    loom_team_t *team;
    int peer = 0, c;
    loom_team_params_t params = { .size = 1, .rank = 0, .peers = &peer };

    mem_reset(1);
    mem[0].choice = 2;
    ck_assert_int_eq(loom_team_create(&params, &team), LOOM_OK);
    ck_assert_int_eq(loom_sched_create(team, &args, 1, &s1), LOOM_OK);
    c = loom_sched_compute(s1, fn_decide, &mem[0], 0, LOOM_NO_DEPS);
    loom_sched_build_arm(s1, 2);
    loom_sched_copy(s1, mem[0].src, mem[0].dst, 4, LOOM_DEPS(c));
    ck_assert_int_eq(loom_sched_progress(s1), LOOM_OK);
    ck_assert_int_eq(loom_sched_taken_arm(s1), 2);
    loom_sched_destroy(s1);
    ck_assert_int_eq(loom_sched_create(team, &args, 1, &s2), LOOM_OK);
    ck_assert_ptr_eq(s1, s2);
    ck_assert_int_eq(loom_sched_taken_arm(s2), 0);
    c = loom_sched_copy(s2, mem[0].src, mem[0].dst2, 4, LOOM_NO_DEPS);
    ck_assert_int_eq(s2->steps[c].desc.arm, 0);
    ck_assert_int_eq(loom_sched_progress(s2), LOOM_OK);
    ck_assert_int_eq(memcmp(mem[0].dst2, mem[0].src, 4), 0);
    loom_sched_destroy(s2);
    loom_team_destroy(team);
}
END_TEST

int main(void)
{
    Suite *s = suite_create("sched_steps");
    TCase *tc = tcase_create("steps");

    tcase_add_test(tc, test_compute_order_and_errors);
    tcase_add_test(tc, test_runtime_lengths);
    tcase_add_test(tc, test_arms);
    tcase_add_test(tc, test_arm_errors);
    tcase_add_test(tc, test_arm_reset_on_reuse);
    suite_add_tcase(s, tc);
    return loom_check_run(s);
}
