/*
 * The residual store: one process's error-feedback memory, one slot per
 * gradient.
 *
 * A slot is keyed by (communicator key, position of the call in the step,
 * count, element type) -- never by buffer address: fusion buffers and
 * allocators reuse addresses for different gradients.  The position comes
 * from the step tracker (steps.h).  A slot the application named
 * (loom_filter_name, include/loom/filter.h) is keyed by its name instead
 * of a position: the key's name is then non-empty and its position 0.  A slot holds the residual (count
 * elements, zero when created) and, for momentum correction, a second
 * buffer u of the same size (feedback.h).
 *
 * Memory is bounded: max_bytes counts every buffer of every slot.  A slot
 * that would go past it is refused (LOOM_ERR_UNSUPPORTED: "run this call
 * dense") and counted; an existing residual is never evicted to make
 * room, because evicting it would drop delayed gradients.  The one time
 * residuals are dropped is when their communicator goes
 * (loom_residual_store_release_comm): then nobody can receive them.
 *
 * Not thread-safe: one store per component instance, used under the lock
 * that serializes its communicators' filtered calls, or one per
 * communicator.
 */
#ifndef LOOM_FILTER_RESIDUAL_H
#define LOOM_FILTER_RESIDUAL_H

#include "coll/core/filter/filter_type.h"
#include "loom/status.h"

#include <stddef.h>
#include <stdint.h>

/* The longest slot name: a checkpoint region name holds at most 64
 * characters, and the residual's region adds a 6-character prefix
 * (docs/filter_api.md). */
#define LOOM_RESIDUAL_NAME_MAX 58

typedef struct loom_residual_key {
    uint64_t            comm;       /* the communicator, as the caller names it */
    uint32_t            position;   /* steps.h: the call's place in the step */
    loom_filter_type_t  type;
    size_t              count;      /* elements */
    /* Empty: a positional slot.  Else the application's name for it
     * (1 .. LOOM_RESIDUAL_NAME_MAX characters), position 0. */
    char                name[LOOM_RESIDUAL_NAME_MAX + 1];
} loom_residual_key_t;

typedef struct loom_residual_slot {
    loom_residual_key_t key;        /* read-only */
    void                *residual;  /* count elements; the caller updates them */
    void                *momentum;  /* NULL unless asked for; as residual */
    /* What the exchange keeps per slot (split-and-reduce's thresholds and
     * regions), set by the caller; state_free(state) runs when the slot
     * goes. */
    void                *state;
    void                (*state_free)(void *state);
    struct loom_residual_slot *next; /* the store's chain; not for callers */
} loom_residual_slot_t;

typedef struct loom_residual_store loom_residual_store_t;

/* What loom_residual_store_get should give the slot. */
#define LOOM_RESIDUAL_MOMENTUM  0x1u    /* the second buffer u too */

/* An empty store that will hold at most max_bytes of buffers. */
loom_status_t loom_residual_store_create(size_t max_bytes,
                                         loom_residual_store_t **store_p);

/* Frees every slot and the store; NULL is fine. */
void loom_residual_store_destroy(loom_residual_store_t *store);

/*
 * The slot of key, created zeroed on first use.  With
 * LOOM_RESIDUAL_MOMENTUM, a slot created earlier without u gets a zeroed u
 * now.  Returns
 *   LOOM_OK                  *slot_p is the slot
 *   LOOM_ERR_UNSUPPORTED     the buffers would pass max_bytes (or
 *                            count * size overflows): run this call
 *                            dense; counted in refusals; nothing changed
 *   LOOM_ERR_NO_MEMORY       the allocation failed; nothing changed
 *   LOOM_ERR_INVALID_PARAM   an unknown type or a zero count
 * *slot_p is set only on LOOM_OK, and stays valid until the slot's
 * communicator is released or the store destroyed.
 */
loom_status_t loom_residual_store_get(loom_residual_store_t *store,
                                      const loom_residual_key_t *key,
                                      unsigned flags,
                                      loom_residual_slot_t **slot_p);

/* The slot of key if it exists, else NULL; creates nothing. */
loom_residual_slot_t *loom_residual_store_find(loom_residual_store_t *store,
                                               const loom_residual_key_t *key);

/* Frees every slot of comm (the communicator is being freed); returns how
 * many there were. */
size_t loom_residual_store_release_comm(loom_residual_store_t *store,
                                        uint64_t comm);

/* Calls fn(slot, ctx) for every slot of comm, in no particular order,
 * until fn returns nonzero; returns that value, or 0.  fn must not add
 * or free slots. */
int loom_residual_store_each(loom_residual_store_t *store, uint64_t comm,
                             int (*fn)(loom_residual_slot_t *slot, void *ctx),
                             void *ctx);

/* What the store reports: bytes of buffers held, slots held, and slots
 * refused for the bound since creation. */
size_t loom_residual_store_bytes(const loom_residual_store_t *store);
size_t loom_residual_store_slots(const loom_residual_store_t *store);
uint64_t loom_residual_store_refusals(const loom_residual_store_t *store);
size_t loom_residual_store_max_bytes(const loom_residual_store_t *store);

#endif
