/*
 * The verifier (verifier.h): every algorithm of the allreduce table swept
 * over rank counts, element counts, buffer modes and pipelining settings;
 * then broken schedules, each of which the verifier must catch and name.
 */
#include "test/unit/support/verifier.h"
#include "verifier_bugs.h"
#include "common/log.h"

#include <check.h>
#include "test/unit/support/check_main.h"
#include <malloc.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#define E LOOM_VERIFY_ELEM_SIZE

/* Pipelining settings a segmented algorithm is swept over.  40 bytes is
 * two and a half elements: a segment must still be whole elements. */
static const size_t sweep_segs[] = { 0, 1 * E, 3 * E, 64 * E, 40 };
static const int sweep_depths[] = { 0, 1, 2, 4 };
#define NSEGS   (sizeof(sweep_segs) / sizeof(sweep_segs[0]))
#define NDEPTHS (sizeof(sweep_depths) / sizeof(sweep_depths[0]))

/* Ranks per test of the exhaustive sweep (1..SWEEP_MAX_P in chunks). */
#define SWEEP_MAX_P 256
/* Algorithms with p(p-1) direct messages (the reproducible one) cost the
 * verifier p^2 per case: swept to here. */
#define SWEEP_QUADRATIC_MAX_P 64
#define SWEEP_CHUNK 16

/* Up to this many ranks a segmented algorithm meets every setting. */
#define SWEEP_ALL_SEGS_P 12

static uint64_t mix(uint64_t x)
{
    x += UINT64_C(0x9E3779B97F4A7C15);
    x = (x ^ (x >> 30)) * UINT64_C(0xBF58476D1CE4E5B9);
    x = (x ^ (x >> 27)) * UINT64_C(0x94D049BB133111EB);
    return x ^ (x >> 31);
}

/* Verifies one configuration (pa: everything but the algorithm and the
 * op) with both ops.  An algorithm may refuse (fall back), but one
 * flagged .noncommutative never refuses the matrix op, and whatever is
 * accepted must be right.  Returns the passes. */
static int verify_alg(const loom_algorithm_t *alg, loom_verify_params_t pa)
{
    /* Node layouts for topology-aware algorithms: one node per rank, or
     * nodes of 2, 3, 4 or 8 ranks (the last one partly filled).  Team
     * creation is quadratic in p with nodes, so only up to 256 ranks. */
    static const int layouts[] = { 0, 2, 4, 3, 8 };
    loom_verify_report_t rep;
    int op, passes = 0;

    pa.name = alg->name;
    pa.plan = alg->plan;
    pa.ranks_per_node = pa.nranks <= 256 ? layouts[pa.seed % 5] : 0;
    for (op = LOOM_VERIFY_OP_SUM; op <= LOOM_VERIFY_OP_MATRIX; ++op) {
        pa.op = (loom_verify_op_t)op;
        ck_assert_int_eq(loom_verify_run(&pa, &rep), LOOM_OK);
        if (rep.verdict == LOOM_VERIFY_REFUSED) {
            ck_assert_msg(op == LOOM_VERIFY_OP_SUM || !alg->noncommutative,
                          "%s is flagged .noncommutative but refused p=%d count=%zu",
                          alg->name, pa.nranks, pa.count);
            continue;
        }
        ck_assert_msg(rep.verdict == LOOM_VERIFY_PASS, "%s: %s",
                      loom_verify_verdict_name(rep.verdict), rep.message);
        ++passes;
    }
    return passes;
}

/* One (p, count, in_place) for alg, with seeds that rotate with the case
 * and both orders in turn.  A segmented algorithm gets every pipelining
 * setting on small teams, and one per case on larger ones, so that
 * consecutive cases walk through all of them. */
static void sweep_case(const loom_algorithm_t *alg, int p, size_t count,
                       int in_place, unsigned which, int nseeds)
{
    uint64_t key = ((uint64_t)p << 40) ^ ((uint64_t)count << 8) ^ (uint64_t)in_place;
    unsigned ncombos = (unsigned)(NSEGS * NDEPTHS), combo, s, ncases = (unsigned)nseeds;
    loom_verify_params_t pa = { .nranks = p, .count = count, .in_place = in_place };

    if (alg->segmented && p <= SWEEP_ALL_SEGS_P) {
        ncases = ncombos;
    }
    for (s = 0; s < ncases; ++s) {
        combo = ncases == ncombos ? s : which % ncombos;
        if (alg->segmented) {
            pa.seg_bytes = sweep_segs[combo % NSEGS];
            pa.depth = sweep_depths[combo / NSEGS];
        }
        pa.seed = mix(key + s);
        pa.order = (which + s) % 2 ? LOOM_VERIFY_ORDER_LATE_DELIVERY
                                   : LOOM_VERIFY_ORDER_UNIFORM;
        /* Every other case under a random rank order (engine/team.h):
         * the same results. */
        pa.rank_permute = (int)((pa.seed >> 17) & 1);
        verify_alg(alg, pa);
    }
}

/* Element counts every rank count is tried with: none, one, fewer than
 * ranks (empty blocks), one per rank, odd and uneven, and large. */
static size_t sweep_count(int p, int k)
{
    switch (k) {
    case 0: return 0;
    case 1: return 1;
    case 2: return p > 1 ? (size_t)p - 1 : 2;
    case 3: return (size_t)p;
    case 4: return 2 * (size_t)p + 1;
    default: return 1000 + (size_t)p;
    }
}
#define SWEEP_NCOUNTS 6

/* Which (count, in-place) cases rank count p gets.  Count 0 and 1 are
 * cheap and always run, both ways.  The four full-size counts cost about
 * 4p^2 steps each for a ring, so small teams run all of them both ways and
 * larger ones a rotating share: over consecutive p every full-size count
 * meets both modes, even and odd p, many times, and the sweep stays within
 * make check's budget (about 30 million steps per algorithm). */
static int sweep_wants(int p, int k, int in_place)
{
    int turn = (k - 2) * 2 + in_place;   /* 0..7 over the full-size cases */

    if (k < 2 || p <= 64) {
        return 1;
    }
    if (p <= 128) {
        return turn % 4 == p % 4;
    }
    /* p = 0 and 3 mod 4: both parities, and (p/2) % 8 takes all 8 turns. */
    return (p % 4 == 0 || p % 4 == 3) && turn == (p / 2) % 8;
}

START_TEST(test_sweep)
{
    int first = _i * SWEEP_CHUNK + 1, p, k, in_place, a;
    unsigned which = 0;

    for (a = 0; a < LOOM_ALLREDUCE_ALG_COUNT; ++a) {
        const loom_algorithm_t *alg = &loom_allreduce_algorithms[a];

        if (alg->plan == NULL) {
            continue;
        }
        for (p = first; p < first + SWEEP_CHUNK && p <= SWEEP_MAX_P; ++p) {
            /* The hierarchical allreduce with every rank on a node of its
             * own is a ring whose segments multiply by the rank count; its
             * layouts have tests of their own (test_hier_topologies,
             * test_hier_racks), so the sweep stops it where the quadratic
             * ones stop. */
            if ((alg->quadratic || a == LOOM_ALLREDUCE_HIER) && p > SWEEP_QUADRATIC_MAX_P) {
                break;
            }
            for (k = 0; k < SWEEP_NCOUNTS; ++k) {
                for (in_place = 0; in_place < 2; ++in_place) {
                    if (sweep_wants(p, k, in_place)) {
                        sweep_case(alg, p, sweep_count(p, k), in_place, which++,
                                   p <= 32 ? 3 : 1);
                    }
                }
            }
        }
    }
}
END_TEST

/* Few, large rank counts: the sizes where block arithmetic and tag fields
 * are stretched.  Fewer elements than ranks (empty blocks) and uneven
 * blocks; the two largest with fewer elements, to keep within budget. */
START_TEST(test_sweep_large)
{
    static const int ps[] = { 300, 512, 777, 1024 };
    int p = ps[_i], a;
    size_t few = p < 700 ? (size_t)p - 1 : (size_t)p / 5 + 1;
    size_t many = p < 700 ? 2 * (size_t)p + 1 : (size_t)p / 2 + 1;

    for (a = 0; a < LOOM_ALLREDUCE_ALG_COUNT; ++a) {
        const loom_algorithm_t *alg = &loom_allreduce_algorithms[a];

        if (alg->plan == NULL) {
            continue;
        }
        if (alg->quadratic || a == LOOM_ALLREDUCE_HIER) {
            continue;   /* covered to SWEEP_QUADRATIC_MAX_P ranks above */
        }
        sweep_case(alg, p, few, _i % 2, (unsigned)_i, 1);
        sweep_case(alg, p, many, (_i + 1) % 2, (unsigned)_i + 5, 1);
    }
}
END_TEST

/* ---------------------------------------------------------- self-tests */

static loom_verify_report_t run_linear(vbug_t bug, int p, size_t count, int in_place,
                                       loom_verify_op_t op, uint64_t seed)
{
    /* Odd seeds deliver late, even ones in any order. */
    loom_verify_params_t pa = {
        .name = "linear", .plan = vbug_linear_plan, .nranks = p, .count = count,
        .in_place = in_place, .op = op, .seed = seed,
        .order = seed % 2 ? LOOM_VERIFY_ORDER_LATE_DELIVERY : LOOM_VERIFY_ORDER_UNIFORM,
    };
    loom_verify_report_t rep;

    vbug_set(bug);
    ck_assert_int_eq(loom_verify_run(&pa, &rep), LOOM_OK);
    vbug_set(VBUG_NONE);
    return rep;
}

/* The bug must be reported as want, for every seed (in both orders), and
 * the message must name what went wrong (each needle, when given). */
static void expect_caught(vbug_t bug, loom_verify_verdict_t want, int p, size_t count,
                          int in_place, loom_verify_op_t op, const char *needle1,
                          const char *needle2)
{
    loom_verify_report_t rep;
    uint64_t seed;

    for (seed = 1; seed <= 6; ++seed) {
        rep = run_linear(bug, p, count, in_place, op, seed);
        ck_assert_msg(rep.verdict == want, "bug %d seed %d: verdict \"%s\", expected \"%s\": %s",
                      (int)bug, (int)seed, loom_verify_verdict_name(rep.verdict),
                      loom_verify_verdict_name(want), rep.message);
        ck_assert_msg(needle1 == NULL || strstr(rep.message, needle1) != NULL,
                      "bug %d: \"%s\" not in: %s", (int)bug, needle1, rep.message);
        ck_assert_msg(needle2 == NULL || strstr(rep.message, needle2) != NULL,
                      "bug %d: \"%s\" not in: %s", (int)bug, needle2, rep.message);
    }
}

/* Without a bug the linear plan is right for both ops, every size: the
 * verifier accepts correct schedules, including non-commutative ones,
 * zero-byte messages and a root with p-1 receives in flight. */
START_TEST(test_linear_correct)
{
    loom_verify_report_t rep;
    size_t counts[4];
    int p = _i, k, in_place, op;

    counts[0] = 0;
    counts[1] = 1;
    counts[2] = 5;
    counts[3] = (size_t)p + 3;
    for (k = 0; k < 4; ++k) {
        for (in_place = 0; in_place < 2; ++in_place) {
            for (op = LOOM_VERIFY_OP_SUM; op <= LOOM_VERIFY_OP_MATRIX; ++op) {
                rep = run_linear(VBUG_NONE, p, counts[k], in_place, (loom_verify_op_t)op,
                                 (uint64_t)(p * 10 + k));
                ck_assert_msg(rep.verdict == LOOM_VERIFY_PASS, "%s", rep.message);
                ck_assert(rep.nsteps > 0 || (p == 1 && in_place));
            }
        }
    }
}
END_TEST

START_TEST(test_catches_missing_contribution)
{
    expect_caught(VBUG_SKIP_REDUCE, LOOM_VERIFY_WRONG_RESULT, 8, 9, 0, LOOM_VERIFY_OP_SUM,
                  "rank 4's contribution missing", NULL);
    expect_caught(VBUG_SKIP_REDUCE, LOOM_VERIFY_WRONG_RESULT, 8, 9, 1,
                  LOOM_VERIFY_OP_MATRIX, "wrong result", NULL);
}
END_TEST

START_TEST(test_catches_duplicate_contribution)
{
    expect_caught(VBUG_DOUBLE_REDUCE, LOOM_VERIFY_WRONG_RESULT, 8, 9, 1, LOOM_VERIFY_OP_SUM,
                  "rank 4's contribution counted twice", NULL);
    expect_caught(VBUG_DOUBLE_REDUCE, LOOM_VERIFY_WRONG_RESULT, 8, 9, 0,
                  LOOM_VERIFY_OP_MATRIX, "wrong result", NULL);
}
END_TEST

/* Reducing in the wrong order is invisible to a commutative op and caught
 * by the matrices: why every algorithm that claims rank order is checked
 * with them. */
START_TEST(test_catches_wrong_order)
{
    ck_assert_int_eq(run_linear(VBUG_WRONG_ORDER, 8, 9, 0, LOOM_VERIFY_OP_SUM, 1).verdict,
                     LOOM_VERIFY_PASS);
    expect_caught(VBUG_WRONG_ORDER, LOOM_VERIFY_WRONG_RESULT, 8, 9, 0,
                  LOOM_VERIFY_OP_MATRIX, "wrong result", NULL);
    expect_caught(VBUG_WRONG_ORDER, LOOM_VERIFY_WRONG_RESULT, 2, 1, 1,
                  LOOM_VERIFY_OP_MATRIX, "wrong result", NULL);
}
END_TEST

START_TEST(test_catches_size_mismatch)
{
    expect_caught(VBUG_SIZE_MISMATCH, LOOM_VERIFY_SIZE_MISMATCH, 8, 9, 0,
                  LOOM_VERIFY_OP_SUM, "rank 7 step 1 (send to 0, tag_step 7, 128 bytes)",
                  "128 bytes sent, 144 expected");
}
END_TEST

/* The result is received into the buffer the rank's own send still
 * reads: the outcome is right or wrong depending on timing, which only
 * the hazard check sees reliably. */
START_TEST(test_catches_overwrite_in_flight)
{
    expect_caught(VBUG_OVERWRITE, LOOM_VERIFY_HAZARD, 8, 9, 1, LOOM_VERIFY_OP_SUM,
                  "(send to 0, tag_step", "(recv from 0, tag_step");
}
END_TEST

/* A reduce that does not wait for its receive updates the slot while the
 * message is in flight (hazard) or before anything was received into it
 * (uninitialized read).  Delivering late exposes it on every seed; in a
 * uniform order the receive often happens to be done in time, and then
 * the run is right, so only "often" can be asserted. */
START_TEST(test_catches_read_too_early)
{
    loom_verify_report_t rep;
    uint64_t seed;
    int hazards = 0, uninit = 0, uniform_caught = 0;

    for (seed = 1; seed <= 16; ++seed) {
        rep = run_linear(VBUG_READ_TOO_EARLY, 8, 9, 0, LOOM_VERIFY_OP_SUM, seed);
        if (seed % 2 == 0) {
            uniform_caught += rep.verdict != LOOM_VERIFY_PASS;
            continue;
        }
        ck_assert_msg(rep.verdict == LOOM_VERIFY_HAZARD ||
                      rep.verdict == LOOM_VERIFY_UNINITIALIZED, "%s: %s",
                      loom_verify_verdict_name(rep.verdict), rep.message);
        ck_assert(strstr(rep.message, "(reduce, 144 bytes) updates scratch") != NULL);
        hazards += rep.verdict == LOOM_VERIFY_HAZARD;
        uninit += rep.verdict == LOOM_VERIFY_UNINITIALIZED;
    }
    ck_assert_int_gt(hazards + uninit, 0);
    ck_assert_int_gt(uniform_caught, 0);
}
END_TEST

START_TEST(test_catches_deadlock)
{
    expect_caught(VBUG_DEADLOCK, LOOM_VERIFY_DEADLOCK, 8, 9, 0, LOOM_VERIFY_OP_SUM,
                  "8 of 8 ranks not done", "waits for");
    expect_caught(VBUG_DEADLOCK, LOOM_VERIFY_DEADLOCK, 2, 0, 1, LOOM_VERIFY_OP_SUM,
                  "deadlock", NULL);
}
END_TEST

START_TEST(test_catches_unmatched)
{
    expect_caught(VBUG_WRONG_TAG, LOOM_VERIFY_UNMATCHED, 8, 9, 0, LOOM_VERIFY_OP_SUM,
                  "unmatched", "tag_step 1007");
    /* Ranks that disagree on the algorithm never match: a diagnostic, not
     * a wrong sum. */
    expect_caught(VBUG_ALG_MISMATCH, LOOM_VERIFY_UNMATCHED, 8, 9, 1, LOOM_VERIFY_OP_SUM,
                  "unmatched", "but algorithm 10");
}
END_TEST

START_TEST(test_catches_ambiguous_tag)
{
    expect_caught(VBUG_AMBIGUOUS, LOOM_VERIFY_AMBIGUOUS_TAG, 8, 10, 0, LOOM_VERIFY_OP_SUM,
                  "tag_step 7", NULL);
}
END_TEST

START_TEST(test_catches_bad_memory)
{
    expect_caught(VBUG_OUT_OF_BOUNDS, LOOM_VERIFY_BAD_BUFFER, 8, 9, 0, LOOM_VERIFY_OP_SUM,
                  "rank 0 step", "runs past its end");
    expect_caught(VBUG_WRITE_SENDBUF, LOOM_VERIFY_BAD_BUFFER, 8, 9, 0, LOOM_VERIFY_OP_SUM,
                  "rank 7", "writes the sendbuf");
    expect_caught(VBUG_SCRIBBLE_INPUT, LOOM_VERIFY_SENDBUF_CHANGED, 8, 9, 0,
                  LOOM_VERIFY_OP_SUM, "rank 7's send buffer element 0", NULL);
}
END_TEST

/* Out of place without copying the input in: with other ranks, a step
 * reads the receive buffer's old contents; alone, nothing ever writes it. */
START_TEST(test_catches_missing_copy)
{
    expect_caught(VBUG_NO_COPY, LOOM_VERIFY_UNINITIALIZED, 8, 9, 0, LOOM_VERIFY_OP_SUM,
                  "reads recvbuf elements [0, 9)", "old data");
    expect_caught(VBUG_NO_COPY, LOOM_VERIFY_WRONG_RESULT, 1, 3, 0, LOOM_VERIFY_OP_MATRIX,
                  "never written", NULL);
}
END_TEST

START_TEST(test_catches_bad_plans)
{
    expect_caught(VBUG_BAD_DEP, LOOM_VERIFY_BAD_STEP, 8, 9, 0, LOOM_VERIFY_OP_SUM,
                  "rank 7", "dependency 0 is step");
    expect_caught(VBUG_DISAGREE, LOOM_VERIFY_PLAN_FAILED, 8, 9, 0, LOOM_VERIFY_OP_SUM,
                  "rank 7's \"", "decide differently");
}
END_TEST

/* The fingerprints themselves: reproducible, and the matrix op really is
 * not commutative, with the lower rank on the src side. */
START_TEST(test_fingerprints)
{
    loom_reduce_fn_t mat = loom_verify_reduce_fn(LOOM_VERIFY_OP_MATRIX);
    loom_reduce_fn_t sum = loom_verify_reduce_fn(LOOM_VERIFY_OP_SUM);
    uint32_t a[4], b[4], ab[4], ba[4], x[4];
    uint64_t s1[2], s2[2];

    loom_verify_input(LOOM_VERIFY_OP_MATRIX, 3, 0, 5, a);
    loom_verify_input(LOOM_VERIFY_OP_MATRIX, 3, 1, 5, b);
    loom_verify_input(LOOM_VERIFY_OP_MATRIX, 3, 0, 5, x);
    ck_assert_mem_eq(a, x, sizeof(a));
    memcpy(ab, b, sizeof(b));
    mat(a, ab, 1, NULL);               /* ab = a x b */
    memcpy(ba, a, sizeof(a));
    mat(b, ba, 1, NULL);               /* ba = b x a */
    ck_assert(memcmp(ab, ba, sizeof(ab)) != 0);
    ck_assert_uint_eq(ab[0], (uint32_t)(((uint64_t)a[0] * b[0] + (uint64_t)a[1] * b[2])
                                        % 0x7FFFFFFFu));
    loom_verify_input(LOOM_VERIFY_OP_SUM, 3, 0, 5, s1);
    loom_verify_input(LOOM_VERIFY_OP_SUM, 3, 1, 5, s2);
    ck_assert(s1[0] != s2[0] && s1[1] != s2[1] && s1[0] != s1[1]);
    sum(s1, s2, 1, NULL);
    ck_assert_uint_ne(s2[0], 0);
}
END_TEST

START_TEST(test_bad_params)
{
    loom_verify_params_t pa = { .name = "ring", .plan = loom_allreduce_ring_plan,
                                .nranks = 0, .count = 1 };
    loom_verify_report_t rep;

    ck_assert_int_eq(loom_verify_run(&pa, &rep), LOOM_ERR_INVALID_PARAM);
    pa.nranks = 2;
    pa.plan = NULL;
    ck_assert_int_eq(loom_verify_run(&pa, &rep), LOOM_ERR_INVALID_PARAM);
    ck_assert_str_eq(loom_verify_verdict_name(LOOM_VERIFY_HAZARD), "hazard");
    ck_assert_str_eq(loom_verify_verdict_name(LOOM_VERIFY_VERDICT_COUNT), "unknown verdict");
}
END_TEST

/* A sweep is vacuous if an algorithm refuses everything: each one of the
 * table must pass somewhere. */
START_TEST(test_every_algorithm_runs)
{
    int a, p, passes;

    for (a = 0; a < LOOM_ALLREDUCE_ALG_COUNT; ++a) {
        const loom_algorithm_t *alg = &loom_allreduce_algorithms[a];

        if (alg->plan == NULL) {
            continue;
        }
        passes = 0;
        for (p = 2; p <= 16; p *= 2) {
            passes += verify_alg(alg, (loom_verify_params_t){
                                          .nranks = p, .count = 3 * (size_t)p + 1,
                                          .seed = (uint64_t)p });
        }
        ck_assert_msg(passes > 0, "%s refused every case", alg->name);
    }
}
END_TEST

int main(void)
{
    Suite *s = suite_create("verifier");
    TCase *sweep = tcase_create("sweep"), *self;

    /* Each case allocates and frees large arrays: keep them in the heap
     * rather than mapping and faulting them in again every time. */
    mallopt(M_MMAP_THRESHOLD, 1 << 30);
    mallopt(M_TRIM_THRESHOLD, 1 << 30);
    loom_log_set_level(LOOM_LOG_ERROR);
    tcase_set_timeout(sweep, 300);
    tcase_add_loop_test(sweep, test_sweep, 0, (SWEEP_MAX_P + SWEEP_CHUNK - 1) / SWEEP_CHUNK);
    tcase_add_loop_test(sweep, test_sweep_large, 0, 4);
    suite_add_tcase(s, sweep);

    self = tcase_create("self");
    tcase_set_timeout(self, 120);
    tcase_add_test(self, test_fingerprints);
    tcase_add_test(self, test_bad_params);
    tcase_add_loop_test(self, test_linear_correct, 1, 25);
    tcase_add_test(self, test_catches_missing_contribution);
    tcase_add_test(self, test_catches_duplicate_contribution);
    tcase_add_test(self, test_catches_wrong_order);
    tcase_add_test(self, test_catches_size_mismatch);
    tcase_add_test(self, test_catches_overwrite_in_flight);
    tcase_add_test(self, test_catches_read_too_early);
    tcase_add_test(self, test_catches_deadlock);
    tcase_add_test(self, test_catches_unmatched);
    tcase_add_test(self, test_catches_ambiguous_tag);
    tcase_add_test(self, test_catches_bad_memory);
    tcase_add_test(self, test_catches_missing_copy);
    tcase_add_test(self, test_catches_bad_plans);
    tcase_add_test(self, test_every_algorithm_runs);
    suite_add_tcase(s, self);
    return loom_check_run(s);
}
