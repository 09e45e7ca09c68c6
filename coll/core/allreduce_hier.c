/*
 * Hierarchical allreduce over nodes: reduce-scatter inside each node, an
 * allreduce per shard across nodes driven by every local rank at once,
 * then an allgather inside each node.
 *
 *   node A: a0 a1 a2        node B: b0 b1          S = 3 shards (the most
 *                                                  ranks on any node)
 *   1. inside a node, shard s goes to its owner, local rank s mod l:
 *        A: a0 owns 0, a1 owns 1, a2 owns 2;  B: b0 owns 0 and 2, b1 owns 1
 *   2. the owners of shard s, one per node, run a ring allreduce on it:
 *        {a0, b0} on shard 0, {a1, b1} on shard 1, {a2, b0} on shard 2
 *   3. each owner sends its finished shards to the other local ranks.
 *
 * Every local rank drives the network in step 2 (not one leader), shards
 * are dealt round-robin so nodes of uneven size still line up, and a node
 * of one rank owns every shard.
 *
 * Cost, n bytes, l ranks on the largest node, N nodes, a/b per link class:
 *   (l-1)(a_in + n/l b_in)         reduce-scatter inside (direct sends)
 * + 2(N-1)(a_out + n/(lN) b_out)  + (N-1)/N n/l g   ring across, per shard
 * + (l-1)(a_in + n/l b_in)         allgather inside
 * Across nodes each rank moves 2(N-1)/N n/l bytes, l times less than a
 * flat ring moves over the same node link when the l ranks of a node share
 * it: wins when the link between nodes is the bottleneck.
 *
 * Commutative ops only (contributions meet in node order).  Each element
 * is finished on one rank and copied to the others, so all ranks end
 * bitwise identical.
 */
#include "allreduce.h"
#include "hier_layout.h"
#include "partition.h"
#include "sched_join.h"
#include "tag.h"

#include <stddef.h>

typedef struct loom_hier {
    loom_sched_t    *sched;
    char            *buf;           /* the receive buffer, where all work happens */
    size_t          count, esize;
    int             S;              /* shards */
    int             N;              /* nodes */
    int             r;              /* this team rank */
    loom_hier_layout_t lay;
    int             *rs_send;       /* the ring's reduce-scatter steps, per round */
    int             *rs_red;
} loom_hier_t;

/* Dependencies a, b, c without repeats (a step must not wait on one step
 * twice) and without the -1s of empty steps. */
static loom_deps_t loom_hier_deps(int a, int b, int c)
{
    int in[3] = { a, b, c }, i, j;
    loom_deps_t d = { .n = 0 };

    for (i = 0; i < 3; ++i) {
        for (j = 0; j < d.n && d.d[j] != in[i]; ++j) {
        }
        if (in[i] >= 0 && j == d.n) {
            d.d[d.n++] = in[i];
        }
    }
    return d;
}

static char *loom_hier_shard(const loom_hier_t *h, int s, size_t *bytes_p)
{
    *bytes_p = loom_block_count(h->count, h->S, s) * h->esize;
    return h->buf + loom_block_offset(h->count, h->S, s) * h->esize;
}

/* Sub-block b of N of shard s. */
static char *loom_hier_sub(const loom_hier_t *h, int s, int b, size_t *bytes_p)
{
    size_t shard = loom_block_count(h->count, h->S, s);

    *bytes_p = loom_block_count(shard, h->N, b) * h->esize;
    return h->buf + (loom_block_offset(h->count, h->S, s) + loom_block_offset(shard, h->N, b)) *
                        h->esize;
}

/* Tags: step 1 uses s, step 2 S + s 2(N-1) + round, step 3 after both. */
static uint32_t loom_hier_tag2(const loom_hier_t *h, int s, int round)
{
    return (uint32_t)(h->S + s * 2 * (h->N - 1) + round);
}

static uint32_t loom_hier_tag3(const loom_hier_t *h, int s)
{
    return (uint32_t)(h->S + h->S * 2 * (h->N - 1) + s);
}

/* The ring across nodes on shard s; returns the step after which the
 * shard is final here.  done1: the shard's reduction inside the node. */
static int loom_hier_ring(loom_hier_t *h, int s, int done1, char *scratch)
{
    loom_sched_t *sched = h->sched;
    int N = h->N, m, k, first = sched->nsteps, right, left, last;
    int send = -1, recv, red = -1, reader = -1;
    size_t bytes, rbytes;
    char *sb, *rb;

    /* Members are the owners of s, one per node, in node order: this
     * rank is member m = its node. */
    for (m = 0; m < N; ++m) {
        if (loom_hier_owner(&h->lay, m, s) == h->r) {
            break;
        }
    }
    right = loom_hier_owner(&h->lay, (m + 1) % N, s);
    left = loom_hier_owner(&h->lay, (m + N - 1) % N, s);
    /* Reduce-scatter ring: in round k send sub-block m-k, receive m-k-1
     * and reduce it; after N-1 rounds sub-block m+1 is final here. */
    for (k = 0; k < N - 1; ++k) {
        sb = loom_hier_sub(h, s, loom_mod(m - k, N), &bytes);
        send = loom_sched_send(sched, right, loom_hier_tag2(h, s, k), sb, bytes,
                               loom_hier_deps(k == 0 ? done1 : red, done1, -1));
        rb = loom_hier_sub(h, s, loom_mod(m - k - 1, N), &rbytes);
        /* One scratch slot: a receive waits for the last reduce that read it. */
        recv = loom_sched_recv(sched, left, loom_hier_tag2(h, s, k), scratch, rbytes,
                               loom_hier_deps(reader, -1, -1));
        red = loom_sched_reduce(sched, scratch, rb, rbytes, loom_hier_deps(recv, red, done1));
        reader = red >= 0 ? red : reader;
        h->rs_send[k] = send;
        h->rs_red[k] = red;
    }
    /* Allgather ring: in round k send sub-block m+1-k, receive m-k in
     * place, once the reduce-scatter is done reading and writing it. */
    last = red;
    for (k = 0; k < N - 1; ++k) {
        sb = loom_hier_sub(h, s, loom_mod(m + 1 - k, N), &bytes);
        send = loom_sched_send(sched, right, loom_hier_tag2(h, s, N - 1 + k), sb, bytes,
                               loom_hier_deps(last, red, done1));
        rb = loom_hier_sub(h, s, loom_mod(m - k, N), &rbytes);
        last = loom_sched_recv(sched, left, loom_hier_tag2(h, s, N - 1 + k), rb, rbytes,
                               loom_hier_deps(h->rs_send[k], k > 0 ? h->rs_red[k - 1] : -1, done1));
    }
    last = loom_sched_join(sched, first, sched->nsteps);
    return last >= 0 ? last : done1;
}

loom_status_t loom_allreduce_hier_plan(const loom_coll_args_t *args, loom_team_t *team,
                                       loom_sched_t **sched_p)
{
    loom_hier_t h = {
        .buf = args->recvbuf, .count = args->count, .esize = args->elem_size,
        .N = team->num_nodes, .r = team->rank,
    };
    int p = team->size, me_node = team->node_of[team->rank], l, me = 0, s, x, j, q;
    int c0, owned = 0, o, acc, rv, *ints, *send1, *done;
    size_t shard_max, sub_max, bytes, slot1, slot2;
    loom_status_t status;
    char *scratch, *data;

    if (!args->op.commutative) {
        return LOOM_ERR_UNSUPPORTED;
    }
    status = loom_sched_create(team, args, LOOM_ALLREDUCE_HIER, &h.sched);
    if (status != LOOM_OK) {
        return status;
    }
    c0 = loom_sched_copy_input(h.sched);
    if (p == 1 || args->count == 0) {
        goto out;
    }
    /* Ranks by node, the shard count (the largest node's size), per shard
     * the step-1 send and the step after which it is final here, and the
     * ring's bookkeeping. */
    status = loom_hier_layout_init(&h.lay, team, h.sched, 2 * p + 2 * h.N, &ints);
    if (status != LOOM_OK) {
        goto out;
    }
    send1 = ints;
    done = send1 + p;
    h.rs_send = done + p;
    h.rs_red = h.rs_send + h.N;
    h.S = h.lay.max_node;
    me = h.lay.me_local;
    /* Every step needs a tag of its own within the schedule. */
    if ((uint64_t)2 * (uint64_t)h.S * (uint64_t)h.N > LOOM_TAG_MAX_STEPS) {
        loom_sched_destroy(h.sched);
        return LOOM_ERR_UNSUPPORTED;
    }
    l = h.lay.node_size[me_node];
    for (s = me; s < h.S; s += l) {
        ++owned;
    }
    shard_max = loom_block_count(h.count, h.S, 0) * h.esize;
    sub_max = loom_block_count(loom_block_count(h.count, h.S, 0), h.N, 0) * h.esize;
    slot1 = (size_t)(l - 1) * shard_max;
    slot2 = sub_max;
    status = loom_sched_alloc_scratch(h.sched, (size_t)owned * (slot1 + slot2) + 1,
                                      (void **)&scratch);
    if (status != LOOM_OK) {
        goto out;
    }

    /* 1. Inside the node: each shard to its owner, reduced there. */
    for (s = 0, j = 0; s < h.S; ++s) {
        o = loom_hier_owner(&h.lay, me_node, s);
        data = loom_hier_shard(&h, s, &bytes);
        done[s] = -1;
        send1[s] = -1;
        if (o != h.r) {
            send1[s] = loom_sched_send(h.sched, o, (uint32_t)s, data, bytes, loom_hier_deps(c0, -1, -1));
            continue;
        }
        acc = c0;
        for (q = 0, x = 0; q < l; ++q) {
            int from = loom_hier_rank(&h.lay, me_node, q);
            char *slot = scratch + (size_t)j * (slot1 + slot2) + (size_t)x * shard_max;

            if (from == h.r) {
                continue;
            }
            rv = loom_sched_recv(h.sched, from, (uint32_t)s, slot, bytes, LOOM_NO_DEPS);
            acc = loom_sched_reduce(h.sched, slot, data, bytes, loom_hier_deps(rv, acc, c0));
            ++x;
        }
        done[s] = acc;
        ++j;
    }
    /* 2. Across nodes: a ring per owned shard. */
    for (s = me, j = 0; h.N > 1 && s < h.S; s += l, ++j) {
        done[s] = loom_hier_ring(&h, s, done[s], scratch + (size_t)j * (slot1 + slot2) + slot1);
    }
    /* 3. Inside the node: each owner hands its shards to the others. */
    for (s = 0; s < h.S; ++s) {
        o = loom_hier_owner(&h.lay, me_node, s);
        data = loom_hier_shard(&h, s, &bytes);
        if (o != h.r) {
            loom_sched_recv(h.sched, o, loom_hier_tag3(&h, s), data, bytes,
                            loom_hier_deps(send1[s], c0, -1));
            continue;
        }
        for (q = 0; q < l; ++q) {
            int to = loom_hier_rank(&h.lay, me_node, q);

            if (to != h.r) {
                loom_sched_send(h.sched, to, loom_hier_tag3(&h, s), data, bytes,
                                loom_hier_deps(done[s], c0, -1));
            }
        }
    }
out:
    return loom_sched_plan_done(h.sched, sched_p);
}
