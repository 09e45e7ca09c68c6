/*
 * The call path every wrapper shares: find the site, time the call, count
 * its bytes, and record its entry for the last-arrival exchange.  After
 * warm-up it allocates nothing: a new communicator or site is the only slow
 * path.  Loom's MPI_T counters are read around the first call of each site
 * and power-of-two size class only.
 */
#include "pmpi.h"

static int loom_pmpi_size_class(uint64_t bytes)
{
    int cls = bytes == 0 ? 0 : 64 - __builtin_clzll(bytes);

    return cls < LOOM_PMPI_SIZE_CLASSES ? cls : LOOM_PMPI_SIZE_CLASSES - 1;
}

int loom_pmpi_call_begin(loom_pmpi_call_t *call, int fn, MPI_Comm comm, const void *ret, int root)
{
    loom_pmpi_site_t *s;

    if (!loom_pmpi.active) {
        return 0;
    }
    call->comm = loom_pmpi_comm_get(comm);
    if (call->comm == NULL) {
        return 0;
    }
    s = loom_pmpi_site_get(ret, call->comm->id, fn);
    if (s == NULL) {
        return 0;
    }
    if (s->calls == 0 && s->root < 0) {
        s->root = root;
        s->comm_size = call->comm->size;
        s->comm_rank = call->comm->rank;
    }
    call->site = s;
    return 1;
}

void loom_pmpi_call_start(loom_pmpi_call_t *call, uint64_t bytes)
{
    loom_pmpi_site_t *s = call->site;

    call->bytes = bytes;
    call->cls = loom_pmpi_size_class(bytes);
    s->bytes += bytes;
    s->class_bytes[call->cls] += bytes;
    call->probing = 0;
    if (!(s->probed & (1ull << call->cls))) {
        s->probed |= 1ull << call->cls;
        call->probing = loom_pmpi_mpit_snapshot(s->fn, call->before) > 0;
    }
    call->start = loom_pmpi_now();
}

static void loom_pmpi_call_arrived(loom_pmpi_call_t *call)
{
    if (loom_pmpi_fn_is_coll(call->site->fn)) {
        loom_pmpi_arrival_record(call->comm, (int)(call->site - loom_pmpi.sites), call->start);
    }
}

void loom_pmpi_call_end(loom_pmpi_call_t *call)
{
    loom_pmpi_site_add(call->site, loom_pmpi_now() - call->start);
    if (call->probing) {
        loom_pmpi_mpit_attribute(call->site, call->cls, call->before);
    }
    loom_pmpi_call_arrived(call);
}

void loom_pmpi_call_posted(loom_pmpi_call_t *call, int rc, MPI_Request *req)
{
    if (rc == MPI_SUCCESS && req != NULL && *req != MPI_REQUEST_NULL) {
        loom_pmpi_request_track(*req, (int)(call->site - loom_pmpi.sites), call->start);
    } else if (rc == MPI_SUCCESS) {
        /* Done already, with nothing left to wait for. */
        loom_pmpi_site_add(call->site, loom_pmpi_now() - call->start);
    }
    loom_pmpi_call_arrived(call);
}

void loom_pmpi_p2p_sent(MPI_Comm comm, int dest, uint64_t bytes)
{
    loom_pmpi_comm_t *c;

    if (!loom_pmpi.active || dest < 0) {
        return;                         /* MPI_PROC_NULL and friends */
    }
    c = loom_pmpi_comm_get(comm);
    if (c == NULL || c->world == NULL || dest >= c->size) {
        return;
    }
    loom_pmpi.traffic[c->world[dest]] += bytes;
    loom_pmpi.p2p_bytes += bytes;
    loom_pmpi.p2p_msgs++;
}
