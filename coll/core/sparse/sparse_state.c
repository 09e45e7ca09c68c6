/* Split-and-reduce's state (sparse_split.h): what a gradient slot keeps
 * from one call to the next, every rank's copy changed alike. */
#include "coll/core/sparse/sparse_split.h"
#include "coll/core/parts/partition.h"
#include "common/log.h"

#include <stdlib.h>

loom_status_t loom_sparse_state_create(int p, unsigned every, loom_sparse_state_t **state_p)
{
    loom_sparse_state_t *s;

    if (p < 1 || every < 1) {
        loom_error("coll", "sparse split state: %d ranks and every=%u; at least 1 of each "
                   "is accepted", p, every);
        return LOOM_ERR_INVALID_PARAM;
    }
    s = calloc(1, sizeof(*s));
    if (s == NULL) {
        return LOOM_ERR_NO_MEMORY;
    }
    s->b = calloc((size_t)p + 1, sizeof(size_t));
    if (s->b == NULL) {
        free(s);
        return LOOM_ERR_NO_MEMORY;
    }
    s->p = p;
    s->every = every;
    *state_p = s;
    return LOOM_OK;
}

void loom_sparse_state_free(void *state)
{
    loom_sparse_state_t *s = state;

    if (s != NULL) {
        free(s->b);
        free(s);
    }
}

int loom_sparse_state_theta(const loom_sparse_state_t *state, double *theta_p)
{
    if (state->theta_set) {
        *theta_p = state->theta;
    }
    return state->theta_set;
}

const size_t *loom_sparse_state_bounds(const loom_sparse_state_t *state, size_t n)
{
    return state->n == n && state->n > 0 ? state->b : NULL;
}

static void loom_split_uniform(size_t *b, size_t n, int p)
{
    loom_spread_t s = loom_spread(n, p);
    int j;

    for (j = 0; j <= p; ++j) {
        b[j] = loom_spread_offset(s, j);
    }
}

/* The state made ready for p ranks and n elements: one made for others
 * starts over (uniform regions, no theta). */
loom_status_t loom_split_state_fit(loom_sparse_state_t *s, int p, size_t n)
{
    size_t *b;

    if (s->p == p && s->n == n) {
        return LOOM_OK;
    }
    if (s->p != p) {
        b = realloc(s->b, ((size_t)p + 1) * sizeof(size_t));
        if (b == NULL) {
            return LOOM_ERR_NO_MEMORY;
        }
        s->b = b;
        s->p = p;
    }
    s->n = n;
    s->theta_set = 0;
    s->calls = 0;
    loom_split_uniform(s->b, n, p);
    return LOOM_OK;
}
