/*
 * Ring allreduce: a reduce-scatter ring, then an allgather ring, in place
 * in the receive buffer.
 *
 *   reduce-scatter, step k = 0..p-2 (rank r, blocks mod p):
 *     send block r-k to r+1; receive block r-k-1 from r-1 into a scratch
 *     slot and reduce it into the local block.  After p-1 steps rank r holds
 *     the full sum of block r+1.
 *   allgather, step k = 0..p-2:
 *     send block r+1-k to r+1; receive block r-k from r-1 in place.
 *
 *     r0 --> r1 --> r2 --> ... --> r(p-1) --+
 *      ^-----------------------------------+
 *
 * Cost: 2(p-1) alpha + 2(p-1)/p n beta + (p-1)/p n gamma.  Bandwidth
 * optimal (each rank sends and receives 2(p-1)/p n bytes, the lower bound),
 * so it wins for large n; its 2(p-1) latency terms lose to logarithmic
 * algorithms for small n.
 *
 * Two scratch slots let the receive of step k+1 be posted while step k is
 * still being reduced.  Blocks are reduced in ring order, not rank order,
 * so the op must be commutative.  Every block's final value is computed on
 * one rank and copied to the others, so all ranks end bitwise identical.
 */
#include "allreduce.h"
#include "partition.h"
#include "common/log.h"

#include <stdint.h>
#include <stdlib.h>

typedef struct loom_ring_ctx {
    loom_sched_t    *sched;
    char            *buf;        /* the receive buffer */
    size_t          count;
    size_t          esize;
    int             p;
    int             r;
} loom_ring_ctx_t;

static size_t loom_ring_bytes(const loom_ring_ctx_t *c, int block)
{
    return loom_block_count(c->count, c->p, loom_mod(block, c->p)) * c->esize;
}

static char *loom_ring_ptr(const loom_ring_ctx_t *c, int block)
{
    return c->buf + loom_block_offset(c->count, c->p, loom_mod(block, c->p)) * c->esize;
}

static loom_status_t loom_ring_add(loom_ring_ctx_t *c, const loom_step_desc_t *desc,
                                   int *index_p)
{
    if (desc->bytes == 0 && desc->type != LOOM_STEP_COPY) {
        /* Both ends compute the same block sizes, so both skip. */
        *index_p = -1;
        return LOOM_OK;
    }
    return loom_sched_add(c->sched, desc, index_p);
}

loom_status_t loom_allreduce_ring_plan(const loom_coll_args_t *args, loom_team_t *team,
                                       loom_sched_t **sched_p)
{
    loom_ring_ctx_t c = {
        .buf = args->recvbuf, .count = args->count, .esize = args->elem_size,
        .p = team->size, .r = team->rank,
    };
    int right = loom_mod(c.r + 1, c.p), left = loom_mod(c.r - 1, c.p);
    int copy = -1, send = -1, recv, reduce = -1, prev_reduce = -1;
    int slot_reader[2] = { -1, -1 };  /* last reduce that read each slot */
    int *rs_send = NULL;  /* reduce-scatter send of each ring step */
    int ag_recv = -1;
    size_t slot_bytes, bytes;
    char *scratch = NULL;
    loom_status_t status;
    int k;

    if (!args->op.commutative) {
        return LOOM_ERR_UNSUPPORTED;
    }
    status = loom_sched_create(team, args, LOOM_ALLREDUCE_RING, &c.sched);
    if (status != LOOM_OK) {
        return status;
    }
    if (!args->in_place) {
        status = loom_sched_add(c.sched, &(loom_step_desc_t){
                                    .type = LOOM_STEP_COPY, .src = args->sendbuf,
                                    .dst = args->recvbuf,
                                    .bytes = args->count * args->elem_size },
                                &copy);
        if (status != LOOM_OK) {
            goto err_sched;
        }
    }
    if (c.p == 1 || args->count == 0) {
        *sched_p = c.sched;
        return LOOM_OK;
    }

    slot_bytes = loom_block_count(c.count, c.p, 0) * c.esize;
    status = loom_sched_alloc_scratch(c.sched, 2 * slot_bytes, (void **)&scratch);
    if (status != LOOM_OK) {
        goto err_sched;
    }

    rs_send = malloc(sizeof(int) * (size_t)(c.p - 1));
    if (rs_send == NULL) {
        status = LOOM_ERR_NO_MEMORY;
        goto err_sched;
    }

    /* Reduce-scatter. */
    for (k = 0; k < c.p - 1; ++k) {
        char *slot = scratch + (size_t)(k % 2) * slot_bytes;

        status = loom_ring_add(&c, &(loom_step_desc_t){
                                   .type = LOOM_STEP_SEND, .peer = right,
                                   .tag_step = (uint32_t)k,
                                   .src = loom_ring_ptr(&c, c.r - k),
                                   .bytes = loom_ring_bytes(&c, c.r - k),
                                   .deps = { k == 0 ? copy : prev_reduce }, .ndeps = 1 },
                               &send);
        if (status != LOOM_OK) {
            goto err_sched;
        }
        rs_send[k] = send;

        bytes = loom_ring_bytes(&c, c.r - k - 1);
        /* The slot is free once the last reduce that read it is done (two
         * steps back, or earlier when empty blocks were skipped). */
        status = loom_ring_add(&c, &(loom_step_desc_t){
                                   .type = LOOM_STEP_RECV, .peer = left,
                                   .tag_step = (uint32_t)k, .dst = slot,
                                   .bytes = bytes,
                                   .deps = { slot_reader[k % 2] }, .ndeps = 1 },
                               &recv);
        if (status != LOOM_OK) {
            goto err_sched;
        }
        status = loom_ring_add(&c, &(loom_step_desc_t){
                                   .type = LOOM_STEP_REDUCE, .src = slot,
                                   .dst = loom_ring_ptr(&c, c.r - k - 1),
                                   .bytes = bytes, .deps = { recv, copy }, .ndeps = 2 },
                               &reduce);
        if (status != LOOM_OK) {
            goto err_sched;
        }
        if (reduce < 0) {
            reduce = copy; /* empty block: nothing to wait for but the copy */
        } else {
            slot_reader[k % 2] = reduce;
        }
        prev_reduce = reduce;
    }

    /* Allgather: rank r owns the final block r+1. */
    for (k = 0; k < c.p - 1; ++k) {
        status = loom_ring_add(&c, &(loom_step_desc_t){
                                   .type = LOOM_STEP_SEND, .peer = right,
                                   .tag_step = (uint32_t)(c.p - 1 + k),
                                   .src = loom_ring_ptr(&c, c.r + 1 - k),
                                   .bytes = loom_ring_bytes(&c, c.r + 1 - k),
                                   .deps = { k == 0 ? prev_reduce : ag_recv }, .ndeps = 1 },
                               &send);
        if (status != LOOM_OK) {
            goto err_sched;
        }
        /* Block r-k was read by reduce-scatter send k: overwrite it only
         * once that send is done. */
        status = loom_ring_add(&c, &(loom_step_desc_t){
                                   .type = LOOM_STEP_RECV, .peer = left,
                                   .tag_step = (uint32_t)(c.p - 1 + k),
                                   .dst = loom_ring_ptr(&c, c.r - k),
                                   .bytes = loom_ring_bytes(&c, c.r - k),
                                   .deps = { rs_send[k] }, .ndeps = 1 },
                               &ag_recv);
        if (status != LOOM_OK) {
            goto err_sched;
        }
    }

    free(rs_send);
    *sched_p = c.sched;
    return LOOM_OK;

err_sched:
    free(rs_send);
    loom_sched_destroy(c.sched);
    return status;
}
