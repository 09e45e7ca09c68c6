/*
 * The residual store (residual.h): a chained hash table of slots, grown
 * by doubling.
 */
#include "coll/core/filter/residual.h"

#include <stdlib.h>
#include <string.h>

#define RESIDUAL_BUCKETS_MIN 64

struct loom_residual_store {
    loom_residual_slot_t    **buckets;
    size_t                  nbuckets;   /* a power of two */
    size_t                  slots;
    size_t                  bytes;
    size_t                  max_bytes;
    uint64_t                refusals;
};

static uint64_t residual_mix(uint64_t x)
{
    x ^= x >> 30;
    x *= UINT64_C(0xbf58476d1ce4e5b9);
    x ^= x >> 27;
    x *= UINT64_C(0x94d049bb133111eb);
    x ^= x >> 31;
    return x;
}

static uint64_t residual_hash(const loom_residual_key_t *key)
{
    uint64_t h = residual_mix(key->comm);

    const unsigned char *c;

    h = residual_mix(h ^ ((uint64_t)key->position << 8 | (uint64_t)key->type));
    h = residual_mix(h ^ (uint64_t)key->count);
    for (c = (const unsigned char *)key->name; *c != '\0'; c++) {
        h = (h ^ *c) * UINT64_C(0x100000001b3);
    }
    return residual_mix(h);
}

static int residual_key_equal(const loom_residual_key_t *a,
                              const loom_residual_key_t *b)
{
    return a->comm == b->comm && a->position == b->position &&
           a->type == b->type && a->count == b->count &&
           strcmp(a->name, b->name) == 0;
}

loom_status_t loom_residual_store_create(size_t max_bytes,
                                         loom_residual_store_t **store_p)
{
    loom_residual_store_t *store = calloc(1, sizeof(*store));

    if (store == NULL) {
        return LOOM_ERR_NO_MEMORY;
    }
    store->buckets = calloc(RESIDUAL_BUCKETS_MIN, sizeof(*store->buckets));
    if (store->buckets == NULL) {
        free(store);
        return LOOM_ERR_NO_MEMORY;
    }
    store->nbuckets = RESIDUAL_BUCKETS_MIN;
    store->max_bytes = max_bytes;
    *store_p = store;
    return LOOM_OK;
}

static void residual_slot_free(loom_residual_slot_t *slot)
{
    if (slot->state_free != NULL) {
        slot->state_free(slot->state);
    }
    free(slot->momentum);
    free(slot->residual);
    free(slot);
}

void loom_residual_store_destroy(loom_residual_store_t *store)
{
    size_t b;

    if (store == NULL) {
        return;
    }
    for (b = 0; b < store->nbuckets; b++) {
        loom_residual_slot_t *slot = store->buckets[b], *next;
        for (; slot != NULL; slot = next) {
            next = slot->next;
            residual_slot_free(slot);
        }
    }
    free(store->buckets);
    free(store);
}

loom_residual_slot_t *loom_residual_store_find(loom_residual_store_t *store,
                                               const loom_residual_key_t *key)
{
    loom_residual_slot_t *slot;

    slot = store->buckets[residual_hash(key) & (store->nbuckets - 1)];
    for (; slot != NULL; slot = slot->next) {
        if (residual_key_equal(&slot->key, key)) {
            return slot;
        }
    }
    return NULL;
}

/* Doubles the table; on failure keeps the old one (longer chains, still
 * correct). */
static void residual_grow(loom_residual_store_t *store)
{
    size_t nbuckets = store->nbuckets * 2, b;
    loom_residual_slot_t **buckets = calloc(nbuckets, sizeof(*buckets));

    if (buckets == NULL) {
        return;
    }
    for (b = 0; b < store->nbuckets; b++) {
        loom_residual_slot_t *slot = store->buckets[b], *next;
        for (; slot != NULL; slot = next) {
            size_t at = residual_hash(&slot->key) & (nbuckets - 1);
            next = slot->next;
            slot->next = buckets[at];
            buckets[at] = slot;
        }
    }
    free(store->buckets);
    store->buckets = buckets;
    store->nbuckets = nbuckets;
}

/* Whether bytes more fit under the bound; counts a refusal if not. */
static int residual_fits(loom_residual_store_t *store, size_t bytes)
{
    if (bytes > store->max_bytes - store->bytes) {
        store->refusals++;
        return 0;
    }
    return 1;
}

loom_status_t loom_residual_store_get(loom_residual_store_t *store,
                                      const loom_residual_key_t *key,
                                      unsigned flags,
                                      loom_residual_slot_t **slot_p)
{
    size_t size = loom_filter_type_size(key->type);
    int momentum = (flags & LOOM_RESIDUAL_MOMENTUM) != 0;
    loom_residual_slot_t *slot;
    size_t buf_bytes, at;

    if (size == 0 || key->count == 0) {
        return LOOM_ERR_INVALID_PARAM;
    }
    if (key->count > SIZE_MAX / size) {
        store->refusals++;
        return LOOM_ERR_UNSUPPORTED;
    }
    buf_bytes = key->count * size;

    slot = loom_residual_store_find(store, key);
    if (slot != NULL) {
        if (momentum && slot->momentum == NULL) {
            if (!residual_fits(store, buf_bytes)) {
                return LOOM_ERR_UNSUPPORTED;
            }
            slot->momentum = calloc(key->count, size);
            if (slot->momentum == NULL) {
                return LOOM_ERR_NO_MEMORY;
            }
            store->bytes += buf_bytes;
        }
        *slot_p = slot;
        return LOOM_OK;
    }

    if (momentum && buf_bytes > SIZE_MAX / 2) {
        store->refusals++;
        return LOOM_ERR_UNSUPPORTED;
    }
    if (!residual_fits(store, momentum ? 2 * buf_bytes : buf_bytes)) {
        return LOOM_ERR_UNSUPPORTED;
    }
    slot = calloc(1, sizeof(*slot));
    if (slot == NULL) {
        return LOOM_ERR_NO_MEMORY;
    }
    slot->key = *key;
    slot->residual = calloc(key->count, size);
    if (slot->residual == NULL) {
        goto err_slot;
    }
    if (momentum) {
        slot->momentum = calloc(key->count, size);
        if (slot->momentum == NULL) {
            goto err_slot;
        }
    }
    store->bytes += momentum ? 2 * buf_bytes : buf_bytes;
    store->slots++;
    if (store->slots > 2 * store->nbuckets) {
        residual_grow(store);
    }
    at = residual_hash(key) & (store->nbuckets - 1);
    slot->next = store->buckets[at];
    store->buckets[at] = slot;
    *slot_p = slot;
    return LOOM_OK;

err_slot:
    residual_slot_free(slot);
    return LOOM_ERR_NO_MEMORY;
}

size_t loom_residual_store_release_comm(loom_residual_store_t *store,
                                        uint64_t comm)
{
    size_t released = 0, b;

    for (b = 0; b < store->nbuckets; b++) {
        loom_residual_slot_t **link = &store->buckets[b];
        while (*link != NULL) {
            loom_residual_slot_t *slot = *link;
            size_t buf_bytes;

            if (slot->key.comm != comm) {
                link = &slot->next;
                continue;
            }
            buf_bytes = slot->key.count * loom_filter_type_size(slot->key.type);
            store->bytes -= slot->momentum != NULL ? 2 * buf_bytes : buf_bytes;
            store->slots--;
            *link = slot->next;
            residual_slot_free(slot);
            released++;
        }
    }
    return released;
}

int loom_residual_store_each(loom_residual_store_t *store, uint64_t comm,
                             int (*fn)(loom_residual_slot_t *slot, void *ctx),
                             void *ctx)
{
    size_t b;
    int rc;

    for (b = 0; b < store->nbuckets; b++) {
        loom_residual_slot_t *slot = store->buckets[b];
        for (; slot != NULL; slot = slot->next) {
            if (slot->key.comm == comm && (rc = fn(slot, ctx)) != 0) {
                return rc;
            }
        }
    }
    return 0;
}

size_t loom_residual_store_bytes(const loom_residual_store_t *store)
{
    return store->bytes;
}

size_t loom_residual_store_slots(const loom_residual_store_t *store)
{
    return store->slots;
}

uint64_t loom_residual_store_refusals(const loom_residual_store_t *store)
{
    return store->refusals;
}

size_t loom_residual_store_max_bytes(const loom_residual_store_t *store)
{
    return store->max_bytes;
}
