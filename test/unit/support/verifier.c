/*
 * The verifier's driver, the same for every collective (what differs is a
 * loom_verify_coll_t, verifier_colls.c): teams, buffers and plans for
 * every rank, the
 * static checks of every step (types, peers, dependencies, which memory it
 * may touch), the simulation (verifier_sim.c), then the result checks.
 *
 * Memory a step may touch: its rank's receive buffer, its rank's send
 * buffer (read only, out of place), and its schedule's scratch area.  Only
 * the input holds data at the start: the scratch, and the receive buffer
 * out of place, must be written by a step before one reads them (a plan
 * that fills them while planning is reported as reading garbage).
 * Anything else is another rank's memory or nobody's, so an algorithm that
 * needs memory must take it from loom_sched_alloc_scratch, whose size as
 * asked for (scratch_bytes; the pool may hand out more) bounds the checks.
 */
#include "verifier_internal.h"
#include "coll/core/engine/tag.h"

#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

static const char *const vf_verdict_names[LOOM_VERIFY_VERDICT_COUNT] = {
    [LOOM_VERIFY_PASS]             = "pass",
    [LOOM_VERIFY_REFUSED]          = "refused",
    [LOOM_VERIFY_PLAN_FAILED]      = "plan failed",
    [LOOM_VERIFY_BAD_STEP]         = "bad step",
    [LOOM_VERIFY_BAD_BUFFER]       = "bad buffer",
    [LOOM_VERIFY_SIZE_MISMATCH]    = "size mismatch",
    [LOOM_VERIFY_AMBIGUOUS_TAG]    = "ambiguous tag",
    [LOOM_VERIFY_UNMATCHED]        = "unmatched",
    [LOOM_VERIFY_DEADLOCK]         = "deadlock",
    [LOOM_VERIFY_HAZARD]           = "hazard",
    [LOOM_VERIFY_UNINITIALIZED]    = "uninitialized read",
    [LOOM_VERIFY_WRONG_RESULT]     = "wrong result",
    [LOOM_VERIFY_REPLICA_MISMATCH] = "replica mismatch",
    [LOOM_VERIFY_SENDBUF_CHANGED]  = "send buffer changed",
};

const char *loom_verify_verdict_name(loom_verify_verdict_t verdict)
{
    if ((int)verdict < 0 || verdict >= LOOM_VERIFY_VERDICT_COUNT) {
        return "unknown verdict";
    }
    return vf_verdict_names[verdict];
}

int vf_fail(vf_t *vf, loom_verify_verdict_t verdict, const char *fmt, ...)
{
    const loom_verify_params_t *pa = vf->params;
    loom_verify_report_t *rep = vf->report;
    va_list ap;
    int n;

    if (rep->verdict != LOOM_VERIFY_PASS) {
        return -1;
    }
    rep->verdict = verdict;
    /* Everything needed to rerun the case comes first. */
    n = snprintf(rep->message, sizeof(rep->message),
                 "%s%s%s p=%d count=%zu %s %s seg_bytes=%zu depth=%d ranks_per_node=%d "
                 "seed=%#llx", vf->coll == &loom_verify_allreduce ? "" : vf->coll->name,
                 vf->coll == &loom_verify_allreduce ? "" : " ",
                 pa->name ? pa->name : "plan", pa->nranks, pa->count,
                 pa->in_place ? "in-place" : "out-of-place",
                 pa->op == LOOM_VERIFY_OP_SUM ? "sum" : "matrix", pa->seg_bytes,
                 pa->depth, pa->ranks_per_node, (unsigned long long)pa->seed);
    if (n >= 0 && (size_t)n < sizeof(rep->message) && vf->rank_order != NULL) {
        n += snprintf(rep->message + n, sizeof(rep->message) - (size_t)n, " rank order %s",
                      pa->rank_order != NULL ? "given" : "drawn from the seed");
    }
    if (n >= 0 && (size_t)n < sizeof(rep->message)) {
        n += snprintf(rep->message + n, sizeof(rep->message) - (size_t)n,
                      vf->coll->rooted ? " root=%d: " : ": ", pa->root);
    }
    if (n < 0 || (size_t)n >= sizeof(rep->message)) {
        return -1;
    }
    va_start(ap, fmt);
    vsnprintf(rep->message + n, sizeof(rep->message) - (size_t)n, fmt, ap);
    va_end(ap);
    return -1;
}

int vf_no_memory(vf_t *vf)
{
    vf->no_memory = 1;
    return -1;
}

const char *vf_describe(const vf_t *vf, int rank, int step, char *buf, size_t len)
{
    const loom_step_desc_t *d = &vf->ranks[rank].sched->steps[step].desc;
    char size[64], arm[16] = "";

    /* A step of run-time length shows it with its bound (0 until it
     * started), one of an arm names it. */
    if (d->len_at != NULL) {
        snprintf(size, sizeof(size), "%zu bytes of at most %zu", vf_bytes(vf, rank, step),
                 d->bytes);
    } else {
        snprintf(size, sizeof(size), "%zu bytes", d->bytes);
    }
    if (d->arm != 0) {
        snprintf(arm, sizeof(arm), ", arm %d", d->arm);
    }
    switch (d->type) {
    case LOOM_STEP_SEND:
        snprintf(buf, len, "step %d (send to %d, tag_step %u, %s%s)", step,
                 d->peer, d->tag_step, size, arm);
        break;
    case LOOM_STEP_RECV:
        snprintf(buf, len, "step %d (recv from %d, tag_step %u, %s%s)", step,
                 d->peer, d->tag_step, size, arm);
        break;
    case LOOM_STEP_REDUCE:
        snprintf(buf, len, "step %d (reduce, %s%s)", step, size, arm);
        break;
    case LOOM_STEP_COPY:
        snprintf(buf, len, "step %d (copy, %s%s)", step, size, arm);
        break;
    case LOOM_STEP_COMPUTE:
        snprintf(buf, len, "step %d (compute%s)", step, arm);
        break;
    default:
        snprintf(buf, len, "step %d (type %d)", step, (int)d->type);
        break;
    }
    return buf;
}

int vf_locate(const vf_rank_t *rk, const void *ptr, size_t bytes)
{
    uintptr_t at = (uintptr_t)ptr, start;
    int i;

    for (i = 0; i < VF_REGION_COUNT; ++i) {
        if (rk->regions[i].start == NULL) {
            continue;
        }
        start = (uintptr_t)rk->regions[i].start;
        if (at >= start && at - start <= rk->regions[i].bytes &&
            bytes <= rk->regions[i].bytes - (at - start)) {
            return i;
        }
    }
    return -1;
}

/* ---------------------------------------------------------------- setup */

static int vf_setup_rank(vf_t *vf, int r, const loom_team_params_t *tp, uint32_t seq)
{
    const loom_verify_params_t *pa = vf->params;
    vf_rank_t *rk = &vf->ranks[r];
    loom_verify_layout_t *lay = &rk->lay;
    loom_team_params_t params = *tp;
    size_t i;

    params.rank = r;
    if (loom_team_create(&params, &rk->team) != LOOM_OK) {
        return -1;
    }
    /* Every rank's team agrees on the sequence number, as after any
     * number of earlier collectives, and on the rank order from it on. */
    rk->team->next_seq = seq;
    if (vf->rank_order != NULL &&
        loom_team_set_order(rk->team, vf->rank_order, vf->p, seq) != LOOM_OK) {
        return -1;
    }
    vf->coll->layout(pa, r, lay);
    if (lay->has_recv) {
        rk->recvbuf = malloc((lay->recv_elems ? lay->recv_elems : 1) * vf->esize);
        if (rk->recvbuf == NULL) {
            return -1;
        }
        /* Whatever was in the output before must not leak into it. */
        for (i = 0; i < lay->recv_elems; ++i) {
            unsigned char *e = rk->recvbuf + i * vf->esize;

            if (!vf->coll->initial(pa, r, 0, i, e)) {
                uint64_t poison[2] = { vf_hash(pa->seed, r, i, 9),
                                       vf_hash(pa->seed, r, i, 10) };

                memcpy(e, poison, sizeof(poison));
            }
        }
    }
    if (lay->has_send) {
        rk->sendbuf = malloc((lay->send_elems ? lay->send_elems : 1) * vf->esize);
        if (rk->sendbuf == NULL) {
            return -1;
        }
        for (i = 0; i < lay->send_elems; ++i) {
            vf->coll->initial(pa, r, 1, i, rk->sendbuf + i * vf->esize);
        }
    }
    rk->args = (loom_coll_args_t){
        .sendbuf = rk->sendbuf, .recvbuf = rk->recvbuf,
        .count = pa->count, .elem_size = vf->esize, .in_place = lay->in_place,
        .op = { .fn = loom_verify_reduce_fn(pa->op),
                .commutative = pa->op == LOOM_VERIFY_OP_SUM },
        .root = pa->root, .seg_bytes = pa->seg_bytes, .depth = pa->depth,
    };
    if (vf->coll->args != NULL) {
        vf->coll->args(pa, r, &rk->args);
    }
    return 0;
}

/* The teams' rank order: the one given, or one drawn from the seed
 * (Fisher-Yates), or none.  0, or -1 out of memory. */
static int vf_setup_order(vf_t *vf)
{
    const loom_verify_params_t *pa = vf->params;
    int i, j, t;

    if (pa->rank_order == NULL && !pa->rank_permute) {
        return 0;
    }
    vf->rank_order = malloc(sizeof(int) * (size_t)vf->p);
    if (vf->rank_order == NULL) {
        return -1;
    }
    for (i = 0; i < vf->p; ++i) {
        vf->rank_order[i] = pa->rank_order != NULL ? pa->rank_order[i] : i;
    }
    for (i = vf->p - 1; pa->rank_order == NULL && i > 0; --i) {
        j = (int)(vf_hash(pa->seed, i, 0, 11) % (uint64_t)(i + 1));
        t = vf->rank_order[i];
        vf->rank_order[i] = vf->rank_order[j];
        vf->rank_order[j] = t;
    }
    return 0;
}

static int vf_setup(vf_t *vf)
{
    const loom_verify_params_t *pa = vf->params;
    uint64_t mix = vf_mix64(pa->seed ^ UINT64_C(0xC0FFEE));
    int *peers = malloc(sizeof(int) * (size_t)vf->p);
    uint64_t *keys = NULL, *rack_keys = NULL;
    loom_team_params_t tp = {
        .size = vf->p, .peers = peers, .transport = NULL,  /* never called */
        .context_id = (uint32_t)(mix & LOOM_TAG_MAX_CONTEXT),
    };
    int r, rc = -1;

    if (peers == NULL || vf_setup_order(vf) != 0) {
        goto out;
    }
    if (pa->ranks_per_node > 0 || pa->node_of != NULL) {
        keys = malloc(sizeof(*keys) * (size_t)vf->p);
        if (keys == NULL) {
            goto out;
        }
        for (r = 0; r < vf->p; ++r) {
            int node = pa->node_of != NULL ? pa->node_of[r] : r / pa->ranks_per_node;

            keys[r] = (uint64_t)node * 7919u + 3u;
        }
        tp.node_keys = keys;
    }
    if (pa->rack_of != NULL) {
        rack_keys = malloc(sizeof(*rack_keys) * (size_t)vf->p);
        if (rack_keys == NULL) {
            goto out;
        }
        for (r = 0; r < vf->p; ++r) {
            rack_keys[r] = (uint64_t)pa->rack_of[r] * 104729u + 5u;
        }
        tp.rack_keys = rack_keys;
    }
    for (r = 0; r < vf->p; ++r) {
        peers[r] = r;
    }
    for (r = 0; r < vf->p; ++r) {
        if (vf_setup_rank(vf, r, &tp, (uint32_t)(mix >> 32) & 0xFFFu) != 0) {
            goto out;
        }
    }
    rc = 0;
out:
    free(rack_keys);
    free(keys);
    free(peers);
    return rc;
}

/* Every rank plans; all must succeed, or all refuse alike. */
static int vf_plan(vf_t *vf)
{
    loom_status_t first = LOOM_OK, st;
    int r;

    for (r = 0; r < vf->p; ++r) {
        vf_rank_t *rk = &vf->ranks[r];

        rk->sched = NULL;
        st = vf->params->plan(&rk->args, rk->team, &rk->sched);
        if (st != LOOM_OK) {
            rk->sched = NULL;
        }
        if (r == 0) {
            first = st;
        }
        if (st != first) {
            return vf_fail(vf, LOOM_VERIFY_PLAN_FAILED,
                           "ranks decide differently: rank 0's plan returned \"%s\", "
                           "rank %d's \"%s\"", loom_status_string(first), r,
                           loom_status_string(st));
        }
        if (st == LOOM_OK && (rk->sched == NULL || rk->sched->team != rk->team)) {
            return vf_fail(vf, LOOM_VERIFY_PLAN_FAILED,
                           "rank %d's plan returned no schedule for its team", r);
        }
        /* The executor reduces with the schedule's copy of the call. */
        if (st == LOOM_OK && (rk->sched->args.op.fn != rk->args.op.fn ||
                              rk->sched->args.elem_size != rk->args.elem_size)) {
            return vf_fail(vf, LOOM_VERIFY_PLAN_FAILED,
                           "rank %d's schedule carries another op or element size "
                           "than the call", r);
        }
    }
    if (first == LOOM_ERR_UNSUPPORTED) {
        vf->report->verdict = LOOM_VERIFY_REFUSED;
        return -1;
    }
    if (first != LOOM_OK) {
        return vf_fail(vf, LOOM_VERIFY_PLAN_FAILED, "every rank's plan failed: %s",
                       loom_status_string(first));
    }
    return 0;
}

static int vf_layout(vf_t *vf)
{
    const loom_verify_params_t *pa = vf->params;
    int r, i;

    for (r = 0; r < vf->p; ++r) {
        vf_rank_t *rk = &vf->ranks[r];
        vf_region_t *rg = rk->regions;

        if (rk->lay.has_recv) {
            rg[VF_REGION_RECV] = (vf_region_t){ "recvbuf", rk->recvbuf,
                                                rk->lay.recv_elems * vf->esize, 1, NULL };
        }
        if (rk->lay.has_send) {
            rg[VF_REGION_SEND] = (vf_region_t){ "sendbuf", rk->sendbuf,
                                                rk->lay.send_elems * vf->esize, 0, NULL };
        }
        if (rk->sched->scratch != NULL) {
            size_t usable = rk->sched->scratch_bytes;

            rg[VF_REGION_SCRATCH] = (vf_region_t){
                "scratch", rk->sched->scratch, usable - usable % vf->grain, 1, NULL };
        }
        for (i = 0; i < VF_REGION_COUNT; ++i) {
            size_t n = rg[i].bytes / vf->grain, per = vf->esize / vf->grain, e, g;

            if (rg[i].start == NULL) {
                continue;
            }
            rg[i].shadow = calloc(n + 1, sizeof(uint16_t));
            if (rg[i].shadow == NULL) {
                return -1;
            }
            /* Data to start from: the input, wherever it is.  The rest
             * of the receive buffer and the scratch hold garbage until a
             * step writes them. */
            for (e = 0; i != VF_REGION_SCRATCH && e < n / per; ++e) {
                if (vf->coll->initial(pa, r, i == VF_REGION_SEND, e, NULL)) {
                    for (g = 0; g < per; ++g) {
                        rg[i].shadow[e * per + g] = VF_SHADOW_INIT;
                    }
                }
            }
        }
        rk->base = vf->nsteps;
        vf->nsteps += rk->sched->nsteps;
    }
    vf->report->nsteps = vf->nsteps;
    return 0;
}

/* ------------------------------------------------------ static checks */

/* One memory operand of a step: inside the rank's own memory, whole
 * elements, and writable if written. */
static int vf_check_operand(vf_t *vf, int r, int s, const void *ptr, size_t bytes,
                            int writes, const char *role)
{
    const vf_rank_t *rk = &vf->ranks[r];
    const vf_region_t *rg;
    char a[160];
    size_t off;
    int reg, i;

    if (bytes == 0) {
        return 0;
    }
    reg = vf_locate(rk, ptr, bytes);
    if (reg < 0) {
        for (i = 0; i < VF_REGION_COUNT; ++i) {
            rg = &rk->regions[i];
            if (rg->start != NULL && (const unsigned char *)ptr >= rg->start &&
                (const unsigned char *)ptr <= rg->start + rg->bytes) {
                off = (size_t)((const unsigned char *)ptr - rg->start);
                return vf_fail(vf, LOOM_VERIFY_BAD_BUFFER,
                               "rank %d %s: %s [%zu, %zu) of %s runs past its end (%zu bytes)",
                               r, vf_describe(vf, r, s, a, sizeof(a)), role, off,
                               off + bytes, rg->name, rg->bytes);
            }
        }
        return vf_fail(vf, LOOM_VERIFY_BAD_BUFFER,
                       "rank %d %s: %s %p is not in the rank's receive buffer, send "
                       "buffer or schedule scratch", r, vf_describe(vf, r, s, a, sizeof(a)),
                       role, ptr);
    }
    rg = &rk->regions[reg];
    if (writes && !rg->writable) {
        return vf_fail(vf, LOOM_VERIFY_BAD_BUFFER, "rank %d %s: %s writes the %s, the "
                       "caller's input", r, vf_describe(vf, r, s, a, sizeof(a)), role,
                       rg->name);
    }
    off = (size_t)((const unsigned char *)ptr - rg->start);
    if (off % vf->grain != 0 || bytes % vf->grain != 0) {
        return vf_fail(vf, LOOM_VERIFY_BAD_STEP,
                       "rank %d %s: %s [%zu, %zu) of %s is not whole %zu-byte %s",
                       r, vf_describe(vf, r, s, a, sizeof(a)), role, off, off + bytes,
                       rg->name, vf->grain, vf->grain == vf->esize ? "elements" : "grains");
    }
    return 0;
}

static int vf_overlap(const void *a, const void *b, size_t bytes)
{
    const unsigned char *x = a, *y = b;

    return bytes > 0 && x < y + bytes && y < x + bytes;
}

static int vf_check_step(vf_t *vf, int r, int s)
{
    const loom_step_desc_t *d = &vf->ranks[r].sched->steps[s].desc;
    char a[160];
    int j;

    if ((int)d->type < LOOM_STEP_SEND || d->type > LOOM_STEP_COMPUTE) {
        return vf_fail(vf, LOOM_VERIFY_BAD_STEP, "rank %d step %d: unknown type %d",
                       r, s, (int)d->type);
    }
    if (d->len_at != NULL) {
        if (d->type == LOOM_STEP_REDUCE || d->type == LOOM_STEP_COMPUTE) {
            return vf_fail(vf, LOOM_VERIFY_BAD_STEP, "rank %d %s: a run-time length on a "
                           "step that takes none", r, vf_describe(vf, r, s, a, sizeof(a)));
        }
        vf->ranks[r].sched->steps[s].len = 0;   /* until it starts */
    }
    if (d->ndeps < 0 || d->ndeps > LOOM_STEP_MAX_DEPS) {
        return vf_fail(vf, LOOM_VERIFY_BAD_STEP, "rank %d %s: %d dependencies (0..%d)",
                       r, vf_describe(vf, r, s, a, sizeof(a)), d->ndeps,
                       LOOM_STEP_MAX_DEPS);
    }
    for (j = 0; j < d->ndeps; ++j) {
        if (d->deps[j] >= s) {
            return vf_fail(vf, LOOM_VERIFY_BAD_STEP,
                           "rank %d %s: dependency %d is step %d, not an earlier step "
                           "(0..%d) of the %d", r, vf_describe(vf, r, s, a, sizeof(a)), j,
                           d->deps[j], s - 1, vf->ranks[r].sched->nsteps);
        }
    }
    switch (d->type) {
    case LOOM_STEP_SEND:
    case LOOM_STEP_RECV:
        if (d->peer < 0 || d->peer >= vf->p) {
            return vf_fail(vf, LOOM_VERIFY_BAD_STEP, "rank %d %s: peer %d is not a rank "
                           "of 0..%d", r, vf_describe(vf, r, s, a, sizeof(a)), d->peer,
                           vf->p - 1);
        }
        return d->type == LOOM_STEP_SEND
                   ? vf_check_operand(vf, r, s, d->src, d->bytes, 0, "source")
                   : vf_check_operand(vf, r, s, d->dst, d->bytes, 1, "target");
    case LOOM_STEP_REDUCE:
    case LOOM_STEP_COPY:
        if (vf_check_operand(vf, r, s, d->src, d->bytes, 0, "source") != 0 ||
            vf_check_operand(vf, r, s, d->dst, d->bytes, 1, "target") != 0) {
            return -1;
        }
        /* A copy onto itself is skipped by the executor; anything else
         * overlapping reads what it is writing. */
        if (vf_overlap(d->src, d->dst, d->bytes) &&
            (d->type == LOOM_STEP_REDUCE || d->src != d->dst)) {
            return vf_fail(vf, LOOM_VERIFY_BAD_STEP, "rank %d %s: source and target "
                           "overlap", r, vf_describe(vf, r, s, a, sizeof(a)));
        }
        return 0;
    case LOOM_STEP_COMPUTE:
        /* What it reads and writes: what it declared (vf_check_accesses),
         * the rest its own business (verifier_sim.c). */
        if (d->fn == NULL) {
            return vf_fail(vf, LOOM_VERIFY_BAD_STEP, "rank %d %s: no function", r,
                           vf_describe(vf, r, s, a, sizeof(a)));
        }
        return 0;
    }
    return 0;
}

/* The memory rank r's compute steps declared (sched.h), before any step
 * runs: each names a compute step, lies in the rank's own memory in whole
 * grains, and writes nothing of the input; a write takes no run-time
 * length. */
static int vf_check_accesses(vf_t *vf, int r)
{
    const loom_sched_t *sched = vf->ranks[r].sched;
    const loom_compute_access_t *x;
    char a[160];
    int i;

    for (i = 0; i < sched->naccess; ++i) {
        x = &sched->access[i];
        if (x->step < 0 || x->step >= sched->nsteps ||
            sched->steps[x->step].desc.type != LOOM_STEP_COMPUTE) {
            return vf_fail(vf, LOOM_VERIFY_BAD_STEP, "rank %d: declaration %d names step "
                           "%d, not a compute step of the %d", r, i, x->step,
                           sched->nsteps);
        }
        if (x->writes && x->len_at != NULL) {
            return vf_fail(vf, LOOM_VERIFY_BAD_STEP, "rank %d %s: a declared write of "
                           "run-time length (only reads take one)", r,
                           vf_describe(vf, r, x->step, a, sizeof(a)));
        }
        if (vf_check_operand(vf, r, x->step, x->at, x->bytes, x->writes,
                             x->writes ? "declared write" : "declared read") != 0) {
            return -1;
        }
    }
    return 0;
}

static int vf_check_steps(vf_t *vf)
{
    int r, s;

    for (r = 0; r < vf->p; ++r) {
        for (s = 0; s < vf->ranks[r].sched->nsteps; ++s) {
            if (vf_check_step(vf, r, s) != 0) {
                return -1;
            }
        }
        if (vf_check_accesses(vf, r) != 0) {
            return -1;
        }
    }
    return 0;
}

/* -------------------------------------------------------- the results */

static void vf_format_elem(const vf_t *vf, const void *elem, char *buf, size_t len)
{
    uint64_t s[2];
    uint32_t m[4];

    if (vf->params->op == LOOM_VERIFY_OP_SUM) {
        memcpy(s, elem, sizeof(s));
        snprintf(buf, len, "{%#llx, %#llx}", (unsigned long long)s[0],
                 (unsigned long long)s[1]);
    } else {
        memcpy(m, elem, sizeof(m));
        snprintf(buf, len, "[%u %u; %u %u]", m[0], m[1], m[2], m[3]);
    }
}

/* What a wrong element looks like, for the message. */
static void vf_explain(vf_t *vf, int r, size_t i, const unsigned char *got,
                       const unsigned char *want, char *buf, size_t len)
{
    unsigned char own[LOOM_VERIFY_ELEM_SIZE];
    int who, sign, agree = 0, q;
    uint64_t first;

    for (q = 0; q < vf->p; ++q) {
        agree += vf->ranks[q].lay.has_recv && i < vf->ranks[q].lay.recv_elems &&
                 memcmp(vf->ranks[q].recvbuf + i * vf->esize, got, vf->esize) == 0;
    }
    loom_verify_input(vf->params->op, vf->params->seed, r, i, own);
    memcpy(&first, got, sizeof(first));
    if (!vf->coll->initial(vf->params, r, 0, i, NULL) &&
        first == vf_hash(vf->params->seed, r, i, 9)) {
        snprintf(buf, len, "never written (still what the buffer held); %d of %d "
                 "ranks hold this value", agree, vf->p);
    } else if (vf->p > 1 && memcmp(got, own, vf->esize) == 0) {
        snprintf(buf, len, "the rank's own input, nothing reduced into it; %d of %d "
                 "ranks hold this value", agree, vf->p);
    } else if (vf->params->op == LOOM_VERIFY_OP_SUM && vf->coll->folds_elementwise &&
               (who = vf_sum_explain(vf->params, i, got, want, &sign)) >= 0) {
        snprintf(buf, len, "rank %d's contribution %s; %d of %d ranks hold this value",
                 who, sign > 0 ? "counted twice" : "missing", agree, vf->p);
    } else {
        snprintf(buf, len, "%d of %d ranks hold this value", agree, vf->p);
    }
}

static int vf_check_results(vf_t *vf)
{
    const loom_verify_params_t *pa = vf->params;
    unsigned char want[LOOM_VERIFY_ELEM_SIZE], *got;
    char g[96], w[96], why[160];
    const vf_rank_t *rk;
    size_t i;
    int r;

    if (vf->coll->replicated && vf->p > 1 && vf->ranks[0].lay.has_recv &&
        vf->ranks[0].lay.recv_elems > 0) {
        vf->want_cache = malloc(vf->ranks[0].lay.recv_elems * vf->esize);
        vf->want_known = calloc(vf->ranks[0].lay.recv_elems, 1);
        if (vf->want_cache == NULL || vf->want_known == NULL) {
            free(vf->want_cache);
            free(vf->want_known);
            vf->want_cache = vf->want_known = NULL;  /* check the slow way */
        }
    }
    for (r = 0; r < vf->p; ++r) {
        rk = &vf->ranks[r];
        for (i = 0; rk->lay.has_send && i < rk->lay.send_elems; ++i) {
            vf->coll->initial(pa, r, 1, i, want);
            if (memcmp(rk->sendbuf + i * vf->esize, want, vf->esize) != 0) {
                return vf_fail(vf, LOOM_VERIFY_SENDBUF_CHANGED,
                               "rank %d's send buffer element %zu changed", r, i);
            }
        }
    }
    for (r = 0; r < vf->p; ++r) {
        rk = &vf->ranks[r];
        for (i = 0; rk->lay.has_recv && i < rk->lay.recv_elems; ++i) {
            /* A replicated result is the same for every rank: folding the
             * p inputs once per element, not once per rank, keeps the
             * check O(p count) instead of O(p^2 count). */
            if (vf->coll->replicated && vf->want_cache != NULL && r > 0) {
                if (!vf->want_known[i]) {
                    continue;
                }
                memcpy(want, vf->want_cache + i * vf->esize, vf->esize);
            } else if (!vf->coll->expected(pa, r, i, want)) {
                continue;
            } else if (vf->coll->replicated && vf->want_cache != NULL) {
                memcpy(vf->want_cache + i * vf->esize, want, vf->esize);
                vf->want_known[i] = 1;
            }
            got = rk->recvbuf + i * vf->esize;
            if (memcmp(got, want, vf->esize) != 0) {
                vf_format_elem(vf, got, g, sizeof(g));
                vf_format_elem(vf, want, w, sizeof(w));
                vf_explain(vf, r, i, got, want, why, sizeof(why));
                return vf_fail(vf, LOOM_VERIFY_WRONG_RESULT,
                               "wrong result: rank %d element %zu is %s, expected %s: %s",
                               r, i, g, w, why);
            }
        }
    }
    /* Implied by the check above while fingerprints are exact; kept so that
     * bitwise agreement stays checked on its own. */
    for (r = 1; r < vf->p && vf->coll->replicated; ++r) {
        rk = &vf->ranks[r];
        if (rk->lay.recv_elems > 0 &&
            memcmp(rk->recvbuf, vf->ranks[0].recvbuf, rk->lay.recv_elems * vf->esize) != 0) {
            return vf_fail(vf, LOOM_VERIFY_REPLICA_MISMATCH,
                           "rank %d's result differs bitwise from rank 0's", r);
        }
    }
    return 0;
}

/* ------------------------------------------------------------ teardown */

static void vf_destroy(vf_t *vf)
{
    int r, i;

    for (r = 0; vf->ranks != NULL && r < vf->p; ++r) {
        vf_rank_t *rk = &vf->ranks[r];

        loom_sched_destroy(rk->sched);
        loom_team_destroy(rk->team);
        for (i = 0; i < VF_REGION_COUNT; ++i) {
            free(rk->regions[i].shadow);
        }
        free(rk->recvbuf);
        free(rk->sendbuf);
    }
    free(vf->ranks);
    free(vf->rank_order);
    free(vf->steps);
    free(vf->rdep);
    free(vf->starts.a);
    free(vf->deliveries.a);
    free(vf->table);
    free(vf->want_cache);
    free(vf->want_known);
}

loom_status_t loom_verify_run(const loom_verify_params_t *params,
                              loom_verify_report_t *report_p)
{
    vf_t vf = { .params = params, .report = report_p, .p = params->nranks,
                .esize = LOOM_VERIFY_ELEM_SIZE,
                .grain = LOOM_VERIFY_ELEM_SIZE,
                .coll = params->coll ? params->coll : &loom_verify_allreduce };
    loom_status_t status = LOOM_OK;

    memset(report_p, 0, sizeof(*report_p));
    if (params->plan == NULL || params->nranks < 1 ||
        params->nranks > LOOM_TAG_MAX_RANKS || params->ranks_per_node < 0 ||
        (params->op != LOOM_VERIFY_OP_SUM && params->op != LOOM_VERIFY_OP_MATRIX) ||
        (vf.coll->rooted && (params->root < 0 || params->root >= params->nranks)) ||
        (vf.coll->grain != 0 && LOOM_VERIFY_ELEM_SIZE % vf.coll->grain != 0)) {
        return LOOM_ERR_INVALID_PARAM;
    }
    if (vf.coll->grain != 0) {
        vf.grain = vf.coll->grain;
    }
    vf.ranks = calloc((size_t)vf.p, sizeof(*vf.ranks));
    if (vf.ranks == NULL || vf_setup(&vf) != 0) {
        status = LOOM_ERR_NO_MEMORY;
        goto out;
    }
    if (vf_plan(&vf) != 0) {
        goto out;
    }
    if (vf_layout(&vf) != 0) {
        status = LOOM_ERR_NO_MEMORY;
        goto out;
    }
    if (vf_check_steps(&vf) == 0 && vf_simulate(&vf) == 0) {
        vf_check_results(&vf);
    }
    if (vf.no_memory) {
        status = LOOM_ERR_NO_MEMORY;
    }
out:
    vf_destroy(&vf);
    return status;
}
