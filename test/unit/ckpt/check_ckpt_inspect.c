/*
 * libloom-ckpt's public inspection API (loom/ckpt_inspect.h), on a real
 * directory: steps, regions and chunks as saved, chunks shared by two
 * regions counted once, what changed between steps, a corrupted chunk
 * found, a step's files named as stored, and garbage collection.
 */
#define _GNU_SOURCE /* nftw */
#include <check.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include <loom/ckpt.h>
#include <loom/ckpt_inspect.h>

#include "test/unit/support/check_main.h"
#include "test/unit/support/tmp_dir.h"

static void tmp_setup(void)
{
    loom_tmp_dir_make("loom-inspect");
}

static void tmp_teardown(void)
{
    loom_tmp_dir_remove();
}

/* Region a: 300 bytes in 64-byte chunks (5 chunks); region b: a copy of
 * a's first chunk, so the step stores 5 distinct chunks for 6 refs.
 * Step 1, then one byte of a's third chunk changed, step 2. */
static void write_history(void)
{
    static unsigned char a[300], b[64];
    loom_ckpt_options_t opts = { .chunk_size = 64 };
    loom_ckpt_region_t ra = { .name = "a", .ptr = a, .size = sizeof(a), .elem_size = 1,
                              .layout = LOOM_CKPT_REPLICATED };
    loom_ckpt_region_t rb = { .name = "b", .ptr = b, .size = sizeof(b), .elem_size = 1,
                              .layout = LOOM_CKPT_REPLICATED };
    loom_ckpt_t *ck = NULL;

    for (size_t i = 0; i < sizeof(a); i++) {
        a[i] = (unsigned char)(i * 7 + 1);
    }
    memcpy(b, a, sizeof(b));
    ck_assert_int_eq(loom_ckpt_open(tmpdir, NULL, &opts, &ck), LOOM_OK);
    ck_assert_int_eq(loom_ckpt_register(ck, &ra), LOOM_OK);
    ck_assert_int_eq(loom_ckpt_register(ck, &rb), LOOM_OK);
    ck_assert_int_eq(loom_ckpt_save(ck, 1), LOOM_OK);
    a[2 * 64 + 5] ^= 0xff;
    ck_assert_int_eq(loom_ckpt_save(ck, 2), LOOM_OK);
    loom_ckpt_close(ck);
}

START_TEST(test_inspect_steps_regions_chunks)
{
    loom_ckpt_dir_t *dir;
    loom_ckpt_view_t *v1, *v2, *none;
    loom_ckpt_region_info_t reg;
    loom_ckpt_chunk_info_t ch, first;
    uint64_t *steps;
    size_t n, fresh = 0;

    write_history();
    ck_assert_int_eq(loom_ckpt_dir_open("/nonexistent/loom", &dir), LOOM_ERR_NOT_FOUND);
    ck_assert_ptr_null(dir);
    ck_assert_int_eq(loom_ckpt_dir_open(tmpdir, &dir), LOOM_OK);
    ck_assert_int_eq(loom_ckpt_dir_steps(dir, &steps, &n), LOOM_OK);
    ck_assert_uint_eq(n, 2);
    ck_assert_uint_eq(steps[0], 1);
    ck_assert_uint_eq(steps[1], 2);
    free(steps);
    ck_assert_int_eq(loom_ckpt_view_open(dir, 7, &none), LOOM_ERR_NOT_FOUND);
    ck_assert_ptr_null(none);

    ck_assert_int_eq(loom_ckpt_view_open(dir, 1, &v1), LOOM_OK);
    ck_assert_uint_eq(loom_ckpt_view_step(v1), 1);
    ck_assert_uint_eq(loom_ckpt_view_nranks(v1), 1);
    ck_assert_uint_eq(loom_ckpt_view_chunk_size(v1), 64);
    ck_assert_uint_eq(loom_ckpt_view_nregions(v1, 0), 2);
    loom_ckpt_view_region(v1, 0, 0, &reg);
    ck_assert_str_eq(reg.name, "a");
    ck_assert_int_eq(reg.layout, LOOM_CKPT_REPLICATED);
    ck_assert_uint_eq(reg.size, 300);
    ck_assert_uint_eq(reg.nchunks, 5);
    loom_ckpt_view_chunk(v1, 0, 0, 4, &ch);
    ck_assert_uint_eq(ch.len, 300 - 4 * 64);
    ck_assert_uint_eq(strlen(ch.hash), LOOM_CKPT_INSPECT_HASH_HEX);
    loom_ckpt_view_chunk(v1, 0, 0, 0, &first);
    loom_ckpt_view_region(v1, 0, 1, &reg);
    ck_assert_str_eq(reg.name, "b");
    ck_assert_uint_eq(reg.nchunks, 1);
    loom_ckpt_view_chunk(v1, 0, 1, 0, &ch);
    ck_assert_str_eq(ch.hash, first.hash);     /* the same bytes, the same chunk */
    ck_assert_uint_eq(loom_ckpt_view_nunique(v1), 5);
    ck_assert(loom_ckpt_view_has(v1, first.hash));
    ck_assert(!loom_ckpt_view_has(v1, "00000000000000000000000000000000"));
    ck_assert(!loom_ckpt_view_has(v1, "short"));
    ck_assert(!loom_ckpt_view_has(NULL, first.hash));

    /* Step 2 holds exactly one chunk step 1 does not: the changed one. */
    ck_assert_int_eq(loom_ckpt_view_open(dir, 2, &v2), LOOM_OK);
    for (size_t i = 0; i < loom_ckpt_view_nunique(v2); i++) {
        loom_ckpt_view_unique(v2, i, &ch);
        fresh += !loom_ckpt_view_has(v1, ch.hash);
    }
    ck_assert_uint_eq(fresh, 1);
    loom_ckpt_view_chunk(v2, 0, 0, 2, &ch);
    ck_assert(!loom_ckpt_view_has(v1, ch.hash));
    for (size_t c = 0; c < 5; c++) {
        ck_assert_int_eq(loom_ckpt_view_check_chunk(v2, 0, 0, c), LOOM_OK);
    }
    loom_ckpt_view_close(v1);

    /* Its files: the commit record, one manifest, five chunks. */
    ck_assert_uint_eq(loom_ckpt_view_nfiles(v2), 1 + 1 + 5);
    {
        char rel[256], path[512];
        void *buf;
        size_t len;
        FILE *f;

        ck_assert_int_eq(loom_ckpt_view_read_file(v2, 0, rel, sizeof(rel), &buf, &len), LOOM_OK);
        ck_assert_str_eq(rel, "step-00000000000000000002/COMMIT");
        ck_assert_uint_gt(len, 0);
        free(buf);
        ck_assert_int_eq(loom_ckpt_view_read_file(v2, 1, rel, sizeof(rel), &buf, &len), LOOM_OK);
        ck_assert_str_eq(rel, "step-00000000000000000002/rank-000000.manifest");
        free(buf);
        ck_assert_int_eq(loom_ckpt_view_read_file(v2, 7, rel, sizeof(rel), &buf, &len),
                         LOOM_ERR_INVALID_PARAM);
        /* Corrupt the changed chunk's file: checking it now fails. */
        loom_ckpt_view_chunk(v2, 0, 0, 2, &ch);
        snprintf(path, sizeof(path), "%s/chunks/%.2s/%s", tmpdir, ch.hash, ch.hash);
        ck_assert_ptr_nonnull(f = fopen(path, "r+b"));
        ck_assert_int_eq(fputc('X', f), 'X');
        ck_assert_int_eq(fclose(f), 0);
        ck_assert_int_ne(loom_ckpt_view_check_chunk(v2, 0, 0, 2), LOOM_OK);
        ck_assert_int_eq(loom_ckpt_view_check_chunk(v2, 0, 0, 1), LOOM_OK);
    }
    loom_ckpt_view_close(v2);

    /* gc keeping one step deletes step 1 and the chunk only it held. */
    {
        uint64_t gone_steps, gone_chunks;

        ck_assert_int_eq(loom_ckpt_dir_gc(dir, 1, 0, &gone_steps, &gone_chunks), LOOM_OK);
        ck_assert_uint_eq(gone_steps, 1);
        ck_assert_uint_eq(gone_chunks, 1);
        ck_assert_int_eq(loom_ckpt_dir_steps(dir, &steps, &n), LOOM_OK);
        ck_assert_uint_eq(n, 1);
        ck_assert_uint_eq(steps[0], 2);
        free(steps);
    }
    loom_ckpt_dir_close(dir);
}
END_TEST

int main(void)
{
    Suite *s = suite_create("ckpt_inspect");
    TCase *tc = tcase_create("inspect");

    tcase_add_checked_fixture(tc, tmp_setup, tmp_teardown);
    tcase_add_test(tc, test_inspect_steps_regions_chunks);
    suite_add_tcase(s, tc);
    return loom_check_run(s);
}
