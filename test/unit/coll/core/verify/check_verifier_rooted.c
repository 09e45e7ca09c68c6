/*
 * The verifier (verifier.h) on the rooted collectives: every bcast and
 * reduce algorithm swept over rank counts 1..64 and a few larger ones,
 * every count class (none, one, fewer than ranks, one per rank, odd, and
 * large), every root on small teams and chosen and random roots on larger
 * ones, in place or not, pipelining settings, and for reduce a
 * non-commutative op that must come out in rank order.
 */
#include "test/unit/support/verifier.h"
#include "common/log.h"

#include <check.h>
#include "test/unit/support/check_main.h"
#include <malloc.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#define E LOOM_VERIFY_ELEM_SIZE

/* Pipelining settings for segmented algorithms; 40 bytes is two and a
 * half elements: a segment must still be whole elements. */
static const size_t rooted_segs[] = { 0, 1 * E, 3 * E, 64 * E, 40 };
#define NSEGS (sizeof(rooted_segs) / sizeof(rooted_segs[0]))

/* Up to this many ranks every root is tried. */
#define EVERY_ROOT_P 16

typedef struct rooted_alg {
    const loom_verify_coll_t *coll;
    const char      *name;
    loom_plan_fn_t  plan;
    int             segmented;
    int             reduces;     /* sweep both ops; refusing either fails */
    int             refuses;     /* commutative only: must refuse the other op */
} rooted_alg_t;

static uint64_t mix(uint64_t x)
{
    x += UINT64_C(0x9E3779B97F4A7C15);
    x = (x ^ (x >> 30)) * UINT64_C(0xBF58476D1CE4E5B9);
    x = (x ^ (x >> 27)) * UINT64_C(0x94D049BB133111EB);
    return x ^ (x >> 31);
}

/* Every algorithm of both tables. */
static int rooted_algs(rooted_alg_t *out)
{
    int a, n = 0;

    for (a = 1; a < LOOM_BCAST_ALG_COUNT; ++a) {
        out[n++] = (rooted_alg_t){ &loom_verify_bcast, loom_bcast_algorithms[a].name,
                                   loom_bcast_algorithms[a].plan,
                                   loom_bcast_algorithms[a].segmented, 0, 0 };
    }
    for (a = 1; a < LOOM_REDUCE_ALG_COUNT; ++a) {
        out[n++] = (rooted_alg_t){ &loom_verify_reduce, loom_reduce_algorithms[a].name,
                                   loom_reduce_algorithms[a].plan,
                                   loom_reduce_algorithms[a].segmented, 1,
                                   !loom_reduce_algorithms[a].noncommutative };
    }
    return n;
}
#define MAX_ALGS (LOOM_BCAST_ALG_COUNT + LOOM_REDUCE_ALG_COUNT)

/* One (p, count, root) for alg; which rotates the seed, the order, in
 * place and the segment size. */
static void rooted_case(const rooted_alg_t *alg, int p, size_t count, int root,
                        unsigned which)
{
    loom_verify_params_t pa = {
        .name = alg->name, .coll = alg->coll, .plan = alg->plan, .nranks = p,
        .count = count, .root = root, .in_place = (int)(which % 2),
        .seg_bytes = alg->segmented ? rooted_segs[(which / 2) % NSEGS] : 0,
        .depth = alg->segmented ? (int)(which % 3) : 0,    /* 0: the default */
        .ranks_per_node = (int)(which % 3),
        .seed = mix(((uint64_t)p << 40) ^ ((uint64_t)count << 16) ^ (uint64_t)root ^
                    ((uint64_t)which << 56)),
        .order = (which / 3) % 2 ? LOOM_VERIFY_ORDER_LATE_DELIVERY
                                 : LOOM_VERIFY_ORDER_UNIFORM,
        .rank_permute = (int)((which / 2) % 2),   /* a random rank order, every other */
    };
    loom_verify_report_t rep;
    int op, last = alg->reduces || which % 4 == 0 ? LOOM_VERIFY_OP_MATRIX
                                                  : LOOM_VERIFY_OP_SUM;

    for (op = LOOM_VERIFY_OP_SUM; op <= last; ++op) {
        pa.op = (loom_verify_op_t)op;
        ck_assert_int_eq(loom_verify_run(&pa, &rep), LOOM_OK);
        if (alg->refuses && op == LOOM_VERIFY_OP_MATRIX) {
            ck_assert_int_eq(rep.verdict, LOOM_VERIFY_REFUSED);
            continue;
        }
        if (rep.verdict != LOOM_VERIFY_PASS) {
            ck_abort_msg("%s %s: %s", alg->coll->name, loom_verify_verdict_name(rep.verdict),
                         rep.message);
        }
    }
}

static size_t rooted_count(int p, int k)
{
    switch (k) {
    case 0: return 0;
    case 1: return 1;
    case 2: return p > 1 ? (size_t)p - 1 : 2;
    case 3: return (size_t)p;
    case 4: return 2 * (size_t)p + 1;
    default: return 300 + (size_t)p;
    }
}
#define NCOUNTS 6

/* p = 1..64 in chunks of 8: every count; every root up to EVERY_ROOT_P
 * ranks, then the first, the last, one next to the middle and a random
 * one. */
START_TEST(test_sweep)
{
    rooted_alg_t algs[MAX_ALGS];
    int nalgs = rooted_algs(algs), a, p, k, root, j, roots[4];
    unsigned which = 0;

    for (p = _i * 8 + 1; p <= _i * 8 + 8; ++p) {
        roots[0] = 0;
        roots[1] = p - 1;
        roots[2] = p / 2 + 1 < p ? p / 2 + 1 : 0;
        roots[3] = (int)(mix((uint64_t)p) % (uint64_t)p);
        for (a = 0; a < nalgs; ++a) {
            for (k = 0; k < NCOUNTS; ++k) {
                if (p <= EVERY_ROOT_P) {
                    for (root = 0; root < p; ++root) {
                        rooted_case(&algs[a], p, rooted_count(p, k), root, which++);
                    }
                    continue;
                }
                for (j = 0; j < 4; ++j) {
                    rooted_case(&algs[a], p, rooted_count(p, k), roots[j], which++);
                }
            }
        }
    }
}
END_TEST

/* Larger teams, powers of two and their neighbours: a random root and
 * the last one, fewer elements than ranks and uneven blocks. */
START_TEST(test_sweep_large)
{
    static const int ps[] = { 100, 128, 255, 256 };
    rooted_alg_t algs[MAX_ALGS];
    int nalgs = rooted_algs(algs), a, p = ps[_i];
    int root = (int)(mix((uint64_t)p * 31) % (uint64_t)p);

    for (a = 0; a < nalgs; ++a) {
        rooted_case(&algs[a], p, (size_t)p - 1, root, (unsigned)_i);
        rooted_case(&algs[a], p, 2 * (size_t)p + 1, p - 1, (unsigned)_i + 3);
    }
}
END_TEST

/* The generic parts notice a bcast that leaves a rank out, and a reduce
 * whose root's result is missing a rank: the specs really check. */
static loom_status_t bcast_skip_last(const loom_coll_args_t *args, loom_team_t *team,
                                     loom_sched_t **sched_p)
{
    loom_coll_args_t a = *args;

    /* The last rank keeps what it had: a plan for one rank does nothing. */
    if (team->rank == team->size - 1 && team->rank != args->root) {
        loom_status_t st = loom_sched_create(team, args, LOOM_BCAST_CHAIN, sched_p);

        return st;
    }
    return loom_bcast_chain_plan(&a, team, sched_p);
}

START_TEST(test_specs_catch_bugs)
{
    loom_verify_params_t pa = {
        .name = "chain-skip", .coll = &loom_verify_bcast, .plan = bcast_skip_last,
        .nranks = 4, .count = 5, .root = 1, .seed = 3,
    };
    loom_verify_report_t rep;

    ck_assert_int_eq(loom_verify_run(&pa, &rep), LOOM_OK);
    /* Rank 2 still sends to rank 3, which never receives. */
    ck_assert_msg(rep.verdict != LOOM_VERIFY_PASS, "%s", rep.message);
    ck_assert_ptr_nonnull(strstr(rep.message, "bcast chain-skip p=4"));
    ck_assert_ptr_nonnull(strstr(rep.message, "root=1"));

    /* An allreduce plan run as a reduce writes non-roots' NULL recvbuf. */
    pa = (loom_verify_params_t){ .name = "ring", .coll = &loom_verify_reduce,
                                 .plan = loom_allreduce_ring_plan, .nranks = 4,
                                 .count = 5, .root = 2, .seed = 4 };
    ck_assert_int_eq(loom_verify_run(&pa, &rep), LOOM_OK);
    ck_assert_int_eq(rep.verdict, LOOM_VERIFY_BAD_BUFFER);

    /* A root outside the team is a bad parameter. */
    pa.root = 4;
    ck_assert_int_eq(loom_verify_run(&pa, &rep), LOOM_ERR_INVALID_PARAM);
}
END_TEST

int main(void)
{
    Suite *s = suite_create("verifier_rooted");
    TCase *sweep = tcase_create("sweep");

    mallopt(M_MMAP_THRESHOLD, 1 << 30);
    mallopt(M_TRIM_THRESHOLD, 1 << 30);
    loom_log_set_level(LOOM_LOG_ERROR);
    tcase_set_timeout(sweep, 300);
    tcase_add_loop_test(sweep, test_sweep, 0, 8);
    tcase_add_loop_test(sweep, test_sweep_large, 0, 4);
    tcase_add_test(sweep, test_specs_catch_bugs);
    suite_add_tcase(s, sweep);
    return loom_check_run(s);
}
