/* Max-min fair flows with incremental re-filling (flow.h). */
#include "flow.h"
#include "ended.h"

#include <math.h>
#include <stdint.h>
#include <stdlib.h>

typedef struct loom_sim_flow {
    double  remaining;      /* bytes left at t_upd */
    double  rate;           /* bytes/s since t_upd */
    double  old_rate;       /* while filling: the rate before */
    double  t_upd;
    double  cap;
    int64_t capi;           /* cap rounded up; 0: none (or over 1e15) */
    long    user;
    int     links[LOOM_SIM_FLOW_LINKS];
    int     lpos[LOOM_SIM_FLOW_LINKS];  /* index in the link's flow list */
    int     nlinks;
    int     heap_pos;       /* -1: slot free */
    unsigned mark;          /* visit epoch of the last settle that saw it */
    int     frozen;
} loom_sim_flow_t;

/* An entry of a heap, its key beside the index so that ordering touches
 * no record: a flow slot by finish time (the flows in flight), a link by
 * share or a flow by cap (while filling). */
typedef struct loom_sim_kentry {
    double  key;
    int     index;
} loom_sim_kentry_t;

typedef struct loom_sim_link {
    double  cap;
    double  rem;            /* while filling: capacity not yet handed out */
    int     *flows;
    int     nflows, cap_flows;
    int     cnt;            /* while filling: flows on it not yet frozen */
    int64_t capsum;         /* its flows' own caps, rounded up, summed */
    int     nhuge;          /* its flows with no cap (or one over 1e15) */
    int64_t cap_floor;      /* its capacity, rounded down */
    unsigned mark;
    unsigned comp;          /* collect epoch in which it joined the part */
    int     dirty;
    int     delta;          /* flows on and off it since the last settle,
                             * less those that took a leaving one's place */
    int     tight;          /* not slack at some point since then */
} loom_sim_link_t;

struct loom_sim_net {
    loom_sim_link_t *links;
    int             nlinks;
    loom_sim_flow_t *flows;
    int             nslots, cap_slots;
    int             *free_slots;
    int             nfree;
    loom_sim_kentry_t *heap;        /* flow slots ordered by finish */
    int             nheap, cap_heap;
    int             cap_free;
    int             *dirty;         /* links touched since the last settle */
    int             ndirty, cap_dirty;
    int             *added;         /* flows added since the last settle */
    int             nadded, cap_added;
    unsigned        comp_epoch;     /* the epoch of the last collect */
    loom_sim_ended_t ended;         /* flows ended since the last settle */
    int             *comp_flows, *comp_links, *queue;
    int             cap_comp_flows, cap_comp_links, cap_queue;
    unsigned        epoch;
    loom_sim_kentry_t *lheap, *cheap;   /* while filling: links by share, flows by cap */
    int             cap_lheap, cap_cheap;
    int             *fresh;         /* while filling: the flows frozen this round */
    int             cap_fresh;
};

static int loom_sim_grow(int **a, int *cap, int need)
{
    int n = *cap ? *cap : 64, *b;

    if (need <= *cap) {
        return 0;
    }
    while (n < need) {
        n *= 2;
    }
    b = realloc(*a, sizeof(int) * (size_t)n);
    if (b == NULL) {
        return -1;
    }
    *a = b;
    *cap = n;
    return 0;
}

loom_status_t loom_sim_net_create(int nlinks, const double *cap_bps, loom_sim_net_t **net_p)
{
    loom_sim_net_t *net = calloc(1, sizeof(*net));
    int l;

    if (net == NULL) {
        return LOOM_ERR_NO_MEMORY;
    }
    net->links = calloc((size_t)(nlinks > 0 ? nlinks : 1), sizeof(*net->links));
    if (net->links == NULL) {
        free(net);
        return LOOM_ERR_NO_MEMORY;
    }
    net->nlinks = nlinks;
    for (l = 0; l < nlinks; ++l) {
        net->links[l].cap = cap_bps[l] > 0 ? cap_bps[l] : HUGE_VAL;
        net->links[l].cap_floor = cap_bps[l] > 0 && cap_bps[l] < 9e18 ? (int64_t)floor(cap_bps[l])
                                                                      : INT64_MAX;
    }
    *net_p = net;
    return LOOM_OK;
}

void loom_sim_net_destroy(loom_sim_net_t *net)
{
    int l;

    if (net == NULL) {
        return;
    }
    for (l = 0; l < net->nlinks; ++l) {
        free(net->links[l].flows);
    }
    free(net->links);
    free(net->flows);
    free(net->free_slots);
    free(net->heap);
    free(net->dirty);
    free(net->added);
    loom_sim_ended_free(&net->ended);
    free(net->comp_flows);
    free(net->comp_links);
    free(net->queue);
    free(net->lheap);
    free(net->cheap);
    free(net->fresh);
    free(net);
}

/* A link whose flows, each at its own cap, would not fill it can never
 * be what limits them: max-min rates are the same with or without it,
 * so the filling leaves it out and parts do not connect through it (a
 * spine uplink carrying a few of a tree's flows, say).  Integer sums of
 * rounded-up caps keep the test exact and conservative. */
static int loom_sim_link_slack(const loom_sim_link_t *lk)
{
    return lk->nhuge == 0 && lk->capsum <= lk->cap_floor;
}

/* ------------------------------------------------------------ the heap */

/* Room in heap *h (capacity *cap) for need entries; -1 without memory. */
static int loom_sim_kheap_reserve(loom_sim_kentry_t **h, int *cap, int need)
{
    int n = *cap ? *cap : 64;
    loom_sim_kentry_t *b;

    if (need <= *cap) {
        return 0;
    }
    while (n < need) {
        n *= 2;
    }
    b = realloc(*h, sizeof(*b) * (size_t)n);
    if (b == NULL) {
        return -1;
    }
    *h = b;
    *cap = n;
    return 0;
}

static int loom_sim_heap_less(const loom_sim_net_t *net, int a, int b)
{
    return net->heap[a].key < net->heap[b].key;
}

static void loom_sim_heap_swap(loom_sim_net_t *net, int a, int b)
{
    loom_sim_kentry_t t = net->heap[a];

    net->heap[a] = net->heap[b];
    net->heap[b] = t;
    net->flows[net->heap[a].index].heap_pos = a;
    net->flows[net->heap[b].index].heap_pos = b;
}

static void loom_sim_heap_fix(loom_sim_net_t *net, int i)
{
    int c;

    while (i > 0 && loom_sim_heap_less(net, i, (i - 1) / 2)) {
        loom_sim_heap_swap(net, i, (i - 1) / 2);
        i = (i - 1) / 2;
    }
    for (;;) {
        c = 2 * i + 1;
        if (c >= net->nheap) {
            break;
        }
        if (c + 1 < net->nheap && loom_sim_heap_less(net, c + 1, c)) {
            ++c;
        }
        if (!loom_sim_heap_less(net, c, i)) {
            break;
        }
        loom_sim_heap_swap(net, i, c);
        i = c;
    }
}

static void loom_sim_heap_remove(loom_sim_net_t *net, int i)
{
    int last = --net->nheap;

    net->flows[net->heap[i].index].heap_pos = -1;
    if (i != last) {
        net->heap[i] = net->heap[last];
        net->flows[net->heap[i].index].heap_pos = i;
        loom_sim_heap_fix(net, i);
    }
}

/* -------------------------------------------------------------- flows */

/* Notes a change of link l's flows since the last settle: +1 for a flow
 * coming on or leaving, -1 for one that takes the place of a flow that
 * left (which undoes that one's +1); tight says whether the link could
 * limit its flows before the change. */
static int loom_sim_touch(loom_sim_net_t *net, int l, int change, int tight)
{
    loom_sim_link_t *lk = &net->links[l];

    lk->delta += change;
    lk->tight |= tight;
    if (lk->dirty) {
        return 0;
    }
    if (loom_sim_grow(&net->dirty, &net->cap_dirty, net->ndirty + 1) != 0) {
        return -1;
    }
    net->links[l].dirty = 1;
    net->dirty[net->ndirty++] = l;
    return 0;
}

loom_status_t loom_sim_net_add(loom_sim_net_t *net, double now, double bytes, double cap_bps,
                               const int *links, int nlinks, long user)
{
    loom_sim_flow_t *f, *nf;
    loom_sim_link_t *lk;
    int slot, i, n, tight, took;
    double cap = cap_bps > 0 ? cap_bps : HUGE_VAL, rate = 0, finish;

    if (net->nfree == 0) {
        if (net->nslots == net->cap_slots) {
            n = net->cap_slots ? 2 * net->cap_slots : 256;
            nf = realloc(net->flows, sizeof(*nf) * (size_t)n);
            if (nf == NULL) {
                return LOOM_ERR_NO_MEMORY;
            }
            net->flows = nf;
            net->cap_slots = n;
        }
        slot = net->nslots++;
    } else {
        slot = net->free_slots[--net->nfree];
    }
    if (loom_sim_kheap_reserve(&net->heap, &net->cap_heap, net->nheap + 1) != 0 ||
        loom_sim_grow(&net->added, &net->cap_added, net->nadded + 1) != 0) {
        return LOOM_ERR_NO_MEMORY;
    }
    /* The next message of a pipeline often starts on the path its
     * predecessor just left: then every link carries the flows it
     * carried, and the newcomer moves at the rate the other had. */
    took = loom_sim_ended_take(&net->ended, links, nlinks, cap, &rate);
    f = &net->flows[slot];
    *f = (loom_sim_flow_t){ .remaining = bytes, .rate = 0, .t_upd = now,
                            .cap = cap, .user = user, .nlinks = nlinks, .heap_pos = -1,
                            .mark = 0 };
    f->capi = f->cap < 1e15 ? (int64_t)ceil(f->cap) : 0;
    for (i = 0; i < nlinks; ++i) {
        lk = &net->links[links[i]];
        if (lk->nflows == lk->cap_flows) {
            n = lk->cap_flows ? 2 * lk->cap_flows : 4;
            int *a = realloc(lk->flows, sizeof(int) * (size_t)n);
            if (a == NULL) {
                return LOOM_ERR_NO_MEMORY;
            }
            lk->flows = a;
            lk->cap_flows = n;
        }
        tight = !loom_sim_link_slack(lk);
        f->links[i] = links[i];
        f->lpos[i] = lk->nflows;
        if (f->capi > 0) {
            lk->capsum += f->capi;
        } else {
            lk->nhuge++;
        }
        lk->flows[lk->nflows++] = slot;
        if (loom_sim_touch(net, links[i], took ? -1 : 1, tight) != 0) {
            return LOOM_ERR_NO_MEMORY;
        }
    }
    finish = HUGE_VAL;
    if (took) {
        f->rate = rate;
        finish = f->rate > 0 ? now + bytes / f->rate : HUGE_VAL;
    } else if (nlinks == 0) {
        /* Alone on its path: its own speed, now and until it ends. */
        f->rate = f->cap;
        finish = now + bytes / f->rate;
    } else {
        net->added[net->nadded++] = slot;
    }
    f->heap_pos = net->nheap;
    net->heap[net->nheap++] = (loom_sim_kentry_t){ finish, slot };
    loom_sim_heap_fix(net, f->heap_pos);
    return LOOM_OK;
}

double loom_sim_net_next(const loom_sim_net_t *net)
{
    return net->nheap > 0 ? net->heap[0].key : HUGE_VAL;
}

long loom_sim_net_next_user(const loom_sim_net_t *net)
{
    return net->nheap > 0 ? net->flows[net->heap[0].index].user : -1;
}

int loom_sim_net_active(const loom_sim_net_t *net)
{
    return net->nheap;
}

double loom_sim_net_rate_of(const loom_sim_net_t *net, long user)
{
    int i;

    for (i = 0; i < net->nheap; ++i) {
        if (net->flows[net->heap[i].index].user == user) {
            return net->flows[net->heap[i].index].rate;
        }
    }
    return -1;
}

int loom_sim_net_pop(loom_sim_net_t *net, double t, long *user_p)
{
    loom_sim_flow_t *f;
    loom_sim_link_t *lk;
    int slot, i, k, moved, tight;

    if (net->nheap == 0 || net->heap[0].key > t) {
        return 0;
    }
    slot = net->heap[0].index;
    f = &net->flows[slot];
    loom_sim_heap_remove(net, 0);
    for (i = 0; i < f->nlinks; ++i) {
        lk = &net->links[f->links[i]];
        tight = !loom_sim_link_slack(lk);
        if (f->capi > 0) {
            lk->capsum -= f->capi;
        } else {
            lk->nhuge--;
        }
        /* Swap-remove from the link's list, fixing the moved flow's index. */
        moved = lk->flows[--lk->nflows];
        if (moved != slot) {
            lk->flows[f->lpos[i]] = moved;
            for (k = 0; k < net->flows[moved].nlinks; ++k) {
                if (net->flows[moved].links[k] == f->links[i]) {
                    net->flows[moved].lpos[k] = f->lpos[i];
                }
            }
        }
        /* A failed mark only delays a rate increase: rates stay feasible. */
        (void)loom_sim_touch(net, f->links[i], 1, tight);
    }
    if (f->nlinks > 0) {
        loom_sim_ended_keep(&net->ended, f->links, f->nlinks, f->cap, f->rate);
    }
    if (loom_sim_grow(&net->free_slots, &net->cap_free, net->nfree + 1) == 0) {
        net->free_slots[net->nfree++] = slot;
    }
    *user_p = f->user;
    return 1;
}

/* Queues link l for the walk unless it is slack or already seen. */
static int loom_sim_reach(loom_sim_net_t *net, int l, unsigned epoch, int *tail)
{
    loom_sim_link_t *lk = &net->links[l];

    if (lk->mark == epoch || loom_sim_link_slack(lk)) {
        return 0;
    }
    lk->mark = epoch;
    if (loom_sim_grow(&net->queue, &net->cap_queue, *tail + 1) != 0) {
        return -1;
    }
    net->queue[(*tail)++] = l;
    return 0;
}

/* Adds flow s to the part and queues its links. */
static int loom_sim_take(loom_sim_net_t *net, int s, unsigned epoch, int *nf, int *tail)
{
    int k;

    if (net->flows[s].mark == epoch) {
        return 0;
    }
    net->flows[s].mark = epoch;
    if (loom_sim_grow(&net->comp_flows, &net->cap_comp_flows, *nf + 1) != 0) {
        return -1;
    }
    net->comp_flows[(*nf)++] = s;
    for (k = 0; k < net->flows[s].nlinks; ++k) {
        if (loom_sim_reach(net, net->flows[s].links[k], epoch, tail) != 0) {
            return -1;
        }
    }
    return 0;
}

/*
 * The flows whose rates may change, into comp_flows, and the links that
 * can limit them, into comp_links: the flows added since the last settle
 * and those on a dirty link, then everything connected to them through
 * links that are not slack.  A dirty link that went slack when a flow
 * left it still hands its flows in (they may speed up) but joins no part.
 */
static int loom_sim_collect(loom_sim_net_t *net, int *nf_p, int *nl_p)
{
    int nf = 0, nl = 0, head = 0, tail = 0, d, i, l, changed, tight;
    unsigned epoch = ++net->epoch;
    loom_sim_link_t *lk;

    for (d = 0; d < net->nadded; ++d) {
        if (net->flows[net->added[d]].heap_pos >= 0 &&
            loom_sim_take(net, net->added[d], epoch, &nf, &tail) != 0) {
            return -1;
        }
    }
    net->nadded = 0;
    for (d = 0; d < net->ndirty; ++d) {
        lk = &net->links[net->dirty[d]];
        changed = lk->delta != 0;
        tight = lk->tight || !loom_sim_link_slack(lk);
        lk->dirty = 0;
        lk->delta = 0;
        lk->tight = 0;
        if (!changed || !tight) {
            continue;   /* the same flows as before, or it limited none */
        }
        if (lk->mark != epoch && loom_sim_link_slack(lk)) {
            for (i = 0; i < lk->nflows; ++i) {
                if (loom_sim_take(net, lk->flows[i], epoch, &nf, &tail) != 0) {
                    return -1;
                }
            }
        } else if (loom_sim_reach(net, net->dirty[d], epoch, &tail) != 0) {
            return -1;
        }
    }
    net->ndirty = 0;
    while (head < tail) {
        l = net->queue[head++];
        if (loom_sim_grow(&net->comp_links, &net->cap_comp_links, nl + 1) != 0) {
            return -1;
        }
        net->comp_links[nl++] = l;
        net->links[l].comp = epoch;
        for (i = 0; i < net->links[l].nflows; ++i) {
            if (loom_sim_take(net, net->links[l].flows[i], epoch, &nf, &tail) != 0) {
                return -1;
            }
        }
    }
    net->comp_epoch = epoch;
    *nf_p = nf;
    *nl_p = nl;
    return 0;
}

/* ------------------------------------------------------ filling heaps */

/* Min-heaps of (key, index) for the progressive filling: links by their
 * fair share, flows by their own cap. */
static void loom_sim_kheap_down(loom_sim_kentry_t *h, int n, int i)
{
    loom_sim_kentry_t e = h[i];
    int c;

    for (;;) {
        c = 2 * i + 1;
        if (c >= n) {
            break;
        }
        if (c + 1 < n && h[c + 1].key < h[c].key) {
            ++c;
        }
        if (!(h[c].key < e.key)) {
            break;
        }
        h[i] = h[c];
        i = c;
    }
    h[i] = e;
}

static void loom_sim_kheap_push(loom_sim_kentry_t *h, int *n, double key, int index)
{
    loom_sim_kentry_t e = { key, index };
    int i;

    for (i = (*n)++; i > 0 && e.key < h[(i - 1) / 2].key; i = (i - 1) / 2) {
        h[i] = h[(i - 1) / 2];
    }
    h[i] = e;
}

static loom_sim_kentry_t loom_sim_kheap_pop(loom_sim_kentry_t *h, int *n)
{
    loom_sim_kentry_t top = h[0];

    h[0] = h[--*n];
    if (*n > 0) {
        loom_sim_kheap_down(h, *n, 0);
    }
    return top;
}

/* A link's entry is current while the link has flows to share and its
 * share is still the one the entry holds (shares change by re-pushing). */
static int loom_sim_share_current(const loom_sim_net_t *net, const loom_sim_kentry_t *e)
{
    const loom_sim_link_t *lk = &net->links[e->index];

    return lk->cnt > 0 && e->key == lk->rem / lk->cnt;
}

/*
 * Progressive filling on one connected part: raise every unfrozen flow's
 * rate together; when a link runs full (or a flow reaches its own cap)
 * the flows on it freeze at the level reached.  Each round freezes at
 * least one flow; the level of a round is the smallest share rem/cnt of
 * a link (or cap of an unfrozen flow), and every flow on a link whose
 * share is within 1e-12 of it (or capped there) freezes at that level.
 * Links sit in a heap by share and flows in one by cap, so a round costs
 * the links and flows it freezes (times log n), not a pass over the
 * whole part: a part can hold thousands of flows and as many distinct
 * levels (a double binary tree's every NIC, the ring with --map-by
 * node).  Shares are recomputed as rem/cnt exactly as before, and a
 * link takes level once per flow frozen on it, so the rates are those
 * of a plain round-by-round pass, to the last bit.
 */
/* A filling that ran out of memory half way: every flow of the part
 * back to the rate it had (feasible, if not fair). */
static void loom_sim_fill_undo(loom_sim_net_t *net, int nf)
{
    int i;

    for (i = 0; i < nf; ++i) {
        net->flows[net->comp_flows[i]].rate = net->flows[net->comp_flows[i]].old_rate;
    }
}

void loom_sim_net_settle(loom_sim_net_t *net, double now)
{
    int nf, nl, left, i, k, nlh = 0, nch = 0, nnew, status;
    double level, thr;
    loom_sim_kentry_t e;
    loom_sim_flow_t *f;
    loom_sim_link_t *lk;
    unsigned stamp;

    status = net->ndirty == 0 && net->nadded == 0 ? -1 : loom_sim_collect(net, &nf, &nl);
    loom_sim_ended_clear(&net->ended);   /* ended flows are only matched within a batch */
    if (status != 0) {
        return;
    }
    if (loom_sim_kheap_reserve(&net->lheap, &net->cap_lheap, nl + 1) != 0 ||
        loom_sim_kheap_reserve(&net->cheap, &net->cap_cheap, nf + 1) != 0 ||
        loom_sim_grow(&net->fresh, &net->cap_fresh, nf + 1) != 0) {
        return;   /* the old rates stay: feasible, if not fair */
    }
    for (i = 0; i < nl; ++i) {
        lk = &net->links[net->comp_links[i]];
        lk->rem = lk->cap;
        lk->cnt = lk->nflows;
        if (lk->cnt > 0) {
            net->lheap[nlh++] = (loom_sim_kentry_t){ lk->rem / lk->cnt, net->comp_links[i] };
        }
    }
    for (i = 0; i < nf; ++i) {
        f = &net->flows[net->comp_flows[i]];
        f->frozen = 0;
        f->old_rate = f->rate;
        net->cheap[nch++] = (loom_sim_kentry_t){ f->cap, net->comp_flows[i] };
    }
    for (i = nlh / 2 - 1; i >= 0; --i) {
        loom_sim_kheap_down(net->lheap, nlh, i);
    }
    for (i = nch / 2 - 1; i >= 0; --i) {
        loom_sim_kheap_down(net->cheap, nch, i);
    }
    left = nf;
    while (left > 0) {
        while (nlh > 0 && !loom_sim_share_current(net, &net->lheap[0])) {
            loom_sim_kheap_pop(net->lheap, &nlh);
        }
        while (nch > 0 && net->flows[net->cheap[0].index].frozen) {
            loom_sim_kheap_pop(net->cheap, &nch);
        }
        level = nlh > 0 ? net->lheap[0].key : HUGE_VAL;
        if (nch > 0 && net->cheap[0].key < level) {
            level = net->cheap[0].key;
        }
        thr = level * (1 + 1e-12);
        /* Who freezes is decided on the shares before this round's. */
        nnew = 0;
        while (nlh > 0 && net->lheap[0].key <= thr) {
            e = loom_sim_kheap_pop(net->lheap, &nlh);
            if (!loom_sim_share_current(net, &e)) {
                continue;
            }
            lk = &net->links[e.index];
            for (k = 0; k < lk->nflows; ++k) {
                f = &net->flows[lk->flows[k]];
                if (!f->frozen) {
                    f->frozen = 1;
                    f->rate = level;
                    net->fresh[nnew++] = lk->flows[k];
                }
            }
        }
        while (nch > 0 && net->cheap[0].key <= thr) {
            e = loom_sim_kheap_pop(net->cheap, &nch);
            f = &net->flows[e.index];
            if (!f->frozen) {
                f->frozen = 1;
                f->rate = level;
                net->fresh[nnew++] = e.index;
            }
        }
        if (nnew == 0) {
            break;   /* cannot happen: the level's own link or flow freezes */
        }
        left -= nnew;
        /* Hand out what the newly frozen flows take, then queue each
         * touched link once with its new share. */
        for (i = 0; i < nnew; ++i) {
            f = &net->flows[net->fresh[i]];
            for (k = 0; k < f->nlinks; ++k) {
                lk = &net->links[f->links[k]];
                if (lk->comp == net->comp_epoch) {
                    lk->rem -= level;
                    lk->cnt -= 1;
                }
            }
        }
        stamp = ++net->epoch;
        for (i = 0; i < nnew; ++i) {
            f = &net->flows[net->fresh[i]];
            for (k = 0; k < f->nlinks; ++k) {
                lk = &net->links[f->links[k]];
                if (lk->comp == net->comp_epoch && lk->cnt > 0 && lk->mark != stamp) {
                    lk->mark = stamp;
                    if (loom_sim_kheap_reserve(&net->lheap, &net->cap_lheap, nlh + 1) != 0) {
                        loom_sim_fill_undo(net, nf);
                        return;
                    }
                    loom_sim_kheap_push(net->lheap, &nlh, lk->rem / lk->cnt, f->links[k]);
                }
            }
        }
    }
    for (i = 0; i < nf; ++i) {
        f = &net->flows[net->comp_flows[i]];
        /* A flow whose rate stays keeps its finish time as it was: worked
         * out again it could move by a rounding error, and which flows
         * are re-filled together (how the parts fall) would then show in
         * the results. */
        if (f->rate == f->old_rate) {
            continue;
        }
        /* Bytes moved at the old rate up to now. */
        f->remaining -= f->old_rate * (now - f->t_upd);
        f->remaining = f->remaining > 0 ? f->remaining : 0;
        f->t_upd = now;
        net->heap[f->heap_pos].key = f->rate > 0 ? now + f->remaining / f->rate : HUGE_VAL;
        loom_sim_heap_fix(net, f->heap_pos);
    }
}

