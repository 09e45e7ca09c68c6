/*
 * The node segment's collectives, run by real processes: the test forks p
 * ranks that share an anonymous mapping, as ranks on one host share a
 * /dev/shm object, and each runs a sequence of collectives (so counters
 * carry from one call to the next, as in a job) and checks every result.
 */
#include "coll/core/shm/shm.h"
#include "common/log.h"
#include "test/unit/support/check_main.h"

#include <check.h>
#include <sched.h>
#include <signal.h>
#include <stdatomic.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/mman.h>
#include <sys/wait.h>
#include <unistd.h>

static void sum_i64(const void *src, void *dst, size_t count, void *ctx)
{
    const int64_t *s = src;
    int64_t *d = dst;
    size_t i;

    (void)ctx;
    for (i = 0; i < count; ++i) {
        d[i] += s[i];
    }
}

static void sum_f64(const void *src, void *dst, size_t count, void *ctx)
{
    const double *s = src;
    double *d = dst;
    size_t i;

    (void)ctx;
    for (i = 0; i < count; ++i) {
        d[i] += s[i];
    }
}

static void sum_u8(const void *src, void *dst, size_t count, void *ctx)
{
    const uint8_t *s = src;
    uint8_t *d = dst;
    size_t i;

    (void)ctx;
    for (i = 0; i < count; ++i) {
        d[i] = (uint8_t)(d[i] + s[i]);
    }
}

/* Rank r's input element i of call c: distinct per rank, call and index. */
static int64_t input_of(int r, int c, size_t i)
{
    return (int64_t)(i * 7919u) + (int64_t)r * 1000003 + (int64_t)c * 37;
}

/* A rank's result digest per call, written by the children for the parent
 * to compare across ranks (bitwise identity of floating sums). */
#define MAX_CALLS 96
#define MAX_RANKS 9

typedef struct shared_report {
    uint64_t digest[MAX_RANKS][MAX_CALLS];
    _Atomic int cma[MAX_RANKS];   /* 0: not probed yet, 1: refused, 2: readable */
} shared_report_t;

static uint64_t digest_of(const void *buf, size_t bytes)
{
    const unsigned char *b = buf;
    uint64_t h = 1469598103934665603ull;
    size_t i;

    for (i = 0; i < bytes; ++i) {
        h = (h ^ b[i]) * 1099511628211ull;
    }
    return h;
}

/* Sizes that cross every boundary: empty, one element, fewer than p,
 * not a multiple of the slot, several slots, more than depth slots. */
static size_t count_for_call(int c, size_t slot_elems)
{
    static const size_t fixed[] = { 0, 1, 3, 17 };
    size_t k = (size_t)c % 8;

    if (k < 4) {
        return fixed[k];
    }
    return slot_elems * (k - 3) + (size_t)(c * 13 % 29);
}

/* One rank's whole sequence; returns the number of wrong elements. */
static long run_rank(loom_shm_t *shm, shared_report_t *report, int calls, int slot_elems)
{
    const int p = shm->params.size, r = shm->params.rank;
    long bad = 0;
    int c;

    for (c = 0; c < calls; ++c) {
        size_t n = count_for_call(c, (size_t)slot_elems), i;
        int kind = c % 6, in_place = (c / 6) % 2, root = c % p, q;
        int64_t *in = malloc((n + 1) * sizeof(int64_t));
        int64_t *out = malloc(((size_t)p * n + 1) * sizeof(int64_t));
        loom_coll_args_t args = {
            .sendbuf = in, .recvbuf = out, .count = n, .elem_size = sizeof(int64_t),
            .op = { .fn = sum_i64, .commutative = 1 }, .in_place = in_place, .root = root,
        };

        for (i = 0; i < n; ++i) {
            in[i] = input_of(r, c, i);
            out[i] = in_place ? in[i] : -1;
        }
        if (kind == 0) {
            loom_shm_allreduce(shm, &args);
            for (i = 0; i < n; ++i) {
                int64_t want = 0;

                for (q = 0; q < p; ++q) {
                    want += input_of(q, c, i);
                }
                bad += out[i] != want;
            }
        } else if (kind == 1) {
            double *d = (double *)out;

            /* Values whose sum depends on the order of addition: every
             * rank must still end with bitwise the same doubles. */
            for (i = 0; i < n; ++i) {
                d[i] = (i % 3 == 0 ? 1e16 : 1.0) * (r % 2 ? -1 : 1) + (double)r * 0.1;
            }
            args.in_place = 1;
            args.op.fn = sum_f64;
            loom_shm_allreduce(shm, &args);
            report->digest[r][c] = digest_of(d, n * sizeof(double));
        } else if (kind == 2) {
            if (r == root) {
                memcpy(out, in, n * sizeof(int64_t));
            }
            loom_shm_bcast(shm, &args);
            for (i = 0; i < n; ++i) {
                bad += out[i] != input_of(root, c, i);
            }
        } else if (kind == 4) {
            /* reduce: only the root's recvbuf is written. */
            args.in_place = in_place && r == root;
            loom_shm_reduce(shm, &args);
            for (i = 0; i < n; ++i) {
                int64_t want = 0;

                for (q = 0; q < p; ++q) {
                    want += input_of(q, c, i);
                }
                bad += r == root ? out[i] != want : out[i] != (in_place ? in[i] : -1);
            }
        } else if (kind == 5) {
            /* reduce_scatter: p blocks of n (in place), or uneven blocks
             * n + q % 3 (reduce_scatter with counts). */
            size_t counts[MAX_RANKS], total = 0, at = 0;
            int64_t *all = malloc(((size_t)p * (n + 2) + 1) * sizeof(int64_t));

            for (q = 0; q < p; ++q) {
                counts[q] = in_place ? n : n + (size_t)(q % 3);
                total += counts[q];
            }
            for (i = 0; i < total; ++i) {
                all[i] = input_of(r, c, i);
            }
            args.sendbuf = all;
            args.recvbuf = in_place ? all : out;
            args.counts = in_place ? NULL : counts;
            loom_shm_reduce_scatter(shm, &args);
            for (q = 0; q < r; ++q) {
                at += counts[q];
            }
            for (i = 0; i < counts[r]; ++i) {
                int64_t want = 0, got = in_place ? all[i] : out[i];

                for (q = 0; q < p; ++q) {
                    want += input_of(q, c, at + i);
                }
                bad += got != want;
            }
            free(all);
        } else {
            /* Every other allgather is an allgatherv: uneven blocks laid
             * out in reverse rank order. */
            size_t counts[MAX_RANKS], displs[MAX_RANKS], at = 0;

            for (q = p - 1; q >= 0; --q) {
                counts[q] = (c / 12) % 2 ? n - (q % 3 == 1 ? n / 2 : 0) : n;
                displs[q] = (c / 12) % 2 ? at : (size_t)q * n;
                at += counts[q];
            }
            if ((c / 12) % 2) {
                args.counts = counts;
                args.displs = displs;
            }
            if (in_place) {
                for (i = 0; i < counts[r]; ++i) {
                    out[displs[r] + i] = in[i];
                }
            }
            loom_shm_allgather(shm, &args);
            for (q = 0; q < p; ++q) {
                for (i = 0; i < counts[q]; ++i) {
                    bad += out[displs[q] + i] != input_of(q, c, i);
                }
            }
        }
        free(in);
        free(out);
    }
    return bad;
}

/* Forks p ranks over one zeroed shared mapping; each exits with 0 when all
 * its results were right. */
static void run_ranks(int p, size_t slot_bytes, int depth, int calls, int cma, int crowded)
{
    loom_shm_params_t params = { .size = p, .slot_bytes = slot_bytes, .depth = depth,
                                 .crowded = crowded };
    size_t bytes = loom_shm_bytes(&params);
    void *base = mmap(NULL, bytes, PROT_READ | PROT_WRITE, MAP_SHARED | MAP_ANONYMOUS, -1, 0);
    shared_report_t *report = mmap(NULL, sizeof(*report), PROT_READ | PROT_WRITE,
                                   MAP_SHARED | MAP_ANONYMOUS, -1, 0);
    pid_t pid[MAX_RANKS];
    int r, c, status;

    ck_assert_ptr_ne(base, MAP_FAILED);
    ck_assert_ptr_ne(report, MAP_FAILED);
    for (r = 0; r < p; ++r) {
        pid[r] = fork();
        ck_assert_int_ge(pid[r], 0);
        if (pid[r] == 0) {
            loom_shm_t *shm;
            long bad;

            alarm(60); /* a protocol bug shows as a hang: end it */
            params.rank = r;
            if (loom_shm_wrap(base, &params, &shm) != LOOM_OK) {
                _exit(2);
            }
            if (cma) {
                /* As the adapter does: every rank probes, all must agree. */
                int q, all = 1;

                report->cma[r] = loom_shm_cma_probe(shm) ? 2 : 1;
                for (q = 0; q < p; ++q) {
                    while (report->cma[q] == 0) {
                        sched_yield();
                    }
                    all = all && report->cma[q] == 2;
                }
                shm->cma = all;
            }
            bad = run_rank(shm, report, calls, (int)(slot_bytes / sizeof(int64_t)));
            if (bad != 0) {
                fprintf(stderr, "rank %d of %d: %ld wrong elements\n", r, p, bad);
            }
            loom_shm_destroy(shm);
            _exit(bad == 0 ? 0 : 1);
        }
    }
    for (r = 0; r < p; ++r) {
        ck_assert_int_eq(waitpid(pid[r], &status, 0), pid[r]);
        ck_assert_msg(WIFEXITED(status) && WEXITSTATUS(status) == 0,
                      "rank %d of %d failed (status 0x%x)", r, p, status);
    }
    for (c = 1; c < calls; c += 6) {
        for (r = 1; r < p; ++r) {
            ck_assert_msg(report->digest[r][c] == report->digest[0][c],
                          "call %d: rank %d's doubles differ from rank 0's", c, r);
        }
    }
    if (cma && report->cma[0] != 2) {
        /* A kernel or container that refuses process_vm_readv: the slots
         * carried every block, and that path was checked instead. */
        fprintf(stderr, "check_shm: CMA refused here; %d ranks ran the slot path\n", p);
    }
    munmap(report, sizeof(*report));
    munmap(base, bytes);
}

START_TEST(test_collectives)
{
    /* _i: rank counts 1..8 with small slots (many segments, slot reuse;
     * a reduce goes to the root whole below 64 KiB), and large-slot cases
     * (a two-rank reduce then cuts a call into quarters smaller than a
     * slot; from three ranks, calls up to 256 KiB take the shared walk
     * unless the ranks are crowded onto fewer cores). */
    static const struct { int p; size_t slot; int depth, cma, crowded; } cases[] = {
        { 1, 64, 1, 0, 0 }, { 2, 64, 1, 0, 0 }, { 2, 128, 2, 0, 0 }, { 3, 192, 3, 0, 0 },
        { 4, 64, 2, 0, 0 }, { 5, 256, 4, 0, 0 }, { 6, 128, 1, 0, 0 }, { 7, 64, 3, 0, 0 },
        { 8, 512, 2, 0, 0 }, { 3, 65536, 4, 1, 0 }, { 2, 65536, 2, 0, 0 },
        { 4, 65536, 2, 0, 0 }, { 4, 65536, 2, 0, 1 }, { 5, 65536, 3, 0, 1 },
        /* Two ranks reading each other's blocks (256 KiB and more) with CMA. */
        { 2, 65536, 2, 1, 0 }, { 2, 131072, 3, 1, 0 },
    };

    run_ranks(cases[_i].p, cases[_i].slot, cases[_i].depth, MAX_CALLS, cases[_i].cma,
              cases[_i].crowded);
}
END_TEST

START_TEST(test_bytes_sum_wraps)
{
    /* 8-bit sums wrap, and shares are cut on cache lines: 64 elements. */
    loom_shm_params_t params = { .size = 1, .rank = 0, .slot_bytes = 128, .depth = 2 };
    void *base = calloc(1, loom_shm_bytes(&params));
    uint8_t in[300], out[300];
    loom_shm_t *shm;
    size_t i;

    for (i = 0; i < sizeof(in); ++i) {
        in[i] = (uint8_t)(250 + i);
    }
    ck_assert_int_eq(loom_shm_wrap(base, &params, &shm), LOOM_OK);
    loom_shm_allreduce(shm, &(loom_coll_args_t){ .sendbuf = in, .recvbuf = out,
                       .count = sizeof(in), .elem_size = 1, .op = { .fn = sum_u8 } });
    ck_assert_mem_eq(in, out, sizeof(in));
    ck_assert_uint_eq(shm->next_seg, 3); /* 300 bytes in 128-byte slots */
    loom_shm_destroy(shm);
    free(base);
}
END_TEST

START_TEST(test_named_segment)
{
    loom_shm_params_t params = { .size = 2, .rank = 0, .slot_bytes = 4096, .depth = 2 };
    loom_shm_params_t other = params;
    char name[64];
    loom_shm_t *a, *b, *c;

    snprintf(name, sizeof(name), "/loom-check-shm-%d", (int)getpid());
    ck_assert_int_eq(loom_shm_create(name, &params, &a), LOOM_OK);
    /* The name is taken: a second create must not reuse it. */
    loom_log_set_level((loom_log_level_t)-1);
    ck_assert_int_eq(loom_shm_create(name, &params, &c), LOOM_ERR_NO_MEMORY);
    other.rank = 1;
    ck_assert_int_eq(loom_shm_attach(name, &other, &b), LOOM_OK);
    /* The two mappings are one memory. */
    ((char *)a->slots)[100] = 42;
    ck_assert_int_eq(((char *)b->slots)[100], 42);
    /* Another layout than the creator's is refused. */
    other.depth = 3;
    ck_assert_int_eq(loom_shm_attach(name, &other, &c), LOOM_ERR_INVALID_PARAM);
    loom_shm_unlink(name);
    ck_assert_int_eq(loom_shm_attach(name, &params, &c), LOOM_ERR_NOT_FOUND);
    /* Bad parameters are named, not clamped. */
    other = params;
    other.slot_bytes = 100;
    ck_assert_int_eq(loom_shm_create(name, &other, &c), LOOM_ERR_INVALID_PARAM);
    other.slot_bytes = 4096;
    other.rank = 2;
    ck_assert_int_eq(loom_shm_create(name, &other, &c), LOOM_ERR_INVALID_PARAM);
    loom_log_set_level(LOOM_LOG_WARN);
    loom_shm_destroy(b);
    loom_shm_destroy(a);
}
END_TEST

int main(void)
{
    Suite *s = suite_create("shm");
    TCase *tc = tcase_create("shm");

    tcase_set_timeout(tc, 120);
    tcase_add_loop_test(tc, test_collectives, 0, 16);
    tcase_add_test(tc, test_bytes_sum_wraps);
    tcase_add_test(tc, test_named_segment);
    suite_add_tcase(s, tc);
    return loom_check_run(s);
}
