/*
 * Top-k selection (topk.h): radix select on magnitude keys, exact or on a
 * deterministic sample.
 */
#include "coll/core/filter/topk.h"

#include <stdlib.h>
#include <string.h>

/* Sample sizes (topk.h): at least TOPK_SAMPLE_MIN draws, and enough that
 * about TOPK_SAMPLE_HITS of them land above the threshold. */
#define TOPK_SAMPLE_MIN     1024
#define TOPK_SAMPLE_HITS    256
#define TOPK_SAMPLE_SEED    UINT64_C(0x9e3779b97f4a7c15)

/* Where the keys come from: the data itself, or an array of keys. */
typedef enum topk_source {
    TOPK_SRC_FLOAT  = LOOM_FILTER_FLOAT,
    TOPK_SRC_DOUBLE = LOOM_FILTER_DOUBLE,
    TOPK_SRC_KEYS
} topk_source_t;

static inline uint64_t topk_key_at(topk_source_t src, const void *data,
                                   size_t i)
{
    uint32_t u32;
    uint64_t u64;

    switch (src) {
    case TOPK_SRC_FLOAT:
        memcpy(&u32, (const float *)data + i, sizeof(u32));
        return u32 & UINT32_C(0x7fffffff);
    case TOPK_SRC_DOUBLE:
        memcpy(&u64, (const double *)data + i, sizeof(u64));
        return u64 & UINT64_C(0x7fffffffffffffff);
    default:
        return ((const uint64_t *)data)[i];
    }
}

uint64_t loom_topk_key(loom_filter_type_t type, const void *acc, size_t i)
{
    return topk_key_at((topk_source_t)type, acc, i);
}

/*
 * The k-th largest key (1 <= k <= n) of the source: *threshold_p, and
 * *equal_p, how many keys equal to it belong to the top k (the rest of
 * the top k are strictly greater).  One histogram pass per byte, from the
 * top byte down, over the keys that match the bytes chosen so far.
 */
static void topk_radix_threshold(topk_source_t src, const void *data,
                                 size_t n, size_t k, unsigned key_bytes,
                                 uint64_t *threshold_p, size_t *equal_p)
{
    uint64_t prefix = 0, mask = 0;
    size_t need = k;
    size_t hist[256];
    int byte;

    for (byte = (int)key_bytes - 1; byte >= 0; byte--) {
        unsigned shift = 8u * (unsigned)byte;
        size_t i;
        int b;

        memset(hist, 0, sizeof(hist));
        for (i = 0; i < n; i++) {
            uint64_t key = topk_key_at(src, data, i);
            if ((key & mask) == prefix) {
                hist[(key >> shift) & 0xff]++;
            }
        }
        for (b = 255; b > 0; b--) {
            if (hist[b] >= need) {
                break;
            }
            need -= hist[b];
        }
        /* b == 0 here holds the rest: need <= hist[0], since k <= n. */
        prefix |= (uint64_t)b << shift;
        mask |= UINT64_C(0xff) << shift;
    }
    *threshold_p = prefix;
    *equal_p = need;
}

static void topk_take(const loom_topk_args_t *args, size_t i, size_t out)
{
    size_t size = loom_filter_type_size(args->type);

    args->index_out[out] = (uint32_t)i;
    memcpy((char *)args->value_out + out * size,
           (const char *)args->acc + i * size, size);
}

/* Every entry, in order. */
static size_t topk_take_all(const loom_topk_args_t *args)
{
    size_t i;

    for (i = 0; i < args->count; i++) {
        topk_take(args, i, i);
    }
    return args->count;
}

static size_t topk_exact(const loom_topk_args_t *args)
{
    topk_source_t src = (topk_source_t)args->type;
    unsigned key_bytes = (unsigned)loom_filter_type_size(args->type);
    uint64_t threshold;
    size_t equal, out = 0, i;

    if (args->k == 0 || args->count == 0) {
        return 0;
    }
    if (args->k >= args->count) {
        return topk_take_all(args);
    }
    topk_radix_threshold(src, args->acc, args->count, args->k, key_bytes,
                         &threshold, &equal);
    for (i = 0; i < args->count; i++) {
        uint64_t key = topk_key_at(src, args->acc, i);
        if (key > threshold) {
            topk_take(args, i, out++);
        } else if (key == threshold && equal > 0) {
            equal--;
            topk_take(args, i, out++);
        }
    }
    return out;
}

static size_t topk_sample_size(size_t count, size_t k)
{
    size_t s = TOPK_SAMPLE_MIN;

    /* 256 * count / k without overflow: count < 2^32. */
    if (k > 0 && ((uint64_t)count * TOPK_SAMPLE_HITS + k - 1) / k > s) {
        s = (size_t)(((uint64_t)count * TOPK_SAMPLE_HITS + k - 1) / k);
    }
    return s;
}

static uint64_t topk_xorshift(uint64_t *state)
{
    uint64_t x = *state;

    x ^= x << 13;
    x ^= x >> 7;
    x ^= x << 17;
    *state = x;
    return x;
}

static int topk_sampled(const loom_topk_args_t *args, size_t *selected_p)
{
    topk_source_t src = (topk_source_t)args->type;
    size_t count = args->count, k = args->k;
    size_t s = topk_sample_size(count, k);
    size_t kmax = loom_topk_capacity(count, k, args->exact_max);
    uint64_t state = TOPK_SAMPLE_SEED, threshold;
    uint64_t *keys;
    size_t j, r, equal, passed = 0, out = 0, i;

    keys = malloc(s * sizeof(*keys));
    if (keys == NULL) {
        return -1;
    }
    for (j = 0; j < s; j++) {
        /* Stride j is [j * count / s, (j + 1) * count / s), never empty
         * since s < count. */
        size_t lo = (size_t)((uint64_t)j * count / s);
        size_t hi = (size_t)((uint64_t)(j + 1) * count / s);
        keys[j] = topk_key_at(src, args->acc,
                              lo + (size_t)(topk_xorshift(&state) % (hi - lo)));
    }
    r = (size_t)(((uint64_t)k * s + count - 1) / count);
    if (r == 0) {
        r = 1;
    }
    topk_radix_threshold(TOPK_SRC_KEYS, keys, s, r, 8, &threshold, &equal);
    free(keys);

    for (i = 0; i < count; i++) {
        passed += topk_key_at(src, args->acc, i) >= threshold;
    }
    if (passed > kmax) {
        *selected_p = topk_exact(args);
        return 0;
    }
    for (i = 0; i < count; i++) {
        if (topk_key_at(src, args->acc, i) >= threshold) {
            topk_take(args, i, out++);
        }
    }
    *selected_p = out;
    return 0;
}

size_t loom_topk_capacity(size_t count, size_t k, size_t exact_max)
{
    if (k >= count) {
        return count;
    }
    if (count <= exact_max || topk_sample_size(count, k) >= count) {
        return k;
    }
    return k <= count / 2 ? 2 * k : count;
}

loom_status_t loom_topk_select(const loom_topk_args_t *args,
                               size_t *selected_p)
{
    if ((unsigned)args->type >= LOOM_FILTER_TYPE_COUNT ||
        (uint64_t)args->count > UINT32_MAX) {
        return LOOM_ERR_INVALID_PARAM;
    }
    if (args->k == 0 || args->k >= args->count ||
        args->count <= args->exact_max ||
        topk_sample_size(args->count, args->k) >= args->count) {
        *selected_p = topk_exact(args);
        return LOOM_OK;
    }
    if (topk_sampled(args, selected_p) != 0) {
        return LOOM_ERR_NO_MEMORY;
    }
    return LOOM_OK;
}
