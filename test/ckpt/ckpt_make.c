/*
 * Fixture for test_loom_ckpt.sh: writes a small checkpoint history, and
 * checks a restore against it.
 *
 *   ckpt_make save DIR          steps 1, 2, 3 (see state())
 *   ckpt_make check DIR STEP    restores STEP; exit 0 when bitwise right
 */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include <loom/ckpt.h>

enum { CHUNK = 1024, W = 10 * CHUNK, B = 100 };

/* Step 1: everything new.  Step 2: chunks 2 and 7 of w change.
 * Step 3: b changes. */
static void state(int step, unsigned char *w, unsigned char *b)
{
    /* Runs of 37 equal bytes: every chunk differs, and compresses. */
    for (size_t i = 0; i < W; i++) {
        w[i] = (unsigned char)(i / 37);
    }
    for (size_t i = 0; i < B; i++) {
        b[i] = (unsigned char)(i ^ 0x55);
    }
    if (step >= 2) {
        w[2 * CHUNK + 10] ^= 1;
        w[7 * CHUNK] ^= 2;
    }
    if (step >= 3) {
        b[0] ^= 4;
    }
}

int main(int argc, char **argv)
{
    static unsigned char w[W], b[B], ew[W], eb[B];
    if (argc < 3 || (strcmp(argv[1], "check") == 0 && argc != 4)) {
        fprintf(stderr, "usage: ckpt_make save DIR | check DIR STEP\n");
        return 2;
    }
    loom_ckpt_options_t opts = { .chunk_size = CHUNK };
    loom_ckpt_t *ck;
    if (loom_ckpt_open(argv[2], NULL, &opts, &ck) != LOOM_OK) {
        return 1;
    }
    loom_ckpt_region_t rw = { .name = "weights", .ptr = w, .size = W, .elem_size = 4 };
    loom_ckpt_region_t rb = { .name = "bias", .ptr = b, .size = B, .elem_size = 4 };
    if (loom_ckpt_register(ck, &rw) != LOOM_OK || loom_ckpt_register(ck, &rb) != LOOM_OK) {
        return 1;
    }
    int rc = 0;
    if (strcmp(argv[1], "save") == 0) {
        for (int step = 1; step <= 3 && rc == 0; step++) {
            state(step, w, b);
            rc = loom_ckpt_save(ck, (uint64_t)step) == LOOM_OK ? 0 : 1;
        }
    } else {
        int step = atoi(argv[3]);
        state(step, ew, eb);
        rc = loom_ckpt_restore(ck, (uint64_t)step, NULL) == LOOM_OK &&
             memcmp(w, ew, W) == 0 && memcmp(b, eb, B) == 0 ? 0 : 1;
    }
    loom_ckpt_close(ck);
    return rc;
}
