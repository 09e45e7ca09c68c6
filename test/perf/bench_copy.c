/*
 * What a copy between cores costs on this machine, against a copy on one
 * core: the physical limit under the "single copy for everyone" and
 * memory-copy-bound targets (docs/benchmarks.md, docs/allreduce.md).
 *
 * Two threads pinned to two different CPUs take turns on one buffer of
 * the size, as a node segment's slot is used:
 *   local   one thread copies src to dst, both its own (what the memcpy
 *           reference of loom-bench and bench_allreduce times);
 *   write   thread A copies its src into the shared buffer, which thread
 *           B has just read (A must take the lines back first);
 *   read    thread B copies the shared buffer, which A has just written,
 *           into its own dst (the lines come from A's cache).
 * A single copy through shared memory is one write and one read of this
 * kind; when `read` is slower than `local`, no schedule of plain loads
 * and stores gets a rank-to-rank copy to the local rate.
 *
 * usage: bench_copy [SIZE ...]   (default 256K 1M 4M; K, M, G suffixes)
 * Each line is the median of 9 samples of 200 turns or at least 20 ms.
 */
#define _GNU_SOURCE
#include "bench_stats.h"
#include "tools/common/size.h"

#include <pthread.h>
#include <sched.h>
#include <stdatomic.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

#define BENCH_SAMPLES 9
#define BENCH_TURNS   200

typedef struct bench_pair {
    size_t          bytes;
    char            *src, *shared, *dst;
    int             cpu[2];
    _Atomic long    turn;       /* even: A writes, odd: B reads */
    long            turns;
    double          write_s, read_s;
} bench_pair_t;

static double bench_now(void)
{
    struct timespec t;

    clock_gettime(CLOCK_MONOTONIC, &t);
    return (double)t.tv_sec + (double)t.tv_nsec * 1e-9;
}

static void bench_pin(int cpu)
{
    cpu_set_t set;

    CPU_ZERO(&set);
    CPU_SET(cpu, &set);
    (void)sched_setaffinity(0, sizeof(set), &set);
}

typedef struct bench_role {
    bench_pair_t *pair;
    int          role;
} bench_role_t;

/* Thread A (role 0) writes on even turns, thread B (role 1) reads on odd
 * ones; each times only its own copies. */
static void *bench_run_role(void *arg)
{
    const bench_role_t *r = arg;
    bench_pair_t *pr = r->pair;
    long t;
    double t0, sum = 0.0;

    bench_pin(pr->cpu[r->role]);
    for (t = r->role; t < 2 * pr->turns; t += 2) {
        while (atomic_load_explicit(&pr->turn, memory_order_acquire) != t) {
        }
        t0 = bench_now();
        if (r->role == 0) {
            memcpy(pr->shared, pr->src, pr->bytes);
        } else {
            memcpy(pr->dst, pr->shared, pr->bytes);
        }
        sum += bench_now() - t0;
        atomic_store_explicit(&pr->turn, t + 1, memory_order_release);
    }
    if (r->role == 0) {
        pr->write_s = sum;
    } else {
        pr->read_s = sum;
    }
    return NULL;
}

/* Turns per sample: BENCH_TURNS, more for small sizes so a sample lasts
 * at least 20 ms at 50 GB/s. */
static long bench_turns(size_t bytes)
{
    double need = 0.02 * 50e9 / (double)bytes;

    return need > BENCH_TURNS ? (long)need : BENCH_TURNS;
}

static void bench_size(bench_pair_t *pr)
{
    double local[BENCH_SAMPLES], wr[BENCH_SAMPLES], rd[BENCH_SAMPLES], t0, gb;
    bench_role_t roles[2] = { { pr, 0 }, { pr, 1 } };
    pthread_t th[2];
    long k;
    int s;

    pr->turns = bench_turns(pr->bytes);
    gb = (double)pr->bytes * (double)pr->turns * 1e-9;
    for (s = 0; s < BENCH_SAMPLES; ++s) {
        bench_pin(pr->cpu[0]);
        t0 = bench_now();
        for (k = 0; k < pr->turns; ++k) {
            memcpy(pr->dst, pr->src, pr->bytes);
            __asm__ __volatile__("" ::: "memory");
        }
        local[s] = gb / (bench_now() - t0);
        atomic_store(&pr->turn, 0);
        pthread_create(&th[0], NULL, bench_run_role, &roles[0]);
        pthread_create(&th[1], NULL, bench_run_role, &roles[1]);
        pthread_join(th[0], NULL);
        pthread_join(th[1], NULL);
        wr[s] = gb / pr->write_s;
        rd[s] = gb / pr->read_s;
    }
    printf("%10zu  %9.1f  %9.1f  %9.1f  %10.2f\n", pr->bytes, bench_median(local, BENCH_SAMPLES),
           bench_median(wr, BENCH_SAMPLES), bench_median(rd, BENCH_SAMPLES),
           bench_median(rd, BENCH_SAMPLES) / bench_median(local, BENCH_SAMPLES));
}

int main(int argc, char **argv)
{
    static const char *const defaults[] = { "256K", "1M", "4M" };
    const char *const *sizes = argc > 1 ? (const char *const *)argv + 1 : defaults;
    int nsizes = argc > 1 ? argc - 1 : 3, i, c, found = 0;
    bench_pair_t pr = { .cpu = { -1, -1 } };
    cpu_set_t mine;
    size_t pages;

    if (sched_getaffinity(0, sizeof(mine), &mine) != 0) {
        perror("bench_copy: sched_getaffinity");
        return 1;
    }
    for (c = 0; c < CPU_SETSIZE && found < 2; ++c) {
        if (CPU_ISSET(c, &mine)) {
            pr.cpu[found++] = c;
        }
    }
    if (found < 2) {
        fprintf(stderr, "bench_copy: needs two CPUs, this process may run on %d\n", found);
        return 1;
    }
    printf("# bench_copy: CPUs %d and %d; GB/s, median of %d samples\n", pr.cpu[0], pr.cpu[1],
           BENCH_SAMPLES);
    printf("#    bytes      local      write       read  read/local\n");
    for (i = 0; i < nsizes; ++i) {
        if (loom_tool_size_parse(sizes[i], &pr.bytes) != 0 || pr.bytes == 0) {
            fprintf(stderr, "bench_copy: size '%s': expected a positive byte count with an "
                            "optional K, M or G suffix, such as 256K\n", sizes[i]);
            return 2;
        }
        pages = (pr.bytes + 4095) / 4096 * 4096;   /* aligned_alloc wants a multiple */
        pr.src = aligned_alloc(4096, pages);
        pr.shared = aligned_alloc(4096, pages);
        pr.dst = aligned_alloc(4096, pages);
        if (pr.src == NULL || pr.shared == NULL || pr.dst == NULL) {
            fprintf(stderr, "bench_copy: out of memory for %zu bytes\n", pr.bytes);
            return 1;
        }
        memset(pr.src, 1, pr.bytes);
        memset(pr.shared, 2, pr.bytes);
        memset(pr.dst, 3, pr.bytes);
        bench_size(&pr);
        free(pr.src);
        free(pr.shared);
        free(pr.dst);
    }
    return 0;
}
