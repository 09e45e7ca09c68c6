#include "loopback_harness.h"

#include <check.h>
#include <stdint.h>
#include <stdlib.h>

void harness_init(harness_t *h, int p)
{
    int *peers = malloc(sizeof(int) * (size_t)p);
    int r;

    h->p = p;
    ck_assert_int_eq(loom_loopback_create(p, &h->lb), LOOM_OK);
    h->teams = calloc((size_t)p, sizeof(*h->teams));
    for (r = 0; r < p; ++r) {
        peers[r] = r;
    }
    for (r = 0; r < p; ++r) {
        loom_team_params_t params = {
            .size = p, .rank = r, .peers = peers, .context_id = 5,
            .transport = loom_loopback_transport(h->lb, r),
        };
        ck_assert_int_eq(loom_team_create(&params, &h->teams[r]), LOOM_OK);
    }
    free(peers);
}

void harness_fini(harness_t *h)
{
    int r;

    for (r = 0; r < h->p; ++r) {
        loom_team_destroy(h->teams[r]);
    }
    free(h->teams);
    loom_loopback_destroy(h->lb);
}

/* Sum of step states: grows whenever any step is posted or finishes. */
static long harness_measure(const loom_sched_t *sched)
{
    long m = 0;
    int i;

    for (i = 0; i < sched->nsteps; ++i) {
        m += sched->steps[i].state;
    }
    return m;
}

loom_status_t harness_run(harness_t *h, loom_plan_fn_t plan,
                          const loom_coll_args_t *args, unsigned seed)
{
    loom_sched_t **scheds = calloc((size_t)h->p, sizeof(*scheds));
    int *order = malloc(sizeof(int) * (size_t)h->p);
    loom_status_t status = LOOM_OK, st;
    int r, i, j, tmp, remaining;
    long before, after;

    for (r = 0; r < h->p; ++r) {
        status = plan(&args[r], h->teams[r], &scheds[r]);
        if (status != LOOM_OK) {
            goto out;
        }
        order[r] = r;
    }
    srand(seed);
    do {
        for (i = h->p - 1; i > 0; --i) {
            j = rand() % (i + 1);
            tmp = order[i]; order[i] = order[j]; order[j] = tmp;
        }
        remaining = 0;
        before = after = 0;
        for (i = 0; i < h->p; ++i) {
            r = order[i];
            if (scheds[r]->status != LOOM_INPROGRESS) {
                continue;
            }
            before += harness_measure(scheds[r]);
            st = loom_sched_progress(scheds[r]);
            after += harness_measure(scheds[r]);
            if (st < 0) {
                status = st;
                goto out;
            }
            remaining += (st == LOOM_INPROGRESS);
        }
        /* A full round in which no step moved: every rank waits on another. */
        if (remaining > 0 && before == after) {
            status = LOOM_ERR_DEADLOCK;
            goto out;
        }
    } while (remaining > 0);
out:
    /* A run given up on (deadlock, error) leaves operations posted; cancel
     * them first, or loom_sched_destroy must leak the schedules rather
     * than free memory the transport could still write to. */
    if (status != LOOM_OK) {
        loom_loopback_cancel_all(h->lb);
    }
    for (r = 0; r < h->p; ++r) {
        loom_sched_destroy(scheds[r]);
    }
    free(order);
    free(scheds);
    return status;
}

void harness_sum_double(const void *src, void *dst, size_t count, void *ctx)
{
    const double *s = src;
    double *d = dst;
    size_t i;

    (void)ctx;
    for (i = 0; i < count; ++i) {
        d[i] = s[i] + d[i];
    }
}

void harness_sum_float(const void *src, void *dst, size_t count, void *ctx)
{
    const float *s = src;
    float *d = dst;
    size_t i;

    (void)ctx;
    for (i = 0; i < count; ++i) {
        d[i] += s[i];
    }
}

void harness_sum_u32(const void *src, void *dst, size_t count, void *ctx)
{
    const uint32_t *s = src;
    uint32_t *d = dst;
    size_t i;

    (void)ctx;
    for (i = 0; i < count; ++i) {
        d[i] = s[i] + d[i];
    }
}
