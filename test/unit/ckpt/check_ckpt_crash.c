/*
 * Crash safety: a power cut before every single file operation of a save
 * (every create, write, fsync, close, rename, directory fsync), on a file
 * system that then keeps only what was durable (test/unit/support/ckpt_memfs.c).
 * After each cut, a restarted job must restore the last committed step
 * bitwise, or the new one if its commit record had become durable -- never
 * fail, never mix the two.  And a process killed with SIGKILL at random
 * points of saves on the real file system loses nothing committed.
 */
#define _GNU_SOURCE /* nftw */
#include <check.h>
#include <ftw.h>
#include <signal.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <sys/wait.h>
#include <time.h>
#include <unistd.h>

#include <loom/ckpt.h>

#include "test/unit/support/ckpt_memfs.h"
#include "test/unit/support/check_main.h"
#include "common/log.h"
#include "test/unit/support/tmp_dir.h"

enum { CHUNK = 64, A = 64 * 9 + 17, B = 130 };

typedef struct state {
    unsigned char a[A], b[B];
} state_t;

static void fill(unsigned char *p, size_t n, unsigned seed)
{
    for (size_t i = 0; i < n; i++) {
        seed = seed * 1103515245u + 12345u;
        p[i] = (unsigned char)(seed >> 16);
    }
}

/* Committed steps kept (0: all); with 1, every save also deletes the
 * previous step and its chunks, and cuts land in that too. */
static unsigned keep;
/* 1: saves go through loom_ckpt_save_async and loom_ckpt_wait. */
static int use_async;

static loom_ckpt_t *open_state(const loom_ckpt_io_t *io, const char *dir,
                               state_t *s)
{
    loom_ckpt_options_t opts = { .chunk_size = CHUNK, .io = io, .keep = keep };
    loom_ckpt_t *ck = NULL;
    if (loom_ckpt_open(dir, NULL, &opts, &ck) != LOOM_OK) {
        return NULL;
    }
    loom_ckpt_region_t ra = { .name = "a", .ptr = s->a, .size = A, .elem_size = 1 };
    loom_ckpt_region_t rb = { .name = "b", .ptr = s->b, .size = B, .elem_size = 1 };
    ck_assert_int_eq(loom_ckpt_register(ck, &ra), LOOM_OK);
    ck_assert_int_eq(loom_ckpt_register(ck, &rb), LOOM_OK);
    return ck;
}

/* Three states; step k holds states[k - 1]. */
static state_t states[3];

static void make_states(void)
{
    fill(states[0].a, A, 1);
    fill(states[0].b, B, 2);
    states[1] = states[0];
    states[1].a[5] ^= 0xff;          /* chunk 0 */
    states[1].a[A - 1] ^= 0x0f;      /* the short last chunk */
    fill(states[1].b + 64, 66, 3);   /* chunks 1 and 2 of b */
    states[2] = states[1];
    fill(states[2].a + 128, 200, 4);
}

/* Restores after a reboot; returns the step restored (0: none). */
static uint64_t restore_after(memfs_t *fs)
{
    state_t got;
    memset(&got, 0xaa, sizeof(got));
    loom_ckpt_t *ck = open_state(memfs_io(fs), "/ck", &got);
    ck_assert_ptr_nonnull(ck);
    uint64_t step = 0;
    loom_status_t st = loom_ckpt_restore(ck, LOOM_CKPT_NEWEST, &step);
    loom_ckpt_close(ck);
    if (st == LOOM_ERR_NOT_FOUND) {
        return 0;
    }
    ck_assert_int_eq(st, LOOM_OK);
    ck_assert_uint_ge(step, 1);
    ck_assert_uint_le(step, 3);
    ck_assert_int_eq(memcmp(&got, &states[step - 1], sizeof(got)), 0);
    return step;
}

/* Saves steps 1..upto on fs, the last one with a cut armed at k.
 * Returns 1 when the cut happened. */
static int save_with_cut(memfs_t *fs, int upto, long k)
{
    state_t live = states[0];
    loom_ckpt_t *ck = NULL;
    if (upto == 1) {
        memfs_arm(fs, k);
    }
    ck = open_state(memfs_io(fs), "/ck", &live);
    for (int step = 1; ck != NULL && step <= upto; step++) {
        live = states[step - 1];
        if (step == upto && upto > 1) {
            memfs_arm(fs, k);
        }
        loom_status_t st;
        if (use_async) {
            st = loom_ckpt_save_async(ck, (uint64_t)step);
            if (st == LOOM_INPROGRESS) {
                st = loom_ckpt_wait(ck);
            }
        } else {
            st = loom_ckpt_save(ck, (uint64_t)step);
        }
        if (!memfs_dead(fs)) {
            ck_assert_int_eq(st, LOOM_OK);
        }
    }
    loom_ckpt_close(ck);
    return memfs_dead(fs);
}

/* The cuts make every save log its I/O errors: hundreds of lines. */
static FILE *quiet(void)
{
    FILE *null = fopen("/dev/null", "w");
    loom_log_set_stream(null);
    return null;
}

static void loud(FILE *null)
{
    loom_log_set_stream(NULL);
    fclose(null);
}

static void cut_everywhere(int upto)
{
    FILE *null = quiet();
    int cuts = 0, new_step_seen = 0;
    for (long k = 1;; k++) {
        memfs_t *fs = memfs_create();
        int cut = save_with_cut(fs, upto, k);
        memfs_reboot(fs);
        uint64_t step = restore_after(fs);
        /* Everything committed before the cut is still there. */
        ck_assert_uint_ge(step, (uint64_t)(upto - 1));
        new_step_seen += step == (uint64_t)upto;
        memfs_destroy(fs);
        if (!cut) {
            ck_assert_uint_eq(step, (uint64_t)upto);
            break;
        }
        cuts++;
    }
    /* A save is dozens of operations; the last cuts come after the
     * commit record became durable. */
    ck_assert_int_gt(cuts, 20);
    ck_assert_int_ge(new_step_seen, 1);
    loud(null);
}

START_TEST(test_cut_during_first_save)
{
    make_states();
    cut_everywhere(1);
}
END_TEST

START_TEST(test_cut_during_incremental_save)
{
    make_states();
    cut_everywhere(2);
    cut_everywhere(3);
}
END_TEST

START_TEST(test_cut_during_async_save)
{
    make_states();
    use_async = 1;
    cut_everywhere(1);
    cut_everywhere(3);
    use_async = 0;
}
END_TEST

START_TEST(test_cut_during_save_with_retention)
{
    make_states();
    keep = 1;
    cut_everywhere(2);
    cut_everywhere(3);
    keep = 0;
}
END_TEST

/* ------------------------------------------------------------ SIGKILL */

START_TEST(test_sigkill_while_saving)
{
    make_states();
    FILE *null = quiet();
    loom_tmp_dir_make("loom-ckpt-kill");
    srand((unsigned)time(NULL));
    uint64_t last_committed = 0;
    for (int round = 0; round < 12; round++) {
        int pipefd[2];
        ck_assert_int_eq(pipe(pipefd), 0);
        pid_t pid = fork();
        ck_assert_int_ge(pid, 0);
        if (pid == 0) {
            /* The child saves step after step, telling the parent each
             * step it committed, until it is killed. */
            close(pipefd[0]);
            state_t live;
            loom_ckpt_t *ck = open_state(NULL, tmpdir, &live);
            for (uint64_t step = last_committed + 1;; step++) {
                live = states[step % 3];
                if (ck == NULL || loom_ckpt_save(ck, step) != LOOM_OK ||
                    write(pipefd[1], &step, sizeof(step)) != sizeof(step)) {
                    _exit(1);
                }
            }
        }
        close(pipefd[1]);
        struct timespec ts = { 0, (long)(rand() % 20000) * 1000 };
        nanosleep(&ts, NULL);
        kill(pid, SIGKILL);
        int status;
        waitpid(pid, &status, 0);
        uint64_t step;
        while (read(pipefd[0], &step, sizeof(step)) == sizeof(step)) {
            last_committed = step;
        }
        close(pipefd[0]);

        /* What the child reported committed, or a later step, restores
         * bitwise. */
        state_t got;
        loom_ckpt_t *ck = open_state(NULL, tmpdir, &got);
        ck_assert_ptr_nonnull(ck);
        uint64_t restored = 0;
        loom_status_t st = loom_ckpt_restore(ck, LOOM_CKPT_NEWEST, &restored);
        loom_ckpt_close(ck);
        if (last_committed == 0 && st == LOOM_ERR_NOT_FOUND) {
            continue;
        }
        ck_assert_int_eq(st, LOOM_OK);
        ck_assert_uint_ge(restored, last_committed);
        ck_assert_int_eq(memcmp(&got, &states[restored % 3], sizeof(got)), 0);
        last_committed = restored;
    }
    loom_tmp_dir_remove();
    loud(null);
}
END_TEST

static Suite *crash_suite(void)
{
    Suite *s = suite_create("ckpt_crash");
    TCase *tc = tcase_create("crash");
    tcase_set_timeout(tc, 120);
    tcase_add_test(tc, test_cut_during_first_save);
    tcase_add_test(tc, test_cut_during_incremental_save);
    tcase_add_test(tc, test_cut_during_save_with_retention);
    tcase_add_test(tc, test_cut_during_async_save);
    tcase_add_test(tc, test_sigkill_while_saving);
    suite_add_tcase(s, tc);
    return s;
}

int main(void)
{
    return loom_check_run(crash_suite());
}
