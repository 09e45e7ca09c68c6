/*
 * The verifier (verifier.h) on the sparse allreduce (coll/core/sparse/):
 * its compute steps declare what they read and write (sched.h), so the
 * pairs a select writes may be sent, and the verifier checks the merge
 * and the densify against the messages in flight.  Every rank must end
 * with the exact dense sum of every rank's selection, the same bits: at
 * 1 to 9 ranks, random supports, all empty and all full, both forced
 * paths and the model's choice, in place or not, under random rank
 * orders, in both delivery orders, over several seeds.
 *
 * And the declarations themselves, on a hand-built two-rank allreduce
 * whose compute step fills the block it sends: declared, it passes;
 * undeclared, the send reads what no step wrote; a compute step that
 * reads a receive's target without waiting for it, or declares a write
 * to the input, gets the verdict that names its bug.
 */
#include "test/unit/support/verifier.h"
#include "coll/core/filter/encode.h"
#include "common/log.h"

#include <check.h>
#include "test/unit/support/check_main.h"
#include <string.h>

static const size_t counts[] = { 1, 4, 13 };

/* The encoding the sweep forces (filter/encode.h), 0: the cheapest. */
static int forced_encoding;

/* The allgather plan with forced_encoding: the plan copies the sparse
 * arguments, so a copy on the stack serves. */
static loom_status_t plan_forced(const loom_coll_args_t *args, loom_team_t *team,
                                 loom_sched_t **sched_p)
{
    loom_sparse_args_t sp = *args->sparse;
    loom_coll_args_t a = *args;

    sp.encoding = forced_encoding;
    a.sparse = &sp;
    return loom_sparse_allgather_plan(&a, team, sched_p);
}

static void verify_one(int p, size_t count, const loom_verify_sparse_t *sp, uint64_t seed)
{
    loom_verify_params_t pa = {
        .name = "sparse allgather", .coll = &loom_verify_sparse_allreduce,
        .plan = forced_encoding ? plan_forced : loom_sparse_allgather_plan, .nranks = p,
        .count = count,
        .op = LOOM_VERIFY_OP_SUM, .seed = seed, .sparse = sp,
        /* The seed's low bits pick the order, the rank order and the
         * buffers, so that every combination meets every case. */
        .order = seed & 1 ? LOOM_VERIFY_ORDER_LATE_DELIVERY : LOOM_VERIFY_ORDER_UNIFORM,
        .rank_permute = (seed >> 1) & 1,
        .in_place = (seed >> 2) & 1,
    };
    loom_verify_report_t rep;

    ck_assert_int_eq(loom_verify_run(&pa, &rep), LOOM_OK);
    ck_assert_msg(rep.verdict == LOOM_VERIFY_PASS, "support %d kmax %zu path %d encoding %d: "
                  "%s: %s", (int)sp->support, sp->kmax, (int)sp->path, forced_encoding,
                  loom_verify_verdict_name(rep.verdict), rep.message);
}

static void sweep(loom_verify_support_t support, int kmax_third, int nseeds)
{
    loom_verify_sparse_t sp = { .support = support };
    uint64_t seed;
    size_t ci;
    int p, path;

    for (p = 1; p <= 9; ++p) {
        for (ci = 0; ci < sizeof(counts) / sizeof(counts[0]); ++ci) {
            for (path = LOOM_SPARSE_PATH_MODEL; path <= LOOM_SPARSE_PATH_DENSE; ++path) {
                sp.path = (loom_sparse_path_t)path;
                sp.kmax = kmax_third ? 2 * counts[ci] / 3 + 1 : 0;
                for (seed = 0; seed < (uint64_t)nseeds; ++seed) {
                    verify_one(p, counts[ci], &sp, seed * 0x9E3779B9u + (uint64_t)p);
                }
            }
        }
    }
}

START_TEST(test_random_supports)
{
    sweep(LOOM_VERIFY_SUPPORT_RANDOM, 0, 16);
    sweep(LOOM_VERIFY_SUPPORT_RANDOM, 1, 16);
}
END_TEST

START_TEST(test_all_empty)
{
    sweep(LOOM_VERIFY_SUPPORT_EMPTY, 0, 8);
}
END_TEST

START_TEST(test_all_full)
{
    sweep(LOOM_VERIFY_SUPPORT_FULL, 0, 8);
}
END_TEST

/* Each encoding forced, with a bound of the whole vector so that every
 * one fits and is taken: random, empty and full supports. */
START_TEST(test_encodings)
{
    for (forced_encoding = LOOM_ENC_COO; forced_encoding < LOOM_ENC_COUNT; ++forced_encoding) {
        sweep(LOOM_VERIFY_SUPPORT_RANDOM, 0, 6);
        sweep(LOOM_VERIFY_SUPPORT_EMPTY, 0, 2);
        sweep(LOOM_VERIFY_SUPPORT_FULL, 0, 2);
    }
    forced_encoding = LOOM_ENC_AUTO;
}
END_TEST

/* ------------------------------------------------ the declarations */

typedef enum variant {
    V_GOOD,
    V_UNDECLARED,       /* the fill does not declare what it writes */
    V_PEEK,             /* a compute step reads the receive's target, not waiting */
    V_WRITES_INPUT,     /* the fill declares a write to the send buffer */
    V_NOT_COMPUTE       /* a declaration names the send */
} variant_t;

typedef struct fill {
    const void  *from;
    void        *to;
    size_t      bytes;
} fill_t;

static variant_t variant;
static fill_t fills[2];

static loom_status_t fn_fill(loom_sched_t *sched, void *arg)
{
    const fill_t *f = arg;

    (void)sched;
    memcpy(f->to, f->from, f->bytes);
    return LOOM_OK;
}

static loom_status_t fn_peek(loom_sched_t *sched, void *arg)
{
    (void)sched;
    (void)arg;
    return LOOM_OK;
}

/* Out of place: the input to the receive buffer; the fill copies it to
 * block a, which goes to the peer, whose block arrives in b and is
 * reduced into the receive buffer. */
static loom_status_t plan_decl(const loom_coll_args_t *args, loom_team_t *team,
                               loom_sched_t **sched_p)
{
    size_t n = args->count * args->elem_size;
    int peer = 1 - team->rank, cp, fill, send, recv, peek;
    fill_t *f = &fills[team->rank];
    loom_sched_t *s;
    loom_status_t status;
    char *a, *b;

    status = loom_sched_create(team, args, 1, &s);
    if (status != LOOM_OK) {
        return status;
    }
    if (loom_sched_alloc_scratch(s, 2 * n, (void **)&a) != LOOM_OK) {
        return loom_sched_plan_done(s, sched_p);
    }
    b = a + n;
    *f = (fill_t){ .from = args->sendbuf, .to = a, .bytes = n };
    cp = loom_sched_copy_input(s);
    fill = loom_sched_compute(s, fn_fill, f, n, LOOM_NO_DEPS);
    loom_sched_compute_reads(s, fill, args->sendbuf, n);
    if (variant != V_UNDECLARED) {
        loom_sched_compute_writes(s, fill, a, n);
    }
    if (variant == V_WRITES_INPUT) {
        loom_sched_compute_writes(s, fill, (void *)(uintptr_t)args->sendbuf, n);
    }
    send = loom_sched_send(s, peer, 1, a, n, LOOM_DEPS(fill));
    if (variant == V_NOT_COMPUTE) {
        loom_sched_compute_reads(s, send, a, n);
    }
    recv = loom_sched_recv(s, peer, 1, b, n, LOOM_NO_DEPS);
    if (variant == V_PEEK) {
        peek = loom_sched_compute(s, fn_peek, NULL, n, LOOM_NO_DEPS);
        loom_sched_compute_reads(s, peek, b, n);
    }
    loom_sched_reduce(s, b, args->recvbuf, n, LOOM_DEPS(recv, cp));
    return loom_sched_plan_done(s, sched_p);
}

static loom_verify_verdict_t verify_decl(variant_t v, uint64_t seed, loom_verify_report_t *rep)
{
    loom_verify_params_t pa = {
        .name = "declared", .plan = plan_decl, .nranks = 2, .count = 3,
        .op = LOOM_VERIFY_OP_SUM, .seed = seed,
        .order = seed % 2 ? LOOM_VERIFY_ORDER_LATE_DELIVERY : LOOM_VERIFY_ORDER_UNIFORM,
    };

    variant = v;
    ck_assert_int_eq(loom_verify_run(&pa, rep), LOOM_OK);
    return rep->verdict;
}

static void expect(variant_t v, loom_verify_verdict_t want, const char *words)
{
    loom_verify_report_t rep;
    uint64_t seed;

    for (seed = 1; seed <= 8; ++seed) {
        ck_assert_msg(verify_decl(v, seed, &rep) == want, "variant %d seed %d: %s: %s",
                      (int)v, (int)seed, loom_verify_verdict_name(rep.verdict), rep.message);
        ck_assert_msg(strstr(rep.message, words) != NULL, "variant %d: %s", (int)v,
                      rep.message);
    }
}

START_TEST(test_declarations)
{
    loom_verify_report_t rep;
    int hazards = 0;
    uint64_t seed;

    expect(V_GOOD, LOOM_VERIFY_PASS, "");
    /* Undeclared writes stay opaque: the block still counts as garbage. */
    expect(V_UNDECLARED, LOOM_VERIFY_UNINITIALIZED, "(send to");
    expect(V_WRITES_INPUT, LOOM_VERIFY_BAD_BUFFER, "declared write writes the sendbuf");
    loom_log_set_level((loom_log_level_t)-1);   /* the build's own error */
    expect(V_NOT_COMPUTE, LOOM_VERIFY_PLAN_FAILED, "every rank's plan failed");
    loom_log_set_level(LOOM_LOG_WARN);
    /* Delivered late, the peek always comes before the data: before the
     * receive is posted (uninitialized) or while it is in flight. */
    for (seed = 1; seed <= 31; seed += 2) {
        loom_verify_verdict_t got = verify_decl(V_PEEK, seed, &rep);

        ck_assert_msg(got == LOOM_VERIFY_HAZARD || got == LOOM_VERIFY_UNINITIALIZED,
                      "seed %d: %s: %s", (int)seed, loom_verify_verdict_name(got),
                      rep.message);
        hazards += got == LOOM_VERIFY_HAZARD;
    }
    ck_assert_int_gt(hazards, 0);
}
END_TEST

int main(void)
{
    Suite *s = suite_create("verifier_sparse");
    TCase *tc = tcase_create("sparse");

    tcase_set_timeout(tc, 120);
    tcase_add_test(tc, test_random_supports);
    tcase_add_test(tc, test_all_empty);
    tcase_add_test(tc, test_all_full);
    tcase_add_test(tc, test_encodings);
    tcase_add_test(tc, test_declarations);
    suite_add_tcase(s, tc);
    return loom_check_run(s);
}
