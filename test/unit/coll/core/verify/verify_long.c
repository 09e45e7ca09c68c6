/*
 * The verifier's long sweep (`make verify-long`): every algorithm of the
 * allreduce table at large rank counts, up to 4096, on a few element
 * counts each.  Minutes and gigabytes, so not part of make check: a ring
 * on 4096 ranks with every block non-empty is 84 million steps and 12 GB
 * (the schedules alone are 88 bytes a step), so from 3000 ranks on the
 * largest case leaves half the blocks empty (about 15 minutes and 7 GB
 * in all on two cores).
 *
 * Usage: verify_long [max_ranks]          the sweep, up to max_ranks (4096)
 *        verify_long --case P COUNT [IN_PLACE [SEED]]
 *                                          one case of every algorithm, to
 *                                          reproduce a report
 */
#include "test/unit/support/verifier.h"
#include "common/log.h"

#include <malloc.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

static const int long_ranks[] = { 1025, 1536, 2047, 2048, 3000, 4095, 4096 };
#define NRANKS (sizeof(long_ranks) / sizeof(long_ranks[0]))

static double now(void)
{
    struct timespec ts;

    clock_gettime(CLOCK_MONOTONIC, &ts);
    return (double)ts.tv_sec + (double)ts.tv_nsec * 1e-9;
}

/* One case with both ops; returns the number of failures. */
static int long_case(const loom_algorithm_t *alg, int p, size_t count,
                     int in_place, size_t seg_bytes, int depth, uint64_t seed)
{
    loom_verify_params_t pa = {
        .name = alg->name, .plan = alg->plan, .nranks = p, .count = count,
        .in_place = in_place, .seg_bytes = seg_bytes, .depth = depth, .seed = seed,
    };
    loom_verify_report_t rep;
    loom_status_t status;
    int op, failures = 0;
    double t0;

    for (op = LOOM_VERIFY_OP_SUM; op <= LOOM_VERIFY_OP_MATRIX; ++op) {
        pa.op = (loom_verify_op_t)op;
        t0 = now();
        status = loom_verify_run(&pa, &rep);
        if (status != LOOM_OK) {
            printf("%-8s p=%-5d count=%-6zu %s: cannot verify: %s\n", alg->name, p, count,
                   op == LOOM_VERIFY_OP_SUM ? "sum   " : "matrix", loom_status_string(status));
            ++failures;
            continue;
        }
        printf("%-8s p=%-5d count=%-6zu %-12s %s seg=%zu depth=%d: %-8s %10lld steps %6.1f s\n",
               alg->name, p, count, in_place ? "in-place" : "out-of-place",
               op == LOOM_VERIFY_OP_SUM ? "sum   " : "matrix", seg_bytes, depth,
               loom_verify_verdict_name(rep.verdict), rep.nsteps, now() - t0);
        fflush(stdout);
        if (rep.verdict == LOOM_VERIFY_REFUSED &&
            (op == LOOM_VERIFY_OP_SUM || !alg->noncommutative)) {
            continue;
        }
        if (rep.verdict != LOOM_VERIFY_PASS) {
            printf("  FAILED: %s\n", rep.message);
            ++failures;
        }
    }
    return failures;
}

/* --case P COUNT [IN_PLACE [SEED]]: every algorithm on one case. */
static int one_case(int argc, char **argv)
{
    int p = argc > 2 ? atoi(argv[2]) : 0, failures = 0, a;
    size_t count = argc > 3 ? strtoull(argv[3], NULL, 0) : 0;
    int in_place = argc > 4 ? atoi(argv[4]) : 0;
    uint64_t seed = argc > 5 ? strtoull(argv[5], NULL, 0) : 1;

    if (argc < 4 || p < 1) {
        fprintf(stderr, "usage: %s --case P COUNT [IN_PLACE [SEED]]\n", argv[0]);
        return EXIT_FAILURE;
    }
    for (a = 0; a < LOOM_ALLREDUCE_ALG_COUNT; ++a) {
        if (loom_allreduce_algorithms[a].plan != NULL) {
            failures += long_case(&loom_allreduce_algorithms[a], p, count, in_place, 0, 0,
                                  seed);
        }
    }
    return failures == 0 ? EXIT_SUCCESS : EXIT_FAILURE;
}

int main(int argc, char **argv)
{
    int max_p = argc > 1 ? atoi(argv[1]) : 4096, failures = 0, a, k, n = 0;
    double t0 = now();

    /* Large arrays come and go with every case: keep them in the heap
     * instead of mapping and faulting them in again each time. */
    mallopt(M_MMAP_THRESHOLD, 1 << 30);
    mallopt(M_TRIM_THRESHOLD, 1 << 30);
    loom_log_set_level(LOOM_LOG_ERROR);
    if (argc > 1 && strcmp(argv[1], "--case") == 0) {
        return one_case(argc, argv);
    }
    for (a = 0; a < LOOM_ALLREDUCE_ALG_COUNT; ++a) {
        const loom_algorithm_t *alg = &loom_allreduce_algorithms[a];

        if (alg->plan == NULL) {
            continue;
        }
        for (k = 0; k < (int)NRANKS && long_ranks[k] <= max_p; ++k) {
            int p = long_ranks[k];

            if (alg->quadratic && p > 256) {
                break;  /* p(p-1) messages: check_verifier sweeps it to 64 */
            }
            size_t seg = alg->segmented ? (size_t)(k % 3) * 7 * LOOM_VERIFY_ELEM_SIZE : 0;
            int depth = alg->segmented ? k % 4 : 0;

            uint64_t seed = (uint64_t)p << 20;

            size_t large = p < 3000 ? 2 * (size_t)p + 1 : (size_t)p / 2 + 1;

            /* One element, a third of the blocks non-empty, and uneven
             * blocks (half of them empty from 3000 ranks on). */
            failures += long_case(alg, p, 1, k % 2, seg, depth, seed + 1);
            failures += long_case(alg, p, (size_t)p / 3, (k + 1) % 2, seg, depth, seed + 2);
            failures += long_case(alg, p, large, k % 2, seg, depth, seed + 3);
            n += 3;
        }
    }
    printf("verify-long: %d cases, %d failures, %.0f s\n", n, failures, now() - t0);
    return failures == 0 ? EXIT_SUCCESS : EXIT_FAILURE;
}
