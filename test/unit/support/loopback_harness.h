/* Runs one schedule per rank on the loopback transport, all in this
 * process, until every rank is done or nothing can move (deadlock). */
#ifndef LOOM_TEST_LOOPBACK_HARNESS_H
#define LOOM_TEST_LOOPBACK_HARNESS_H

#include "coll/core/allreduce/allreduce.h"
#include "coll/core/transport/transport_loopback.h"
#include "common/log.h"

typedef struct harness {
    int             p;
    loom_loopback_t *lb;
    loom_team_t     **teams;
} harness_t;

/* p ranks, one team each, on a fresh loopback fabric. */
void harness_init(harness_t *h, int p);
void harness_fini(harness_t *h);

/* Plan with plan() for every rank (args[r] is rank r's call) and run.
 * Ranks are progressed in a shuffled order each round, from seed. */
loom_status_t harness_run(harness_t *h, loom_plan_fn_t plan,
                          const loom_coll_args_t *args, unsigned seed);

/* Reductions used by the tests. */
void harness_sum_double(const void *src, void *dst, size_t count, void *ctx);
void harness_sum_float(const void *src, void *dst, size_t count, void *ctx);
void harness_sum_u32(const void *src, void *dst, size_t count, void *ctx);

#endif
