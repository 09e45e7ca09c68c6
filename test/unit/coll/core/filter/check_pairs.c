/*
 * Pairs blocks: sizes, the layout (values then indices), densify and
 * accumulate against a dense reference, blocks at odd addresses, and
 * corrupted blocks refused with the destination untouched.
 */
#include "coll/core/filter/pairs.h"

#include <check.h>
#include "test/unit/support/check_main.h"
#include <stdint.h>
#include <stdlib.h>
#include <string.h>

START_TEST(test_sizes)
{
    size_t k = 99;

    ck_assert_uint_eq(loom_pairs_bytes(0, LOOM_FILTER_FLOAT), 0);
    ck_assert_uint_eq(loom_pairs_bytes(3, LOOM_FILTER_FLOAT), 24);
    ck_assert_uint_eq(loom_pairs_bytes(3, LOOM_FILTER_DOUBLE), 36);
    ck_assert_uint_eq(loom_pairs_bytes(SIZE_MAX / 4, LOOM_FILTER_FLOAT), 0);
    ck_assert_uint_eq(loom_pairs_bytes(1, LOOM_FILTER_TYPE_COUNT), 0);
    ck_assert_int_eq(loom_pairs_count(36, LOOM_FILTER_DOUBLE, &k), LOOM_OK);
    ck_assert_uint_eq(k, 3);
    ck_assert_int_eq(loom_pairs_count(0, LOOM_FILTER_FLOAT, &k), LOOM_OK);
    ck_assert_uint_eq(k, 0);
    k = 99;
    ck_assert_int_eq(loom_pairs_count(20, LOOM_FILTER_DOUBLE, &k),
                     LOOM_ERR_INVALID_PARAM);
    ck_assert_int_eq(loom_pairs_count(8, LOOM_FILTER_TYPE_COUNT, &k),
                     LOOM_ERR_INVALID_PARAM);
    ck_assert_uint_eq(k, 99);
}
END_TEST

START_TEST(test_layout)
{
    const uint32_t index[3] = { 1, 5, 6 };
    const double value[3] = { 0.5, -2.0, 8.0 };
    unsigned char block[36];
    uint32_t idx;
    double v;

    loom_pairs_encode(index, value, 3, LOOM_FILTER_DOUBLE, block);
    memcpy(&v, block + 8, 8);
    ck_assert(v == -2.0);
    memcpy(&idx, block + 24 + 8, 4);
    ck_assert_uint_eq(idx, 6);
    loom_pairs_encode(index, value, 0, LOOM_FILTER_DOUBLE, NULL);
}
END_TEST

/* Three ranks' selections merged in rank order, float, block at an odd
 * address, against the dense sums computed the same order by hand. */
START_TEST(test_merge_in_rank_order)
{
    enum { COUNT = 10 };
    const uint32_t index[3][4] = { { 0, 3, 9 }, { 3, 4 }, { 0, 3, 5, 9 } };
    const float value[3][4] = { { 1.0f, 1e8f, 0.25f },
                                { 1.0f, -3.0f },
                                { 2.0f, -1e8f, 7.0f, 0.5f } };
    const size_t k[3] = { 3, 2, 4 };
    float dst[COUNT], want[COUNT] = { 0 };
    unsigned char storage[3][64];
    void *block[3];
    int r;
    size_t j;

    memset(dst, 0x7f, sizeof(dst));
    for (r = 0; r < 3; r++) {
        block[r] = storage[r] + 1;
        loom_pairs_encode(index[r], value[r], k[r], LOOM_FILTER_FLOAT,
                          block[r]);
        for (j = 0; j < k[r]; j++) {
            want[index[r][j]] += value[r][j];
        }
    }
    ck_assert_int_eq(loom_pairs_densify(dst, COUNT, LOOM_FILTER_FLOAT,
                                        block[0], k[0]), LOOM_OK);
    for (r = 1; r < 3; r++) {
        ck_assert_int_eq(loom_pairs_accumulate(dst, COUNT, LOOM_FILTER_FLOAT,
                                               block[r], k[r]), LOOM_OK);
    }
    ck_assert(memcmp(dst, want, sizeof(dst)) == 0);
    /* (1e8 + 1) - 1e8 in float order is 0: the order is what is agreed. */
    ck_assert(dst[3] == 0.0f);
}
END_TEST

START_TEST(test_corrupt_blocks_refused)
{
    const uint32_t unsorted[3] = { 1, 4, 2 };
    const uint32_t repeated[2] = { 2, 2 };
    const uint32_t outside[2] = { 0, 8 };
    const double value[3] = { 1.0, 2.0, 3.0 };
    unsigned char block[36];
    double dst[8], before[8];
    size_t i;

    for (i = 0; i < 8; i++) {
        dst[i] = (double)i;
    }
    memcpy(before, dst, sizeof(dst));
    loom_pairs_encode(unsorted, value, 3, LOOM_FILTER_DOUBLE, block);
    ck_assert_int_eq(loom_pairs_accumulate(dst, 8, LOOM_FILTER_DOUBLE, block, 3),
                     LOOM_ERR_INVALID_PARAM);
    ck_assert_int_eq(loom_pairs_densify(dst, 8, LOOM_FILTER_DOUBLE, block, 3),
                     LOOM_ERR_INVALID_PARAM);
    loom_pairs_encode(repeated, value, 2, LOOM_FILTER_DOUBLE, block);
    ck_assert_int_eq(loom_pairs_accumulate(dst, 8, LOOM_FILTER_DOUBLE, block, 2),
                     LOOM_ERR_INVALID_PARAM);
    loom_pairs_encode(outside, value, 2, LOOM_FILTER_DOUBLE, block);
    ck_assert_int_eq(loom_pairs_densify(dst, 8, LOOM_FILTER_DOUBLE, block, 2),
                     LOOM_ERR_INVALID_PARAM);
    ck_assert(memcmp(dst, before, sizeof(dst)) == 0);
    /* The same block is fine for a longer buffer. */
    {
        double longer[9];
        ck_assert_int_eq(loom_pairs_densify(longer, 9, LOOM_FILTER_DOUBLE,
                                            block, 2), LOOM_OK);
        ck_assert(longer[0] == 1.0 && longer[8] == 2.0 && longer[4] == 0.0);
    }
}
END_TEST

int main(void)
{
    Suite *s = suite_create("pairs");
    TCase *tc = tcase_create("pairs");

    tcase_add_test(tc, test_sizes);
    tcase_add_test(tc, test_layout);
    tcase_add_test(tc, test_merge_in_rank_order);
    tcase_add_test(tc, test_corrupt_blocks_refused);
    suite_add_tcase(s, tc);
    return loom_check_run(s);
}
