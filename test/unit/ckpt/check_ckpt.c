/*
 * libloom-ckpt without MPI: round trips of many region shapes, incremental
 * saves that write exactly the changed chunks, committed steps never
 * rewritten, errors that name what is wrong, and restores onto a
 * different number of ranks (ranks as threads).
 */
#define _GNU_SOURCE /* nftw */
#include <check.h>
#include <errno.h>
#include <ftw.h>
#include <pthread.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <sys/types.h>
#include <unistd.h>

#include <loom/ckpt.h>

#include "ckpt/manifest.h"
#include "test/unit/support/ckpt_memfs.h"
#include "test/unit/support/check_main.h"
#include "test/unit/support/log_capture.h"
#include "test/unit/support/tmp_dir.h"

static void tmp_setup(void)
{
    loom_tmp_dir_make("loom-ckpt");
}

static void tmp_teardown(void)
{
    loom_tmp_dir_remove();
}

static void fill(unsigned char *p, size_t n, unsigned seed)
{
    for (size_t i = 0; i < n; i++) {
        seed = seed * 1103515245u + 12345u;
        p[i] = (unsigned char)(seed >> 16);
    }
}

static loom_ckpt_t *open_dir(const char *dir, size_t chunk, const loom_ckpt_io_t *io)
{
    loom_ckpt_options_t opts = { .chunk_size = chunk, .io = io };
    loom_ckpt_t *ck = NULL;
    ck_assert_int_eq(loom_ckpt_open(dir, NULL, &opts, &ck), LOOM_OK);
    return ck;
}

static void add(loom_ckpt_t *ck, const char *name, void *p, size_t n)
{
    loom_ckpt_region_t r = { .name = name, .ptr = p, .size = n, .elem_size = 1,
                             .layout = LOOM_CKPT_REPLICATED };
    ck_assert_int_eq(loom_ckpt_register(ck, &r), LOOM_OK);
}

/* ------------------------------------------------------------ round trips */

START_TEST(test_round_trip_shapes)
{
    static const size_t sizes[] = { 0, 1, 63, 64, 65, 100, 64 * 5, 1000, 4097 };
    enum { N = sizeof(sizes) / sizeof(sizes[0]) };
    unsigned char *saved[N], *live[N];
    loom_ckpt_t *ck = open_dir(tmpdir, 64, NULL);
    for (size_t i = 0; i < N; i++) {
        char name[16];
        snprintf(name, sizeof(name), "r%zu", i);
        saved[i] = malloc(sizes[i] + 1);
        live[i] = malloc(sizes[i] + 1);
        fill(live[i], sizes[i], (unsigned)i + 1);
        memcpy(saved[i], live[i], sizes[i]);
        add(ck, name, live[i], sizes[i]);
    }
    ck_assert_int_eq(loom_ckpt_save(ck, 7), LOOM_OK);
    for (size_t i = 0; i < N; i++) {
        memset(live[i], 0xee, sizes[i]);
    }
    uint64_t step = 0;
    ck_assert_int_eq(loom_ckpt_restore(ck, LOOM_CKPT_NEWEST, &step), LOOM_OK);
    ck_assert_uint_eq(step, 7);
    for (size_t i = 0; i < N; i++) {
        ck_assert_int_eq(memcmp(live[i], saved[i], sizes[i]), 0);
        free(saved[i]);
        free(live[i]);
    }
    loom_ckpt_close(ck);

    /* Files 0600, directories 0700. */
    char path[512];
    struct stat st;
    snprintf(path, sizeof(path), "%s/step-%020d/COMMIT", tmpdir, 7);
    ck_assert_int_eq(stat(path, &st), 0);
    ck_assert_int_eq(st.st_mode & 0777, 0600);
    snprintf(path, sizeof(path), "%s/step-%020d", tmpdir, 7);
    ck_assert_int_eq(stat(path, &st), 0);
    ck_assert_int_eq(st.st_mode & 0777, 0700);
}
END_TEST

START_TEST(test_many_regions)
{
    enum { R = 200, SZ = 37 };
    unsigned char data[R][SZ], copy[R][SZ];
    loom_ckpt_t *ck = open_dir(tmpdir, 64, NULL);
    for (int i = 0; i < R; i++) {
        char name[16];
        snprintf(name, sizeof(name), "layer.%d", i);
        fill(data[i], SZ, (unsigned)i * 7 + 3);
        add(ck, name, data[i], SZ);
    }
    memcpy(copy, data, sizeof(data));
    ck_assert_int_eq(loom_ckpt_save(ck, 1), LOOM_OK);
    memset(data, 0, sizeof(data));
    ck_assert_int_eq(loom_ckpt_restore(ck, 1, NULL), LOOM_OK);
    ck_assert_int_eq(memcmp(data, copy, sizeof(data)), 0);
    loom_ckpt_close(ck);
}
END_TEST

/* ------------------------------------------------------------ incremental */

START_TEST(test_incremental_writes_changed_chunks)
{
    enum { CHUNK = 64, NCHUNK = 100 };
    static unsigned char w[CHUNK * NCHUNK], v1[CHUNK * NCHUNK], v2[CHUNK * NCHUNK];
    fill(w, sizeof(w), 42);
    loom_ckpt_t *ck = open_dir(tmpdir, CHUNK, NULL);
    add(ck, "w", w, sizeof(w));
    loom_ckpt_stats_t s1, s2, s3;

    ck_assert_int_eq(loom_ckpt_save(ck, 1), LOOM_OK);
    loom_ckpt_get_stats(ck, &s1);
    ck_assert_uint_eq(s1.chunks_written, NCHUNK);
    ck_assert_uint_eq(s1.bytes_written, sizeof(w));
    memcpy(v1, w, sizeof(w));

    /* Five chunks change, one of them in two places. */
    static const int changed[] = { 3, 10, 50, 51, 99 };
    for (size_t i = 0; i < 5; i++) {
        w[changed[i] * CHUNK + 5] ^= 0x5a;
    }
    w[10 * CHUNK + 60] ^= 1;
    memcpy(v2, w, sizeof(w));
    ck_assert_int_eq(loom_ckpt_save(ck, 2), LOOM_OK);
    loom_ckpt_get_stats(ck, &s2);
    ck_assert_uint_eq(s2.chunks_written - s1.chunks_written, 5);
    ck_assert_uint_eq(s2.bytes_written - s1.bytes_written, 5 * CHUNK);
    ck_assert_uint_eq(s2.chunks_reused - s1.chunks_reused, NCHUNK - 5);

    /* Nothing changed: nothing but the manifest is written. */
    ck_assert_int_eq(loom_ckpt_save(ck, 3), LOOM_OK);
    loom_ckpt_get_stats(ck, &s3);
    ck_assert_uint_eq(s3.chunks_written, s2.chunks_written);
    ck_assert_uint_eq(s3.bytes_written, s2.bytes_written);
    ck_assert_uint_eq(s3.saves, 3);

    /* Every step restores as it was saved. */
    ck_assert_int_eq(loom_ckpt_restore(ck, 1, NULL), LOOM_OK);
    ck_assert_int_eq(memcmp(w, v1, sizeof(w)), 0);
    ck_assert_int_eq(loom_ckpt_restore(ck, 2, NULL), LOOM_OK);
    ck_assert_int_eq(memcmp(w, v2, sizeof(w)), 0);

    uint64_t *steps;
    size_t n;
    ck_assert_int_eq(loom_ckpt_list(ck, &steps, &n), LOOM_OK);
    ck_assert_uint_eq(n, 3);
    ck_assert_uint_eq(steps[0], 1);
    ck_assert_uint_eq(steps[2], 3);
    free(steps);
    loom_ckpt_close(ck);

    /* A new context (a restarted job) finds the chunks already stored. */
    ck = open_dir(tmpdir, CHUNK, NULL);
    add(ck, "w", w, sizeof(w));
    ck_assert_int_eq(loom_ckpt_save(ck, 4), LOOM_OK);
    loom_ckpt_get_stats(ck, &s1);
    ck_assert_uint_eq(s1.chunks_written, 0);
    ck_assert_uint_eq(s1.chunks_reused, NCHUNK);
    loom_ckpt_close(ck);
}
END_TEST

/* ------------------------------------------------------------ async */

START_TEST(test_async_copies_then_commits)
{
    enum { CHUNK = 64, NCHUNK = 100 };
    static unsigned char w[CHUNK * NCHUNK], v1[CHUNK * NCHUNK];
    fill(w, sizeof(w), 77);
    memcpy(v1, w, sizeof(w));
    /* Room for three chunks: the writer must keep draining. */
    loom_ckpt_options_t opts = { .chunk_size = CHUNK, .staging_bytes = 3 * CHUNK };
    loom_ckpt_t *ck = NULL;
    ck_assert_int_eq(loom_ckpt_open(tmpdir, NULL, &opts, &ck), LOOM_OK);
    add(ck, "w", w, sizeof(w));

    ck_assert_int_eq(loom_ckpt_save_async(ck, 1), LOOM_INPROGRESS);
    /* Training goes on at once: the save holds its own copy. */
    memset(w, 0, sizeof(w));
    ck_assert_int_eq(loom_ckpt_wait(ck), LOOM_OK);
    int written = 0;
    ck_assert_int_eq(loom_ckpt_test(ck, &written), LOOM_OK);
    ck_assert_int_eq(written, 1);
    loom_ckpt_stats_t s;
    loom_ckpt_get_stats(ck, &s);
    ck_assert_uint_eq(s.chunks_written, NCHUNK);
    ck_assert_uint_eq(s.saves, 1);
    ck_assert_uint_gt(s.staging_peak, 0);
    ck_assert_uint_le(s.staging_peak, 3 * CHUNK);

    /* Not committed until waited for: a restore waits itself. */
    memcpy(w, v1, sizeof(w));
    w[7] ^= 1;
    ck_assert_int_eq(loom_ckpt_save_async(ck, 2), LOOM_INPROGRESS);
    memset(w, 0, sizeof(w));
    uint64_t step = 0;
    ck_assert_int_eq(loom_ckpt_restore(ck, LOOM_CKPT_NEWEST, &step), LOOM_OK);
    ck_assert_uint_eq(step, 2);
    ck_assert_int_eq(w[7], v1[7] ^ 1);
    ck_assert_int_eq(memcmp(w + 8, v1 + 8, sizeof(w) - 8), 0);
    loom_ckpt_get_stats(ck, &s);
    ck_assert_uint_eq(s.chunks_written, NCHUNK + 1);
    ck_assert_int_eq(loom_ckpt_restore(ck, 1, NULL), LOOM_OK);
    ck_assert_int_eq(memcmp(w, v1, sizeof(w)), 0);

    /* Closed without waiting: written, never committed. */
    w[0] ^= 1;
    ck_assert_int_eq(loom_ckpt_save_async(ck, 3), LOOM_INPROGRESS);
    loom_ckpt_close(ck);
    ck_assert_int_eq(loom_ckpt_open(tmpdir, NULL, &opts, &ck), LOOM_OK);
    add(ck, "w", w, sizeof(w));
    ck_assert_int_eq(loom_ckpt_restore(ck, LOOM_CKPT_NEWEST, &step), LOOM_OK);
    ck_assert_uint_eq(step, 2);
    loom_ckpt_close(ck);
}
END_TEST

/* Every candidate fits in the staging area: the caller and the writer
 * share the copies, and the save returns only when all are made. */
START_TEST(test_async_shared_copies)
{
    enum { CHUNK = 4096, NCHUNK = 512 };
    static unsigned char w[CHUNK * NCHUNK], v1[CHUNK * NCHUNK];
    fill(w, sizeof(w), 91);
    memcpy(v1, w, sizeof(w));
    loom_ckpt_options_t opts = { .chunk_size = CHUNK };
    loom_ckpt_t *ck = NULL;
    ck_assert_int_eq(loom_ckpt_open(tmpdir, NULL, &opts, &ck), LOOM_OK);
    add(ck, "w", w, sizeof(w));
    for (uint64_t step = 1; step <= 3; step++) {
        ck_assert_int_eq(loom_ckpt_save_async(ck, step), LOOM_INPROGRESS);
        /* Training overwrites everything the moment the call returns. */
        memset(w, (int)step, sizeof(w));
        ck_assert_int_eq(loom_ckpt_wait(ck), LOOM_OK);
        ck_assert_int_eq(loom_ckpt_restore(ck, step, NULL), LOOM_OK);
        ck_assert_int_eq(memcmp(w, v1, sizeof(w)), 0);
        /* The next save sees the next state. */
        v1[step * CHUNK] ^= 0x5a;
        w[step * CHUNK] ^= 0x5a;
    }
    loom_ckpt_stats_t s;
    loom_ckpt_get_stats(ck, &s);
    ck_assert_uint_eq(s.chunks_written, NCHUNK + 2);
    loom_ckpt_close(ck);
}
END_TEST

/* A staging area of two chunks: nearly every chunk waits for room, so the
 * writer drains while the caller still stages, and must take only chunks
 * whose copy is made.  Each save must restore bitwise. */
START_TEST(test_async_drain_takes_copied_chunks)
{
    enum { CHUNK = 4096, NCHUNK = 64, ROUNDS = 12 };
    static unsigned char w[CHUNK * NCHUNK], v[CHUNK * NCHUNK];
    loom_ckpt_options_t opts = { .chunk_size = CHUNK, .staging_bytes = 2 * CHUNK,
                                 .track = LOOM_CKPT_TRACK_NONE };
    loom_ckpt_t *ck = NULL;
    ck_assert_int_eq(loom_ckpt_open(tmpdir, NULL, &opts, &ck), LOOM_OK);
    add(ck, "w", w, sizeof(w));
    for (uint64_t step = 1; step <= ROUNDS; step++) {
        fill(w, sizeof(w), (unsigned)step * 7);
        memcpy(v, w, sizeof(w));
        ck_assert_int_eq(loom_ckpt_save_async(ck, step), LOOM_INPROGRESS);
        memset(w, 0xee, sizeof(w));
        ck_assert_int_eq(loom_ckpt_wait(ck), LOOM_OK);
        ck_assert_int_eq(loom_ckpt_restore(ck, step, NULL), LOOM_OK);
        ck_assert_int_eq(memcmp(w, v, sizeof(w)), 0);
    }
    loom_ckpt_close(ck);
}
END_TEST

/* ------------------------------------------------------------ zstd */

START_TEST(test_zstd_chunks)
{
    enum { CHUNK = 4096, N = 16 };
    static unsigned char w[CHUNK * N], noise[CHUNK], keep[CHUNK * N];
    /* Compressible: runs of one value; one chunk of noise stays raw. */
    for (size_t i = 0; i < sizeof(w); i++) {
        w[i] = (unsigned char)(i / 512);
    }
    fill(noise, sizeof(noise), 3);
    memcpy(w + 5 * CHUNK, noise, CHUNK);
    memcpy(keep, w, sizeof(w));
    loom_ckpt_options_t opts = { .chunk_size = CHUNK, .zstd_level = 3 };
    loom_ckpt_t *ck = NULL;
    ck_assert_int_eq(loom_ckpt_open(tmpdir, NULL, &opts, &ck), LOOM_OK);
    add(ck, "w", w, sizeof(w));
    ck_assert_int_eq(loom_ckpt_save(ck, 1), LOOM_OK);
    loom_ckpt_stats_t s;
    loom_ckpt_get_stats(ck, &s);
    ck_assert_uint_eq(s.chunks_written, N);
    /* 15 chunks of 8 runs compress to a few dozen bytes; the noise not. */
    ck_assert_uint_lt(s.bytes_written, CHUNK + 15 * 256);
    ck_assert_uint_ge(s.bytes_written, CHUNK);
    memset(w, 0, sizeof(w));
    ck_assert_int_eq(loom_ckpt_restore(ck, 1, NULL), LOOM_OK);
    ck_assert_int_eq(memcmp(w, keep, sizeof(w)), 0);
    loom_ckpt_close(ck);

    /* Read back without compression configured: the files say what they
     * are.  And a bad setting is refused by name. */
    setenv("LOOM_CKPT_COMPRESS", "zstd:99", 1);
    capture_start();
    ck_assert_int_eq(loom_ckpt_open(tmpdir, NULL, NULL, &ck), LOOM_ERR_INVALID_PARAM);
    capture_stop();
    ck_assert_ptr_nonnull(strstr(log_buf, "LOOM_CKPT_COMPRESS='zstd:99'"));
    unsetenv("LOOM_CKPT_COMPRESS");
    opts.zstd_level = -1;
    ck_assert_int_eq(loom_ckpt_open(tmpdir, NULL, &opts, &ck), LOOM_OK);
    add(ck, "w", w, sizeof(w));
    memset(w, 0, sizeof(w));
    ck_assert_int_eq(loom_ckpt_restore(ck, 1, NULL), LOOM_OK);
    ck_assert_int_eq(memcmp(w, keep, sizeof(w)), 0);
    loom_ckpt_close(ck);

    /* A corrupt frame is named. */
    char cmd[600];
    snprintf(cmd, sizeof(cmd), "f=$(find '%s/chunks' -name '*.zst' | head -1); "
             "printf 'XXXX' | dd of=\"$f\" bs=1 seek=6 conv=notrunc 2>/dev/null", tmpdir);
    ck_assert_int_eq(system(cmd), 0);
    ck_assert_int_eq(loom_ckpt_open(tmpdir, NULL, &opts, &ck), LOOM_OK);
    add(ck, "w", w, sizeof(w));
    capture_start();
    ck_assert_int_eq(loom_ckpt_restore(ck, 1, NULL), LOOM_ERR_IO);
    capture_stop();
    ck_assert_ptr_nonnull(strstr(log_buf, ".zst"));
    ck_assert_ptr_nonnull(strstr(log_buf, "region w, chunk"));
    loom_ckpt_close(ck);
}
END_TEST

/* ------------------------------------------------------------ retention */

static size_t count_chunk_files(const char *dir)
{
    char cmd[600];
    snprintf(cmd, sizeof(cmd), "find '%s/chunks' -type f | wc -l", dir);
    FILE *p = popen(cmd, "r");
    size_t n = 0;
    ck_assert_int_eq(fscanf(p, "%zu", &n), 1);
    pclose(p);
    return n;
}

START_TEST(test_retention_keeps_last_k)
{
    enum { CHUNK = 64, NCHUNK = 20 };
    static unsigned char w[CHUNK * NCHUNK], v[6][CHUNK * NCHUNK];
    fill(w, sizeof(w), 5);
    loom_ckpt_options_t opts = { .chunk_size = CHUNK, .keep = 2 };
    loom_ckpt_t *ck = NULL;
    ck_assert_int_eq(loom_ckpt_open(tmpdir, NULL, &opts, &ck), LOOM_OK);
    add(ck, "w", w, sizeof(w));

    /* An abandoned save: a step directory without a commit record. */
    char abandoned[512];
    snprintf(abandoned, sizeof(abandoned), "%s/step-%020d", tmpdir, 2);
    ck_assert_int_eq(mkdir(abandoned, 0700), 0);

    /* Each step changes chunk (step) and chunk 19. */
    for (int step = 1; step <= 5; step++) {
        w[step * CHUNK] ^= 0x11;
        w[19 * CHUNK + step] ^= 0x22;
        memcpy(v[step], w, sizeof(w));
        ck_assert_int_eq(loom_ckpt_save(ck, (uint64_t)(step == 2 ? 20 : step)), LOOM_OK);
    }
    loom_ckpt_stats_t s;
    loom_ckpt_get_stats(ck, &s);
    ck_assert_uint_eq(s.steps_deleted, 3);       /* 1, 3 and 4 of 1, 3, 4, 5, 20 */
    uint64_t *steps;
    size_t n;
    ck_assert_int_eq(loom_ckpt_list(ck, &steps, &n), LOOM_OK);
    ck_assert_uint_eq(n, 2);
    ck_assert_uint_eq(steps[0], 5);
    ck_assert_uint_eq(steps[1], 20);
    free(steps);
    ck_assert_int_eq(access(abandoned, F_OK), -1);

    /* Steps 20 (the state of the second save) and 5 hold 20 chunks
     * each; chunks 3, 4, 5 and 19 differ between them. */
    ck_assert_uint_eq(count_chunk_files(tmpdir), 24);
    ck_assert_uint_ge(s.chunks_deleted, 1);

    ck_assert_int_eq(loom_ckpt_restore(ck, 5, NULL), LOOM_OK);
    ck_assert_int_eq(memcmp(w, v[5], sizeof(w)), 0);
    ck_assert_int_eq(loom_ckpt_restore(ck, 20, NULL), LOOM_OK);
    ck_assert_int_eq(memcmp(w, v[2], sizeof(w)), 0);
    ck_assert_int_eq(loom_ckpt_restore(ck, 4, NULL), LOOM_ERR_NOT_FOUND);
    loom_ckpt_close(ck);
}
END_TEST

/* ------------------------------------------------------------ errors */

START_TEST(test_committed_step_never_rewritten)
{
    unsigned char a[100], keep[100];
    fill(a, sizeof(a), 1);
    memcpy(keep, a, sizeof(a));
    loom_ckpt_t *ck = open_dir(tmpdir, 32, NULL);
    add(ck, "a", a, sizeof(a));
    ck_assert_int_eq(loom_ckpt_save(ck, 5), LOOM_OK);
    a[0] ^= 1;
    capture_start();
    ck_assert_int_eq(loom_ckpt_save(ck, 5), LOOM_ERR_INVALID_PARAM);
    capture_stop();
    ck_assert_ptr_nonnull(strstr(log_buf, "step 5 is committed already"));
    ck_assert_int_eq(loom_ckpt_restore(ck, 5, NULL), LOOM_OK);
    ck_assert_int_eq(memcmp(a, keep, sizeof(a)), 0);
    loom_ckpt_close(ck);
}
END_TEST

START_TEST(test_bad_input)
{
    unsigned char a[10];
    loom_ckpt_t *ck = open_dir(tmpdir, 32, NULL);
    loom_ckpt_region_t r = { .name = "has space", .ptr = a, .size = 10,
                             .elem_size = 1 };
    capture_start();
    ck_assert_int_eq(loom_ckpt_register(ck, &r), LOOM_ERR_INVALID_PARAM);
    capture_stop();
    ck_assert_ptr_nonnull(strstr(log_buf, "[A-Za-z0-9_.-]"));

    r.name = "../escape";
    capture_start();
    ck_assert_int_eq(loom_ckpt_register(ck, &r), LOOM_ERR_INVALID_PARAM);
    capture_stop();
    ck_assert_ptr_nonnull(strstr(log_buf, "'../escape'"));
    r.name = "ok";
    r.layout = LOOM_CKPT_SHARDED;
    r.global_offset = 5;
    r.global_size = 12;
    capture_start();
    ck_assert_int_eq(loom_ckpt_register(ck, &r), LOOM_ERR_INVALID_PARAM);
    capture_stop();
    ck_assert_ptr_nonnull(strstr(log_buf, "outside global_size"));
    r.global_size = 15;
    ck_assert_int_eq(loom_ckpt_register(ck, &r), LOOM_OK);
    capture_start();
    ck_assert_int_eq(loom_ckpt_register(ck, &r), LOOM_ERR_INVALID_PARAM);
    capture_stop();
    ck_assert_ptr_nonnull(strstr(log_buf, "registered already"));

    /* Nothing committed yet. */
    ck_assert_int_eq(loom_ckpt_restore(ck, LOOM_CKPT_NEWEST, NULL),
                     LOOM_ERR_NOT_FOUND);
    capture_start();
    ck_assert_int_eq(loom_ckpt_restore(ck, 3, NULL), LOOM_ERR_NOT_FOUND);
    capture_stop();
    ck_assert_ptr_nonnull(strstr(log_buf, "step 3 is not committed"));
    loom_ckpt_close(ck);

    setenv("LOOM_CKPT_CHUNK_SIZE", "12q", 1);
    capture_start();
    ck_assert_int_eq(loom_ckpt_open(tmpdir, NULL, NULL, &ck), LOOM_ERR_INVALID_PARAM);
    capture_stop();
    unsetenv("LOOM_CKPT_CHUNK_SIZE");
    ck_assert_ptr_nonnull(strstr(log_buf, "LOOM_CKPT_CHUNK_SIZE='12q'"));
}
END_TEST

START_TEST(test_region_changed_shape)
{
    double a[10] = { 1, 2, 3 };
    loom_ckpt_t *ck = open_dir(tmpdir, 32, NULL);
    loom_ckpt_region_t r = { .name = "a", .ptr = a, .size = sizeof(a),
                             .elem_size = sizeof(double) };
    ck_assert_int_eq(loom_ckpt_register(ck, &r), LOOM_OK);
    ck_assert_int_eq(loom_ckpt_save(ck, 1), LOOM_OK);
    loom_ckpt_close(ck);

    ck = open_dir(tmpdir, 32, NULL);
    r.size = 8 * sizeof(double);
    ck_assert_int_eq(loom_ckpt_register(ck, &r), LOOM_OK);
    capture_start();
    ck_assert_int_eq(loom_ckpt_restore(ck, LOOM_CKPT_NEWEST, NULL),
                     LOOM_ERR_INVALID_PARAM);
    capture_stop();
    ck_assert_ptr_nonnull(strstr(log_buf, "region a was saved replicated with 80 bytes"));
    loom_ckpt_close(ck);
}
END_TEST

/* ------------------------------------------------------------ corruption */

static void corrupt_case(void (*damage)(memfs_t *fs, const char *chunk),
                         const char *expect)
{
    memfs_t *fs = memfs_create();
    unsigned char a[200], b[200];
    fill(a, sizeof(a), 9);
    loom_ckpt_t *ck = open_dir("/ck", 64, memfs_io(fs));
    add(ck, "weights", a, sizeof(a));
    ck_assert_int_eq(loom_ckpt_save(ck, 1), LOOM_OK);
    loom_ckpt_close(ck);

    /* The hash of chunk 2 of "weights", read back from the manifest. */
    char *text;
    size_t len;
    ck_assert_int_eq(memfs_io(fs)->read_all(fs, "/ck/step-00000000000000000001/"
                                            "rank-000000.manifest",
                                            (void **)&text, &len), 0);
    char *line = text;
    for (int i = 0; i < 8; i++) {
        line = strchr(line, '\n') + 1;   /* 6 header lines, chunks 0 and 1 */
    }
    char chunk[128];
    snprintf(chunk, sizeof(chunk), "/ck/chunks/%.2s/%.32s", line, line);
    free(text);
    damage(fs, chunk);

    ck = open_dir("/ck", 64, memfs_io(fs));
    add(ck, "weights", b, sizeof(b));
    capture_start();
    ck_assert_int_ne(loom_ckpt_restore(ck, LOOM_CKPT_NEWEST, NULL), LOOM_OK);
    capture_stop();
    ck_assert_msg(strstr(log_buf, expect) != NULL, "log: %s", log_buf);
    loom_ckpt_close(ck);
    memfs_destroy(fs);
}

static void flip_bit(memfs_t *fs, const char *chunk)
{
    ck_assert_int_eq(memfs_poke(fs, chunk, 17, 0x10), 0);
}

static void remove_chunk(memfs_t *fs, const char *chunk)
{
    ck_assert_int_eq(memfs_io(fs)->unlink(fs, chunk), 0);
}

static void truncate_chunk(memfs_t *fs, const char *chunk)
{
    /* Rewrite it shorter, as a torn copy would be. */
    const loom_ckpt_io_t *io = memfs_io(fs);
    int h = io->create(fs, chunk, 0600);
    ck_assert_int_ge(h, 0);
    ck_assert_int_eq(io->write(fs, h, "short", 5), 0);
    ck_assert_int_eq(io->close(fs, h), 0);
}

static void flip_manifest(memfs_t *fs, const char *chunk)
{
    (void)chunk;
    ck_assert_int_eq(memfs_poke(fs, "/ck/step-00000000000000000001/"
                                "rank-000000.manifest", 40, 0x01), 0);
}

/* A manifest, checksum intact, whose chunk entry is a path out of the
 * directory: the reader refuses it, naming the line, and opens nothing. */
START_TEST(test_manifest_names_no_path)
{
    loom_ckpt_chunk_ref_t chunk = { .hash = "../../../../../../../../etc/pass", .len = 10 };
    loom_ckpt_mregion_t region = { .name = "w", .layout = LOOM_CKPT_REPLICATED,
                                   .size = 10, .elem_size = 1, .global_size = 10,
                                   .nchunks = 1, .chunks = &chunk };
    loom_ckpt_manifest_t m = { .step = 1, .rank = 0, .nranks = 1, .chunk_size = 64,
                               .nregions = 1, .regions = &region };
    char *text;
    size_t len;
    ck_assert_int_eq(loom_ckpt_manifest_format(&m, &text, &len), LOOM_OK);
    loom_ckpt_manifest_t back;
    capture_start();
    ck_assert_int_eq(loom_ckpt_manifest_parse(text, len, "evil.manifest", &back), LOOM_ERR_IO);
    capture_stop();
    ck_assert_msg(strstr(log_buf, "evil.manifest, line 7: expected") != NULL, "%s", log_buf);
    free(text);
}
END_TEST

START_TEST(test_corruption_named)
{
    corrupt_case(flip_bit, "region weights, chunk 2: /ck/chunks/");
    corrupt_case(flip_bit, "does not match its hash");
    corrupt_case(remove_chunk, "region weights, chunk 2: cannot read /ck/chunks/");
    corrupt_case(truncate_chunk, "holds 5 bytes, the manifest says 64");
    corrupt_case(flip_manifest, "rank-000000.manifest: checksum does not match");
}
END_TEST

/* ------------------------------------------------------------ elastic */

typedef struct job {
    int size;
    pthread_barrier_t barrier;
    uint64_t values[16];
    uint64_t result;
} job_t;

typedef struct rank_arg {
    job_t *job;
    int rank;
} rank_arg_t;

/* min_u64 across the job's threads: everyone writes, waits, reads. */
static int thread_min(void *ctx, uint64_t *value)
{
    rank_arg_t *me = ctx;
    job_t *job = me->job;
    job->values[me->rank] = *value;
    pthread_barrier_wait(&job->barrier);
    uint64_t m = UINT64_MAX;
    for (int r = 0; r < job->size; r++) {
        m = job->values[r] < m ? job->values[r] : m;
    }
    pthread_barrier_wait(&job->barrier);
    *value = m;
    return 0;
}

enum { GLOBAL = 1000, REPL = 300 };
static unsigned char global_ref[GLOBAL], repl_ref[REPL];
static int restore_failures;

typedef struct elastic_arg {
    rank_arg_t r;
    int save;       /* 1: save, 0: restore and check */
} elastic_arg_t;

static void *elastic_rank(void *p)
{
    elastic_arg_t *a = p;
    int size = a->r.job->size, rank = a->r.rank;
    /* Uneven slices: rank r holds [r*GLOBAL/size, (r+1)*GLOBAL/size). */
    size_t lo = (size_t)rank * GLOBAL / (size_t)size;
    size_t hi = (size_t)(rank + 1) * GLOBAL / (size_t)size;
    unsigned char *slice = malloc(hi - lo + 1), repl[REPL];
    loom_ckpt_coord_t coord = { .rank = rank, .size = size,
                                .min_u64 = thread_min, .ctx = &a->r };
    loom_ckpt_options_t opts = { .chunk_size = 64 };
    loom_ckpt_t *ck;
    if (loom_ckpt_open(tmpdir, &coord, &opts, &ck) != LOOM_OK) {
        __atomic_add_fetch(&restore_failures, 1, __ATOMIC_RELAXED);
        free(slice);
        return NULL;
    }
    loom_ckpt_region_t rs = { .name = "shard", .ptr = slice, .size = hi - lo,
                              .elem_size = 1, .layout = LOOM_CKPT_SHARDED,
                              .global_offset = lo, .global_size = GLOBAL };
    loom_ckpt_region_t rr = { .name = "repl", .ptr = repl, .size = REPL,
                              .elem_size = 1 };
    int ok = loom_ckpt_register(ck, &rs) == LOOM_OK &&
             loom_ckpt_register(ck, &rr) == LOOM_OK;
    if (a->save) {
        memcpy(slice, global_ref + lo, hi - lo);
        memcpy(repl, repl_ref, REPL);
        ok = ok && loom_ckpt_save(ck, 10) == LOOM_OK;
    } else {
        memset(slice, 0, hi - lo);
        memset(repl, 0, REPL);
        uint64_t step = 0;
        ok = ok && loom_ckpt_restore(ck, LOOM_CKPT_NEWEST, &step) == LOOM_OK &&
             step == 10 && memcmp(slice, global_ref + lo, hi - lo) == 0 &&
             memcmp(repl, repl_ref, REPL) == 0;
    }
    if (!ok) {
        __atomic_add_fetch(&restore_failures, 1, __ATOMIC_RELAXED);
    }
    loom_ckpt_close(ck);
    free(slice);
    return NULL;
}

static void run_job(int size, int save)
{
    job_t job = { .size = size };
    pthread_barrier_init(&job.barrier, NULL, (unsigned)size);
    pthread_t th[16];
    elastic_arg_t args[16];
    for (int r = 0; r < size; r++) {
        args[r] = (elastic_arg_t){ .r = { .job = &job, .rank = r }, .save = save };
        pthread_create(&th[r], NULL, elastic_rank, &args[r]);
    }
    for (int r = 0; r < size; r++) {
        pthread_join(th[r], NULL);
    }
    pthread_barrier_destroy(&job.barrier);
}

static void elastic(int from, int to)
{
    fill(global_ref, GLOBAL, (unsigned)(from * 10 + to));
    fill(repl_ref, REPL, (unsigned)(from + to + 99));
    restore_failures = 0;
    run_job(from, 1);
    ck_assert_int_eq(restore_failures, 0);
    run_job(to, 0);
    ck_assert_int_eq(restore_failures, 0);
}

START_TEST(test_elastic_4_to_2)
{
    elastic(4, 2);
}
END_TEST

START_TEST(test_elastic_2_to_3)
{
    elastic(2, 3);
}
END_TEST

START_TEST(test_elastic_3_to_1_and_5)
{
    elastic(3, 1);
    tmp_teardown();
    tmp_setup();
    elastic(3, 5);
}
END_TEST

static Suite *ckpt_suite(void)
{
    Suite *s = suite_create("ckpt");
    TCase *tc = tcase_create("ckpt");
    tcase_add_checked_fixture(tc, tmp_setup, tmp_teardown);
    /* Every chunk is fsynced: a few ms each on a busy disk. */
    tcase_set_timeout(tc, 60);
    tcase_add_test(tc, test_round_trip_shapes);
    tcase_add_test(tc, test_many_regions);
    tcase_add_test(tc, test_incremental_writes_changed_chunks);
    tcase_add_test(tc, test_async_copies_then_commits);
    tcase_add_test(tc, test_async_shared_copies);
    tcase_add_test(tc, test_async_drain_takes_copied_chunks);
    tcase_add_test(tc, test_zstd_chunks);
    tcase_add_test(tc, test_retention_keeps_last_k);
    tcase_add_test(tc, test_committed_step_never_rewritten);
    tcase_add_test(tc, test_bad_input);
    tcase_add_test(tc, test_region_changed_shape);
    tcase_add_test(tc, test_corruption_named);
    tcase_add_test(tc, test_manifest_names_no_path);
    tcase_add_test(tc, test_elastic_4_to_2);
    tcase_add_test(tc, test_elastic_2_to_3);
    tcase_add_test(tc, test_elastic_3_to_1_and_5);
    suite_add_tcase(s, tc);
    return s;
}

int main(void)
{
    return loom_check_run(ckpt_suite());
}
