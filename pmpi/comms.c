/*
 * Communicators: a preallocated open-addressing table keyed by the handle's
 * bytes (a pointer in Open MPI, an integer in MPICH), deleted from by
 * backward shifting so that creating and freeing communicators for hours
 * leaves no tombstones behind.
 *
 * Ids are the same on every member, so that rank 0 can merge what ranks
 * saw: MPI_COMM_WORLD and MPI_COMM_SELF have fixed ids; a communicator
 * created through an intercepted call (dup, split, split_type, create) gets
 * hash(parent id, how many the parent had created, world rank of its rank 0);
 * create_group, which only the group calls, uses the tag instead of the
 * count; any other communicator, met first in a call, hashes its members.
 */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "pmpi.h"

static uint64_t loom_pmpi_comm_key(MPI_Comm comm)
{
    return loom_pmpi_handle_key(&comm, sizeof(comm));
}

static unsigned loom_pmpi_comm_home(uint64_t key)
{
    return (unsigned)loom_pmpi_hash(key, 0) & (LOOM_PMPI_COMM_CAP - 1);
}

static loom_pmpi_comm_t *loom_pmpi_comm_find(uint64_t key, unsigned *slot_p)
{
    unsigned i = loom_pmpi_comm_home(key), probe;

    for (probe = 0; probe < LOOM_PMPI_COMM_CAP; ++probe) {
        if (loom_pmpi.comms[i].key == key) {
            *slot_p = i;
            return &loom_pmpi.comms[i];
        }
        if (loom_pmpi.comms[i].key == 0) {
            break;
        }
        i = (i + 1) & (LOOM_PMPI_COMM_CAP - 1);
    }
    *slot_p = i;
    return NULL;
}

static int loom_pmpi_known_add(uint64_t id, int size, MPI_Comm comm)
{
    loom_pmpi_known_t *k;
    int i, len = 0;

    for (i = 0; i < loom_pmpi.known_count; ++i) {
        if (loom_pmpi.known[i].id == id) {
            return i;
        }
    }
    if (loom_pmpi.known_count == LOOM_PMPI_KNOWN_CAP) {
        return -1;
    }
    k = &loom_pmpi.known[loom_pmpi.known_count];
    k->id = id;
    k->size = size;
    k->name[0] = '\0';
    {
        char name[MPI_MAX_OBJECT_NAME];

        if (PMPI_Comm_get_name(comm, name, &len) == MPI_SUCCESS && len > 0) {
            snprintf(k->name, sizeof(k->name), "%.*s", (int)sizeof(k->name) - 1, name);
        }
    }
    return loom_pmpi.known_count++;
}

/* World ranks of the members (the remote group's for an intercommunicator). */
static int *loom_pmpi_comm_world_ranks(MPI_Comm comm, int inter, int *size_p)
{
    MPI_Group group, world;
    int *ranks, *world_ranks, i, size;

    if (inter) {
        PMPI_Comm_remote_group(comm, &group);
    } else {
        PMPI_Comm_group(comm, &group);
    }
    PMPI_Group_size(group, &size);
    PMPI_Comm_group(MPI_COMM_WORLD, &world);
    ranks = malloc(2 * (size_t)size * sizeof(int));
    if (ranks != NULL) {
        world_ranks = ranks + size;
        for (i = 0; i < size; ++i) {
            ranks[i] = i;
        }
        PMPI_Group_translate_ranks(group, size, ranks, world, world_ranks);
        memmove(ranks, world_ranks, (size_t)size * sizeof(int));
    }
    PMPI_Group_free(&group);
    PMPI_Group_free(&world);
    *size_p = size;
    return ranks;
}

static loom_pmpi_comm_t *loom_pmpi_comm_register(MPI_Comm comm, uint64_t id, int have_id)
{
    uint64_t key = loom_pmpi_comm_key(comm);
    loom_pmpi_comm_t *c;
    unsigned slot;
    int i;

    c = loom_pmpi_comm_find(key, &slot);
    if (c == NULL) {
        if (loom_pmpi.comms[slot].key != 0) {
            return NULL;                /* the table is full */
        }
        c = &loom_pmpi.comms[slot];
    } else {
        loom_pmpi_arrival_free(c);
        free(c->world);
    }
    memset(c, 0, sizeof(*c));
    c->key = key;
    c->comm = comm;
    PMPI_Comm_test_inter(comm, &c->inter);
    PMPI_Comm_rank(comm, &c->rank);
    c->world = loom_pmpi_comm_world_ranks(comm, c->inter, &c->size);
    if (!have_id) {
        if (comm == MPI_COMM_WORLD) {
            id = LOOM_PMPI_ID_WORLD;
        } else if (comm == MPI_COMM_SELF) {
            id = LOOM_PMPI_ID_SELF;
        } else {
            id = loom_pmpi_hash(0x6d656d62657273ull, (uint64_t)c->size);
            for (i = 0; i < c->size && c->world != NULL; ++i) {
                id = loom_pmpi_hash(id, (uint64_t)c->world[i]);
            }
        }
    }
    c->id = id;
    c->known = loom_pmpi_known_add(id, c->size, comm);
    return c;
}

loom_pmpi_comm_t *loom_pmpi_comm_get(MPI_Comm comm)
{
    unsigned slot;
    loom_pmpi_comm_t *c;

    if (comm == MPI_COMM_NULL) {
        return NULL;
    }
    c = loom_pmpi_comm_find(loom_pmpi_comm_key(comm), &slot);
    return c != NULL ? c : loom_pmpi_comm_register(comm, 0, 0);
}

void loom_pmpi_comm_created(MPI_Comm parent, MPI_Comm child, uint64_t salt)
{
    loom_pmpi_comm_t *p = loom_pmpi_comm_get(parent), *c;
    uint64_t id, order;
    int lead = 0;
    MPI_Group group, world;
    int zero = 0;

    if (p == NULL) {
        return;
    }
    /* Every member of the parent counts the call, even those that get
     * MPI_COMM_NULL, so the counts stay equal; create_group (salt != 0) is
     * called by the group alone and counts nothing. */
    order = salt != 0 ? salt : ++p->children;
    if (child == MPI_COMM_NULL) {
        return;
    }
    PMPI_Comm_group(child, &group);
    PMPI_Comm_group(MPI_COMM_WORLD, &world);
    PMPI_Group_translate_ranks(group, 1, &zero, world, &lead);
    PMPI_Group_free(&group);
    PMPI_Group_free(&world);
    id = loom_pmpi_hash(loom_pmpi_hash(p->id, order), (uint64_t)lead);
    c = loom_pmpi_comm_register(child, id, 1);
    /* Every member is inside this creating call: the shadow made here needs
     * no member to be anywhere else.  Made at the first collective instead,
     * it could deadlock a legal program that starts a nonblocking collective
     * on it and then waits in another communicator's collective for a
     * member that has not started that one yet. */
    if (c != NULL) {
        (void)loom_pmpi_arrival_setup(c);
    }
}

void loom_pmpi_comm_set_name(MPI_Comm comm, const char *name)
{
    loom_pmpi_comm_t *c = loom_pmpi_comm_get(comm);

    if (c != NULL && c->known >= 0 && name != NULL) {
        snprintf(loom_pmpi.known[c->known].name, LOOM_PMPI_NAME_LEN, "%s", name);
    }
}

/* Takes the slot out of its probe chain: later entries whose home is not
 * between the hole and themselves move back into the hole. */
static void loom_pmpi_comm_remove(unsigned hole)
{
    unsigned j = hole, home;

    for (;;) {
        j = (j + 1) & (LOOM_PMPI_COMM_CAP - 1);
        if (loom_pmpi.comms[j].key == 0) {
            break;
        }
        home = loom_pmpi_comm_home(loom_pmpi.comms[j].key);
        if (((j - home) & (LOOM_PMPI_COMM_CAP - 1)) >= ((j - hole) & (LOOM_PMPI_COMM_CAP - 1))) {
            loom_pmpi.comms[hole] = loom_pmpi.comms[j];
            hole = j;
        }
    }
    memset(&loom_pmpi.comms[hole], 0, sizeof(loom_pmpi.comms[hole]));
}

/* The traffic of every site of the communicator, then its memory. */
static void loom_pmpi_comm_close(loom_pmpi_comm_t *c)
{
    int i;

    for (i = 0; i < LOOM_PMPI_SITE_CAP; ++i) {
        if (loom_pmpi.sites[i].ret != NULL && loom_pmpi.sites[i].comm_id == c->id) {
            loom_pmpi_traffic_add_site(&loom_pmpi.sites[i], c);
        }
    }
    loom_pmpi_arrival_free(c);
    free(c->world);
    c->world = NULL;
}

void loom_pmpi_comm_release(MPI_Comm comm)
{
    unsigned slot;
    loom_pmpi_comm_t *c = loom_pmpi_comm_find(loom_pmpi_comm_key(comm), &slot);

    if (c == NULL) {
        return;
    }
    loom_pmpi_arrival_flush_start(c);
    loom_pmpi_arrival_progress(c, 1);
    loom_pmpi_comm_close(c);
    loom_pmpi_comm_remove(slot);
}

void loom_pmpi_comm_release_all(void)
{
    int i;

    /* Start every flush before waiting for any: ranks meet the table's
     * communicators in different orders, which nonblocking exchanges on
     * separate shadows tolerate. */
    for (i = 0; i < LOOM_PMPI_COMM_CAP; ++i) {
        if (loom_pmpi.comms[i].key != 0) {
            loom_pmpi_arrival_flush_start(&loom_pmpi.comms[i]);
        }
    }
    for (i = 0; i < LOOM_PMPI_COMM_CAP; ++i) {
        if (loom_pmpi.comms[i].key != 0) {
            loom_pmpi_arrival_progress(&loom_pmpi.comms[i], 1);
            loom_pmpi_comm_close(&loom_pmpi.comms[i]);
            memset(&loom_pmpi.comms[i], 0, sizeof(loom_pmpi.comms[i]));
        }
    }
}
