/*
 * How close Loom's reduction kernels come to the memory system's limit.
 *
 * The reference is a STREAM-style add, c[i] = a[i] + b[i] on doubles, over
 * buffers at least four times the last-level cache, so that every byte
 * comes from and goes to DRAM.  A kernel dst[i] = src[i] + dst[i] moves
 * the same bytes (two reads, one write), so its rate over the same buffer
 * size, divided by STREAM's, says how much of the machine it uses; the
 * target is 80%.  Bytes are counted as STREAM counts them: the extra read
 * of c that a write-allocate cache does for STREAM but not for the kernel
 * (whose dst is read anyway) is not counted, which favours the kernel.
 *
 * The in-cache rate, at 256 KiB per buffer (Loom's default segment size),
 * is what a pipelined allreduce sees when it reduces a segment it has just
 * received.
 *
 * Each measurement is repeated; best and median are printed.  Run it with
 * `make bench-kernels`; --help lists the options.
 */
#include "bench_stats.h"
#include "coll/core/parts/reduce_kernels.h"

#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>
#include <unistd.h>

#define BENCH_MIB           (1024.0 * 1024.0)
#define BENCH_LLC_DEFAULT   (32u << 20)
#define BENCH_INCACHE_BYTES (256u << 10)
/* In cache, one pass takes microseconds: a sample repeats passes for at
 * least this long so that the clock's resolution does not matter. */
#define BENCH_SAMPLE_NS     20000000.0

typedef struct bench_settings {
    size_t  llc_bytes;
    size_t  big_bytes;      /* per buffer */
    int     reps;
} bench_settings_t;

/* One thing to time: a pass over count elements of the buffers. */
typedef struct bench_case {
    const char      *name;
    loom_op_t       op;         /* for kernels */
    loom_dtype_t    dtype;
    int             is_stream;  /* the reference add instead of a kernel */
} bench_case_t;

/* STREAM first: the ratios divide by entry 0. */
static const bench_case_t bench_cases[] = {
    { .name = "stream add c=a+b (double)", .dtype = LOOM_DTYPE_DOUBLE, .is_stream = 1 },
    { .name = "loom sum float",  .op = LOOM_OP_SUM, .dtype = LOOM_DTYPE_FLOAT },
    { .name = "loom sum double", .op = LOOM_OP_SUM, .dtype = LOOM_DTYPE_DOUBLE },
    { .name = "loom sum int8",   .op = LOOM_OP_SUM, .dtype = LOOM_DTYPE_INT8 },
    { .name = "loom sum int32",  .op = LOOM_OP_SUM, .dtype = LOOM_DTYPE_INT32 },
    { .name = "loom max double", .op = LOOM_OP_MAX, .dtype = LOOM_DTYPE_DOUBLE },
};
#define BENCH_NCASES (sizeof(bench_cases) / sizeof(bench_cases[0]))

/* The reference gets the same treatment as the kernels: the same flags
 * (test/kernels.am) and, where the kernels are cloned, the same clones, so
 * that it is not held back by the baseline ISA. */
#if defined(__x86_64__) && defined(__gnu_linux__) && !defined(__clang__) && \
    defined(__GNUC__) && __GNUC__ >= 12
__attribute__((target_clones("arch=x86-64-v4", "arch=x86-64-v3", "default")))
#endif
static void bench_stream_add(const double *restrict a, const double *restrict b,
                             double *restrict c, size_t count)
{
    for (size_t i = 0; i < count; i++) {
        c[i] = a[i] + b[i];
    }
}

static double bench_now_ns(void)
{
    struct timespec ts;

    clock_gettime(CLOCK_MONOTONIC, &ts);
    return (double)ts.tv_sec * 1e9 + (double)ts.tv_nsec;
}

static size_t bench_parse_size(const char *text)
{
    char *end;
    unsigned long long v = strtoull(text, &end, 10);

    switch (*end) {
    case 'k': case 'K': v <<= 10; end++; break;
    case 'm': case 'M': v <<= 20; end++; break;
    case 'g': case 'G': v <<= 30; end++; break;
    default: break;
    }
    return (*end == '\0' && v > 0) ? (size_t)v : 0;
}

/* The last-level cache from sysconf, else sysfs, else 32 MiB.  Returns
 * where the number came from. */
static const char *bench_llc_size(size_t *bytes_p)
{
    long v = -1;
    int index;

#ifdef _SC_LEVEL3_CACHE_SIZE
    v = sysconf(_SC_LEVEL3_CACHE_SIZE);
    if (v > 0) {
        *bytes_p = (size_t)v;
        return "sysconf";
    }
#endif
    for (index = 0; index < 8; index++) {
        char path[96];
        char text[32];
        FILE *f;
        int level = 0;

        snprintf(path, sizeof(path), "/sys/devices/system/cpu/cpu0/cache/index%d/level", index);
        f = fopen(path, "r");
        if (f == NULL) {
            break;
        }
        if (fscanf(f, "%d", &level) != 1) {
            level = 0;
        }
        fclose(f);
        if (level != 3) {
            continue;
        }
        snprintf(path, sizeof(path), "/sys/devices/system/cpu/cpu0/cache/index%d/size", index);
        f = fopen(path, "r");
        if (f != NULL && fscanf(f, "%31s", text) == 1 && bench_parse_size(text) > 0) {
            fclose(f);
            *bytes_p = bench_parse_size(text);
            return "sysfs";
        }
        if (f != NULL) {
            fclose(f);
        }
    }
    *bytes_p = BENCH_LLC_DEFAULT;
    return "default, not found";
}

static void *bench_alloc(size_t bytes)
{
    void *p = NULL;

    if (posix_memalign(&p, 4096, bytes) != 0) {
        fprintf(stderr, "bench_kernels: cannot allocate %.0f MiB\n", bytes / BENCH_MIB);
        exit(EXIT_FAILURE);
    }
    return p;
}

/*
 * Every byte 0x3f is a modest, positive, normal value in every type (float
 * 0.75, double 4.8e-4, int8 63), and stays finite and normal through the
 * thousands of passes of a sample, so no case hits slow denormal or NaN
 * paths.  dst is reset before each sample because the cases share it.
 */
#define BENCH_FILL_BYTE 0x3f

/* One sample of a case: GB/s over passes passes. */
static double bench_sample(const bench_case_t *bc, void *src, void *dst,
                           void *third, size_t bytes, long passes)
{
    loom_reduce_fn_t fn = bc->is_stream ? NULL : loom_reduce_kernel(bc->op, bc->dtype);
    size_t count = bytes / loom_dtype_size(bc->dtype);
    double t0;
    long p;

    memset(dst, BENCH_FILL_BYTE, bytes);
    t0 = bench_now_ns();
    for (p = 0; p < passes; p++) {
        if (bc->is_stream) {
            bench_stream_add(src, dst, third, count);
        } else {
            fn(src, dst, count, NULL);
        }
    }
    return 3.0 * (double)bytes * (double)passes / (bench_now_ns() - t0); /* bytes/ns */
}

/*
 * All cases over buffers of the given size.  Samples are interleaved (a
 * round of every case, reps times) so that STREAM and the kernels share
 * whatever else the machine is doing, and the ratios stay fair on a busy
 * machine.
 */
static void bench_run_size(const bench_settings_t *set, size_t bytes, const char *title)
{
    void *src = bench_alloc(bytes);
    void *dst = bench_alloc(bytes);
    void *third = bench_alloc(bytes);
    double rates[BENCH_NCASES][64];
    long passes[BENCH_NCASES];
    double best[BENCH_NCASES], median[BENCH_NCASES];
    int reps = set->reps;
    size_t c;
    int r;

    memset(src, BENCH_FILL_BYTE, bytes);
    memset(third, 0, bytes);
    /* A warm-up sample per case, which also sizes its samples: in cache a
     * pass takes microseconds, too short for the clock. */
    for (c = 0; c < BENCH_NCASES; c++) {
        double gbs = bench_sample(&bench_cases[c], src, dst, third, bytes, 1);
        double pass_ns = 3.0 * (double)bytes / gbs;

        passes[c] = pass_ns < BENCH_SAMPLE_NS ? (long)(BENCH_SAMPLE_NS / pass_ns) + 1 : 1;
    }
    for (r = 0; r < reps; r++) {
        for (c = 0; c < BENCH_NCASES; c++) {
            rates[c][r] = bench_sample(&bench_cases[c], src, dst, third, bytes, passes[c]);
        }
    }
    for (c = 0; c < BENCH_NCASES; c++) {
        median[c] = bench_median(rates[c], reps);   /* sorts: the best is last */
        best[c] = rates[c][reps - 1];
    }

    printf("\n%s: %.2f MiB per buffer, %d samples\n", title, bytes / BENCH_MIB, reps);
    printf("  %-27s %11s %13s %16s %18s\n", "", "best GB/s", "median GB/s",
           "best/STREAM", "median/STREAM");
    for (c = 0; c < BENCH_NCASES; c++) {
        printf("  %-27s %11.2f %13.2f", bench_cases[c].name, best[c], median[c]);
        if (!bench_cases[c].is_stream) {
            printf(" %15.0f%% %17.0f%%", 100.0 * best[c] / best[0],
                   100.0 * median[c] / median[0]);
        }
        printf("\n");
    }
    fflush(stdout);
    free(src);
    free(dst);
    free(third);
}

static void bench_usage(FILE *out)
{
    fprintf(out,
            "usage: bench_kernels [--reps N] [--bytes SIZE] [--llc SIZE]\n"
            "  --reps N      samples per measurement, 1..64 (default 9)\n"
            "  --bytes SIZE  bytes per buffer of the out-of-cache run\n"
            "                (default 4 x the last-level cache, at most half\n"
            "                of the free memory for the three buffers together)\n"
            "  --llc SIZE    last-level cache size, overriding sysconf and sysfs\n"
            "  SIZE takes a k, m or g suffix (powers of 1024)\n");
}

static int bench_parse_args(int argc, char **argv, bench_settings_t *set)
{
    int i;

    /* Every option takes a value, so they come in pairs. */
    for (i = 1; i < argc; i += 2) {
        const char *value = i + 1 < argc ? argv[i + 1] : NULL;

        if (strcmp(argv[i], "--help") == 0) {
            bench_usage(stdout);
            exit(EXIT_SUCCESS);
        } else if (strcmp(argv[i], "--reps") == 0 && value != NULL) {
            set->reps = atoi(value);
            if (set->reps < 1 || set->reps > 64) {
                fprintf(stderr, "bench_kernels: --reps must be 1..64, not '%s'\n", value);
                return -1;
            }
        } else if ((strcmp(argv[i], "--bytes") == 0 || strcmp(argv[i], "--llc") == 0) &&
                   value != NULL) {
            size_t v = bench_parse_size(value);

            if (v == 0) {
                fprintf(stderr, "bench_kernels: bad size '%s' for %s\n", value, argv[i]);
                return -1;
            }
            if (strcmp(argv[i], "--bytes") == 0) {
                set->big_bytes = v;
            } else {
                set->llc_bytes = v;
            }
        } else {
            fprintf(stderr, "bench_kernels: unknown or incomplete option '%s'\n", argv[i]);
            bench_usage(stderr);
            return -1;
        }
    }
    return 0;
}

int main(int argc, char **argv)
{
    bench_settings_t set = { .reps = 9 };
    const char *llc_from = "--llc";
    size_t cap;

    if (bench_parse_args(argc, argv, &set) != 0) {
        return EXIT_FAILURE;
    }
    if (set.llc_bytes == 0) {
        llc_from = bench_llc_size(&set.llc_bytes);
    }
    if (set.big_bytes == 0) {
        set.big_bytes = 4 * set.llc_bytes;
        /* Three buffers in at most half of the free memory: the
         * benchmark must not push the machine into swapping. */
        cap = (size_t)sysconf(_SC_AVPHYS_PAGES) * (size_t)sysconf(_SC_PAGESIZE) / 6;
        if (cap > 0 && set.big_bytes > cap) {
            printf("note: 4 x LLC capped to %.0f MiB per buffer by free memory\n",
                   cap / BENCH_MIB);
            set.big_bytes = cap;
        }
    }
    set.big_bytes &= ~(size_t)4095;

    printf("loom reduction kernels vs a STREAM add\n");
    printf("last-level cache: %.1f MiB (%s)\n", set.llc_bytes / BENCH_MIB, llc_from);
#if defined(__x86_64__) && defined(__GNUC__) && !defined(__clang__) && __GNUC__ >= 12
    printf("cpu: x86-64-v4 (AVX-512) %s, x86-64-v3 (AVX2) %s\n",
           __builtin_cpu_supports("x86-64-v4") ? "yes" : "no",
           __builtin_cpu_supports("x86-64-v3") ? "yes" : "no");
#endif
    printf("rates count 2 reads + 1 write per element (3 x buffer bytes per pass)\n");

    bench_run_size(&set, set.big_bytes, "out of cache");
    bench_run_size(&set, BENCH_INCACHE_BYTES, "in cache (default segment)");
    return EXIT_SUCCESS;
}
