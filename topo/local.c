/* Where the calling thread runs, per hwloc: its NUMA node and socket. */
#include "topo/topo.h"

#include <hwloc.h>

/* The logical index of the first object of type whose cpuset holds set. */
static int covering(hwloc_topology_t hw, hwloc_const_bitmap_t set, hwloc_obj_type_t type)
{
    hwloc_obj_t obj = NULL;

    while ((obj = hwloc_get_next_obj_by_type(hw, type, obj)) != NULL) {
        if (obj->cpuset != NULL && hwloc_bitmap_isincluded(set, obj->cpuset)) {
            return (int)obj->logical_index;
        }
    }
    return -1;
}

loom_status_t loom_topo_local_place(int *numa_p, int *socket_p)
{
    hwloc_topology_t hw;
    hwloc_bitmap_t set;
    loom_status_t st = LOOM_OK;

    if (hwloc_topology_init(&hw) != 0) {
        return LOOM_ERR_NO_MEMORY;
    }
    set = hwloc_bitmap_alloc();
    if (set == NULL || hwloc_topology_load(hw) != 0) {
        st = LOOM_ERR_UNSUPPORTED;
        goto out;
    }
    /* The core the thread ran on last: a bound rank's core, or where an
     * unbound one happens to be, which is the best hwloc can say. */
    if (hwloc_get_last_cpu_location(hw, set, HWLOC_CPUBIND_THREAD) != 0 ||
        hwloc_bitmap_iszero(set)) {
        *numa_p = -1;
        *socket_p = -1;
        goto out;
    }
    *numa_p = covering(hw, set, HWLOC_OBJ_NUMANODE);
    *socket_p = covering(hw, set, HWLOC_OBJ_PACKAGE);
out:
    hwloc_bitmap_free(set);
    hwloc_topology_destroy(hw);
    return st;
}
