/*
 * The verifier's simulation: every rank's steps, executed here, in a random
 * order among everything that could happen next.
 *
 * The possible actions are kept in two arrays: "start step s of rank r"
 * once its dependencies are done, and "complete the matched pair" once a
 * send and a receive have met.  Each round picks one uniformly (seeded)
 * among both, or among starts first (loom_verify_order_t), and
 * swap-removes it, so an action costs O(1) plus the bytes it touches.
 * Reductions and copies run at once when started; messages are posted, meet
 * their partner in a hash table keyed by (source, target, full tag), and
 * move their data only when the completion is picked, as late as a
 * rendezvous transport may deliver it.
 *
 * Memory ownership is tracked per element (the shadow): an in-flight send
 * reads its source, an in-flight receive owns its target.  A step that
 * writes what an in-flight message reads or writes, or reads what an
 * in-flight receive writes, is a hazard: on a real transport its outcome
 * depends on timing.
 *
 * Steps the data decides (sched.h) run as the executor runs them:
 *   - a compute step calls its function on the rank's memory when it
 *     starts.  The memory its plan declared it reads and writes
 *     (loom_sched_compute_reads/_writes) is checked as a copy's operands
 *     are, before the function runs: a declared read or write of memory
 *     an in-flight message owns is a hazard, a declared read of memory
 *     nothing wrote is uninitialized (a read of run-time length checks
 *     the length *len_at holds when the step starts); once the function
 *     returned, what it declared it writes counts as written, in full.
 *     What it touches without declaring stays opaque: checked against
 *     nothing, and still unwritten for later steps.  An error it
 *     returns, or a second arm it takes, is BAD_STEP; a compute step of
 *     an arm not taken neither runs nor writes.
 *   - a step of run-time length reads *len_at when it starts: over its
 *     bound, or not whole elements, is BAD_STEP; 0 is done at once with no
 *     message; otherwise it runs with that length, and a send and the
 *     receive it meets must agree on it (SIZE_MISMATCH).  Its operands are
 *     checked at setup over the whole bound, as any step's.
 *   - a step of an arm that becomes ready before the schedule took one is
 *     BAD_STEP; of another arm than the one taken, done at once.
 */
#include "verifier_internal.h"
#include "coll/core/engine/tag.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

static uint64_t vf_rand(vf_t *vf)
{
    /* xorshift64*: plenty for picking among actions, and reproducible. */
    vf->rng ^= vf->rng >> 12;
    vf->rng ^= vf->rng << 25;
    vf->rng ^= vf->rng >> 27;
    return vf->rng * UINT64_C(0x2545F4914F6CDD1D);
}

static int vf_push(vf_t *vf, int rank, int step, int peer_rank, int peer_step)
{
    vf_action_list_t *list = peer_rank < 0 ? &vf->starts : &vf->deliveries;
    vf_action_t *a;
    size_t cap;

    if (list->n == list->cap) {
        cap = list->cap ? 2 * list->cap : 1024;
        a = realloc(list->a, cap * sizeof(*a));
        if (a == NULL) {
            return -1;
        }
        list->a = a;
        list->cap = cap;
    }
    list->a[list->n++] = (vf_action_t){ rank, step, peer_rank, peer_step };
    return 0;
}

/* Takes the next action, as the order asks; 0 when none is left. */
static int vf_pick(vf_t *vf, vf_action_t *a_p)
{
    size_t total = vf->starts.n + vf->deliveries.n, i;
    vf_action_list_t *list;

    if (total == 0) {
        return 0;
    }
    if (vf->params->order == LOOM_VERIFY_ORDER_LATE_DELIVERY) {
        list = vf->starts.n > 0 ? &vf->starts : &vf->deliveries;
        i = (size_t)(vf_rand(vf) % list->n);
    } else {
        i = (size_t)(vf_rand(vf) % total);
        list = i < vf->starts.n ? &vf->starts : &vf->deliveries;
        i = i < vf->starts.n ? i : i - vf->starts.n;
    }
    *a_p = list->a[i];
    list->a[i] = list->a[--list->n];
    return 1;
}

static const loom_step_desc_t *vf_desc(const vf_t *vf, int rank, int step)
{
    return &vf->ranks[rank].sched->steps[step].desc;
}

/* ---------------------------------------------------------- match table */

/* The key exactly as the executor builds it: each side uses its own
 * team's context, its own schedule's sequence number and algorithm, so
 * ranks that disagree on any of them never match. */
static void vf_msg_key(const vf_t *vf, int rank, int step, vf_msg_t *m)
{
    const loom_sched_t *sched = vf->ranks[rank].sched;
    const loom_step_desc_t *d = vf_desc(vf, rank, step);

    m->is_recv = d->type == LOOM_STEP_RECV;
    m->src = m->is_recv ? d->peer : rank;
    m->dst = m->is_recv ? rank : d->peer;
    m->tag = loom_tag_make(sched->team->context_id, m->src, sched->seq,
                           sched->alg_id, d->tag_step);
    m->rank = rank;
    m->step = step;
    m->matched = 0;
    m->home = (uint32_t)(vf_mix64(m->tag ^ ((uint64_t)(uint32_t)m->dst << 40) ^
                                  (uint64_t)(uint32_t)m->src) & (vf->table_size - 1));
}

static int vf_same_key(const vf_msg_t *a, const vf_msg_t *b)
{
    return a->tag == b->tag && a->src == b->src && a->dst == b->dst;
}

static vf_step_t *vf_step_of(vf_t *vf, const vf_msg_t *m)
{
    return &vf->steps[vf->ranks[m->rank].base + m->step];
}

/* Puts m into its first free slot from home on (the table has one). */
static size_t vf_table_put(vf_t *vf, const vf_msg_t *m)
{
    size_t mask = vf->table_size - 1, i = m->home;

    while (vf->table[i].rank >= 0) {
        i = (i + 1) & mask;
    }
    vf->table[i] = *m;
    vf_step_of(vf, m)->msg = (int32_t)i;
    return i;
}

static int vf_table_grow(vf_t *vf)
{
    vf_msg_t *old = vf->table, m;
    size_t old_size = vf->table_size, i;

    vf->table_size = old_size ? 2 * old_size : 4096;
    vf->table = malloc(vf->table_size * sizeof(*vf->table));
    if (vf->table == NULL) {
        vf->table = old;
        vf->table_size = old_size;
        return -1;
    }
    for (i = 0; i < vf->table_size; ++i) {
        vf->table[i].rank = -1;
    }
    for (i = 0; i < old_size; ++i) {
        if (old[i].rank >= 0) {
            vf_msg_key(vf, old[i].rank, old[i].step, &m);  /* new home */
            m.matched = old[i].matched;
            vf_table_put(vf, &m);
        }
    }
    free(old);
    return 0;
}

/* Frees the slot of (rank, step), shifting back later entries of the
 * probe run so that no lookup stops early at the hole. */
static void vf_msg_remove(vf_t *vf, int rank, int step)
{
    vf_step_t *st = &vf->steps[vf->ranks[rank].base + step];
    size_t mask = vf->table_size - 1, i = (size_t)st->msg, j = i, home;

    vf->table[i].rank = -1;
    for (;;) {
        j = (j + 1) & mask;
        if (vf->table[j].rank < 0) {
            break;
        }
        home = vf->table[j].home;
        /* An entry whose home lies cyclically in (i, j] stays put. */
        if (i < j ? (home > i && home <= j) : (home > i || home <= j)) {
            continue;
        }
        vf->table[i] = vf->table[j];
        vf_step_of(vf, &vf->table[i])->msg = (int32_t)i;
        vf->table[j].rank = -1;
        i = j;
    }
    st->msg = -1;
    --vf->msgs_live;
}

/* Posts the message of (rank, step): matches it with a waiting partner or
 * leaves it in the table. */
static int vf_post(vf_t *vf, int rank, int step)
{
    size_t mask, i, partner = SIZE_MAX, mine;
    const vf_msg_t *m, *send, *recv;
    char a[160], b[160];
    vf_msg_t key;

    if (2 * (vf->msgs_live + 1) > vf->table_size && vf_table_grow(vf) != 0) {
        return vf_no_memory(vf);
    }
    mask = vf->table_size - 1;
    vf_msg_key(vf, rank, step, &key);
    /* Every entry with this key sits in the run from home to a free slot. */
    for (i = key.home; vf->table[i].rank >= 0; i = (i + 1) & mask) {
        m = &vf->table[i];
        if (!vf_same_key(m, &key)) {
            continue;
        }
        if (m->is_recv == key.is_recv) {
            /* Neither waits for the other (a step waits only for completed
             * ones), so which one the peer matches first is up to timing. */
            return vf_fail(vf, LOOM_VERIFY_AMBIGUOUS_TAG,
                           "ambiguous tag: rank %d %s and %s are in flight together "
                           "with the same source %d, target %d and tag; which one "
                           "the peer's step matches depends on timing",
                           rank, vf_describe(vf, m->rank, m->step, a, sizeof(a)),
                           vf_describe(vf, rank, step, b, sizeof(b)), key.src, key.dst);
        }
        if (!m->matched && partner == SIZE_MAX) {
            partner = i;
        }
    }
    ++vf->msgs_live;
    if (partner == SIZE_MAX) {
        vf_table_put(vf, &key);
        vf->steps[vf->ranks[rank].base + step].state = VF_POSTED;
        return 0;
    }

    key.matched = 1;
    mine = vf_table_put(vf, &key);
    send = key.is_recv ? &vf->table[partner] : &vf->table[mine];
    recv = key.is_recv ? &vf->table[mine] : &vf->table[partner];
    if (vf_bytes(vf, send->rank, send->step) != vf_bytes(vf, recv->rank, recv->step)) {
        return vf_fail(vf, LOOM_VERIFY_SIZE_MISMATCH,
                       "size mismatch: rank %d %s meets rank %d %s: %zu bytes "
                       "sent, %zu expected",
                       send->rank, vf_describe(vf, send->rank, send->step, a, sizeof(a)),
                       recv->rank, vf_describe(vf, recv->rank, recv->step, b, sizeof(b)),
                       vf_bytes(vf, send->rank, send->step),
                       vf_bytes(vf, recv->rank, recv->step));
    }
    vf->table[partner].matched = 1;
    vf->steps[vf->ranks[rank].base + step].state = VF_MATCHED;
    vf_step_of(vf, &vf->table[partner])->state = VF_MATCHED;
    if (vf_push(vf, send->rank, send->step, recv->rank, recv->step) != 0) {
        return vf_no_memory(vf);
    }
    return 0;
}

/* -------------------------------------------------------------- hazards */

/* An in-flight message of rank that reads (send) or writes (recv) element
 * elem of region reg: the other half of a hazard.  Only on failure. */
static int vf_find_owner(const vf_t *vf, int rank, int reg, size_t elem, int want_recv)
{
    const vf_rank_t *rk = &vf->ranks[rank];
    const unsigned char *at = rk->regions[reg].start + elem * vf->grain;
    const loom_step_desc_t *d;
    const unsigned char *lo;
    int s;

    for (s = 0; s < rk->sched->nsteps; ++s) {
        uint8_t st = vf->steps[rk->base + s].state;

        if (st != VF_POSTED && st != VF_MATCHED) {
            continue;
        }
        d = vf_desc(vf, rank, s);
        if ((d->type == LOOM_STEP_RECV) != want_recv) {
            continue;
        }
        lo = want_recv ? (const unsigned char *)d->dst : (const unsigned char *)d->src;
        if (at >= lo && at < lo + vf_bytes(vf, rank, s)) {
            return s;
        }
    }
    return -1;
}

/* Checks that step (rank, step) may use bytes at ptr now, as how says
 * (VF_READS, VF_WRITES or both): no in-flight message owns them, and what
 * it reads holds data. */
static int vf_check(vf_t *vf, int rank, int step, const void *ptr, size_t bytes, int how)
{
    const vf_rank_t *rk = &vf->ranks[rank];
    int reg = vf_locate(rk, ptr, bytes);
    const vf_region_t *region = &rk->regions[reg];
    size_t e0 = (size_t)((const unsigned char *)ptr - region->start) / vf->grain;
    size_t n = bytes / vf->grain, i;
    uint16_t busy = (how & VF_WRITES) ? (VF_SHADOW_WRITER | VF_SHADOW_READERS)
                                      : VF_SHADOW_WRITER;
    const char *verb = how == VF_READS ? "reads" : how == VF_WRITES ? "writes" : "updates";
    char a[160], b[160];
    int owner, by_recv;

    for (i = 0; i < n; ++i) {
        uint16_t sh = region->shadow[e0 + i];

        if (sh & busy) {
            by_recv = (sh & VF_SHADOW_WRITER) != 0;
            owner = vf_find_owner(vf, rank, reg, e0 + i, by_recv);
            return vf_fail(vf, LOOM_VERIFY_HAZARD,
                           "hazard: rank %d %s %s %s elements [%zu, %zu) while %s, "
                           "still in flight, %s element %zu",
                           rank, vf_describe(vf, rank, step, a, sizeof(a)), verb,
                           region->name, e0, e0 + n,
                           owner >= 0 ? vf_describe(vf, rank, owner, b, sizeof(b))
                                      : "a message",
                           by_recv ? "writes" : "reads", e0 + i);
        }
        if ((how & VF_READS) && !(sh & VF_SHADOW_INIT)) {
            return vf_fail(vf, LOOM_VERIFY_UNINITIALIZED,
                           "uninitialized read: rank %d %s %s %s elements [%zu, %zu), "
                           "but no step has written element %zu yet (%s)",
                           rank, vf_describe(vf, rank, step, a, sizeof(a)), verb,
                           region->name, e0, e0 + n, e0 + i,
                           reg == VF_REGION_RECV ? "out of place, the receive buffer "
                                                   "holds the caller's old data"
                                                 : "scratch starts as garbage");
        }
    }
    return 0;
}

/* Adds delta to the shadow of [ptr, ptr+bytes) and sets the bits in set:
 * +-1 for a send's readers, +-VF_SHADOW_WRITER for a receive, INIT once
 * data has landed. */
static int vf_mark(vf_t *vf, int rank, int step, const void *ptr, size_t bytes, int delta,
                   uint16_t set)
{
    vf_rank_t *rk = &vf->ranks[rank];
    vf_region_t *region = &rk->regions[vf_locate(rk, ptr, bytes)];
    size_t e0 = (size_t)((const unsigned char *)ptr - region->start) / vf->grain;
    size_t n = bytes / vf->grain, i;
    char a[160];

    for (i = 0; i < n; ++i) {
        if (delta == 1 && (region->shadow[e0 + i] & VF_SHADOW_READERS) == VF_SHADOW_READERS) {
            return vf_fail(vf, LOOM_VERIFY_BAD_STEP,
                           "rank %d %s: more than %u sends read element %zu of %s "
                           "at once (the verifier's limit)",
                           rank, vf_describe(vf, rank, step, a, sizeof(a)),
                           VF_SHADOW_READERS, e0 + i, region->name);
        }
        region->shadow[e0 + i] = (uint16_t)((region->shadow[e0 + i] + delta) | set);
    }
    return 0;
}

/* ------------------------------------------------------------ execution */

static int vf_finish(vf_t *vf, int rank, int step)
{
    vf_rank_t *rk = &vf->ranks[rank];
    int64_t g = rk->base + step;
    uint32_t k;
    int64_t dep;

    vf->steps[g].state = VF_DONE;
    ++vf->ndone;
    ++rk->ndone;
    for (k = vf->steps[g].rdep_off; k < vf->steps[g + 1].rdep_off; ++k) {
        dep = rk->base + vf->rdep[k];
        if (--vf->steps[dep].pending == 0) {
            vf->steps[dep].state = VF_READY;
            if (vf_push(vf, rank, vf->rdep[k], -1, -1) != 0) {
                return vf_no_memory(vf);
            }
        }
    }
    return 0;
}

/* A step of an arm or of run-time length, before it may run: 0 with
 * *bytes_p its length (*skip_p: done at once, not run), or -1 on a
 * failure. */
static int vf_start_runtime(vf_t *vf, int rank, int step, size_t *bytes_p, int *skip_p)
{
    loom_step_t *st = &vf->ranks[rank].sched->steps[step];
    const loom_step_desc_t *d = &st->desc;
    int taken = loom_sched_taken_arm(vf->ranks[rank].sched);
    char a[160];

    *skip_p = 0;
    *bytes_p = d->bytes;
    if (d->arm != 0) {
        if (taken == 0) {
            return vf_fail(vf, LOOM_VERIFY_BAD_STEP, "rank %d %s is ready before the "
                           "schedule took an arm: it must wait for the compute step that "
                           "decides", rank, vf_describe(vf, rank, step, a, sizeof(a)));
        }
        if (taken != d->arm) {
            *skip_p = 1;
            return 0;
        }
    }
    if (d->len_at != NULL) {
        st->len = *d->len_at;
        if (st->len > d->bytes || st->len % vf->grain != 0) {
            return vf_fail(vf, LOOM_VERIFY_BAD_STEP, "rank %d %s: run-time length %zu is %s",
                           rank, vf_describe(vf, rank, step, a, sizeof(a)), st->len,
                           st->len > d->bytes ? "over its bound" : "not whole elements");
        }
        *bytes_p = st->len;
        *skip_p = st->len == 0;
    }
    return 0;
}

/* What compute step (rank, step) declared (sched.h): before its function
 * runs (written 0), checked as a copy's operands are; after it returned
 * (written 1), what it writes marked written.  A declaration list is a
 * few entries per compute step, so a scan of the rank's is cheap. */
static int vf_compute_accesses(vf_t *vf, int rank, int step, int written)
{
    const loom_sched_t *sched = vf->ranks[rank].sched;
    const loom_compute_access_t *x;
    size_t bytes;
    char a[160];
    int i;

    for (i = 0; i < sched->naccess; ++i) {
        x = &sched->access[i];
        if (x->step != step || (written && !x->writes)) {
            continue;
        }
        bytes = x->len_at != NULL ? *x->len_at : x->bytes;
        if (bytes > x->bytes || bytes % vf->grain != 0) {
            return vf_fail(vf, LOOM_VERIFY_BAD_STEP, "rank %d %s: run-time length %zu of "
                           "a declared read is %s", rank,
                           vf_describe(vf, rank, step, a, sizeof(a)), bytes,
                           bytes > x->bytes ? "over its bound" : "not whole grains");
        }
        if (bytes == 0) {
            continue;
        }
        if (written) {
            vf_mark(vf, rank, step, x->at, bytes, 0, VF_SHADOW_INIT);
        } else if (vf_check(vf, rank, step, x->at, bytes,
                            x->writes ? VF_WRITES : VF_READS) != 0) {
            return -1;
        }
    }
    return 0;
}

/* A compute step: its function on the rank's memory, checked and marked
 * as far as it declared what it touches; its error, or a second arm it
 * took, fails. */
static int vf_compute(vf_t *vf, int rank, int step)
{
    loom_sched_t *sched = vf->ranks[rank].sched;
    const loom_step_desc_t *d = vf_desc(vf, rank, step);
    loom_status_t status;
    char a[160];

    if (vf_compute_accesses(vf, rank, step, 0) != 0) {
        return -1;
    }
    status = d->fn(sched, d->dst);

    if (status != LOOM_OK) {
        return vf_fail(vf, LOOM_VERIFY_BAD_STEP, "rank %d %s failed: %s", rank,
                       vf_describe(vf, rank, step, a, sizeof(a)), loom_status_string(status));
    }
    if (sched->arm_status != LOOM_OK) {
        return vf_fail(vf, LOOM_VERIFY_BAD_STEP, "rank %d %s took a second arm, or one out "
                       "of range (arm %d was taken)", rank,
                       vf_describe(vf, rank, step, a, sizeof(a)), loom_sched_taken_arm(sched));
    }
    if (vf_compute_accesses(vf, rank, step, 1) != 0) {
        return -1;
    }
    return vf_finish(vf, rank, step);
}

static int vf_start(vf_t *vf, int rank, int step)
{
    const loom_step_desc_t *d = vf_desc(vf, rank, step);
    const loom_reduce_op_t *op;
    size_t bytes = d->bytes;
    int skip;

    /* Steps of plain plans take neither. */
    if (d->arm != 0 || d->len_at != NULL) {
        if (vf_start_runtime(vf, rank, step, &bytes, &skip) != 0) {
            return -1;
        }
        if (skip) {
            return vf_finish(vf, rank, step);
        }
    }
    switch (d->type) {
    case LOOM_STEP_SEND:
        if (bytes > 0 && (vf_check(vf, rank, step, d->src, bytes, VF_READS) != 0 ||
                          vf_mark(vf, rank, step, d->src, bytes, 1, 0) != 0)) {
            return -1;
        }
        return vf_post(vf, rank, step);
    case LOOM_STEP_RECV:
        if (bytes > 0) {
            if (vf_check(vf, rank, step, d->dst, bytes, VF_WRITES) != 0) {
                return -1;
            }
            vf_mark(vf, rank, step, d->dst, bytes, VF_SHADOW_WRITER, 0);
        }
        return vf_post(vf, rank, step);
    case LOOM_STEP_REDUCE:
        if (d->bytes > 0) {
            if (vf_check(vf, rank, step, d->src, d->bytes, VF_READS) != 0 ||
                vf_check(vf, rank, step, d->dst, d->bytes, VF_READS | VF_WRITES) != 0) {
                return -1;
            }
            /* As the executor does: the op the schedule carries. */
            op = &vf->ranks[rank].sched->args.op;
            op->fn(d->src, d->dst, d->bytes / vf->ranks[rank].sched->args.elem_size,
                   op->ctx);
        }
        return vf_finish(vf, rank, step);
    case LOOM_STEP_COPY:
        if (bytes > 0) {
            if (vf_check(vf, rank, step, d->src, bytes, VF_READS) != 0 ||
                vf_check(vf, rank, step, d->dst, bytes, VF_WRITES) != 0) {
                return -1;
            }
            if (d->dst != d->src) {
                memcpy(d->dst, d->src, bytes);
            }
            vf_mark(vf, rank, step, d->dst, bytes, 0, VF_SHADOW_INIT);
        }
        return vf_finish(vf, rank, step);
    case LOOM_STEP_COMPUTE:
        return vf_compute(vf, rank, step);
    }
    return vf_fail(vf, LOOM_VERIFY_BAD_STEP, "rank %d step %d: unknown type %d",
                   rank, step, (int)d->type);
}

/* The transport delivers: data moves now, both sides are done. */
static int vf_complete(vf_t *vf, const vf_action_t *a)
{
    const loom_step_desc_t *sd = vf_desc(vf, a->rank, a->step);
    const loom_step_desc_t *rd = vf_desc(vf, a->peer_rank, a->peer_step);
    size_t bytes = vf_bytes(vf, a->rank, a->step);   /* the receive's too (vf_post) */

    if (bytes > 0) {
        memcpy(rd->dst, sd->src, bytes);
        vf_mark(vf, a->rank, a->step, sd->src, bytes, -1, 0);
        vf_mark(vf, a->peer_rank, a->peer_step, rd->dst, bytes, -(int)VF_SHADOW_WRITER,
                VF_SHADOW_INIT);
    }
    vf_msg_remove(vf, a->rank, a->step);
    vf_msg_remove(vf, a->peer_rank, a->peer_step);
    if (vf_finish(vf, a->rank, a->step) != 0) {
        return -1;
    }
    return vf_finish(vf, a->peer_rank, a->peer_step);
}

/* ------------------------------------------------------------ diagnosis */

/* A not-started step of peer that would match message m, or -1. */
static int vf_find_partner(const vf_t *vf, const vf_msg_t *m)
{
    int peer = m->is_recv ? m->src : m->dst;
    const vf_rank_t *pk = &vf->ranks[peer];
    vf_msg_t other;
    int s;

    for (s = 0; s < pk->sched->nsteps; ++s) {
        const loom_step_desc_t *d = vf_desc(vf, peer, s);

        if (vf->steps[pk->base + s].state != VF_WAITING ||
            d->type != (m->is_recv ? LOOM_STEP_SEND : LOOM_STEP_RECV) ||
            d->peer != m->rank) {
            continue;
        }
        /* A step of an arm the peer did not take will never post. */
        if (d->arm != 0 && loom_sched_taken_arm(pk->sched) != 0 &&
            d->arm != loom_sched_taken_arm(pk->sched)) {
            continue;
        }
        vf_msg_key(vf, peer, s, &other);
        if (vf_same_key(&other, m)) {
            return s;
        }
    }
    return -1;
}

/* For an unmatched message: a step of the peer that has the right type,
 * peer and tag_step but another tag (the ranks disagree on the algorithm,
 * the sequence number or the communicator).  Writes a note into buf. */
static void vf_near_miss(const vf_t *vf, const vf_msg_t *m, char *buf, size_t len)
{
    int peer = m->is_recv ? m->src : m->dst, s;
    const loom_step_desc_t *mine = vf_desc(vf, m->rank, m->step);
    const loom_sched_t *a = vf->ranks[m->rank].sched, *b = vf->ranks[peer].sched;
    char d[160];

    buf[0] = '\0';
    for (s = 0; s < b->nsteps; ++s) {
        const loom_step_desc_t *o = vf_desc(vf, peer, s);

        if (o->type == (m->is_recv ? LOOM_STEP_SEND : LOOM_STEP_RECV) &&
            o->peer == m->rank && o->tag_step == mine->tag_step &&
            vf->steps[vf->ranks[peer].base + s].state != VF_DONE) {
            snprintf(buf, len, "; rank %d %s has that tag_step, but algorithm %u, "
                     "sequence %u, context %u where rank %d has %u, %u, %u",
                     peer, vf_describe(vf, peer, s, d, sizeof(d)), b->alg_id, b->seq,
                     b->team->context_id, m->rank, a->alg_id, a->seq, a->team->context_id);
            return;
        }
    }
}

/* Nothing can move and steps are left: name the cause.  A posted message
 * whose partner exists nowhere is the bug itself (unmatched); if every
 * posted message has a partner that merely cannot start, ranks wait on
 * each other (deadlock). */
static int vf_diagnose(vf_t *vf)
{
    int r, s, partner, first_r = -1, first_s = -1, first_partner = -1, stuck = 0, j;
    int unmatched = 0, lone_r = -1, lone_s = -1;
    char a[160], b[160], c[400], also[400] = "";
    size_t used = 0;
    vf_msg_t m;

    for (r = 0; r < vf->p; ++r) {
        const vf_rank_t *rk = &vf->ranks[r];

        stuck += rk->ndone < rk->sched->nsteps;
        for (s = 0; s < rk->sched->nsteps; ++s) {
            if (vf->steps[rk->base + s].state != VF_POSTED) {
                continue;
            }
            vf_msg_key(vf, r, s, &m);
            partner = vf_find_partner(vf, &m);
            if (partner >= 0 && first_r < 0) {
                first_r = r;
                first_s = s;
                first_partner = partner;
            }
            if (partner >= 0) {
                continue;
            }
            /* Both ends of a mismatch are usually posted: name a few. */
            if (unmatched++ == 0) {
                lone_r = r;
                lone_s = s;
            } else if (unmatched <= 4 && used < sizeof(also)) {
                used += (size_t)snprintf(also + used, sizeof(also) - used, "; also rank %d %s",
                                         r, vf_describe(vf, r, s, a, sizeof(a)));
            }
        }
    }
    if (unmatched > 0) {
        vf_msg_key(vf, lone_r, lone_s, &m);
        vf_near_miss(vf, &m, c, sizeof(c));
        return vf_fail(vf, LOOM_VERIFY_UNMATCHED,
                       "unmatched: rank %d %s is posted, and rank %d has no %s of that "
                       "tag left to match it%s (%d such messages%s)",
                       lone_r, vf_describe(vf, lone_r, lone_s, a, sizeof(a)),
                       m.is_recv ? m.src : m.dst, m.is_recv ? "send" : "receive",
                       c, unmatched, also);
    }
    if (first_r < 0) {
        return vf_fail(vf, LOOM_VERIFY_DEADLOCK,
                       "deadlock: %d of %d ranks not done and nothing posted", stuck, vf->p);
    }
    vf_msg_key(vf, first_r, first_s, &m);
    r = m.is_recv ? m.src : m.dst;
    {
        const loom_step_desc_t *d = vf_desc(vf, r, first_partner);
        int blocker = -1;

        for (j = 0; j < d->ndeps; ++j) {
            if (d->deps[j] >= 0 &&
                vf->steps[vf->ranks[r].base + d->deps[j]].state != VF_DONE) {
                blocker = d->deps[j];
                break;
            }
        }
        return vf_fail(vf, LOOM_VERIFY_DEADLOCK,
                       "deadlock: %d of %d ranks not done and nothing can move; rank %d "
                       "%s is posted, its partner rank %d %s waits for %s",
                       stuck, vf->p, first_r, vf_describe(vf, first_r, first_s, a, sizeof(a)),
                       r, vf_describe(vf, r, first_partner, b, sizeof(b)),
                       blocker >= 0 ? vf_describe(vf, r, blocker, c, sizeof(c)) : "nothing");
    }
}

/* ----------------------------------------------------------------- main */

static int vf_build_deps(vf_t *vf)
{
    int64_t g, total = 0;
    uint32_t *fill;
    int r, s, j;

    vf->steps = calloc((size_t)vf->nsteps + 2, sizeof(*vf->steps));
    if (vf->steps == NULL) {
        return -1;
    }
    /* Count each step's dependents (shifted by one), then lay them out. */
    for (r = 0; r < vf->p; ++r) {
        const vf_rank_t *rk = &vf->ranks[r];

        for (s = 0; s < rk->sched->nsteps; ++s) {
            const loom_step_desc_t *d = vf_desc(vf, r, s);

            vf->steps[rk->base + s].msg = -1;
            for (j = 0; j < d->ndeps; ++j) {
                if (d->deps[j] >= 0) {
                    ++vf->steps[rk->base + s].pending;
                    ++vf->steps[rk->base + d->deps[j] + 1].rdep_off;
                    ++total;
                }
            }
        }
    }
    if (total >= (int64_t)UINT32_MAX) {
        return -1;
    }
    for (g = 0; g < vf->nsteps; ++g) {
        vf->steps[g + 1].rdep_off += vf->steps[g].rdep_off;
    }
    vf->rdep = malloc(sizeof(*vf->rdep) * (size_t)(total ? total : 1));
    fill = malloc(sizeof(*fill) * (size_t)(vf->nsteps ? vf->nsteps : 1));
    if (vf->rdep == NULL || fill == NULL) {
        free(fill);
        return -1;
    }
    for (g = 0; g < vf->nsteps; ++g) {
        fill[g] = vf->steps[g].rdep_off;
    }
    for (r = 0; r < vf->p; ++r) {
        const vf_rank_t *rk = &vf->ranks[r];

        for (s = 0; s < rk->sched->nsteps; ++s) {
            const loom_step_desc_t *d = vf_desc(vf, r, s);

            for (j = 0; j < d->ndeps; ++j) {
                if (d->deps[j] >= 0) {
                    vf->rdep[fill[rk->base + d->deps[j]]++] = s;
                }
            }
        }
    }
    free(fill);
    return 0;
}

int vf_simulate(vf_t *vf)
{
    vf_action_t a;
    int r, s;

    if (vf_build_deps(vf) != 0 || vf_table_grow(vf) != 0) {
        return vf_no_memory(vf);
    }
    vf->rng = vf_mix64(vf->params->seed ^ UINT64_C(0x5EED)) | 1;
    for (r = 0; r < vf->p; ++r) {
        for (s = 0; s < vf->ranks[r].sched->nsteps; ++s) {
            if (vf->steps[vf->ranks[r].base + s].pending == 0) {
                vf->steps[vf->ranks[r].base + s].state = VF_READY;
                if (vf_push(vf, r, s, -1, -1) != 0) {
                    return vf_no_memory(vf);
                }
            }
        }
    }
    while (vf_pick(vf, &a)) {
        ++vf->report->nactions;
        if ((a.peer_rank < 0 ? vf_start(vf, a.rank, a.step) : vf_complete(vf, &a)) != 0) {
            return -1;
        }
    }
    if (vf->ndone != vf->nsteps) {
        return vf_diagnose(vf);
    }
    return 0;
}
