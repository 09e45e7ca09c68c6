/*
 * Residuals in checkpoints (docs/filter_api.md): loom_filter_save
 * registers the store's slots on the application's checkpoint context;
 * loom_filter_restore reads a committed step's residual regions onto this
 * job's ranks, folding old rank r onto new rank r mod p, and hands them
 * to the store.
 *
 * Each rank's residual is its own slice of a sharded array of p_old *
 * count elements, so libloom-ckpt itself cuts the slices a new rank asks
 * for: new rank q asks for old ranks q, q + p, q + 2p, ..., the
 * contiguous run [q, last] of which it keeps every p-th.  The context
 * that reads them is one of its own on the same directory: a region
 * registered on the application's context stays registered, with this
 * job's layout, for its later saves.
 */
#include "filterapi/filter_internal.h"

#include <loom/ckpt_inspect.h>
#include <loom/ckpt_mpi.h>

#include <pthread.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

/* "lf.n<t>." + name, or "lf.p<t>.<position>.<count>". */
#define FILTER_REGION_PREFIX "lf."
#define FILTER_REGION_MAX 64

typedef struct filter_region {
    char                    region[FILTER_REGION_MAX + 1];
    char                    name[LOOM_FILTER_NAME_MAX + 1];
    loom_filter_hook_slot_t slot;   /* slot.name points at name */
    size_t                  bytes;  /* one rank's */
} filter_region_t;

typedef struct filter_regions {
    filter_region_t *r;
    size_t          n, cap;
} filter_regions_t;

/* Which (context, region) pairs loom_filter_save registered. */
typedef struct filter_registered {
    const loom_ckpt_t           *ck;
    char                        region[FILTER_REGION_MAX + 1];
    struct filter_registered    *next;
} filter_registered_t;

static filter_registered_t *filter_registry;
static pthread_mutex_t filter_registry_lock = PTHREAD_MUTEX_INITIALIZER;

static size_t filter_esize(int type)
{
    return type == LOOM_FILTER_HOOK_FLOAT ? sizeof(float) : sizeof(double);
}

static void filter_region_name(filter_region_t *fr)
{
    char t = fr->slot.type == LOOM_FILTER_HOOK_FLOAT ? 'f' : 'd';

    if (fr->name[0] != '\0') {
        snprintf(fr->region, sizeof(fr->region), "lf.n%c.%s", t, fr->name);
    } else {
        snprintf(fr->region, sizeof(fr->region), "lf.p%c.%u.%zu", t,
                 (unsigned)fr->slot.position, fr->slot.count);
    }
}

/* The slot a region name stands for, or -1 when it is not one of ours. */
static int filter_region_parse(const char *region, uint64_t bytes, filter_region_t *fr)
{
    unsigned position;
    size_t count;
    char kind, t, tail;

    memset(fr, 0, sizeof(*fr));
    if (strncmp(region, FILTER_REGION_PREFIX, 3) != 0 || strlen(region) > FILTER_REGION_MAX ||
        sscanf(region, "lf.%c%c.", &kind, &t) != 2 || (t != 'f' && t != 'd')) {
        return -1;
    }
    fr->slot.type = t == 'f' ? LOOM_FILTER_HOOK_FLOAT : LOOM_FILTER_HOOK_DOUBLE;
    if (kind == 'n') {
        snprintf(fr->name, sizeof(fr->name), "%s", region + 6);
        if (loom_filter_check_name(fr->name) != LOOM_OK) {
            return -1;
        }
        fr->slot.count = bytes / filter_esize(fr->slot.type);
    } else if (kind == 'p' && sscanf(region + 6, "%u.%zu%c", &position, &count, &tail) == 2) {
        fr->slot.position = position;
        fr->slot.count = count;
    } else {
        return -1;
    }
    fr->slot.name = fr->name;
    fr->bytes = fr->slot.count * filter_esize(fr->slot.type);
    snprintf(fr->region, sizeof(fr->region), "%s", region);
    return fr->bytes == bytes && bytes > 0 ? 0 : -1;
}

static filter_region_t *filter_regions_add(filter_regions_t *rs)
{
    if (rs->n == rs->cap) {
        size_t cap = rs->cap == 0 ? 16 : 2 * rs->cap;
        filter_region_t *r = realloc(rs->r, cap * sizeof(*r));
        if (r == NULL) {
            return NULL;
        }
        rs->r = r;
        rs->cap = cap;
    }
    return &rs->r[rs->n++];
}

static int filter_collect(const loom_filter_hook_slot_t *slot, void *ctx)
{
    filter_region_t *fr = filter_regions_add(ctx);

    if (fr == NULL) {
        return 1;
    }
    memset(fr, 0, sizeof(*fr));
    snprintf(fr->name, sizeof(fr->name), "%s", slot->name);
    fr->slot = *slot;
    fr->bytes = slot->count * filter_esize(slot->type);
    filter_region_name(fr);
    return 0;
}

static int filter_region_cmp(const void *a, const void *b)
{
    return strcmp(((const filter_region_t *)a)->region, ((const filter_region_t *)b)->region);
}

static int filter_registered(const loom_ckpt_t *ck, const char *region)
{
    filter_registered_t *e;

    for (e = filter_registry; e != NULL; e = e->next) {
        if (e->ck == ck && strcmp(e->region, region) == 0) {
            return 1;
        }
    }
    return 0;
}

/* Registers fr's slot memory on ck as this rank's slice, once. */
static loom_status_t filter_register(loom_ckpt_t *ck, const filter_region_t *fr, int rank,
                                     int size)
{
    loom_ckpt_region_t region = {
        .name = fr->region, .ptr = fr->slot.residual, .size = fr->bytes,
        .elem_size = filter_esize(fr->slot.type), .layout = LOOM_CKPT_SHARDED,
        .global_offset = (uint64_t)rank * fr->bytes,
        .global_size = (uint64_t)size * fr->bytes,
    };
    filter_registered_t *e;
    loom_status_t status;

    if (filter_registered(ck, fr->region)) {
        return LOOM_OK;
    }
    e = calloc(1, sizeof(*e));
    if (e == NULL) {
        return loom_filter_fail(LOOM_ERR_NO_MEMORY, "loom_filter_save: out of memory");
    }
    status = loom_ckpt_register(ck, &region);
    if (status != LOOM_OK) {
        free(e);
        return loom_filter_fail(status, "loom_filter_save: region %s not registered: %s",
                                fr->region, loom_status_string(status));
    }
    e->ck = ck;
    snprintf(e->region, sizeof(e->region), "%s", fr->region);
    e->next = filter_registry;
    filter_registry = e;
    return LOOM_OK;
}

loom_status_t loom_filter_save(loom_ckpt_t *ck, MPI_Comm comm)
{
    filter_regions_t rs = { 0 };
    loom_status_t status;
    int rank, size;
    size_t i;

    if (loom_filter_hook.slots == NULL) {
        return loom_filter_no_component("loom_filter_save");
    }
    if (ck == NULL) {
        return loom_filter_fail(LOOM_ERR_INVALID_PARAM, "loom_filter_save: ck is NULL");
    }
    status = loom_filter_hook.slots((void *)comm, filter_collect, &rs);
    if (status != LOOM_OK) {
        free(rs.r);
        return status == LOOM_ERR_UNSUPPORTED
                   ? loom_filter_fail(status, "loom_filter_save: communicator not filtered")
                   : loom_filter_fail(status, "loom_filter_save: cannot list the residuals");
    }
    MPI_Comm_rank(comm, &rank);
    MPI_Comm_size(comm, &size);
    /* Every rank registers the same names in the same order. */
    qsort(rs.r, rs.n, sizeof(*rs.r), filter_region_cmp);
    pthread_mutex_lock(&filter_registry_lock);
    for (i = 0; i < rs.n && status == LOOM_OK; i++) {
        status = filter_register(ck, &rs.r[i], rank, size);
    }
    pthread_mutex_unlock(&filter_registry_lock);
    free(rs.r);
    return status;
}

void loom_filter_forget(loom_ckpt_t *ck)
{
    filter_registered_t **link = &filter_registry;

    pthread_mutex_lock(&filter_registry_lock);
    while (*link != NULL) {
        filter_registered_t *e = *link;
        if (e->ck == ck) {
            *link = e->next;
            free(e);
        } else {
            link = &e->next;
        }
    }
    pthread_mutex_unlock(&filter_registry_lock);
}

/* The residual regions of step in dir, from saved rank 0's manifest
 * (every rank saved the same names), and the rank count that saved it. */
static loom_status_t filter_saved_regions(const char *dir, uint64_t step, filter_regions_t *rs,
                                          uint64_t *nranks_p)
{
    loom_ckpt_dir_t *d;
    loom_ckpt_view_t *view;
    loom_status_t status;
    size_t g, n;

    status = loom_ckpt_dir_open(dir, &d);
    if (status != LOOM_OK) {
        return loom_filter_fail(status, "loom_filter_restore: cannot open %s", dir);
    }
    status = loom_ckpt_view_open(d, step, &view);
    if (status != LOOM_OK) {
        loom_ckpt_dir_close(d);
        return loom_filter_fail(status, "loom_filter_restore: step %llu is not committed in %s",
                                (unsigned long long)step, dir);
    }
    *nranks_p = loom_ckpt_view_nranks(view);
    n = loom_ckpt_view_nregions(view, 0);
    for (g = 0; g < n && status == LOOM_OK; g++) {
        loom_ckpt_region_info_t info;
        filter_region_t fr, *slot;

        loom_ckpt_view_region(view, 0, g, &info);
        if (strncmp(info.name, FILTER_REGION_PREFIX, 3) != 0) {
            continue;   /* the application's own */
        }
        if (filter_region_parse(info.name, info.size, &fr) != 0 ||
            info.layout != LOOM_CKPT_SHARDED) {
            status = loom_filter_fail(LOOM_ERR_IO, "loom_filter_restore: region %s of step "
                                      "%llu is not a residual as loom_filter_save writes it",
                                      info.name, (unsigned long long)step);
        } else if ((slot = filter_regions_add(rs)) == NULL) {
            status = loom_filter_fail(LOOM_ERR_NO_MEMORY, "loom_filter_restore: out of memory");
        } else {
            *slot = fr;
        }
    }
    for (g = 0; g < rs->n; g++) {
        rs->r[g].slot.name = rs->r[g].name;     /* the array moved */
    }
    loom_ckpt_view_close(view);
    loom_ckpt_dir_close(d);
    return status;
}

/* acc += the elements of old ranks rank, rank + size, ... (in that order)
 * out of run, which holds old ranks rank .. rank + nold - 1. */
static void filter_fold(const filter_region_t *fr, const void *run, size_t nold, int size,
                        void *acc)
{
    size_t c = fr->slot.count, r, i;

    for (r = 0; r < nold; r += (size_t)size) {
        if (fr->slot.type == LOOM_FILTER_HOOK_FLOAT) {
            const float *src = (const float *)run + r * c;
            for (i = 0; i < c; i++) {
                ((float *)acc)[i] += src[i];
            }
        } else {
            const double *src = (const double *)run + r * c;
            for (i = 0; i < c; i++) {
                ((double *)acc)[i] += src[i];
            }
        }
    }
}

/* Reads this rank's old slices of every region of rs through a context
 * of its own on dir, folds them and loads the sums into the store. */
static loom_status_t filter_read_fold_load(const filter_regions_t *rs, MPI_Comm comm,
                                           const char *dir, uint64_t step, uint64_t nold_ranks)
{
    int rank, size;
    size_t i, nold = 0;
    void **runs = calloc(rs->n + 1, sizeof(*runs));
    loom_ckpt_coord_t coord = { 0 };
    loom_ckpt_t *rd = NULL;
    loom_status_t status = LOOM_OK;

    MPI_Comm_rank(comm, &rank);
    MPI_Comm_size(comm, &size);
    if (runs == NULL) {
        return loom_filter_fail(LOOM_ERR_NO_MEMORY, "loom_filter_restore: out of memory");
    }
    if ((uint64_t)rank < nold_ranks) {
        nold = (size_t)(nold_ranks - (uint64_t)rank);   /* old ranks rank .. nold_ranks-1 */
        nold = (nold - 1) / (size_t)size * (size_t)size + 1;   /* up to the last folded one */
    }
    if (loom_ckpt_coord_mpi(comm, &coord) != MPI_SUCCESS) {
        free(runs);
        return loom_filter_fail(LOOM_ERR_IO, "loom_filter_restore: MPI_Comm_dup failed");
    }
    status = loom_ckpt_open(dir, &coord, NULL, &rd);
    for (i = 0; i < rs->n && status == LOOM_OK && nold > 0; i++) {
        const filter_region_t *fr = &rs->r[i];
        loom_ckpt_region_t region = {
            .name = fr->region, .size = nold * fr->bytes,
            .elem_size = filter_esize(fr->slot.type), .layout = LOOM_CKPT_SHARDED,
            .global_offset = (uint64_t)rank * fr->bytes,
            .global_size = nold_ranks * fr->bytes,
        };
        region.ptr = runs[i] = malloc(region.size);
        status = region.ptr == NULL ? LOOM_ERR_NO_MEMORY : loom_ckpt_register(rd, &region);
    }
    if (status == LOOM_OK) {
        status = loom_ckpt_restore(rd, step, NULL);
    }
    if (status != LOOM_OK) {
        loom_filter_fail(status, "loom_filter_restore: reading the residuals of step %llu from "
                         "%s failed: %s", (unsigned long long)step, dir,
                         loom_status_string(status));
    }
    for (i = 0; i < rs->n && status == LOOM_OK; i++) {
        void *acc = calloc(rs->r[i].slot.count, filter_esize(rs->r[i].slot.type));
        if (acc == NULL) {
            status = loom_filter_fail(LOOM_ERR_NO_MEMORY, "loom_filter_restore: out of memory");
            break;
        }
        if (nold > 0) {
            filter_fold(&rs->r[i], runs[i], nold, size, acc);
        }
        status = loom_filter_hook.load((void *)comm, &rs->r[i].slot, acc);
        if (status != LOOM_OK) {
            loom_filter_fail(status, "loom_filter_restore: slot of region %s not loaded: %s",
                             rs->r[i].region, loom_status_string(status));
        }
        free(acc);
    }
    loom_ckpt_close(rd);
    loom_ckpt_coord_mpi_free(&coord);
    for (i = 0; i < rs->n; i++) {
        free(runs[i]);
    }
    free(runs);
    return status;
}

loom_status_t loom_filter_restore(loom_ckpt_t *ck, MPI_Comm comm, const char *dir,
                                  uint64_t step)
{
    filter_regions_t rs = { 0 };
    uint64_t nold_ranks = 0;
    loom_status_t status;

    if (loom_filter_hook.load == NULL) {
        return loom_filter_no_component("loom_filter_restore");
    }
    if (ck == NULL || dir == NULL) {
        return loom_filter_fail(LOOM_ERR_INVALID_PARAM,
                                "loom_filter_restore: ck and dir must be given");
    }
    status = filter_saved_regions(dir, step, &rs, &nold_ranks);
    if (status == LOOM_OK && rs.n > 0) {
        status = filter_read_fold_load(&rs, comm, dir, step, nold_ranks);
    }
    free(rs.r);
    return status == LOOM_OK ? loom_filter_save(ck, comm) : status;
}
