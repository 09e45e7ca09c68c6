/* The flows that ended in one batch, by path and cap (ended.h). */
#include "ended.h"
#include "flow.h"

#include <stdint.h>
#include <stdlib.h>
#include <string.h>
#include <xxhash.h>

struct loom_sim_ended_flow {
    double  cap, rate;
    int     links[LOOM_SIM_FLOW_LINKS];
    int     nlinks;
    int     next;           /* chain in its hash bucket, -1: end */
    int     taken;
};

static int loom_sim_ended_bucket(const loom_sim_ended_t *t, const int *links, int nlinks,
                                 double cap)
{
    uint64_t seed;

    memcpy(&seed, &cap, sizeof(seed));
    return (int)(XXH3_64bits_withSeed(links, sizeof(int) * (size_t)nlinks, seed) &
                 (uint64_t)(t->nbuckets - 1));
}

void loom_sim_ended_keep(loom_sim_ended_t *t, const int *links, int nlinks, double cap,
                         double rate)
{
    loom_sim_ended_flow_t *e;
    int b, i, n, *h;

    if (t->n == t->cap) {
        n = t->cap ? 2 * t->cap : 256;
        e = realloc(t->flows, sizeof(*e) * (size_t)n);
        if (e == NULL) {
            return;
        }
        t->flows = e;
        t->cap = n;
    }
    if (2 * (t->n + 1) > t->nbuckets) {
        n = t->nbuckets ? 2 * t->nbuckets : 512;
        h = realloc(t->head, sizeof(int) * (size_t)n);
        if (h == NULL) {
            return;
        }
        t->head = h;
        t->nbuckets = n;
        for (b = 0; b < n; ++b) {
            h[b] = -1;
        }
        for (i = 0; i < t->n; ++i) {
            e = &t->flows[i];
            b = loom_sim_ended_bucket(t, e->links, e->nlinks, e->cap);
            e->next = h[b];
            h[b] = i;
        }
    }
    e = &t->flows[t->n];
    e->cap = cap;
    e->rate = rate;
    e->nlinks = nlinks;
    memcpy(e->links, links, sizeof(int) * (size_t)nlinks);
    e->taken = 0;
    b = loom_sim_ended_bucket(t, links, nlinks, cap);
    e->next = t->head[b];
    t->head[b] = t->n++;
}

int loom_sim_ended_take(loom_sim_ended_t *t, const int *links, int nlinks, double cap,
                        double *rate_p)
{
    loom_sim_ended_flow_t *e;
    int i;

    if (t->n == 0) {
        return 0;
    }
    for (i = t->head[loom_sim_ended_bucket(t, links, nlinks, cap)]; i >= 0; i = e->next) {
        e = &t->flows[i];
        if (!e->taken && e->nlinks == nlinks && e->cap == cap &&
            memcmp(e->links, links, sizeof(int) * (size_t)nlinks) == 0) {
            e->taken = 1;
            *rate_p = e->rate;
            return 1;
        }
    }
    return 0;
}

void loom_sim_ended_clear(loom_sim_ended_t *t)
{
    int i;

    for (i = 0; i < t->n; ++i) {
        const loom_sim_ended_flow_t *e = &t->flows[i];

        t->head[loom_sim_ended_bucket(t, e->links, e->nlinks, e->cap)] = -1;
    }
    t->n = 0;
}

void loom_sim_ended_free(loom_sim_ended_t *t)
{
    free(t->flows);
    free(t->head);
    *t = (loom_sim_ended_t){ 0 };
}
