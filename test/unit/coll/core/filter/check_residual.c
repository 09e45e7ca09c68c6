/*
 * The residual store: slots keyed by (comm, position, type, count), zeroed
 * on creation and kept across gets; the bound refuses new slots (and new
 * momentum buffers) without evicting any; release frees one
 * communicator's slots; the getters report what is held; named slots
 * are apart from positional ones and from each other; iteration visits
 * exactly one communicator's slots.
 */
#include "coll/core/filter/residual.h"

#include <check.h>
#include "test/unit/support/check_main.h"
#include <stdint.h>
#include <stdio.h>
#include <string.h>

static loom_residual_key_t test_key(uint64_t comm, uint32_t position,
                                    loom_filter_type_t type, size_t count)
{
    loom_residual_key_t key = {
        .comm = comm, .position = position, .type = type, .count = count,
    };
    return key;
}

START_TEST(test_slots_by_key)
{
    loom_residual_store_t *store;
    loom_residual_slot_t *a, *b, *again;
    loom_residual_key_t ka = test_key(7, 0, LOOM_FILTER_FLOAT, 100);
    loom_residual_key_t kb = test_key(7, 1, LOOM_FILTER_FLOAT, 100);
    size_t i;

    ck_assert_int_eq(loom_residual_store_create(1 << 20, &store), LOOM_OK);
    ck_assert_ptr_null(loom_residual_store_find(store, &ka));
    ck_assert_int_eq(loom_residual_store_get(store, &ka, 0, &a), LOOM_OK);
    for (i = 0; i < 100; i++) {
        ck_assert(((float *)a->residual)[i] == 0.0f);
    }
    ck_assert_ptr_null(a->momentum);
    ((float *)a->residual)[5] = 3.0f;
    ck_assert_int_eq(loom_residual_store_get(store, &kb, 0, &b), LOOM_OK);
    ck_assert_ptr_ne(a, b);
    ck_assert_int_eq(loom_residual_store_get(store, &ka, 0, &again), LOOM_OK);
    ck_assert_ptr_eq(again, a);
    ck_assert(((float *)again->residual)[5] == 3.0f);
    ck_assert_ptr_eq(loom_residual_store_find(store, &ka), a);

    /* Each field of the key tells slots apart. */
    {
        loom_residual_key_t others[] = {
            test_key(8, 0, LOOM_FILTER_FLOAT, 100),
            test_key(7, 0, LOOM_FILTER_DOUBLE, 100),
            test_key(7, 0, LOOM_FILTER_FLOAT, 101),
        };
        for (i = 0; i < 3; i++) {
            loom_residual_slot_t *o;
            ck_assert_int_eq(loom_residual_store_get(store, &others[i], 0, &o),
                             LOOM_OK);
            ck_assert_ptr_ne(o, a);
        }
    }
    ck_assert_uint_eq(loom_residual_store_slots(store), 5);
    ck_assert_uint_eq(loom_residual_store_bytes(store),
                      400 + 400 + 400 + 800 + 404);
    ck_assert_uint_eq(loom_residual_store_refusals(store), 0);
    loom_residual_store_destroy(store);
    loom_residual_store_destroy(NULL);
}
END_TEST

START_TEST(test_bound_refuses_never_evicts)
{
    loom_residual_store_t *store;
    loom_residual_slot_t *slot, *first, *untouched = (void *)&slot;
    loom_residual_key_t key;

    ck_assert_int_eq(loom_residual_store_create(1000, &store), LOOM_OK);
    ck_assert_uint_eq(loom_residual_store_max_bytes(store), 1000);
    key = test_key(1, 0, LOOM_FILTER_DOUBLE, 50);     /* 400 bytes */
    ck_assert_int_eq(loom_residual_store_get(store, &key, 0, &first), LOOM_OK);
    ((double *)first->residual)[0] = 1.5;
    key.position = 1;
    ck_assert_int_eq(loom_residual_store_get(store, &key, 0, &slot), LOOM_OK);
    /* 800 held: a third 400-byte slot does not fit. */
    key.position = 2;
    slot = untouched;
    ck_assert_int_eq(loom_residual_store_get(store, &key, 0, &slot),
                     LOOM_ERR_UNSUPPORTED);
    ck_assert_ptr_eq(slot, untouched);
    ck_assert_uint_eq(loom_residual_store_refusals(store), 1);
    /* Momentum for an existing slot: 400 more, refused too. */
    key.position = 0;
    ck_assert_int_eq(loom_residual_store_get(store, &key,
                                             LOOM_RESIDUAL_MOMENTUM, &slot),
                     LOOM_ERR_UNSUPPORTED);
    ck_assert_uint_eq(loom_residual_store_refusals(store), 2);
    /* Nothing evicted: the first residual is still there, and held. */
    ck_assert_int_eq(loom_residual_store_get(store, &key, 0, &slot), LOOM_OK);
    ck_assert_ptr_eq(slot, first);
    ck_assert(((double *)slot->residual)[0] == 1.5);
    ck_assert_uint_eq(loom_residual_store_slots(store), 2);
    ck_assert_uint_eq(loom_residual_store_bytes(store), 800);
    /* A small one still fits exactly. */
    key = test_key(1, 9, LOOM_FILTER_FLOAT, 50);      /* 200 bytes */
    ck_assert_int_eq(loom_residual_store_get(store, &key, 0, &slot), LOOM_OK);
    ck_assert_uint_eq(loom_residual_store_bytes(store), 1000);
    /* Sizes that overflow are refused, not wrapped. */
    key = test_key(1, 10, LOOM_FILTER_DOUBLE, SIZE_MAX / 4);
    ck_assert_int_eq(loom_residual_store_get(store, &key, 0, &slot),
                     LOOM_ERR_UNSUPPORTED);
    key.count = 0;
    ck_assert_int_eq(loom_residual_store_get(store, &key, 0, &slot),
                     LOOM_ERR_INVALID_PARAM);
    loom_residual_store_destroy(store);
}
END_TEST

START_TEST(test_momentum_buffers_accounted)
{
    loom_residual_store_t *store;
    loom_residual_slot_t *slot, *same;
    loom_residual_key_t key = test_key(3, 4, LOOM_FILTER_FLOAT, 25);

    ck_assert_int_eq(loom_residual_store_create(1000, &store), LOOM_OK);
    ck_assert_int_eq(loom_residual_store_get(store, &key,
                                             LOOM_RESIDUAL_MOMENTUM, &slot),
                     LOOM_OK);
    ck_assert_ptr_nonnull(slot->momentum);
    ck_assert(((float *)slot->momentum)[24] == 0.0f);
    ck_assert_uint_eq(loom_residual_store_bytes(store), 200);
    key.position = 5;
    ck_assert_int_eq(loom_residual_store_get(store, &key, 0, &slot), LOOM_OK);
    ck_assert_ptr_null(slot->momentum);
    ck_assert_int_eq(loom_residual_store_get(store, &key,
                                             LOOM_RESIDUAL_MOMENTUM, &same),
                     LOOM_OK);
    ck_assert_ptr_eq(same, slot);
    ck_assert_ptr_nonnull(slot->momentum);
    ck_assert_uint_eq(loom_residual_store_bytes(store), 400);
    ck_assert_uint_eq(loom_residual_store_release_comm(store, 3), 2);
    ck_assert_uint_eq(loom_residual_store_bytes(store), 0);
    ck_assert_uint_eq(loom_residual_store_slots(store), 0);
    loom_residual_store_destroy(store);
}
END_TEST

/* Many slots over many communicators: the table grows, each slot keeps
 * its contents, releasing one communicator leaves the others. */
START_TEST(test_many_slots_and_release)
{
    loom_residual_store_t *store;
    loom_residual_slot_t *slot;
    loom_residual_key_t key;
    uint64_t comm;
    uint32_t p;

    ck_assert_int_eq(loom_residual_store_create(SIZE_MAX, &store), LOOM_OK);
    for (comm = 0; comm < 4; comm++) {
        for (p = 0; p < 500; p++) {
            key = test_key(comm, p, LOOM_FILTER_FLOAT, 1 + p % 3);
            ck_assert_int_eq(loom_residual_store_get(store, &key, 0, &slot),
                             LOOM_OK);
            ((float *)slot->residual)[0] = (float)(comm * 1000 + p);
        }
    }
    ck_assert_uint_eq(loom_residual_store_slots(store), 2000);
    ck_assert_uint_eq(loom_residual_store_release_comm(store, 2), 500);
    ck_assert_uint_eq(loom_residual_store_release_comm(store, 2), 0);
    ck_assert_uint_eq(loom_residual_store_slots(store), 1500);
    for (comm = 0; comm < 4; comm++) {
        for (p = 0; p < 500; p++) {
            key = test_key(comm, p, LOOM_FILTER_FLOAT, 1 + p % 3);
            slot = loom_residual_store_find(store, &key);
            if (comm == 2) {
                ck_assert_ptr_null(slot);
                continue;
            }
            ck_assert_ptr_nonnull(slot);
            ck_assert(((float *)slot->residual)[0] == (float)(comm * 1000 + p));
        }
    }
    loom_residual_store_destroy(store);
}
END_TEST

/* A named slot never meets a positional one of the same (comm, type,
 * count, position 0), nor another name, and is found again by name. */
START_TEST(test_named_slots)
{
    loom_residual_store_t *store;
    loom_residual_slot_t *pos, *a, *b, *again;
    loom_residual_key_t kp = test_key(5, 0, LOOM_FILTER_DOUBLE, 10);
    loom_residual_key_t ka = kp, kb = kp;

    snprintf(ka.name, sizeof(ka.name), "layer1.weight");
    snprintf(kb.name, sizeof(kb.name), "layer1.weighT");
    ck_assert_int_eq(loom_residual_store_create(SIZE_MAX, &store), LOOM_OK);
    ck_assert_int_eq(loom_residual_store_get(store, &kp, 0, &pos), LOOM_OK);
    ck_assert_int_eq(loom_residual_store_get(store, &ka, 0, &a), LOOM_OK);
    ck_assert_int_eq(loom_residual_store_get(store, &kb, 0, &b), LOOM_OK);
    ck_assert_ptr_ne(pos, a);
    ck_assert_ptr_ne(a, b);
    ck_assert_ptr_ne(pos, b);
    ((double *)a->residual)[3] = 0.25;
    ck_assert_int_eq(loom_residual_store_get(store, &ka, 0, &again), LOOM_OK);
    ck_assert_ptr_eq(again, a);
    ck_assert(((double *)again->residual)[3] == 0.25);
    ck_assert(((double *)pos->residual)[3] == 0.0);
    ck_assert_str_eq(a->key.name, "layer1.weight");
    ck_assert_str_eq(pos->key.name, "");
    ck_assert_uint_eq(loom_residual_store_slots(store), 3);
    ck_assert_uint_eq(loom_residual_store_bytes(store), 3 * 10 * sizeof(double));
    loom_residual_store_destroy(store);
}
END_TEST

typedef struct each_tally {
    size_t      slots;
    uint64_t    comm_seen;
    size_t      stop_after;
} each_tally_t;

static int each_count(loom_residual_slot_t *slot, void *ctx)
{
    each_tally_t *t = ctx;

    t->comm_seen |= UINT64_C(1) << slot->key.comm;
    t->slots++;
    return t->stop_after != 0 && t->slots == t->stop_after ? 42 : 0;
}

/* Iteration sees every slot of its communicator and none of another's,
 * also after the table grew; a nonzero answer stops it and comes back. */
START_TEST(test_each_visits_one_comm)
{
    loom_residual_store_t *store;
    loom_residual_slot_t *slot;
    loom_residual_key_t key;
    each_tally_t t = { 0, 0, 0 };
    uint32_t p;

    ck_assert_int_eq(loom_residual_store_create(SIZE_MAX, &store), LOOM_OK);
    for (p = 0; p < 300; p++) {
        key = test_key(p % 3, p, LOOM_FILTER_FLOAT, 4);
        ck_assert_int_eq(loom_residual_store_get(store, &key, 0, &slot), LOOM_OK);
    }
    ck_assert_int_eq(loom_residual_store_each(store, 1, each_count, &t), 0);
    ck_assert_uint_eq(t.slots, 100);
    ck_assert_uint_eq(t.comm_seen, 1u << 1);
    t = (each_tally_t){ 0, 0, 7 };
    ck_assert_int_eq(loom_residual_store_each(store, 2, each_count, &t), 42);
    ck_assert_uint_eq(t.slots, 7);
    t = (each_tally_t){ 0, 0, 0 };
    ck_assert_int_eq(loom_residual_store_each(store, 9, each_count, &t), 0);
    ck_assert_uint_eq(t.slots, 0);
    loom_residual_store_destroy(store);
}
END_TEST

int main(void)
{
    Suite *s = suite_create("residual");
    TCase *tc = tcase_create("residual");

    tcase_add_test(tc, test_slots_by_key);
    tcase_add_test(tc, test_bound_refuses_never_evicts);
    tcase_add_test(tc, test_momentum_buffers_accounted);
    tcase_add_test(tc, test_many_slots_and_release);
    tcase_add_test(tc, test_named_slots);
    tcase_add_test(tc, test_each_visits_one_comm);
    suite_add_tcase(s, tc);
    return loom_check_run(s);
}
