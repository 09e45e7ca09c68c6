/*
 * Hierarchical allreduce over nodes and racks: reduce-scatter inside each
 * node, then inside each rack, an allreduce across racks driven by every
 * rank at once, then allgathers back down; pipelined in segments so that
 * the levels overlap.
 *
 *   rack 0: node A {a0 a1}  node B {b0}      rack 1: node C {c0 c1}
 *   S1 = 2 shards (largest node), S2 = 2 sub-shards (most nodes in a rack),
 *   R = 2 racks; shard s of a node goes to local rank s mod (its size),
 *   sub-shard t of a rack to the owner of s on the rack's node t mod (its
 *   node count):
 *
 *   1. node:  reduce-scatter into S1 shards    A: a0 <- 0 -> a1   C: c0, c1
 *                                              B: b0 holds 0 and 1
 *   2. rack:  per shard s, among its owners on the rack's nodes, a
 *             reduce-scatter into S2 sub-shards
 *               s=0: {a0, b0}: a0 owns (0,0), b0 owns (0,1)
 *               s=1: {a1, b0}: a1 owns (1,0), b0 owns (1,1)
 *               rack 1 has one node: c0 owns (0,*), c1 owns (1,*)
 *   3. racks: per sub-shard (s,t), a ring allreduce among its R owners,
 *             one per rack:  (0,0): {a0, c0}  (0,1): {b0, c0}
 *                            (1,0): {a1, c1}  (1,1): {b0, c1}
 *   4. rack:  allgather of the sub-shards     5. node: allgather of shards
 *
 * With one rack, step 2 is skipped and step 3 runs across nodes (the ring
 * per shard among its owners on every node): the two-level schedule.
 *
 * Every rank owns a shard and a sub-shard, so every rank drives the
 * network in step 3 (no leader); dealing round-robin lines up nodes of
 * uneven size and racks of uneven node counts, and a one-rank node or a
 * one-node rack owns everything at its level.  Each rack owns every
 * (s,t) exactly once, so its uplink carries 2(R-1)/R n bytes per
 * direction, the lower bound for an allreduce across R racks (n for two
 * racks).
 *
 * Pipelining: the message is cut into segments of seg_bytes x S1 S2 M
 * bytes (M = R, or the node count with one rack), so a message of the
 * top level is about seg_bytes, and every segment runs steps 1-5 with
 * dependencies of its own, no barrier between levels: segment k crosses
 * racks while segment k+1 is reduced inside the node.  depth scratch
 * areas bound the segments in flight: segment k+depth receives into
 * segment k's area only after every reduction of segment k that read it.
 * (seg_bytes 0: one segment; depth 0: 4.)  With more segments than
 * message tags allow, segments get larger, never fewer levels.
 *
 * Cost (loom_allreduce_hier_cost), per segment of b bytes, l ranks on the
 * largest node, m nodes in the largest rack, R racks; beta of a class is
 * per byte of its link: a rank's own path inside a node, a node's NIC
 * (shared by its l ranks) inside a rack, a rack's uplink (shared by its
 * ranks) across racks:
 *   node   t0 = 2(l-1) a0    + 2(l-1)/l b b0    + (l-1)/l b g
 *   rack   t1 = 2(m-1) k1 a1 + 2(m-1)/m b b1    + (m-1)/m b/l g
 *   racks  t2 = 2(R-1) k2 a2 + 2(R-1)/R b b2    + (R-1)/R b/(lm) g
 * and with G segments t0 + t1 + t2 + (G-1) max(t0, t1, t2): the startup
 * of every level plus the slowest level for the whole message.  k1 and
 * k2 are the most shards and sub-shards one rank owns (1 on even
 * layouts): a one-rank node next to nodes of three owns three shards and
 * sends every message of each, so on uneven layouts the alphas weigh
 * more and larger segments pay (on the emulated cluster's 3,1,2,1 layout
 * 64 KiB beat 16 KiB by 1.06 to 1.14 at 16 MiB).  A flat
 * ring pushes 2(p-1)/p n per rank through links of the slowest class,
 * the ranks of a rack all at once; here the uplink carries the minimum.
 * Wins for large messages when the links between racks (or nodes) are
 * the bottleneck; for small ones the 2(l-1) + 2(m-1) + 2(R-1) latencies
 * lose to logarithmic algorithms.
 *
 * Under a rank order (loom_sched_reduce_order) the layout lists each
 * node's ranks in position order, each rack's nodes and the racks in the
 * order of their first position (hier_layout.h): the shards, the
 * sub-shards and the ring across racks (or nodes) follow it.
 *
 * Commutative ops only (contributions meet in node and rack order).  Each
 * element is finished on one rank and copied to the others, so all ranks
 * end bitwise identical.
 */
#include "coll/core/allreduce/allreduce.h"
#include "coll/core/parts/hier_layout.h"
#include "coll/core/parts/partition.h"
#include "coll/core/parts/phase.h"
#include "coll/core/engine/sched_join.h"
#include "coll/core/engine/tag.h"

#include <stddef.h>
#include <stdint.h>

#define LOOM_HIER_DEFAULT_DEPTH 4

typedef struct loom_hier {
    loom_sched_t    *sched;
    char            *buf;           /* the receive buffer, where all work happens */
    size_t          esize;
    size_t          seg_off;        /* this segment: its first element */
    size_t          seg_count;      /* and its elements */
    int             S1;             /* shards per node: the largest node's size */
    int             S2;             /* sub-shards per shard: 1 with one rack */
    int             M;              /* members of a top-level ring */
    int             R;              /* racks */
    int             r;              /* this team rank */
    uint32_t        tag_base;       /* this segment's first tag step */
    int             slot_free;      /* step after which this segment's scratch is free */
    loom_hier_layout_t lay;
    int             *ring_ranks;    /* the ring's members, in ring order (M) */
    int             *ring_last;     /* the ring phases' last step per piece (M) */
    int             *ring_reader;   /* the ring's slot: the step that last read it (1) */
} loom_hier_t;

/* Dependencies without repeats (a step must not wait on one step twice)
 * and without the -1s of empty steps. */
static loom_deps_t loom_hier_deps(int a, int b, int c, int e)
{
    int in[4] = { a, b, c, e }, i, j;
    loom_deps_t d = { .n = 0 };

    for (i = 0; i < 4; ++i) {
        for (j = 0; j < d.n && d.d[j] != in[i]; ++j) {
        }
        if (in[i] >= 0 && j == d.n) {
            d.d[d.n++] = in[i];
        }
    }
    return d;
}

/* Elements of shard s, sub-shard (s,t), piece b of sub-shard (s,t), and
 * their offsets from the buffer's start. */
static size_t loom_hier_shard_count(const loom_hier_t *h, int s)
{
    return loom_block_count(h->seg_count, h->S1, s);
}

static size_t loom_hier_sub_count(const loom_hier_t *h, int s, int t)
{
    return loom_block_count(loom_hier_shard_count(h, s), h->S2, t);
}

static size_t loom_hier_sub_offset(const loom_hier_t *h, int s, int t)
{
    return h->seg_off + loom_block_offset(h->seg_count, h->S1, s) +
           loom_block_offset(loom_hier_shard_count(h, s), h->S2, t);
}

static char *loom_hier_shard(const loom_hier_t *h, int s, size_t *bytes_p)
{
    *bytes_p = loom_hier_shard_count(h, s) * h->esize;
    return h->buf + loom_hier_sub_offset(h, s, 0) * h->esize;
}

static char *loom_hier_sub(const loom_hier_t *h, int s, int t, size_t *bytes_p)
{
    *bytes_p = loom_hier_sub_count(h, s, t) * h->esize;
    return h->buf + loom_hier_sub_offset(h, s, t) * h->esize;
}

static char *loom_hier_piece(const loom_hier_t *h, int s, int t, int b, size_t *bytes_p)
{
    size_t sub = loom_hier_sub_count(h, s, t);

    *bytes_p = loom_block_count(sub, h->M, b) * h->esize;
    return h->buf + (loom_hier_sub_offset(h, s, t) + loom_block_offset(sub, h->M, b)) *
                        h->esize;
}

/* Tag steps within a segment, in order: node reduce-scatter (per shard),
 * rack reduce-scatter (per sub-shard), ring (per sub-shard and round),
 * rack allgather, node allgather.  Every message of a segment has a tag
 * of its own. */
static uint32_t loom_hier_tags_per_segment(int S1, int S2, int M)
{
    return (uint32_t)(2 * S1 + 2 * S1 * S2 + 2 * S1 * S2 * (M - 1));
}

static uint32_t loom_hier_tag_node_rs(const loom_hier_t *h, int s)
{
    return h->tag_base + (uint32_t)s;
}

static uint32_t loom_hier_tag_rack_rs(const loom_hier_t *h, int s, int t)
{
    return h->tag_base + (uint32_t)(h->S1 + s * h->S2 + t);
}

static uint32_t loom_hier_tag_ring(const loom_hier_t *h, int s, int t, int round)
{
    return h->tag_base +
           (uint32_t)(h->S1 + h->S1 * h->S2 + (s * h->S2 + t) * 2 * (h->M - 1) + round);
}

static uint32_t loom_hier_tag_rack_ag(const loom_hier_t *h, int s, int t)
{
    return h->tag_base +
           (uint32_t)(h->S1 + h->S1 * h->S2 * (1 + 2 * (h->M - 1)) + s * h->S2 + t);
}

static uint32_t loom_hier_tag_node_ag(const loom_hier_t *h, int s)
{
    return h->tag_base + (uint32_t)(h->S1 + h->S1 * h->S2 * 2 * h->M + s);
}

/* The owner of shard s on node x is local rank s mod its size; the owner
 * of sub-shard (s,t) in rack y is the owner of s on the rack's node
 * t mod its node count. */
static int loom_hier_rack_owner(const loom_hier_t *h, int y, int s, int t)
{
    return loom_hier_owner(&h->lay, loom_hier_rack_node(&h->lay, y, t), s);
}

/* Member i of the top-level ring on (s,t): the owner in the rack at rack
 * position i, or with one rack the owner of shard s on the rack's node i
 * (in the order of the layout: rack or node i itself without a rank
 * order). */
static int loom_hier_member(const loom_hier_t *h, int s, int t, int i)
{
    return h->R > 1 ? loom_hier_rack_owner(h, h->lay.rack_at[i], s, t)
                    : loom_hier_owner(&h->lay, loom_hier_node(&h->lay, 0, i), s);
}

/* The ring across racks (or nodes) on (s,t): its piece j is the
 * sub-shard's piece j+1 (mod M), so that member m ends the
 * reduce-scatter with piece m+1, as the flat ring allreduce does. */
typedef struct loom_hier_ring_cut {
    const loom_hier_t   *h;
    int                 s, t;
} loom_hier_ring_cut_t;

static loom_phase_block_t loom_hier_ring_block(const loom_phase_cut_t *cut, int j)
{
    const loom_hier_ring_cut_t *c = cut->ctx;
    size_t bytes;
    char *at = loom_hier_piece(c->h, c->s, c->t, j + 1 == c->h->M ? 0 : j + 1, &bytes);

    return (loom_phase_block_t){ .at = at, .in = at, .n = bytes / c->h->esize };
}

/* The ring across racks (or nodes) on (s,t): a reduce-scatter ring and an
 * allgather ring (phase.h) among its M members, whole pieces, one scratch
 * slot (free once the segment that used this area before is done with
 * it).  Returns the step after which the sub-shard is final here.  done:
 * its reduction below this level, which every piece waits for. */
static int loom_hier_ring(loom_hier_t *h, int s, int t, int done, char *scratch)
{
    loom_sched_t *sched = h->sched;
    loom_hier_ring_cut_t rc = { .h = h, .s = s, .t = t };
    loom_slots_t slot = { .base = scratch, .depth = 1, .reader = h->ring_reader };
    loom_ring_phase_t ph = {
        .sched = sched, .ranks = h->ring_ranks, .n = h->M, .last = h->ring_last,
        .cut = { .block = loom_hier_ring_block, .esize = h->esize, .ctx = &rc },
        .segs = { .seg = SIZE_MAX, .nseg_max = 1 }, .slots = &slot,
        .tag_base = loom_hier_tag_ring(h, s, t, 0),
    };
    int first = sched->nsteps, last, i;

    for (i = 0; i < h->M; ++i) {
        h->ring_ranks[i] = loom_hier_member(h, s, t, i);
        ph.me = h->ring_ranks[i] == h->r ? i : ph.me;
        h->ring_last[i] = done;
    }
    h->ring_reader[0] = h->slot_free;
    loom_phase_rs_ring(&ph);
    ph.tag_base = loom_hier_tag_ring(h, s, t, h->M - 1);
    loom_phase_ag_ring(&ph);
    last = loom_sched_join(sched, first, sched->nsteps);
    return last >= 0 ? last : done;
}

/* Scratch one segment needs on this rank: per owned shard, l-1 shards
 * for the node level, and per owned sub-shard, the rack's other nodes'
 * contributions and the ring's slot.  Sizes of the largest segment. */
typedef struct loom_hier_scratch {
    size_t  shard_max, sub_max, piece_max;  /* bytes */
    size_t  per_sub;        /* rack level + ring, per owned sub-shard */
    size_t  per_shard;      /* node level + owned sub-shards, per owned shard */
} loom_hier_scratch_t;

static loom_hier_scratch_t loom_hier_scratch_plan(const loom_hier_t *h, size_t seg_max)
{
    const loom_hier_layout_t *l = &h->lay;
    int local = l->node_size[l->me_node], nodes = h->R > 1 ? l->rack_size[l->me_rack] : 1;
    int owned_subs = 0, t;
    loom_hier_scratch_t sc;
    size_t shard = loom_block_count(seg_max, h->S1, 0), sub = loom_block_count(shard, h->S2, 0);

    for (t = h->R > 1 ? l->me_node_in_rack : 0; t < h->S2; t += nodes) {
        ++owned_subs;
    }
    sc.shard_max = shard * h->esize;
    sc.sub_max = sub * h->esize;
    sc.piece_max = loom_block_count(sub, h->M, 0) * h->esize;
    sc.per_sub = (size_t)(nodes - 1) * sc.sub_max + sc.piece_max;
    sc.per_shard = (size_t)(local - 1) * sc.shard_max + (size_t)owned_subs * sc.per_sub;
    return sc;
}

/* Steps 2-4 for shard s, owned here: the rack's reduce-scatter, a ring
 * per owned sub-shard, the rack's allgather.  Returns the step after
 * which the shard is final here.  done: its node-level reduction. */
static int loom_hier_rack(loom_hier_t *h, int s, int done, char *scratch,
                          const loom_hier_scratch_t *sc, int *send2, int *done3)
{
    const loom_hier_layout_t *l = &h->lay;
    int y = l->me_rack, nodes = l->rack_size[y], first = h->sched->nsteps;
    int t, i, o, from, rv, acc, x, last;
    size_t bytes;
    char *data, *area, *slot;

    /* With one rack, only the ring across nodes: it joins its own steps. */
    if (h->R == 1) {
        return h->M > 1 ? loom_hier_ring(h, s, 0, done, scratch) : done;
    }
    /* Reduce-scatter inside the rack: each sub-shard to its owner. */
    for (t = 0, x = 0; t < h->S2; ++t) {
        o = loom_hier_rack_owner(h, y, s, t);
        data = loom_hier_sub(h, s, t, &bytes);
        send2[t] = -1;
        done3[t] = done;
        if (o != h->r) {
            send2[t] = loom_sched_send(h->sched, o, loom_hier_tag_rack_rs(h, s, t), data, bytes,
                                       loom_hier_deps(done, -1, -1, -1));
            continue;
        }
        area = scratch + (size_t)x * sc->per_sub;
        acc = done;
        for (i = 0; i < nodes; ++i) {
            if (i == l->me_node_in_rack) {
                continue;
            }
            from = loom_hier_owner(l, loom_hier_node(l, y, i), s);
            slot = area + (size_t)(i < l->me_node_in_rack ? i : i - 1) * sc->sub_max;
            rv = loom_sched_recv(h->sched, from, loom_hier_tag_rack_rs(h, s, t), slot, bytes,
                                 loom_hier_deps(h->slot_free, -1, -1, -1));
            acc = loom_sched_reduce(h->sched, slot, data, bytes,
                                    loom_hier_deps(rv, acc, done, -1));
        }
        /* Across racks. */
        done3[t] = loom_hier_ring(h, s, t, acc, area + (size_t)(nodes - 1) * sc->sub_max);
        ++x;
    }
    /* Allgather inside the rack: each owner hands its sub-shards on. */
    for (t = 0; t < h->S2; ++t) {
        o = loom_hier_rack_owner(h, y, s, t);
        data = loom_hier_sub(h, s, t, &bytes);
        if (o != h->r) {
            loom_sched_recv(h->sched, o, loom_hier_tag_rack_ag(h, s, t), data, bytes,
                            loom_hier_deps(send2[t], done, -1, -1));
            continue;
        }
        for (i = 0; i < nodes; ++i) {
            if (i != l->me_node_in_rack) {
                loom_sched_send(h->sched, loom_hier_owner(l, loom_hier_node(l, y, i), s),
                                loom_hier_tag_rack_ag(h, s, t), data, bytes,
                                loom_hier_deps(done3[t], done, -1, -1));
            }
        }
    }
    last = loom_sched_join(h->sched, first, h->sched->nsteps);
    return last >= 0 ? last : done;
}

/* One segment, steps 1-5.  c0: the input's copy into the receive buffer.
 * Returns the step after which the segment's scratch is free again: each
 * owned shard's result waits for every reduce that read scratch for it. */
static int loom_hier_segment(loom_hier_t *h, int c0, char *scratch,
                              const loom_hier_scratch_t *sc, int *ints)
{
    const loom_hier_layout_t *l = &h->lay;
    int me_node = l->me_node, local = l->node_size[me_node];
    int *send1 = ints, *done = send1 + h->S1, *send2 = done + h->S1, *done3 = send2 + h->S2;
    int s, j, q, x, o, acc, rv, from, to, free_step;
    size_t bytes;
    char *data, *slot;

    /* 1. Inside the node: each shard to its owner, reduced there. */
    for (s = 0, j = 0; s < h->S1; ++s) {
        o = loom_hier_owner(l, me_node, s);
        data = loom_hier_shard(h, s, &bytes);
        done[s] = -1;
        send1[s] = -1;
        if (o != h->r) {
            send1[s] = loom_sched_send(h->sched, o, loom_hier_tag_node_rs(h, s), data, bytes,
                                       loom_hier_deps(c0, -1, -1, -1));
            continue;
        }
        acc = c0;
        for (q = 0, x = 0; q < local; ++q) {
            from = loom_hier_rank(l, me_node, q);
            if (from == h->r) {
                continue;
            }
            slot = scratch + (size_t)j * sc->per_shard + (size_t)x * sc->shard_max;
            rv = loom_sched_recv(h->sched, from, loom_hier_tag_node_rs(h, s), slot, bytes,
                                 loom_hier_deps(h->slot_free, -1, -1, -1));
            acc = loom_sched_reduce(h->sched, slot, data, bytes, loom_hier_deps(rv, acc, c0, -1));
            ++x;
        }
        done[s] = acc;
        ++j;
    }
    /* 2-4. Inside the rack and across racks, per owned shard. */
    for (s = l->me_local, j = 0; s < h->S1; s += local, ++j) {
        done[s] = loom_hier_rack(h, s, done[s],
                                 scratch + (size_t)j * sc->per_shard +
                                     (size_t)(local - 1) * sc->shard_max,
                                 sc, send2, done3);
    }
    /* done[] is -1 for the shards owned elsewhere: joins the owned ones. */
    free_step = loom_sched_join_steps(h->sched, done, h->S1);
    /* 5. Inside the node: each owner hands its shards to the others. */
    for (s = 0; s < h->S1; ++s) {
        o = loom_hier_owner(l, me_node, s);
        data = loom_hier_shard(h, s, &bytes);
        if (o != h->r) {
            loom_sched_recv(h->sched, o, loom_hier_tag_node_ag(h, s), data, bytes,
                            loom_hier_deps(send1[s], c0, -1, -1));
            continue;
        }
        for (q = 0; q < local; ++q) {
            to = loom_hier_rank(l, me_node, q);
            if (to != h->r) {
                loom_sched_send(h->sched, to, loom_hier_tag_node_ag(h, s), data, bytes,
                                loom_hier_deps(done[s], c0, -1, -1));
            }
        }
    }
    return free_step;
}

loom_status_t loom_allreduce_hier_plan(const loom_coll_args_t *args, loom_team_t *team,
                                       loom_sched_t **sched_p)
{
    loom_hier_t h = {
        .buf = args->recvbuf, .esize = args->elem_size, .R = team->num_racks,
        .r = team->rank,
    };
    int p = team->size, depth = args->depth > 0 ? args->depth : LOOM_HIER_DEFAULT_DEPTH;
    int c0, k, *ints, *slot_free;
    size_t seg_elems, nseg, seg_max, slot_bytes, pieces;
    uint32_t tags;
    loom_hier_scratch_t sc;
    loom_status_t status;
    char *scratch;

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
    /* Bookkeeping after the layout: per segment the node level's sends
     * and results per shard, the rack level's per sub-shard, the ring's
     * members, per piece its last step, and its slot's reader; per
     * scratch area, the step that frees it. */
    status = loom_hier_layout_init_ordered(&h.lay, team, h.sched, loom_sched_reduce_order(h.sched),
                                           2 * p + 4 * team->num_nodes + 1 + depth, &ints);
    if (status != LOOM_OK) {
        goto out;
    }
    h.S1 = h.lay.max_node;
    h.S2 = h.R > 1 ? h.lay.max_rack : 1;
    h.M = h.R > 1 ? h.R : h.lay.N;
    h.ring_ranks = ints + 2 * h.S1 + 2 * h.S2;
    h.ring_last = h.ring_ranks + h.M;
    h.ring_reader = h.ring_last + h.M;
    slot_free = h.ring_reader + 1;
    /* Every message of the schedule needs a tag of its own: decline when
     * one segment does not fit (a function of the team only, so every
     * rank declines), take larger segments when many do not. */
    if ((uint64_t)2 * (uint64_t)h.S1 * (1 + (uint64_t)h.S2 * (uint64_t)h.M) >
        LOOM_TAG_MAX_STEPS) {
        loom_sched_destroy(h.sched);
        return LOOM_ERR_UNSUPPORTED;
    }
    tags = loom_hier_tags_per_segment(h.S1, h.S2, h.M);
    /* A segment holds seg_bytes per top-level piece. */
    pieces = (size_t)h.S1 * (size_t)h.S2 * (size_t)h.M;
    seg_elems = args->seg_bytes >= h.esize ? args->seg_bytes / h.esize * pieces : args->count;
    nseg = (args->count + seg_elems - 1) / seg_elems;
    if (nseg > LOOM_TAG_MAX_STEPS / tags) {
        nseg = LOOM_TAG_MAX_STEPS / tags;
    }
    seg_max = loom_block_count(args->count, (int)nseg, 0);
    depth = (size_t)depth < nseg ? depth : (int)nseg;
    sc = loom_hier_scratch_plan(&h, seg_max);
    slot_bytes = (size_t)((h.S1 - 1 - h.lay.me_local) / h.lay.node_size[h.lay.me_node] + 1) *
                 sc.per_shard;
    status = loom_sched_alloc_scratch(h.sched, (size_t)depth * slot_bytes + 1,
                                      (void **)&scratch);
    if (status != LOOM_OK) {
        goto out;
    }
    for (k = 0; k < depth; ++k) {
        slot_free[k] = -1;
    }
    for (k = 0; k < (int)nseg; ++k) {
        h.seg_off = loom_block_offset(args->count, (int)nseg, k);
        h.seg_count = loom_block_count(args->count, (int)nseg, k);
        h.tag_base = (uint32_t)k * tags;
        h.slot_free = slot_free[k % depth];
        slot_free[k % depth] = loom_hier_segment(&h, c0, scratch + (size_t)(k % depth) *
                                                                 slot_bytes, &sc, ints);
    }
out:
    return loom_sched_plan_done(h.sched, sched_p);
}

double loom_allreduce_hier_cost(const loom_cost_t cls[3], int ranks_per_node_max,
                                int nodes_per_rack_max, int racks, const int owned[2],
                                double n_bytes, double seg_bytes)
{
    double l = ranks_per_node_max > 1 ? ranks_per_node_max : 1;
    double m = nodes_per_rack_max > 1 ? nodes_per_rack_max : 1, R = racks > 1 ? racks : 1;
    double k1 = owned != NULL && owned[0] > 1 ? owned[0] : 1;
    double k2 = owned != NULL && owned[1] > 1 ? owned[1] : 1;
    double pieces = l * m * R, nseg, b, t[3], sum = 0, slowest = 0;
    int i;

    nseg = seg_bytes > 0 ? loom_cost_nseg(n_bytes, seg_bytes * pieces) : 1;
    b = n_bytes / nseg;
    t[0] = 2 * (l - 1) * cls[0].alpha + 2 * (l - 1) / l * b * cls[0].beta +
           (l - 1) / l * b * cls[0].gamma;
    t[1] = 2 * (m - 1) * k1 * cls[1].alpha + 2 * (m - 1) / m * b * cls[1].beta +
           (m - 1) / m * b / l * cls[1].gamma;
    t[2] = 2 * (R - 1) * k2 * cls[2].alpha + 2 * (R - 1) / R * b * cls[2].beta +
           (R - 1) / R * b / (l * m) * cls[2].gamma;
    for (i = 0; i < 3; ++i) {
        sum += t[i];
        slowest = t[i] > slowest ? t[i] : slowest;
    }
    return sum + (nseg - 1) * slowest;
}
