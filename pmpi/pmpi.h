/*
 * libloom-pmpi's shared state (docs/pmpi.md).
 *
 * The library is written against the standard MPI API only: MPI_Comm and
 * MPI_Request may be pointers (Open MPI) or integers (MPICH), so handles are
 * hashed by their bytes and never compared with anything but MPI's own
 * constants.  Everything the call path touches is preallocated at MPI_Init:
 * open-addressing tables of sites, communicators and requests.  A new site
 * or a new communicator is the only slow path.
 *
 * Threads: the tables are not locked; a program that calls MPI from several
 * threads at once (MPI_THREAD_MULTIPLE) is profiled only when it asks for
 * less, and the library says so at MPI_Init.
 */
#ifndef LOOM_PMPI_H
#define LOOM_PMPI_H

#include <mpi.h>
#include <stddef.h>
#include <stdint.h>

/* ---------------------------------------------------------- functions */
/* Every intercepted function that is profiled per site.  The order is the
 * order of loom_pmpi_fn_names[]. */
typedef enum {
    LOOM_PMPI_ALLREDUCE, LOOM_PMPI_REDUCE, LOOM_PMPI_BCAST, LOOM_PMPI_ALLGATHER,
    LOOM_PMPI_ALLGATHERV, LOOM_PMPI_GATHER, LOOM_PMPI_GATHERV, LOOM_PMPI_SCATTER,
    LOOM_PMPI_SCATTERV, LOOM_PMPI_ALLTOALL, LOOM_PMPI_ALLTOALLV, LOOM_PMPI_ALLTOALLW,
    LOOM_PMPI_REDUCE_SCATTER, LOOM_PMPI_REDUCE_SCATTER_BLOCK, LOOM_PMPI_SCAN,
    LOOM_PMPI_EXSCAN, LOOM_PMPI_BARRIER,
    /* nonblocking forms: the blocking one + LOOM_PMPI_NB_OFFSET */
    LOOM_PMPI_IALLREDUCE, LOOM_PMPI_IREDUCE, LOOM_PMPI_IBCAST, LOOM_PMPI_IALLGATHER,
    LOOM_PMPI_IALLGATHERV, LOOM_PMPI_IGATHER, LOOM_PMPI_IGATHERV, LOOM_PMPI_ISCATTER,
    LOOM_PMPI_ISCATTERV, LOOM_PMPI_IALLTOALL, LOOM_PMPI_IALLTOALLV, LOOM_PMPI_IALLTOALLW,
    LOOM_PMPI_IREDUCE_SCATTER, LOOM_PMPI_IREDUCE_SCATTER_BLOCK, LOOM_PMPI_ISCAN,
    LOOM_PMPI_IEXSCAN, LOOM_PMPI_IBARRIER,
    /* point-to-point: bytes are the send buffer (receives: the capacity) */
    LOOM_PMPI_SEND, LOOM_PMPI_SSEND, LOOM_PMPI_BSEND, LOOM_PMPI_RSEND, LOOM_PMPI_ISEND,
    LOOM_PMPI_ISSEND, LOOM_PMPI_IRECV, LOOM_PMPI_RECV, LOOM_PMPI_SENDRECV,
    LOOM_PMPI_SENDRECV_REPLACE,
    LOOM_PMPI_FN_COUNT
} loom_pmpi_fn_t;

#define LOOM_PMPI_NB_OFFSET (LOOM_PMPI_IALLREDUCE - LOOM_PMPI_ALLREDUCE)
#define LOOM_PMPI_FIRST_P2P LOOM_PMPI_SEND

extern const char *const loom_pmpi_fn_names[LOOM_PMPI_FN_COUNT];

static inline int loom_pmpi_fn_is_coll(int fn)
{
    return fn < LOOM_PMPI_FIRST_P2P;
}

/* The blocking collective a function is (itself, or its I form's). */
static inline int loom_pmpi_fn_blocking(int fn)
{
    return fn >= LOOM_PMPI_IALLREDUCE && fn < LOOM_PMPI_FIRST_P2P ? fn - LOOM_PMPI_NB_OFFSET
                                                                    : fn;
}

/* ---------------------------------------------------------- histograms */
/* Log-scale bins of nanoseconds, 4 per power of two: a value v >= 4 with
 * leading bit b lands in bin 4b + (the two bits after it), so a bin spans
 * at most a factor 5/4 and a median read from it is within that.  Values
 * under 4 ns have a bin each; 2^41 ns (36 minutes) and above share the last. */
#define LOOM_PMPI_HIST_BINS 168

static inline int loom_pmpi_hist_bin(uint64_t ns)
{
    int lead;

    if (ns < 4) {
        return (int)ns;
    }
    lead = 63 - __builtin_clzll(ns);
    if (lead > 41) {
        return LOOM_PMPI_HIST_BINS - 1;
    }
    return 4 * lead + (int)((ns >> (lead - 2)) & 3);
}

/* The lower and upper edges of a bin, in ns. */
void loom_pmpi_hist_edges(int bin, double *lo_p, double *hi_p);
/* The median of n values counted in hist: the middle of the bin that holds
 * the (n+1)/2-th smallest value (0 when n is 0). */
double loom_pmpi_hist_median(const uint32_t *hist, uint64_t n);

/* ------------------------------------------------------------- sites */
#define LOOM_PMPI_SITE_CAP 1024         /* power of two */
#define LOOM_PMPI_SIZE_CLASSES 48       /* 1 + floor(log2 bytes); 0 for 0 bytes */

/* One call site x communicator x function: what the call path updates. */
typedef struct {
    const void *ret;                    /* return address; NULL: slot free */
    uint64_t comm_id;
    int fn;
    int root;                           /* rooted collectives: first call's root */
    int comm_size;
    int comm_rank;
    uint64_t calls, bytes;
    uint64_t t_min, t_max, t_sum;       /* ns */
    uint64_t wait_n, wait_sum, times_last;
    uint32_t hist[LOOM_PMPI_HIST_BINS];
    uint32_t wait_hist[LOOM_PMPI_HIST_BINS];
    uint64_t class_bytes[LOOM_PMPI_SIZE_CLASSES];
    uint64_t probed;                    /* size classes whose algorithm was read */
    uint8_t alg[LOOM_PMPI_SIZE_CLASSES];/* index into the MPI_T names, 0: none */
} loom_pmpi_site_t;

/* The site of (ret, comm, fn), created on first sight; NULL when the table is
 * full (the call then goes unprofiled, counted in loom_pmpi.sites_dropped). */
loom_pmpi_site_t *loom_pmpi_site_get(const void *ret, uint64_t comm_id, int fn);

/* ------------------------------------------------------ communicators */
#define LOOM_PMPI_COMM_CAP 512          /* live communicators, power of two */
#define LOOM_PMPI_KNOWN_CAP 256         /* communicators ever seen, for the report */
#define LOOM_PMPI_NAME_LEN 64
#define LOOM_PMPI_ID_WORLD 1
#define LOOM_PMPI_ID_SELF 2

/* One window of entry times: what the last-arrival exchange sends, one
 * MPI_MAXLOC over 2W (time, rank) pairs: entry i is call i's entry time,
 * entry W + i its negation, so the maximum of the first half is the latest
 * entry and of the second half minus the earliest. */
typedef struct {
    struct loom_pmpi_stamp { double t; int rank; } *in, *out;
    int *site;                          /* index into the site table */
    MPI_Request req;
    int n;                              /* entries written */
    int inflight;                       /* its exchange is under way */
} loom_pmpi_window_t;

typedef struct {
    uint64_t key;                       /* the handle's bytes; 0: slot free */
    MPI_Comm comm;
    uint64_t id;
    uint64_t children;                  /* communicators created from it */
    int size, rank, inter;
    int *world;                         /* world rank of each (remote) rank */
    int known;                          /* index into loom_pmpi.known */
    /* last-arrival state, set up at the first collective */
    MPI_Comm shadow;
    int shadow_ready;                   /* 0: not yet, 1: ready, -1: not measured */
    int cur, pending;                   /* window being filled; windows in flight */
    loom_pmpi_window_t win[2];
} loom_pmpi_comm_t;

typedef struct {
    uint64_t id;
    int size;
    char name[LOOM_PMPI_NAME_LEN];
} loom_pmpi_known_t;

/* The entry of comm, registered at first sight (slow path); NULL when
 * comm is MPI_COMM_NULL or the table is full. */
loom_pmpi_comm_t *loom_pmpi_comm_get(MPI_Comm comm);
/* Registers a communicator just created from parent (dup, split, create). */
void loom_pmpi_comm_created(MPI_Comm parent, MPI_Comm child, uint64_t salt);
void loom_pmpi_comm_set_name(MPI_Comm comm, const char *name);
/* Before MPI_Comm_free: flush its windows, add its sites' traffic, forget it. */
void loom_pmpi_comm_release(MPI_Comm comm);
/* At MPI_Finalize: flush and release every communicator still alive. */
void loom_pmpi_comm_release_all(void);
uint64_t loom_pmpi_hash(uint64_t a, uint64_t b);
/* An MPI handle (communicator, request) as a table key, never 0. */
uint64_t loom_pmpi_handle_key(const void *handle, size_t size);

/* ------------------------------------------------ last arrival (arrival.c) */
/* Makes the communicator's shadow (collective over its members) and
 * windows, once; returns whether its last arrivals are measured. */
int loom_pmpi_arrival_setup(loom_pmpi_comm_t *c);
/* Records a collective's corrected entry time in its communicator's window,
 * after the call was issued; starts the window's exchange when it is full. */
void loom_pmpi_arrival_record(loom_pmpi_comm_t *c, int site, uint64_t entry_ns);
/* Completes an exchange in flight when it is done (test), or always (wait). */
void loom_pmpi_arrival_progress(loom_pmpi_comm_t *c, int wait);
/* Flushes the partial window; the exchanges of several communicators may be
 * started before any is waited for (MPI_Finalize). */
void loom_pmpi_arrival_flush_start(loom_pmpi_comm_t *c);
void loom_pmpi_arrival_free(loom_pmpi_comm_t *c);

/* ----------------------------------------------------------- requests */
#define LOOM_PMPI_REQ_CAP 4096          /* power of two */
void loom_pmpi_request_track(MPI_Request req, int site, uint64_t start_ns);
/* A tracked request completed (or was freed: completed = 0). */
void loom_pmpi_request_done(MPI_Request req, int completed);

/* ------------------------------------------------------------- clock */
uint64_t loom_pmpi_now(void);           /* local monotonic ns */
/* Seconds since time 0 (rank 0's clock at MPI_Init), on rank 0's clock. */
static inline double loom_pmpi_corrected(uint64_t local_ns);
/* Ping-pong against rank 0 on the library's communicator; phase 0: MPI_Init,
 * 1: MPI_Finalize.  Sets loom_pmpi.offset_ns[phase] and rtt_ns[phase]. */
void loom_pmpi_clock_sync(int phase);

/* -------------------------------------------------- Loom's MPI_T (mpit.c) */
void loom_pmpi_mpit_open(void);
void loom_pmpi_mpit_close(void);
/* Before/after the first call of a size class at a site: which counter grew. */
int loom_pmpi_mpit_snapshot(int fn, uint64_t *values);
void loom_pmpi_mpit_attribute(loom_pmpi_site_t *s, int cls, const uint64_t *before);
const char *loom_pmpi_mpit_alg_name(int alg);

/* ------------------------------------------------- the call path (call.c) */
#define LOOM_PMPI_MPIT_MAX 16
typedef struct {
    loom_pmpi_site_t *site;
    loom_pmpi_comm_t *comm;
    uint64_t start;
    uint64_t bytes;
    int cls;
    int probing;
    uint64_t before[LOOM_PMPI_MPIT_MAX];
} loom_pmpi_call_t;

/* Finds a call's communicator and site; returns 0 (and does nothing) when
 * not profiling.  ret is the wrapper's own return address: the call site. */
int loom_pmpi_call_begin(loom_pmpi_call_t *call, int fn, MPI_Comm comm, const void *ret, int root);
/* Counts the call's bytes (computed from call->comm) and starts its clock. */
void loom_pmpi_call_start(loom_pmpi_call_t *call, uint64_t bytes);
/* A blocking call returned. */
void loom_pmpi_call_end(loom_pmpi_call_t *call);
/* A nonblocking collective was posted: timed until its request completes. */
void loom_pmpi_call_posted(loom_pmpi_call_t *call, int rc, MPI_Request *req);
/* Adds one completed call of t ns to a site. */
void loom_pmpi_site_add(loom_pmpi_site_t *s, uint64_t t);
/* count x the datatype's size, 0 for MPI_DATATYPE_NULL (bytes.c). */
uint64_t loom_pmpi_bytes(MPI_Datatype type, int count);
/* The sum of n counts, times the datatype's size. */
uint64_t loom_pmpi_bytes_sum(const int *counts, int n, MPI_Datatype type);
/* The sum of counts[i] x the size of types[i]. */
uint64_t loom_pmpi_bytes_w(const int *counts, const MPI_Datatype *types, int n);
/* Point-to-point bytes to a destination of a communicator. */
void loom_pmpi_p2p_sent(MPI_Comm comm, int dest, uint64_t bytes);

/* --------------------------------------------------- output (report*.c) */
/* Adds the bytes the site's calls moved from this rank to others, under the
 * algorithm Loom reported or an even spread (traffic.c). */
void loom_pmpi_traffic_add_site(loom_pmpi_site_t *s, const loom_pmpi_comm_t *c);
void loom_pmpi_report_write(void);

/* ------------------------------------------------------------ settings */
typedef struct {
    char out[256];
    int window, top, enable;
    int chart, chart_timeout;           /* draw the PNG; seconds gnuplot may take */
    char error[512];                    /* a bad value, printed by rank 0 */
} loom_pmpi_settings_t;

void loom_pmpi_settings_read(loom_pmpi_settings_t *s);

/* ------------------------------------------------------- process state */
typedef struct {
    int active;                         /* profiling between Init and Finalize */
    int world_rank, world_size;
    MPI_Comm lib_comm;                  /* the library's own duplicate of WORLD */
    loom_pmpi_settings_t settings;
    uint64_t t0_local;                  /* local ns at rank 0's time 0 */
    int64_t offset_ns[2];               /* this rank's clock minus rank 0's */
    int64_t rtt_ns[2];
    loom_pmpi_site_t *sites;            /* LOOM_PMPI_SITE_CAP */
    int site_count;
    uint64_t sites_dropped;
    loom_pmpi_comm_t *comms;            /* LOOM_PMPI_COMM_CAP */
    loom_pmpi_known_t known[LOOM_PMPI_KNOWN_CAP];
    int known_count;
    int tracked;                        /* requests in the request table */
    uint64_t times_last, arrivals;      /* per-rank arrival totals */
    double lateness_sum;                /* s behind the earliest entry */
    uint64_t *traffic;                  /* point-to-point bytes to each world rank */
    uint64_t *coll_traffic;             /* collectives' bytes to each world rank */
    uint64_t p2p_bytes, p2p_msgs;
} loom_pmpi_state_t;

extern loom_pmpi_state_t loom_pmpi;

static inline double loom_pmpi_corrected(uint64_t local_ns)
{
    return (double)((int64_t)(local_ns - loom_pmpi.t0_local) - loom_pmpi.offset_ns[0]) * 1e-9;
}

/* After the next MPI_Init: thread_level is what it provided. */
void loom_pmpi_start(int thread_level);
void loom_pmpi_stop(void);              /* before the next MPI_Finalize */

/* The chart of the profile (time per collective and per rank, chart.c):
 * called on rank 0 with the finished JSON document's path; draws
 * <prefix>.png with gnuplot unless LOOM_PMPI_CHART=0, and only warns when
 * it cannot. */
void loom_pmpi_chart_hook(const char *json_path);

#endif
