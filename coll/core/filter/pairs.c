/*
 * Pairs blocks (pairs.h): values, then indices, no padding.
 */
#include "coll/core/filter/pairs.h"

#include <string.h>

size_t loom_pairs_bytes(size_t k, loom_filter_type_t type)
{
    size_t pair = loom_filter_type_size(type) + sizeof(uint32_t);

    if (pair == sizeof(uint32_t) || k > SIZE_MAX / pair) {
        return 0;
    }
    return k * pair;
}

loom_status_t loom_pairs_count(size_t bytes, loom_filter_type_t type,
                               size_t *k_p)
{
    size_t pair = loom_filter_type_size(type) + sizeof(uint32_t);

    if (pair == sizeof(uint32_t) || bytes % pair != 0) {
        return LOOM_ERR_INVALID_PARAM;
    }
    *k_p = bytes / pair;
    return LOOM_OK;
}

void loom_pairs_encode(const uint32_t *index, const void *value, size_t k,
                       loom_filter_type_t type, void *block)
{
    size_t size = loom_filter_type_size(type);

    if (k == 0) {
        return;
    }
    memcpy(block, value, k * size);
    memcpy((char *)block + k * size, index, k * sizeof(uint32_t));
}

static uint32_t pairs_index(const void *block, size_t k, size_t size,
                            size_t j)
{
    uint32_t idx;

    memcpy(&idx, (const char *)block + k * size + j * sizeof(idx),
           sizeof(idx));
    return idx;
}

static loom_status_t pairs_check(size_t count, loom_filter_type_t type,
                                 const void *block, size_t k)
{
    size_t size = loom_filter_type_size(type);
    size_t j;

    if (size == 0) {
        return LOOM_ERR_INVALID_PARAM;
    }
    for (j = 0; j < k; j++) {
        uint32_t idx = pairs_index(block, k, size, j);
        if ((size_t)idx >= count ||
            (j > 0 && idx <= pairs_index(block, k, size, j - 1))) {
            return LOOM_ERR_INVALID_PARAM;
        }
    }
    return LOOM_OK;
}

loom_status_t loom_pairs_accumulate(void *dst, size_t count,
                                    loom_filter_type_t type,
                                    const void *block, size_t k)
{
    size_t size = loom_filter_type_size(type);
    loom_status_t status;
    size_t j;

    status = pairs_check(count, type, block, k);
    if (status != LOOM_OK) {
        return status;
    }
    for (j = 0; j < k; j++) {
        uint32_t idx = pairs_index(block, k, size, j);
        const char *v = (const char *)block + j * size;

        if (type == LOOM_FILTER_FLOAT) {
            float a, b;
            memcpy(&a, (char *)dst + idx * size, size);
            memcpy(&b, v, size);
            a += b;
            memcpy((char *)dst + idx * size, &a, size);
        } else {
            double a, b;
            memcpy(&a, (char *)dst + idx * size, size);
            memcpy(&b, v, size);
            a += b;
            memcpy((char *)dst + idx * size, &a, size);
        }
    }
    return LOOM_OK;
}

loom_status_t loom_pairs_densify(void *dst, size_t count,
                                 loom_filter_type_t type,
                                 const void *block, size_t k)
{
    size_t size = loom_filter_type_size(type);
    loom_status_t status;
    size_t j;

    status = pairs_check(count, type, block, k);
    if (status != LOOM_OK) {
        return status;
    }
    memset(dst, 0, count * size);
    for (j = 0; j < k; j++) {
        uint32_t idx = pairs_index(block, k, size, j);
        memcpy((char *)dst + (size_t)idx * size,
               (const char *)block + j * size, size);
    }
    return LOOM_OK;
}
