/*
 * libloom-ckpt's benchmark (make bench-ckpt): a state of S MiB (default
 * 1024) in 1 MiB chunks; a full save, then saves after 5% of the chunks
 * changed, synchronous and asynchronous.  Reports bytes and time of each,
 * the time an asynchronous save keeps the caller (the stall), and one
 * memcpy of the changed chunks measured in the same round, with their
 * ratio per round; the change tracking in effect (LOOM_CKPT_TRACK, default
 * auto) and how many chunks each save hashed.  Last, what tracking costs
 * the application: rewriting the whole state right after a save (every
 * page's first write faults) against rewriting it again.
 *
 *   bench_ckpt [DIR [STATE_MIB [ROUNDS]]]
 */
#include <inttypes.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

#include <loom/ckpt.h>

enum { CHUNK = 1 << 20 };

static double now(void)
{
    struct timespec ts;
    clock_gettime(CLOCK_MONOTONIC, &ts);
    return (double)ts.tv_sec + (double)ts.tv_nsec * 1e-9;
}

static int cmp_double(const void *a, const void *b)
{
    double x = *(const double *)a, y = *(const double *)b;
    return x < y ? -1 : x > y;
}

/* Changes one byte in `count` distinct chunks chosen at random. */
static void change(unsigned char *state, size_t nchunks, size_t count, unsigned *seed,
                   size_t *which)
{
    for (size_t i = 0; i < count; i++) {
        *seed = *seed * 1103515245u + 12345u;
        which[i] = (*seed >> 8) % nchunks;
        for (size_t j = 0; j < i; j++) {
            if (which[j] == which[i]) {
                which[i] = (which[i] + 1) % nchunks;
                j = (size_t)-1;
            }
        }
        state[which[i] * CHUNK + (*seed % CHUNK)] ^= 0x5a;
    }
}

int main(int argc, char **argv)
{
    const char *dir = argc > 1 ? argv[1] : "bench-ckpt.dir";
    size_t mib = argc > 2 ? strtoul(argv[2], NULL, 10) : 1024;
    int rounds = argc > 3 ? atoi(argv[3]) : 5;
    if (mib == 0 || rounds <= 0) {
        fprintf(stderr, "usage: %s [DIR [STATE_MIB > 0 [ROUNDS > 0]]]\n", argv[0]);
        return 2;
    }
    size_t bytes = mib << 20, nchunks = bytes / CHUNK, nchange = nchunks / 20;
    unsigned char *state = malloc(bytes), *copy = malloc(nchange * CHUNK + 1);
    size_t *which = malloc((nchange + 1) * sizeof(*which));
    if (state == NULL || copy == NULL || which == NULL) {
        fprintf(stderr, "bench_ckpt: cannot allocate %zu MiB\n", mib);
        return 1;
    }
    /* xorshift64: no period shorter than the state (weights look random
     * to a hash and to a compressor alike). */
    uint64_t x = 88172645463325252ull;
    for (size_t i = 0; i + 8 <= bytes; i += 8) {
        x ^= x << 13;
        x ^= x >> 7;
        x ^= x << 17;
        memcpy(state + i, &x, 8);
    }
    unsigned seed = 7;
    loom_ckpt_options_t opts = { .chunk_size = CHUNK, .keep = 2, .zstd_level = -1,
                                 /* Room for what changes, the two chunks
                                  * at the state's ends that tracking always
                                  * hashes (partial pages), and one more. */
                                 .staging_bytes = (nchange + 3) * CHUNK };
    loom_ckpt_t *ck;
    if (loom_ckpt_open(dir, NULL, &opts, &ck) != LOOM_OK) {
        return 1;
    }
    loom_ckpt_region_t r = { .name = "state", .ptr = state, .size = bytes, .elem_size = 4 };
    loom_ckpt_register(ck, &r);

    loom_ckpt_stats_t s0, s1;
    uint64_t step = 1;
    double t = now();
    loom_ckpt_get_stats(ck, &s0);
    if (loom_ckpt_save(ck, step++) != LOOM_OK) {
        return 1;
    }
    double full_s = now() - t;
    loom_ckpt_get_stats(ck, &s1);
    uint64_t full_bytes = s1.bytes_written - s0.bytes_written;
    printf("state %zu MiB in %zu chunks of 1 MiB; %zu chunks (5%%) change per round\n",
           mib, nchunks, nchange);
    printf("full save:         %8.1f MiB written in %7.3f s\n", full_bytes / 1048576.0, full_s);

    double *inc_s = calloc((size_t)rounds, sizeof(double));
    double *stall_s = calloc((size_t)rounds, sizeof(double));
    double *async_s = calloc((size_t)rounds, sizeof(double));
    double *copy_s = calloc((size_t)rounds, sizeof(double));
    double *ratio = calloc((size_t)rounds, sizeof(double));
    uint64_t inc_bytes = 0, inc_hashed = 0, async_hashed = 0;
    static const char *const track_names[] = { "default", "auto", "writes", "marks", "none" };
    loom_ckpt_get_stats(ck, &s1);
    printf("change tracking:   %s\n", track_names[s1.track]);
    /* The first asynchronous save of a context allocates its staging
     * buffers, and fresh memory takes a page fault per page: shown apart,
     * the rounds measure the steady state. */
    change(state, nchunks, nchange, &seed, which);
    t = now();
    if (loom_ckpt_save_async(ck, step++) != LOOM_INPROGRESS) {
        return 1;
    }
    double first_stall = now() - t;
    if (loom_ckpt_wait(ck) != LOOM_OK) {
        return 1;
    }
    printf("first async save:  caller stalled %7.4f s (staging memory fresh)\n", first_stall);
    for (int k = 0; k < rounds; k++) {
        change(state, nchunks, nchange, &seed, which);
        /* One memcpy of the changed chunks: the floor of any snapshot. */
        t = now();
        for (size_t i = 0; i < nchange; i++) {
            memcpy(copy + i * CHUNK, state + which[i] * CHUNK, CHUNK);
        }
        copy_s[k] = now() - t;

        loom_ckpt_get_stats(ck, &s0);
        t = now();
        if (loom_ckpt_save(ck, step++) != LOOM_OK) {
            return 1;
        }
        inc_s[k] = now() - t;
        loom_ckpt_get_stats(ck, &s1);
        inc_bytes = s1.bytes_written - s0.bytes_written;
        inc_hashed = s1.chunks_hashed - s0.chunks_hashed;

        /* The stall against a memcpy of the same round's changed chunks. */
        change(state, nchunks, nchange, &seed, which);
        double c0 = now();
        for (size_t i = 0; i < nchange; i++) {
            memcpy(copy + i * CHUNK, state + which[i] * CHUNK, CHUNK);
        }
        double round_copy = now() - c0;
        loom_ckpt_get_stats(ck, &s0);
        t = now();
        if (loom_ckpt_save_async(ck, step++) != LOOM_INPROGRESS) {
            return 1;
        }
        stall_s[k] = now() - t;
        if (loom_ckpt_wait(ck) != LOOM_OK) {
            return 1;
        }
        async_s[k] = now() - t;
        loom_ckpt_get_stats(ck, &s1);
        async_hashed = s1.chunks_hashed - s0.chunks_hashed;
        ratio[k] = round_copy > 0 ? stall_s[k] / round_copy : 0.0;
        printf("round %d: async stall %7.4f s, memcpy of its %zu changed chunks %7.4f s, "
               "ratio %.2f; chunks hashed: sync %" PRIu64 ", async %" PRIu64 "\n",
               k + 1, stall_s[k], nchange, round_copy, ratio[k], inc_hashed, async_hashed);
    }
    qsort(inc_s, (size_t)rounds, sizeof(double), cmp_double);
    qsort(stall_s, (size_t)rounds, sizeof(double), cmp_double);
    qsort(async_s, (size_t)rounds, sizeof(double), cmp_double);
    qsort(copy_s, (size_t)rounds, sizeof(double), cmp_double);
    qsort(ratio, (size_t)rounds, sizeof(double), cmp_double);
    int m = rounds / 2;
    printf("incremental save:  %8.1f MiB written in %7.3f s (median of %d): %.1fx fewer bytes "
           "than full\n", inc_bytes / 1048576.0, inc_s[m], rounds,
           inc_bytes ? (double)full_bytes / (double)inc_bytes : 0.0);
    printf("async save:        caller stalled %7.3f s, written and committed after %7.3f s\n",
           stall_s[m], async_s[m]);
    printf("memcpy of the changed chunks: %7.4f s (median); stall / memcpy per round: "
           "median %.2f (min %.2f, max %.2f)\n", copy_s[m], ratio[m], ratio[0],
           ratio[rounds - 1]);

    /* What tracking costs the application: after a save the pages are
     * protected again, and the first write to each takes a fault.  A save
     * that finds the state rewritten whole stops protecting it for a
     * while (ckpt/track.c), so the next rewrite runs at memory speed. */
    if (loom_ckpt_save(ck, step++) != LOOM_OK) {
        return 1;
    }
    t = now();
    for (size_t i = 0; i < bytes; i += 4096) {
        state[i] ^= 1;
    }
    double first_s = now() - t;
    if (loom_ckpt_save(ck, step++) != LOOM_OK) {
        return 1;
    }
    t = now();
    for (size_t i = 0; i < bytes; i += 4096) {
        state[i] ^= 1;
    }
    double again_s = now() - t;
    printf("one write per page of the whole state: %7.4f s after a save (each page "
           "faults once), %7.4f s after the next save found it rewritten whole\n",
           first_s, again_s);
    loom_ckpt_close(ck);
    free(inc_s);
    free(stall_s);
    free(async_s);
    free(copy_s);
    free(ratio);
    free(which);
    free(copy);
    free(state);
    return 0;
}
