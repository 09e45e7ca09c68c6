/*
 * The event-driven executor (exec.h).
 *
 * Two queues: step completions in a 4-ary heap by time, and flows in the
 * network (flow.h) by finish time.  The clock jumps to the earlier of
 * the two heads; every flow finished by then completes its send and
 * receive alpha later; every completion due then releases the steps that
 * waited on it; then the network re-fills the rates of what changed.
 * A send and its receive paired when the program was built (prog.h)
 * meet through their records; the others meet in a hash table keyed by
 * (source, target, tag), posted first come first matched, as a
 * tag-matching transport does.
 */
#include "prog.h"
#include "flow.h"

#include <math.h>
#include <stdlib.h>
#include <string.h>

typedef struct loom_sim_event {
    double  t;
    long    step;
} loom_sim_event_t;

typedef struct loom_sim_posted {
    long    step;
    int     src, dst;
    uint32_t tag;
    int     is_recv;
    long    next;
} loom_sim_posted_t;

/* A connection: the messages from src to dst move one after another, in
 * the order they met their receives, as on one TCP stream or one
 * transport queue pair; waiting ones are chained through the queue.
 * Connections sit in a dense array whose indices never move, so a
 * moving message names its own (the network's user) and its end needs
 * no search; a table by (src, dst) finds them when messages meet. */
typedef struct loom_sim_conn {
    long    head, tail;     /* waiting messages (queue indices), -1: none */
    long    recv;           /* the moving message's receive, -1: none moves */
} loom_sim_conn_t;

typedef struct loom_sim_conn_key {
    int32_t src, dst;       /* src -1: an empty slot */
    int32_t index;          /* in the dense array */
} loom_sim_conn_key_t;

typedef struct loom_sim_queued {
    long    send, recv, next;
} loom_sim_queued_t;

typedef struct loom_sim_exec {
    loom_sim_prog_t         *prog;
    const loom_sim_model_t  *model;
    const loom_sim_layout_t *lay;
    loom_sim_net_t          *net;
    double                  *compute_free;  /* per rank */
    loom_sim_event_t        *heap;
    long                    nheap, cap_heap;
    long                    *bucket;        /* chain heads, then tails: one block */
    long                    *bucket_tail;
    long                    nbuckets, live_posted;
    loom_sim_posted_t       *posted;
    long                    nposted, cap_posted, free_posted;
    loom_sim_conn_key_t     *conn_keys;     /* open addressing by (src, dst) */
    long                    cap_keys;
    loom_sim_conn_t         *conns;         /* dense */
    long                    nconns, cap_conns;
    loom_sim_queued_t       *queue;
    long                    nqueue, cap_queue, free_queue;
    long                    done;
    double                  last;
    double                  alpha_s[LOOM_SIM_CLASS_COUNT];
    double                  overhead_s;     /* CPU per send or receive posted */
    double                  class_bps[LOOM_SIM_CLASS_COUNT];
    double                  reduce_bps, copy_bps;
    int                     port_out0, port_in0, mem_link0, nic_out0, nic_in0, up_out0, up_in0;
    loom_sim_result_t       res;
    int                     failed;
} loom_sim_exec_t;

/* ---------------------------------------------------------- event heap */

/*
 * A 4-ary heap: half the levels of a binary one, and the four children
 * of a node share one cache line (the array starts 3 events before a
 * line boundary), so a pop costs fewer misses and mispredicted branches.
 * Events are totally ordered (a step completes once), so any heap pops
 * them in the same order.
 */
#define LOOM_SIM_HEAP_ARITY 4
#define LOOM_SIM_HEAP_SKEW  3   /* events before the first line boundary */

/* By time, then by step: simultaneous events run in memory order. */
static inline int loom_sim_event_before(const loom_sim_event_t *a, const loom_sim_event_t *b)
{
    return a->t < b->t || (a->t == b->t && a->step < b->step);
}

static int loom_sim_event_push(loom_sim_exec_t *x, double t, long step)
{
    loom_sim_event_t *h, e = { t, step };
    long i, parent;

    if (x->nheap == x->cap_heap) {
        long n = x->cap_heap ? 2 * x->cap_heap : 4096;

        h = aligned_alloc(64, sizeof(*h) * (size_t)(n + LOOM_SIM_HEAP_SKEW + 1));
        if (h == NULL) {
            x->failed = 1;
            return -1;
        }
        h += LOOM_SIM_HEAP_SKEW;
        if (x->heap != NULL) {
            memcpy(h, x->heap, sizeof(*h) * (size_t)x->nheap);
            free(x->heap - LOOM_SIM_HEAP_SKEW);
        }
        x->heap = h;
        x->cap_heap = n;
    }
    for (i = x->nheap++; i > 0; i = parent) {
        parent = (i - 1) / LOOM_SIM_HEAP_ARITY;
        if (!loom_sim_event_before(&e, &x->heap[parent])) {
            break;
        }
        x->heap[i] = x->heap[parent];
    }
    x->heap[i] = e;
    return 0;
}

static loom_sim_event_t loom_sim_event_pop(loom_sim_exec_t *x)
{
    loom_sim_event_t top = x->heap[0], last = x->heap[--x->nheap];
    long i = 0, c, k, end;

    for (;;) {
        c = LOOM_SIM_HEAP_ARITY * i + 1;
        if (c >= x->nheap) {
            break;
        }
        end = c + LOOM_SIM_HEAP_ARITY < x->nheap ? c + LOOM_SIM_HEAP_ARITY : x->nheap;
        for (k = c + 1; k < end; ++k) {
            if (loom_sim_event_before(&x->heap[k], &x->heap[c])) {
                c = k;
            }
        }
        if (!loom_sim_event_before(&x->heap[c], &last)) {
            break;
        }
        x->heap[i] = x->heap[c];
        i = c;
    }
    if (x->nheap > 0) {
        x->heap[i] = last;
    }
    return top;
}

/* ------------------------------------------------------------ matching */

static long loom_sim_bucket_of(const loom_sim_exec_t *x, int src, int dst, uint32_t tag)
{
    return (long)(loom_sim_key_hash(src, dst, tag) & (uint64_t)(x->nbuckets - 1));
}

/* Finds and unlinks the first posted partner; -1 when none. */
static long loom_sim_match_take(loom_sim_exec_t *x, int src, int dst, uint32_t tag,
                                int want_recv)
{
    long b = loom_sim_bucket_of(x, src, dst, tag), prev = -1, e;
    loom_sim_posted_t *m;

    for (e = x->bucket[b]; e >= 0; prev = e, e = m->next) {
        m = &x->posted[e];
        if (m->src == src && m->dst == dst && m->tag == tag && m->is_recv == want_recv) {
            if (prev < 0) {
                x->bucket[b] = m->next;
            } else {
                x->posted[prev].next = m->next;
            }
            if (x->bucket_tail[b] == e) {
                x->bucket_tail[b] = prev;
            }
            m->next = x->free_posted;
            x->free_posted = e;
            x->live_posted--;
            return m->step;
        }
    }
    return -1;
}

static void loom_sim_bucket_append(loom_sim_exec_t *x, long b, long e)
{
    x->posted[e].next = -1;
    if (x->bucket_tail[b] < 0) {
        x->bucket[b] = e;
    } else {
        x->posted[x->bucket_tail[b]].next = e;
    }
    x->bucket_tail[b] = e;
}

/* Doubles the buckets once messages outnumber them, so that chains stay
 * short: a ring posts thousands of receives per rank at its start.
 * Entries move in chain order, so equal keys keep their posting order. */
static int loom_sim_match_grow(loom_sim_exec_t *x)
{
    long old_n = x->nbuckets, *old = x->bucket, b, e, next;
    long *nb = malloc(sizeof(long) * 4 * (size_t)old_n);

    if (nb == NULL) {
        return 0;   /* longer chains, still right */
    }
    x->nbuckets = 2 * old_n;
    x->bucket = nb;
    x->bucket_tail = nb + x->nbuckets;
    for (b = 0; b < x->nbuckets; ++b) {
        x->bucket[b] = x->bucket_tail[b] = -1;
    }
    for (b = 0; b < old_n; ++b) {
        for (e = old[b]; e >= 0; e = next) {
            loom_sim_posted_t *m = &x->posted[e];

            next = m->next;
            loom_sim_bucket_append(x, loom_sim_bucket_of(x, m->src, m->dst, m->tag), e);
        }
    }
    free(old);
    return 0;
}

/* Leaves a message to wait for its partner, at the end of its bucket so
 * that equal keys match in posting order. */
static int loom_sim_match_put(loom_sim_exec_t *x, long step, int src, int dst, uint32_t tag,
                              int is_recv)
{
    loom_sim_posted_t *a;
    long e;

    if (x->live_posted >= x->nbuckets) {
        loom_sim_match_grow(x);
    }
    if (x->free_posted >= 0) {
        e = x->free_posted;
        x->free_posted = x->posted[e].next;
    } else {
        if (x->nposted == x->cap_posted) {
            long n = x->cap_posted ? 2 * x->cap_posted : 4096;

            a = realloc(x->posted, sizeof(*a) * (size_t)n);
            if (a == NULL) {
                x->failed = 1;
                return -1;
            }
            x->posted = a;
            x->cap_posted = n;
        }
        e = x->nposted++;
    }
    x->posted[e] = (loom_sim_posted_t){ .step = step, .src = src, .dst = dst, .tag = tag,
                                        .is_recv = is_recv, .next = -1 };
    x->live_posted++;
    loom_sim_bucket_append(x, loom_sim_bucket_of(x, src, dst, tag), e);
    return 0;
}

/* ---------------------------------------------------------- connections */

static long loom_sim_conn_slot(const loom_sim_conn_key_t *keys, long cap, int src, int dst)
{
    long i = (long)(loom_sim_key_hash(src, dst, 0) & (uint64_t)(cap - 1));

    while (keys[i].src >= 0 && (keys[i].src != src || keys[i].dst != dst)) {
        i = (i + 1) & (cap - 1);
    }
    return i;
}

/* The index of connection src -> dst, made on first use; -1 without
 * memory. */
static long loom_sim_conn_get(loom_sim_exec_t *x, int src, int dst)
{
    loom_sim_conn_key_t *grown;
    loom_sim_conn_t *a;
    long i, n;

    if (x->cap_keys > 0) {
        i = loom_sim_conn_slot(x->conn_keys, x->cap_keys, src, dst);
        if (x->conn_keys[i].src >= 0) {
            return x->conn_keys[i].index;
        }
    }
    if (x->nconns == x->cap_conns) {
        n = x->cap_conns > 0 ? 2 * x->cap_conns : 512;
        a = realloc(x->conns, sizeof(*a) * (size_t)n);
        if (a == NULL) {
            return -1;
        }
        x->conns = a;
        x->cap_conns = n;
    }
    if (2 * (x->nconns + 1) > x->cap_keys) {
        n = x->cap_keys > 0 ? 2 * x->cap_keys : 1024;
        grown = malloc(sizeof(*grown) * (size_t)n);
        if (grown == NULL) {
            return -1;
        }
        for (i = 0; i < n; ++i) {
            grown[i].src = -1;
        }
        for (i = 0; i < x->cap_keys; ++i) {
            if (x->conn_keys[i].src >= 0) {
                grown[loom_sim_conn_slot(grown, n, x->conn_keys[i].src, x->conn_keys[i].dst)] =
                    x->conn_keys[i];
            }
        }
        free(x->conn_keys);
        x->conn_keys = grown;
        x->cap_keys = n;
    }
    i = loom_sim_conn_slot(x->conn_keys, x->cap_keys, src, dst);
    x->conn_keys[i] = (loom_sim_conn_key_t){ .src = src, .dst = dst, .index = (int32_t)x->nconns };
    x->conns[x->nconns] = (loom_sim_conn_t){ .head = -1, .tail = -1, .recv = -1 };
    return x->nconns++;
}

/* Appends (send, recv) to c's waiting messages; -1 without memory. */
static int loom_sim_conn_wait(loom_sim_exec_t *x, loom_sim_conn_t *c, long send, long recv)
{
    long q = x->free_queue;

    if (q >= 0) {
        x->free_queue = x->queue[q].next;
    } else {
        if (x->nqueue == x->cap_queue) {
            long n = x->cap_queue ? 2 * x->cap_queue : 1024;
            loom_sim_queued_t *a = realloc(x->queue, sizeof(*a) * (size_t)n);

            if (a == NULL) {
                return -1;
            }
            x->queue = a;
            x->cap_queue = n;
        }
        q = x->nqueue++;
    }
    x->queue[q] = (loom_sim_queued_t){ .send = send, .recv = recv, .next = -1 };
    if (c->tail >= 0) {
        x->queue[c->tail].next = q;
    } else {
        c->head = q;
    }
    c->tail = q;
    return 0;
}

/* -------------------------------------------------------------- steps */

/* The links a message from src to dst crosses (model.h); when the run is
 * folded, it enters by the links of the rank that stands for dst. */
static int loom_sim_path(const loom_sim_exec_t *x, int src, int dst, loom_sim_class_t cls,
                         int *links)
{
    const loom_sim_layout_t *lay = x->lay;
    int n = 0;

    dst = loom_sim_prog_rep(x->prog, dst);

    if (cls == LOOM_SIM_INTRA_NODE) {
        links[n++] = x->port_out0 + src;
        links[n++] = x->port_in0 + dst;
        if (x->model->node_mem_gbs > 0) {
            links[n++] = x->mem_link0 + lay->node_of[src];
        }
        return n;
    }
    links[n++] = x->nic_out0 + lay->nic_of[src];
    if (cls == LOOM_SIM_INTER_RACK) {
        links[n++] = x->up_out0 + lay->rack_of[src];
        links[n++] = x->up_in0 + lay->rack_of[dst];
    }
    links[n++] = x->nic_in0 + lay->nic_of[dst];
    return n;
}

/* Starts moving the bytes of (send, recv) over its path now, on
 * connection conn (its recv is recv) unless the message is empty. */
static void loom_sim_flow(loom_sim_exec_t *x, double now, long send, long recv, long conn)
{
    const loom_sim_prog_t *prog = x->prog;
    int src = loom_sim_prog_rank_of(prog, send), dst = prog->steps[send].peer;
    loom_sim_class_t cls = loom_sim_layout_class(x->lay, src, dst);
    int links[LOOM_SIM_FLOW_LINKS], nlinks = loom_sim_path(x, src, dst, cls, links);
    double bytes = (double)prog->steps[send].bytes;

    x->res.messages++;
    x->res.bytes_sent += bytes;
    if (bytes <= 0) {
        loom_sim_event_push(x, now + x->alpha_s[cls], send);
        loom_sim_event_push(x, now + x->alpha_s[cls], recv);
        return;
    }
    if (loom_sim_net_add(x->net, now, bytes, x->class_bps[cls], links, nlinks,
                         (long)(((uint64_t)send << 32) | (uint64_t)conn)) != LOOM_OK) {
        x->failed = 1;
    }
}

/* A message whose send and receive have met: it moves at once if its
 * connection is free, else after the messages ahead of it. */
static void loom_sim_message(loom_sim_exec_t *x, double now, long send, long recv)
{
    const loom_sim_prog_t *prog = x->prog;
    loom_sim_conn_t *c;
    long conn;

    if (prog->steps[send].bytes == 0) {
        loom_sim_flow(x, now, send, recv, -1);   /* nothing to queue behind */
        return;
    }
    conn = loom_sim_conn_get(x, loom_sim_prog_rank_of(prog, send), prog->steps[send].peer);
    if (conn < 0) {
        x->failed = 1;
        return;
    }
    c = &x->conns[conn];
    if (c->recv >= 0) {
        if (loom_sim_conn_wait(x, c, send, recv) != 0) {
            x->failed = 1;
        }
        return;
    }
    c->recv = recv;
    loom_sim_flow(x, now, send, recv, conn);
}

/* The message on connection conn has moved: the next waiting one
 * starts. */
static void loom_sim_conn_next(loom_sim_exec_t *x, double now, long conn)
{
    loom_sim_conn_t *c = &x->conns[conn];
    long q = c->head;

    if (q < 0) {
        c->recv = -1;
        return;
    }
    c->head = x->queue[q].next;
    if (c->head < 0) {
        c->tail = -1;
    }
    x->queue[q].next = x->free_queue;
    x->free_queue = q;
    c->recv = x->queue[q].recv;
    loom_sim_flow(x, now, x->queue[q].send, c->recv, conn);
}

/* Step s takes rank r's one compute engine for seconds, after what it
 * already holds; its event comes when that is done. */
static void loom_sim_engine(loom_sim_exec_t *x, double now, int r, double seconds, long s)
{
    x->compute_free[r] = fmax(now, x->compute_free[r]) + seconds;
    loom_sim_event_push(x, x->compute_free[r], s);
}

static void loom_sim_step_start(loom_sim_exec_t *x, double now, long s)
{
    loom_sim_prog_t *prog = x->prog;
    loom_sim_step_t *st = &prog->steps[s];
    int r = loom_sim_prog_rank_of(prog, s), is_recv;
    double rate;
    long partner;

    switch ((loom_step_type_t)st->type) {
    case LOOM_STEP_SEND:
    case LOOM_STEP_RECV:
        if (x->overhead_s > 0 && !(st->flags & LOOM_SIM_STEP_PAID)) {
            /* The transport's CPU time first, on the engine in turn; the
             * event that ends it starts the step again (CPU). */
            st->flags |= LOOM_SIM_STEP_PAID | LOOM_SIM_STEP_CPU;
            loom_sim_engine(x, now, r, x->overhead_s, s);
            break;
        }
        is_recv = st->type == LOOM_STEP_RECV;
        if (st->flags & LOOM_SIM_STEP_PAIRED) {
            /* The partner is known (prog.h): meet it if it is posted. */
            partner = st->link;
            if (!(prog->steps[partner].flags & LOOM_SIM_STEP_POSTED)) {
                st->flags |= LOOM_SIM_STEP_POSTED;
                break;
            }
            prog->steps[partner].flags &= (uint8_t)~LOOM_SIM_STEP_POSTED;
        } else {
            /* A send waits for a receive of (me -> peer), a receive for a
             * send of (peer -> me); link holds the tag. */
            int32_t src = is_recv ? st->peer : r, dst = is_recv ? r : st->peer;

            loom_sim_prog_key(prog, &src, &dst);
            partner = loom_sim_match_take(x, src, dst, st->link, !is_recv);
            if (partner < 0) {
                loom_sim_match_put(x, s, src, dst, st->link, is_recv);
                break;
            }
        }
        loom_sim_message(x, now, is_recv ? partner : s, is_recv ? s : partner);
        break;
    case LOOM_STEP_REDUCE:
    case LOOM_STEP_COPY:
    case LOOM_STEP_COMPUTE:     /* priced as a pass over its bytes, like a copy */
        rate = st->type == LOOM_STEP_REDUCE ? x->reduce_bps : x->copy_bps;
        loom_sim_engine(x, now, r, (double)st->bytes / rate, s);
        break;
    default:                    /* LOOM_SIM_STEP_SKIP: done now, at no cost */
        loom_sim_event_push(x, now, s);
        break;
    }
}

static void loom_sim_step_done(loom_sim_exec_t *x, double now, long s)
{
    const loom_sim_prog_t *prog = x->prog;
    long i, d;

    x->done++;
    x->last = now;
    const loom_sim_step_t *st = &prog->steps[s];

    switch (st->flags >> LOOM_SIM_STEP_NDEP_SHIFT & 3) {
    case 3:
        for (i = st->dep0; i < (long)st->dep0 + st->dep1; ++i) {
            d = prog->dependents[i];
            if (--prog->steps[d].pending == 0) {
                loom_sim_step_start(x, now, d);
            }
        }
        break;
    case 2:
        /* In the order the schedule lists them. */
        d = st->dep1;
        if (--prog->steps[st->dep0].pending == 0) {
            loom_sim_step_start(x, now, st->dep0);
        }
        if (--prog->steps[d].pending == 0) {
            loom_sim_step_start(x, now, d);
        }
        break;
    case 1:
        if (--prog->steps[st->dep0].pending == 0) {
            loom_sim_step_start(x, now, st->dep0);
        }
        break;
    }
}

/* ---------------------------------------------------------------- run */

static loom_status_t loom_sim_exec_init(loom_sim_exec_t *x)
{
    const loom_sim_model_t *m = x->model;
    const loom_sim_layout_t *lay = x->lay;
    int nnics = lay->nodes * m->nics_per_node, nlinks, l, c;
    double *cap;
    loom_status_t status;
    long b, s;

    for (c = 0; c < LOOM_SIM_CLASS_COUNT; ++c) {
        x->alpha_s[c] = m->alpha_us[c] * 1e-6;
        x->class_bps[c] = m->gbs[c] * 1e9;
    }
    x->overhead_s = m->overhead_us * 1e-6;
    x->reduce_bps = m->reduce_gbs * 1e9;
    x->copy_bps = m->copy_gbs * 1e9;
    x->port_out0 = 0;
    x->port_in0 = lay->p;
    x->mem_link0 = 2 * lay->p;
    x->nic_out0 = x->mem_link0 + lay->nodes;
    x->nic_in0 = x->nic_out0 + nnics;
    x->up_out0 = x->nic_in0 + nnics;
    x->up_in0 = x->up_out0 + lay->racks;
    nlinks = x->up_in0 + lay->racks;
    cap = malloc(sizeof(double) * (size_t)nlinks);
    if (cap == NULL) {
        return LOOM_ERR_NO_MEMORY;
    }
    for (l = 0; l < nlinks; ++l) {
        cap[l] = l < x->mem_link0 ? x->class_bps[LOOM_SIM_INTRA_NODE]
               : l < x->nic_out0 ? m->node_mem_gbs * 1e9
               : l < x->up_out0 ? loom_sim_model_nic_bps(m) : loom_sim_model_uplink_bps(m);
    }
    status = loom_sim_net_create(nlinks, cap, &x->net);
    free(cap);
    if (status != LOOM_OK) {
        return status;
    }
    x->compute_free = calloc((size_t)lay->p, sizeof(double));
    for (x->nbuckets = 1024; x->nbuckets < 4L * lay->p; x->nbuckets *= 2) {
    }
    x->bucket = malloc(sizeof(long) * 2 * (size_t)x->nbuckets);
    if (x->compute_free == NULL || x->bucket == NULL) {
        return LOOM_ERR_NO_MEMORY;
    }
    /* A program runs once per build in a sweep: its counters are reset
     * only when it ran before (a pass over gigabytes at 4096 ranks). */
    if (!x->prog->as_built) {
        for (s = 0; s < x->prog->nsteps; ++s) {
            x->prog->steps[s].pending = x->prog->steps[s].ndeps;
            x->prog->steps[s].flags &=
                (uint8_t)~(LOOM_SIM_STEP_POSTED | LOOM_SIM_STEP_CPU | LOOM_SIM_STEP_PAID);
        }
    }
    x->prog->as_built = 0;
    x->bucket_tail = x->bucket + x->nbuckets;
    for (b = 0; b < x->nbuckets; ++b) {
        x->bucket[b] = x->bucket_tail[b] = -1;
    }
    x->free_posted = -1;
    x->free_queue = -1;
    return LOOM_OK;
}

static void loom_sim_exec_fini(loom_sim_exec_t *x)
{
    loom_sim_net_destroy(x->net);
    free(x->compute_free);
    if (x->heap != NULL) {
        free(x->heap - LOOM_SIM_HEAP_SKEW);
    }
    free(x->bucket);
    free(x->posted);
    free(x->conn_keys);
    free(x->conns);
    free(x->queue);
}

loom_status_t loom_sim_prog_run(loom_sim_prog_t *prog, const loom_sim_model_t *model,
                                loom_sim_result_t *result_p)
{
    loom_sim_exec_t x = { .prog = prog, .model = model, .lay = prog->layout };
    loom_status_t status = loom_sim_exec_init(&x);
    double now = 0, tf, te;
    long s, user;

    if (status != LOOM_OK) {
        goto out;
    }
    for (s = 0; s < prog->nsteps; ++s) {
        if (prog->steps[s].ndeps == 0 && prog->steps[s].type != LOOM_SIM_STEP_NONE) {
            loom_sim_step_start(&x, 0, s);
        }
    }
    loom_sim_net_settle(x.net, 0);
    while (!x.failed) {
        tf = loom_sim_net_next(x.net);
        user = loom_sim_net_next_user(x.net);
        if (user >= 0) {
            __builtin_prefetch(&prog->steps[(uint64_t)user >> 32]);
        }
        te = x.nheap > 0 ? x.heap[0].t : HUGE_VAL;
        now = fmin(tf, te);
        if (now == HUGE_VAL) {
            break;
        }
        while (loom_sim_net_pop(x.net, now, &user)) {
            long send = (long)((uint64_t)user >> 32), conn = (long)(user & 0xFFFFFFFFL);
            long recv = x.conns[conn].recv, next = loom_sim_net_next_user(x.net);
            int src;

            /* The next flow's send record is most likely a cache miss. */
            if (next >= 0) {
                __builtin_prefetch(&prog->steps[(uint64_t)next >> 32]);
            }
            src = loom_sim_prog_rank_of(prog, send);
            loom_sim_class_t cls = loom_sim_layout_class(x.lay, src, prog->steps[send].peer);

            loom_sim_event_push(&x, now + x.alpha_s[cls], send);
            loom_sim_event_push(&x, now + x.alpha_s[cls], recv);
            loom_sim_conn_next(&x, now, conn);
        }
        while (x.nheap > 0 && x.heap[0].t <= now) {
            s = loom_sim_event_pop(&x).step;
            /* The step records of the next events, and the first step
             * waiting on the next one, are most likely cache misses
             * (gigabytes of them, last touched when each started): fetch
             * them while this event is handled. */
            if (x.nheap > 0) {
                const loom_sim_step_t *nx = &prog->steps[x.heap[0].step];
                int ndeps = nx->flags >> LOOM_SIM_STEP_NDEP_SHIFT & 3;
                long k;

                if (ndeps == 1 || ndeps == 2) {   /* in the record: steps */
                    __builtin_prefetch(&prog->steps[nx->dep0]);
                }
                for (k = 1; k <= LOOM_SIM_HEAP_ARITY && k < x.nheap; ++k) {
                    __builtin_prefetch(&prog->steps[x.heap[k].step]);
                }
            }
            if (prog->steps[s].flags & LOOM_SIM_STEP_CPU) {
                prog->steps[s].flags &= (uint8_t)~LOOM_SIM_STEP_CPU;
                loom_sim_step_start(&x, now, s);   /* its overhead is done: post it */
            } else {
                loom_sim_step_done(&x, now, s);
            }
        }
        loom_sim_net_settle(x.net, now);
    }
    if (x.failed) {
        status = LOOM_ERR_NO_MEMORY;
    } else if (x.done != prog->real_steps) {
        status = LOOM_ERR_DEADLOCK;
    } else {
        /* A folded run's counts stand for every rank's. */
        int orbit = loom_sim_prog_orbit(prog);

        x.res.time_s = x.last;
        x.res.steps = prog->real_steps * orbit;
        x.res.messages *= orbit;
        x.res.bytes_sent *= orbit;
        *result_p = x.res;
    }
out:
    loom_sim_exec_fini(&x);
    return status;
}
