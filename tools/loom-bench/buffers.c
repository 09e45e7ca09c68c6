/* Buffer arenas and the cache size that sizes them (buffers.h). */
#include "buffers.h"

#include <hwloc.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#define LOOM_BENCH_LINE 64

/* The outermost data cache above the first core this process may run on:
 * on a machine with several L3 slices (one per AMD CCD) that is one
 * slice, the cache our buffers really compete for. */
static size_t loom_bench_llc_hwloc(void)
{
    hwloc_topology_t topo;
    hwloc_bitmap_t set;
    hwloc_obj_t obj;
    size_t bytes = 0;

    if (hwloc_topology_init(&topo) != 0) {
        return 0;
    }
    if (hwloc_topology_load(topo) != 0) {
        goto out_topo;
    }
    set = hwloc_bitmap_alloc();
    if (set == NULL) {
        goto out_topo;
    }
    if (hwloc_get_cpubind(topo, set, HWLOC_CPUBIND_PROCESS) != 0) {
        hwloc_bitmap_copy(set, hwloc_topology_get_topology_cpuset(topo));
    }
    obj = hwloc_get_obj_inside_cpuset_by_type(topo, set, HWLOC_OBJ_PU, 0);
    for (; obj != NULL; obj = obj->parent) {
        if (hwloc_obj_type_is_dcache(obj->type) && obj->attr->cache.size > bytes) {
            bytes = (size_t)obj->attr->cache.size;
        }
    }
    hwloc_bitmap_free(set);
out_topo:
    hwloc_topology_destroy(topo);
    return bytes;
}

size_t loom_bench_llc_bytes(const char **source_p)
{
    long bytes;
    size_t llc = loom_bench_llc_hwloc();

    if (llc > 0) {
        *source_p = "hwloc";
        return llc;
    }
#ifdef _SC_LEVEL3_CACHE_SIZE
    bytes = sysconf(_SC_LEVEL3_CACHE_SIZE);
    if (bytes > 0) {
        *source_p = "sysconf";
        return (size_t)bytes;
    }
#else
    (void)bytes;
#endif
    *source_p = "a guess";
    return (size_t)32 << 20;
}

/* Slots of stride bytes that fill span, at least two, so that
 * consecutive calls never share a buffer. */
static size_t loom_bench_fresh_slots(size_t stride, size_t span)
{
    size_t slots = (span + stride - 1) / stride;

    return slots < 2 ? 2 : slots;
}

static size_t loom_bench_line_up(size_t bytes)
{
    return (bytes + LOOM_BENCH_LINE - 1) / LOOM_BENCH_LINE * LOOM_BENCH_LINE;
}

loom_bench_layout_t loom_bench_layout(size_t in_bytes, size_t out_bytes, int batch, int fresh,
                                      size_t span, int check)
{
    loom_bench_layout_t l;

    l.in_stride = loom_bench_line_up(in_bytes);
    l.out_stride = loom_bench_line_up(out_bytes);
    l.in_slots = fresh ? loom_bench_fresh_slots(l.in_stride, span) : 1;
    l.out_slots = fresh ? loom_bench_fresh_slots(l.out_stride, span) : 1;
    if (check && (size_t)batch > l.out_slots) {
        l.out_slots = (size_t)batch;
    }
    return l;
}

int loom_bench_buffers_create(size_t in_bytes, size_t out_bytes, loom_bench_buffers_t *bufs_p)
{
    memset(bufs_p, 0, sizeof(*bufs_p));
    bufs_p->in = aligned_alloc(4096, (in_bytes + 4095) / 4096 * 4096);
    if (bufs_p->in == NULL) {
        return -1;
    }
    bufs_p->out = aligned_alloc(4096, (out_bytes + 4095) / 4096 * 4096);
    if (bufs_p->out == NULL) {
        free(bufs_p->in);
        bufs_p->in = NULL;
        return -1;
    }
    memset(bufs_p->in, 0, in_bytes);
    memset(bufs_p->out, 0, out_bytes);
    bufs_p->in_bytes = in_bytes;
    bufs_p->out_bytes = out_bytes;
    return 0;
}

void loom_bench_buffers_destroy(loom_bench_buffers_t *bufs)
{
    free(bufs->out);
    free(bufs->in);
    memset(bufs, 0, sizeof(*bufs));
}
