/*
 * libloom-ckpt's change tracking (ckpt/track.c): a save hashes only the
 * chunks that may have changed and writes exactly those that did, whether
 * the change came from a store, from the kernel (read() into the region,
 * process_vm_writev from a peer), or from a range the application marked; a chunk changed and changed
 * back is reused; a restore or a failed save leaves nothing behind; bad
 * settings are refused by name.
 *
 * Where the kernel cannot track writes (before Linux 6.7, or userfaultfd
 * disabled), the writes-mode tests check the fallback instead: every
 * chunk hashed, the same chunks written.
 */
#define _GNU_SOURCE /* nftw */
#include <check.h>
#include <fcntl.h>
#include <ftw.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <sys/uio.h>
#include <sys/wait.h>
#include <unistd.h>

#include <loom/ckpt.h>

#include "test/unit/support/ckpt_memfs.h"
#include "test/unit/support/check_main.h"
#include "test/unit/support/log_capture.h"
#include "test/unit/support/tmp_dir.h"

/* Whole pages per chunk, so that page-aligned regions are tracked exactly. */
enum { PAGE = 4096, CHUNK = 4 * PAGE, NCHUNK = 32, SIZE = CHUNK * NCHUNK };

static void tmp_setup(void)
{
    loom_tmp_dir_make("loom-track");
    unsetenv("LOOM_CKPT_TRACK");
}

static void tmp_teardown(void)
{
    loom_tmp_dir_remove();
}

static unsigned char *state_alloc(size_t size, unsigned seed)
{
    /* aligned_alloc wants a multiple of the alignment (C11; ASan insists). */
    unsigned char *p = aligned_alloc(PAGE, (size + PAGE - 1) / PAGE * PAGE);
    ck_assert_ptr_nonnull(p);
    for (size_t i = 0; i < size; i++) {
        seed = seed * 1103515245u + 12345u;
        p[i] = (unsigned char)(seed >> 16);
    }
    return p;
}

static loom_ckpt_t *open_track(const char *dir, loom_ckpt_track_mode_t track,
                               const loom_ckpt_io_t *io)
{
    loom_ckpt_options_t opts = { .chunk_size = CHUNK, .track = track, .io = io,
                                 .staging_bytes = 3 * CHUNK };
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

/* What one save did: the differences of the counters. */
typedef struct {
    uint64_t hashed, clean, written, bytes, reused;
} delta_t;

static delta_t save_delta(loom_ckpt_t *ck, uint64_t step, int async)
{
    loom_ckpt_stats_t a, b;
    loom_ckpt_get_stats(ck, &a);
    if (async) {
        ck_assert_int_eq(loom_ckpt_save_async(ck, step), LOOM_INPROGRESS);
        ck_assert_int_eq(loom_ckpt_wait(ck), LOOM_OK);
    } else {
        ck_assert_int_eq(loom_ckpt_save(ck, step), LOOM_OK);
    }
    loom_ckpt_get_stats(ck, &b);
    return (delta_t){ .hashed = b.chunks_hashed - a.chunks_hashed,
                      .clean = b.chunks_clean - a.chunks_clean,
                      .written = b.chunks_written - a.chunks_written,
                      .bytes = b.bytes_written - a.bytes_written,
                      .reused = b.chunks_reused - a.chunks_reused };
}

static int tracks_writes(loom_ckpt_t *ck)
{
    loom_ckpt_stats_t s;
    loom_ckpt_get_stats(ck, &s);
    ck_assert(s.track == LOOM_CKPT_TRACK_WRITES || s.track == LOOM_CKPT_TRACK_NONE);
    if (s.track == LOOM_CKPT_TRACK_NONE) {
        fprintf(stderr, "the kernel cannot track writes here: checking the fallback\n");
    }
    return s.track == LOOM_CKPT_TRACK_WRITES;
}

/* Hashed: `tracked` when the kernel tracks writes, every chunk otherwise. */
#define HASHED(tracking, tracked) ((tracking) ? (uint64_t)(tracked) : (uint64_t)NCHUNK)

/* ------------------------------------------------------------ writes mode */

static void writes_mode_exact(int async)
{
    unsigned char *w = state_alloc(SIZE, 5), *snap = malloc(SIZE);
    loom_ckpt_t *ck = open_track(tmpdir, LOOM_CKPT_TRACK_WRITES, NULL);
    add(ck, "w", w, SIZE);
    const int tracking = tracks_writes(ck);

    /* The first save has no baseline: everything. */
    delta_t d = save_delta(ck, 1, async);
    ck_assert_uint_eq(d.hashed, NCHUNK);
    ck_assert_uint_eq(d.written, NCHUNK);
    ck_assert_uint_eq(d.bytes, SIZE);

    /* Three chunks change, one in two places. */
    w[3 * CHUNK + 7] ^= 0x5a;
    w[17 * CHUNK + CHUNK - 1] ^= 0x5a;
    w[30 * CHUNK] ^= 1;
    w[30 * CHUNK + 3 * PAGE] ^= 1;
    d = save_delta(ck, 2, async);
    ck_assert_uint_eq(d.hashed, HASHED(tracking, 3));
    ck_assert_uint_eq(d.clean, NCHUNK - HASHED(tracking, 3));
    ck_assert_uint_eq(d.written, 3);
    ck_assert_uint_eq(d.bytes, 3 * CHUNK);
    ck_assert_uint_eq(d.reused, NCHUNK - 3);

    /* Nothing changed: nothing hashed, nothing written. */
    d = save_delta(ck, 3, async);
    ck_assert_uint_eq(d.hashed, HASHED(tracking, 0));
    ck_assert_uint_eq(d.written, 0);
    ck_assert_uint_eq(d.reused, NCHUNK);

    /* Changes the kernel writes: read() from a pipe and from a file. */
    int fds[2];
    ck_assert_int_eq(pipe(fds), 0);
    ck_assert_int_eq(write(fds[1], "kernel wrote this", 17), 17);
    ck_assert_int_eq(read(fds[0], w + 9 * CHUNK + 5000, 17), 17);
    close(fds[0]);
    close(fds[1]);
    char path[512];
    snprintf(path, sizeof(path), "%s/input", tmpdir);
    int fd = open(path, O_CREAT | O_RDWR | O_TRUNC, 0600);
    ck_assert_int_ge(fd, 0);
    ck_assert_int_eq(pwrite(fd, "bytes from a file", 17, 0), 17);
    ck_assert_int_eq(pread(fd, w + 12 * CHUNK + PAGE, 17, 0), 17);
    close(fd);
    /* And process_vm_writev from another process, as shared-memory MPI
     * receives (CMA) write; unless ptrace rules forbid it here. */
    int pvw = 0;
    pid_t parent = getpid(), child = fork();
    ck_assert_int_ge(child, 0);
    if (child == 0) {
        char msg[] = "written by a peer";
        struct iovec local = { msg, 17 }, remote = { w + 14 * CHUNK + 2 * PAGE, 17 };
        _exit(process_vm_writev(parent, &local, 1, &remote, 1, 0) == 17 ? 0 : 1);
    }
    int status = 0;
    ck_assert_int_eq(waitpid(child, &status, 0), child);
    if (WIFEXITED(status) && WEXITSTATUS(status) == 0) {
        pvw = 1;
        ck_assert_int_eq(memcmp(w + 14 * CHUNK + 2 * PAGE, "written by a peer", 17), 0);
    } else {
        fprintf(stderr, "process_vm_writev is not allowed here: not checked\n");
    }
    memcpy(snap, w, SIZE);
    d = save_delta(ck, 4, async);
    ck_assert_uint_eq(d.hashed, HASHED(tracking, 2 + pvw));
    ck_assert_uint_eq(d.written, 2 + (uint64_t)pvw);
    ck_assert_uint_eq(d.bytes, (2 + (uint64_t)pvw) * CHUNK);

    /* Changed and changed back (volatile: two stores, not none): hashed,
     * found unchanged, reused. */
    volatile unsigned char *v = w;
    v[20 * CHUNK + 11] ^= 0xff;
    v[20 * CHUNK + 11] ^= 0xff;
    d = save_delta(ck, 5, async);
    ck_assert_uint_eq(d.hashed, HASHED(tracking, 1));
    ck_assert_uint_eq(d.written, 0);
    ck_assert_uint_eq(d.reused, NCHUNK);

    /* A restore rewrites the region: the next save hashes everything,
     * and what it saves is what was restored. */
    memset(w, 0, SIZE);
    ck_assert_int_eq(loom_ckpt_restore(ck, 2, NULL), LOOM_OK);
    d = save_delta(ck, 6, async);
    ck_assert_uint_eq(d.hashed, NCHUNK);
    ck_assert_uint_eq(d.written, 0);   /* step 2's chunks are stored */
    w[1 * CHUNK] ^= 1;
    d = save_delta(ck, 7, async);
    ck_assert_uint_eq(d.hashed, HASHED(tracking, 1));
    ck_assert_uint_eq(d.written, 1);

    /* Every step restores as it was saved. */
    ck_assert_int_eq(loom_ckpt_restore(ck, 4, NULL), LOOM_OK);
    ck_assert_int_eq(memcmp(w, snap, SIZE), 0);
    loom_ckpt_close(ck);
    free(snap);
    free(w);
}

START_TEST(test_writes_exact_sync)
{
    writes_mode_exact(0);
}
END_TEST

START_TEST(test_writes_exact_async)
{
    writes_mode_exact(1);
}
END_TEST

/* A region that starts and ends inside pages: those partial pages are not
 * protected (they may hold other data), so their chunks are hashed at
 * every save; the rest is tracked. */
START_TEST(test_writes_unaligned)
{
    enum { N = 11, LEN = 10 * CHUNK + 123, SKEW = 100 };
    unsigned char *base = state_alloc(LEN + SKEW + PAGE, 9), *w = base + SKEW;
    loom_ckpt_t *ck = open_track(tmpdir, LOOM_CKPT_TRACK_WRITES, NULL);
    add(ck, "w", w, LEN);
    const int tracking = tracks_writes(ck);
    ck_assert_uint_eq(save_delta(ck, 1, 0).written, N);

    /* A page wholly inside chunk 5 (pages start 100 bytes before each
     * chunk, so a page can hold the end of one chunk and most of the next). */
    w[5 * CHUNK + 2 * PAGE] ^= 1;
    delta_t d = save_delta(ck, 2, 0);
    /* Chunk 5, chunk 0 (the first partial page), and chunks 9 and 10:
     * the last partial page begins 100 bytes before chunk 10. */
    ck_assert_uint_eq(d.hashed, tracking ? 4 : N);
    ck_assert_uint_eq(d.written, 1);
    ck_assert_uint_eq(d.bytes, CHUNK);
    loom_ckpt_close(ck);
    free(base);
}
END_TEST

/* A region rewritten whole between saves gains nothing from tracking and
 * pays a fault per page: it is hashed whole without protection for a
 * while (1 save, then 2, 4, ...), then looked at again. */
START_TEST(test_writes_dense_pauses)
{
    unsigned char *w = state_alloc(SIZE, 23);
    loom_ckpt_t *ck = open_track(tmpdir, LOOM_CKPT_TRACK_WRITES, NULL);
    add(ck, "w", w, SIZE);
    const int tracking = tracks_writes(ck);
    save_delta(ck, 1, 0);
    for (size_t i = 0; i < SIZE; i += PAGE) {
        w[i] ^= 1;
    }
    delta_t d = save_delta(ck, 2, 0);
    ck_assert_uint_eq(d.hashed, NCHUNK);
    ck_assert_uint_eq(d.written, NCHUNK);
    w[8 * CHUNK] ^= 1;
    d = save_delta(ck, 3, 0);           /* paused: everything */
    ck_assert_uint_eq(d.hashed, NCHUNK);
    ck_assert_uint_eq(d.written, 1);
    w[9 * CHUNK] ^= 1;
    d = save_delta(ck, 4, 0);           /* protected again: what changed */
    ck_assert_uint_eq(d.hashed, HASHED(tracking, 1));
    ck_assert_uint_eq(d.written, 1);
    loom_ckpt_close(ck);
    free(w);
}
END_TEST

/* Two contexts over the same memory: the second cannot protect pages the
 * first protects (each save re-protects, hiding writes from the other),
 * so it hashes its region whole, and neither misses a change. */
START_TEST(test_writes_shared_memory)
{
    unsigned char *w = state_alloc(SIZE, 11);
    char other[300];
    snprintf(other, sizeof(other), "%s/other", tmpdir);
    loom_ckpt_t *a = open_track(tmpdir, LOOM_CKPT_TRACK_WRITES, NULL);
    loom_ckpt_t *b = open_track(other, LOOM_CKPT_TRACK_WRITES, NULL);
    add(a, "w", w, SIZE);
    add(b, "w", w, SIZE);
    const int tracking = tracks_writes(a);
    save_delta(a, 1, 0);
    save_delta(b, 1, 0);
    w[6 * CHUNK] ^= 1;
    delta_t da = save_delta(a, 2, 0), db = save_delta(b, 2, 0);
    ck_assert_uint_eq(da.hashed, HASHED(tracking, 1));
    ck_assert_uint_eq(da.written, 1);
    ck_assert_uint_eq(db.hashed, NCHUNK);
    ck_assert_uint_eq(db.written, 1);
    loom_ckpt_close(b);
    loom_ckpt_close(a);
    free(w);
}
END_TEST

/* ------------------------------------------------------------ marks mode */

START_TEST(test_marks_nothing_marked_missed)
{
    unsigned char *w = state_alloc(SIZE, 13), *snap = malloc(SIZE);
    loom_ckpt_t *ck = open_track(tmpdir, LOOM_CKPT_TRACK_MARKS, NULL);
    add(ck, "w", w, SIZE);
    loom_ckpt_stats_t s;
    loom_ckpt_get_stats(ck, &s);
    ck_assert_int_eq(s.track, LOOM_CKPT_TRACK_MARKS);
    ck_assert_uint_eq(save_delta(ck, 1, 0).written, NCHUNK);

    /* A range across the boundary of chunks 2 and 3, and one byte of 7. */
    for (size_t i = 3 * CHUNK - 2; i < 3 * CHUNK + 2; i++) {
        w[i] ^= 0x11;
    }
    w[7 * CHUNK + 1] ^= 1;
    ck_assert_int_eq(loom_ckpt_touch(ck, "w", 3 * CHUNK - 2, 4), LOOM_OK);
    ck_assert_int_eq(loom_ckpt_touch(ck, "w", 7 * CHUNK + 1, 1), LOOM_OK);
    /* Ranges past the end are clamped, not an error. */
    ck_assert_int_eq(loom_ckpt_touch(ck, "w", SIZE - 1, 1000), LOOM_OK);
    ck_assert_int_eq(loom_ckpt_touch(ck, "w", SIZE + 5, 1), LOOM_OK);
    memcpy(snap, w, SIZE);
    delta_t d = save_delta(ck, 2, 0);
    ck_assert_uint_eq(d.hashed, 4);    /* 2, 3, 7 and the last (touched, unchanged) */
    ck_assert_uint_eq(d.clean, NCHUNK - 4);
    ck_assert_uint_eq(d.written, 3);
    ck_assert_uint_eq(d.bytes, 3 * CHUNK);

    /* Marked in async saves too. */
    w[20 * CHUNK] ^= 1;
    ck_assert_int_eq(loom_ckpt_touch(ck, "w", 20 * CHUNK, 1), LOOM_OK);
    d = save_delta(ck, 3, 1);
    ck_assert_uint_eq(d.hashed, 1);
    ck_assert_uint_eq(d.written, 1);

    /* As documented, a change that is not marked is not saved. */
    w[25 * CHUNK] ^= 1;
    d = save_delta(ck, 4, 0);
    ck_assert_uint_eq(d.hashed, 0);
    ck_assert_uint_eq(d.written, 0);
    w[25 * CHUNK] ^= 1;

    /* After a restore, marks or not, everything is hashed once. */
    memcpy(snap, w, SIZE);
    ck_assert_int_eq(loom_ckpt_restore(ck, 2, NULL), LOOM_OK);
    d = save_delta(ck, 5, 0);
    ck_assert_uint_eq(d.hashed, NCHUNK);
    memcpy(w, snap, SIZE);
    ck_assert_int_eq(loom_ckpt_touch(ck, "w", 0, SIZE), LOOM_OK);
    d = save_delta(ck, 6, 0);
    ck_assert_uint_eq(d.hashed, NCHUNK);
    ck_assert_uint_eq(d.written, 0);   /* step 3's bytes, stored already */
    ck_assert_int_eq(loom_ckpt_restore(ck, 3, NULL), LOOM_OK);
    ck_assert_int_eq(memcmp(w, snap, SIZE), 0);

    capture_start();
    ck_assert_int_eq(loom_ckpt_touch(ck, "nope", 0, 1), LOOM_ERR_NOT_FOUND);
    capture_stop();
    ck_assert_ptr_nonnull(strstr(log_buf, "'nope'"));
    loom_ckpt_close(ck);
    free(snap);
    free(w);
}
END_TEST

/* A save that fails after tracking handed over its candidates: they stay
 * candidates, and the next save writes them. */
START_TEST(test_failed_save_keeps_candidates)
{
    static const loom_ckpt_track_mode_t modes[] = { LOOM_CKPT_TRACK_WRITES,
                                                    LOOM_CKPT_TRACK_MARKS };
    for (size_t m = 0; m < 2; m++) {
        unsigned char *w = state_alloc(SIZE, 17);
        memfs_t *fs = memfs_create();
        loom_ckpt_t *ck = open_track("/ck", modes[m], memfs_io(fs));
        add(ck, "w", w, SIZE);
        ck_assert_uint_eq(save_delta(ck, 1, 0).written, NCHUNK);

        w[4 * CHUNK] ^= 1;
        loom_ckpt_touch(ck, "w", 4 * CHUNK, 1);
        /* The power goes at the writer's first file operation, after the
         * save took the candidates. */
        memfs_arm(fs, 1);
        capture_start();
        ck_assert_int_eq(loom_ckpt_save_async(ck, 2), LOOM_INPROGRESS);
        ck_assert_int_ne(loom_ckpt_wait(ck), LOOM_OK);
        capture_stop();
        memfs_reboot(fs);
        delta_t d = save_delta(ck, 3, 0);
        ck_assert_uint_eq(d.written, 1);
        ck_assert_uint_eq(d.bytes, CHUNK);
        loom_ckpt_close(ck);
        memfs_destroy(fs);
        free(w);
    }
}
END_TEST

/* ------------------------------------------------------------ none, settings */

START_TEST(test_none_hashes_everything)
{
    unsigned char *w = state_alloc(SIZE, 19);
    setenv("LOOM_CKPT_TRACK", "none", 1);
    loom_ckpt_t *ck = open_track(tmpdir, LOOM_CKPT_TRACK_DEFAULT, NULL);
    unsetenv("LOOM_CKPT_TRACK");
    add(ck, "w", w, SIZE);
    loom_ckpt_stats_t s;
    loom_ckpt_get_stats(ck, &s);
    ck_assert_int_eq(s.track, LOOM_CKPT_TRACK_NONE);
    save_delta(ck, 1, 0);
    w[2 * CHUNK] ^= 1;
    w[31 * CHUNK + 9] ^= 1;
    for (int async = 0; async < 2; async++) {
        delta_t d = save_delta(ck, 2 + (uint64_t)async, async);
        ck_assert_uint_eq(d.hashed, NCHUNK);
        ck_assert_uint_eq(d.clean, 0);
        ck_assert_uint_eq(d.written, async ? 0 : 2);
        volatile unsigned char *v = w;
        v[2 * CHUNK] ^= 1;      /* the async save finds it changed back */
        v[2 * CHUNK] ^= 1;
    }
    loom_ckpt_close(ck);
    free(w);
}
END_TEST

START_TEST(test_track_settings)
{
    loom_ckpt_t *ck = NULL;
    loom_ckpt_stats_t s;

    setenv("LOOM_CKPT_TRACK", "softly", 1);
    capture_start();
    ck_assert_int_eq(loom_ckpt_open(tmpdir, NULL, NULL, &ck), LOOM_ERR_INVALID_PARAM);
    capture_stop();
    ck_assert_ptr_nonnull(strstr(log_buf, "LOOM_CKPT_TRACK='softly'"));
    ck_assert_ptr_nonnull(strstr(log_buf, "auto, writes, marks or none"));

    /* The options win over the environment. */
    setenv("LOOM_CKPT_TRACK", "marks", 1);
    ck = open_track(tmpdir, LOOM_CKPT_TRACK_NONE, NULL);
    loom_ckpt_get_stats(ck, &s);
    ck_assert_int_eq(s.track, LOOM_CKPT_TRACK_NONE);
    loom_ckpt_close(ck);
    ck = open_track(tmpdir, LOOM_CKPT_TRACK_DEFAULT, NULL);
    loom_ckpt_get_stats(ck, &s);
    ck_assert_int_eq(s.track, LOOM_CKPT_TRACK_MARKS);
    loom_ckpt_close(ck);

    /* auto is never reported: it becomes writes or none. */
    setenv("LOOM_CKPT_TRACK", "auto", 1);
    ck = open_track(tmpdir, LOOM_CKPT_TRACK_DEFAULT, NULL);
    loom_ckpt_get_stats(ck, &s);
    ck_assert(s.track == LOOM_CKPT_TRACK_WRITES || s.track == LOOM_CKPT_TRACK_NONE);
    loom_ckpt_close(ck);
    unsetenv("LOOM_CKPT_TRACK");

    loom_ckpt_options_t bad = { .track = (loom_ckpt_track_mode_t)42 };
    capture_start();
    ck_assert_int_eq(loom_ckpt_open(tmpdir, NULL, &bad, &ck), LOOM_ERR_INVALID_PARAM);
    capture_stop();
    ck_assert_ptr_nonnull(strstr(log_buf, "LOOM_CKPT_TRACK_AUTO"));
}
END_TEST

static Suite *track_suite(void)
{
    Suite *s = suite_create("ckpt_track");
    TCase *tc = tcase_create("track");
    tcase_add_checked_fixture(tc, tmp_setup, tmp_teardown);
    tcase_set_timeout(tc, 60);
    tcase_add_test(tc, test_writes_exact_sync);
    tcase_add_test(tc, test_writes_exact_async);
    tcase_add_test(tc, test_writes_unaligned);
    tcase_add_test(tc, test_writes_dense_pauses);
    tcase_add_test(tc, test_writes_shared_memory);
    tcase_add_test(tc, test_marks_nothing_marked_missed);
    tcase_add_test(tc, test_failed_save_keeps_candidates);
    tcase_add_test(tc, test_none_hashes_everything);
    tcase_add_test(tc, test_track_settings);
    suite_add_tcase(s, tc);
    return s;
}

int main(void)
{
    return loom_check_run(track_suite());
}
