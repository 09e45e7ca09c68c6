/*
 * The call-site table: one record per return address x communicator x
 * function, in a preallocated open-addressing table (linear probing, never
 * shrinks: sites are not forgotten before MPI_Finalize reports them).
 */
#include <string.h>

#include "pmpi.h"

const char *const loom_pmpi_fn_names[LOOM_PMPI_FN_COUNT] = {
    "MPI_Allreduce", "MPI_Reduce", "MPI_Bcast", "MPI_Allgather", "MPI_Allgatherv",
    "MPI_Gather", "MPI_Gatherv", "MPI_Scatter", "MPI_Scatterv", "MPI_Alltoall",
    "MPI_Alltoallv", "MPI_Alltoallw", "MPI_Reduce_scatter", "MPI_Reduce_scatter_block",
    "MPI_Scan", "MPI_Exscan", "MPI_Barrier",
    "MPI_Iallreduce", "MPI_Ireduce", "MPI_Ibcast", "MPI_Iallgather", "MPI_Iallgatherv",
    "MPI_Igather", "MPI_Igatherv", "MPI_Iscatter", "MPI_Iscatterv", "MPI_Ialltoall",
    "MPI_Ialltoallv", "MPI_Ialltoallw", "MPI_Ireduce_scatter", "MPI_Ireduce_scatter_block",
    "MPI_Iscan", "MPI_Iexscan", "MPI_Ibarrier",
    "MPI_Send", "MPI_Ssend", "MPI_Bsend", "MPI_Rsend", "MPI_Isend", "MPI_Issend",
    "MPI_Irecv", "MPI_Recv", "MPI_Sendrecv", "MPI_Sendrecv_replace",
};

uint64_t loom_pmpi_hash(uint64_t a, uint64_t b)
{
    uint64_t h = a * 0x9e3779b97f4a7c15ull ^ (b + 0x7f4a7c159e3779b9ull + (a << 6) + (a >> 2));

    h ^= h >> 33;
    h *= 0xff51afd7ed558ccdull;
    h ^= h >> 33;
    return h;
}

uint64_t loom_pmpi_handle_key(const void *handle, size_t size)
{
    uint64_t bits = 0;

    memcpy(&bits, handle, size < sizeof(bits) ? size : sizeof(bits));
    /* Never 0 (the free mark): pointers and handles do not use the top bit. */
    return bits ^ 0x8000000000000000ull;
}

loom_pmpi_site_t *loom_pmpi_site_get(const void *ret, uint64_t comm_id, int fn)
{
    uint64_t h = loom_pmpi_hash(loom_pmpi_hash((uint64_t)(uintptr_t)ret, comm_id), (uint64_t)fn);
    unsigned i, probe;
    loom_pmpi_site_t *s;

    for (probe = 0; probe < LOOM_PMPI_SITE_CAP; ++probe) {
        i = (unsigned)(h + probe) & (LOOM_PMPI_SITE_CAP - 1);
        s = &loom_pmpi.sites[i];
        if (s->ret == ret && s->comm_id == comm_id && s->fn == fn) {
            return s;
        }
        if (s->ret == NULL) {
            break;
        }
    }
    /* The slow path: a new site, while the table stays at most 3/4 full so
     * that probes stay short. */
    if (probe == LOOM_PMPI_SITE_CAP || loom_pmpi.site_count >= LOOM_PMPI_SITE_CAP * 3 / 4) {
        loom_pmpi.sites_dropped++;
        return NULL;
    }
    memset(s, 0, sizeof(*s));
    s->ret = ret;
    s->comm_id = comm_id;
    s->fn = fn;
    s->root = -1;
    s->t_min = UINT64_MAX;
    loom_pmpi.site_count++;
    return s;
}

void loom_pmpi_site_add(loom_pmpi_site_t *s, uint64_t t)
{
    s->calls++;
    s->t_sum += t;
    if (t < s->t_min) {
        s->t_min = t;
    }
    if (t > s->t_max) {
        s->t_max = t;
    }
    s->hist[loom_pmpi_hist_bin(t)]++;
}
