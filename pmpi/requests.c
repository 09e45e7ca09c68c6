/*
 * Nonblocking collectives in flight: a preallocated open-addressing table
 * from the request handle to the call's site and start time, so that the
 * call is timed from its start to the Wait or Test that sees it complete.
 * Deleted from by backward shifting, as the communicator table is.
 *
 * One handle may stand for several calls at once: Open MPI answers a
 * collective that is already complete (on a single rank, say) with one
 * shared, completed request.  Such entries share a probe chain in the
 * order they were posted, and a completion takes the oldest.
 */
#include "pmpi.h"

typedef struct {
    uint64_t key;                       /* the handle's bytes; 0: free */
    int site;
    uint64_t start;
} loom_pmpi_req_t;

static loom_pmpi_req_t loom_pmpi_reqs[LOOM_PMPI_REQ_CAP];

static uint64_t loom_pmpi_req_key(MPI_Request req)
{
    return loom_pmpi_handle_key(&req, sizeof(req));
}

static unsigned loom_pmpi_req_home(uint64_t key)
{
    return (unsigned)loom_pmpi_hash(key, 1) & (LOOM_PMPI_REQ_CAP - 1);
}

void loom_pmpi_request_track(MPI_Request req, int site, uint64_t start)
{
    uint64_t key = loom_pmpi_req_key(req);
    unsigned i = loom_pmpi_req_home(key), probe;

    if (loom_pmpi.tracked >= LOOM_PMPI_REQ_CAP * 3 / 4) {
        return;                         /* goes untimed rather than slow */
    }
    for (probe = 0; probe < LOOM_PMPI_REQ_CAP; ++probe) {
        if (loom_pmpi_reqs[i].key == 0) {
            loom_pmpi.tracked++;
            loom_pmpi_reqs[i].key = key;
            loom_pmpi_reqs[i].site = site;
            loom_pmpi_reqs[i].start = start;
            return;
        }
        i = (i + 1) & (LOOM_PMPI_REQ_CAP - 1);
    }
}

static void loom_pmpi_request_remove(unsigned hole)
{
    unsigned j = hole, home;

    for (;;) {
        j = (j + 1) & (LOOM_PMPI_REQ_CAP - 1);
        if (loom_pmpi_reqs[j].key == 0) {
            break;
        }
        home = loom_pmpi_req_home(loom_pmpi_reqs[j].key);
        if (((j - home) & (LOOM_PMPI_REQ_CAP - 1)) >= ((j - hole) & (LOOM_PMPI_REQ_CAP - 1))) {
            loom_pmpi_reqs[hole] = loom_pmpi_reqs[j];
            hole = j;
        }
    }
    loom_pmpi_reqs[hole].key = 0;
    loom_pmpi.tracked--;
}

void loom_pmpi_request_done(MPI_Request req, int completed)
{
    uint64_t key = loom_pmpi_req_key(req);
    unsigned i = loom_pmpi_req_home(key), probe;

    for (probe = 0; probe < LOOM_PMPI_REQ_CAP; ++probe) {
        if (loom_pmpi_reqs[i].key == 0) {
            return;                     /* not a collective of ours */
        }
        if (loom_pmpi_reqs[i].key == key) {
            if (completed) {
                loom_pmpi_site_add(&loom_pmpi.sites[loom_pmpi_reqs[i].site],
                                   loom_pmpi_now() - loom_pmpi_reqs[i].start);
            }
            loom_pmpi_request_remove(i);
            return;
        }
        i = (i + 1) & (LOOM_PMPI_REQ_CAP - 1);
    }
}
