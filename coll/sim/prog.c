/* Building every rank's schedule into one program (exec.h, prog.h). */
#include "prog.h"
#include "fold.h"
#include "coll/core/engine/team.h"
#include "common/log.h"

#include <stdint.h>
#include <stdlib.h>
#include <string.h>

/* Plans reduce nothing here: the simulator only prices reductions. */
static void loom_sim_no_reduce(const void *src, void *dst, size_t count, void *ctx)
{
    (void)src;
    (void)dst;
    (void)count;
    (void)ctx;
}

/* Grows *a (elements of size esize, *cap of them) to hold need, by at
 * least a quarter; -1 when out of memory (the array is kept). */
static int loom_sim_prog_grow(void **a, long *cap, long need, size_t esize)
{
    long n = *cap + *cap / 4;
    void *b;

    if (need <= *cap) {
        return 0;
    }
    n = n > need ? n : need;
    n = n > 1024 ? n : 1024;
    b = realloc(*a, esize * (size_t)n);
    if (b == NULL) {
        return -1;
    }
    *a = b;
    *cap = n;
    return 0;
}

/* ------------------------------------------------------------ pairing */

/* The slot of a key (linear probing): its own, or the empty one where it
 * belongs. */
static long loom_sim_meet_slot(const loom_sim_meet_t *t, long n, int32_t src, int32_t dst,
                               uint32_t tag)
{
    long i = (long)(loom_sim_key_hash(src, dst, tag) & (uint64_t)(n - 1));

    while (t[i].src >= 0 && (t[i].src != src || t[i].dst != dst || t[i].tag != tag)) {
        i = (i + 1) & (n - 1);
    }
    return i;
}

/* Doubles the table once half full; -1 when out of memory. */
static int loom_sim_meet_reserve(loom_sim_prog_t *prog)
{
    long n = prog->cap_meets ? 2 * prog->cap_meets : 4096, i;
    loom_sim_meet_t *t, *o;

    if (2 * (prog->nmeets + 1) <= prog->cap_meets) {
        return 0;
    }
    t = malloc(sizeof(*t) * (size_t)n);
    if (t == NULL) {
        return -1;
    }
    for (i = 0; i < n; ++i) {
        t[i].src = -1;
    }
    for (i = 0; i < prog->cap_meets; ++i) {
        o = &prog->meets[i];
        if (o->src >= 0) {
            t[loom_sim_meet_slot(t, n, o->src, o->dst, o->tag)] = *o;
        }
    }
    free(prog->meets);
    prog->meets = t;
    prog->cap_meets = n;
    return 0;
}

/* Empties slot i, moving back the entries after it that would no longer
 * be found (deletion without tombstones). */
static void loom_sim_meet_remove(loom_sim_prog_t *prog, long i)
{
    loom_sim_meet_t *t = prog->meets;
    long n = prog->cap_meets, j = i, home;

    for (;;) {
        j = (j + 1) & (n - 1);
        if (t[j].src < 0) {
            break;
        }
        home = (long)(loom_sim_key_hash(t[j].src, t[j].dst, t[j].tag) & (uint64_t)(n - 1));
        /* Move j back to i unless its home lies cyclically in (i, j]. */
        if ((j > i && (home <= i || home > j)) || (j < i && home <= i && home > j)) {
            t[i] = t[j];
            i = j;
        }
    }
    t[i].src = -1;
    prog->nmeets--;
}

/* Notes send or receive step s of rank r (key: src, dst, tag); once the
 * other rank is built too, the key goes to the settle list. */
static int loom_sim_meet_note(loom_sim_prog_t *prog, int r, long s, int32_t src, int32_t dst,
                              uint32_t tag, int is_recv)
{
    loom_sim_meet_t *m;
    int other = loom_sim_prog_rep(prog, is_recv ? src : dst);

    if (loom_sim_meet_reserve(prog) != 0) {
        return -1;
    }
    m = &prog->meets[loom_sim_meet_slot(prog->meets, prog->cap_meets, src, dst, tag)];
    if (m->src < 0) {
        *m = (loom_sim_meet_t){ .src = src, .dst = dst, .tag = tag, .send = -1, .recv = -1 };
        prog->nmeets++;
    }
    if (is_recv) {
        m->recv = m->nrecv == 0 ? (int32_t)s : m->recv;
        m->nrecv += m->nrecv < UINT16_MAX;
    } else {
        m->send = m->nsend == 0 ? (int32_t)s : m->send;
        m->nsend += m->nsend < UINT16_MAX;
    }
    if (other > r) {
        return 0;   /* settled when the other rank is built */
    }
    if (loom_sim_prog_grow((void **)&prog->settle, &prog->cap_settle, prog->nsettle + 1,
                           sizeof(*prog->settle)) != 0) {
        return -1;
    }
    prog->settle[prog->nsettle++] = (loom_sim_key_t){ src, dst, tag };
    return 0;
}

/* Both ranks of every listed key are built: a key of one send and one
 * receive is paired; any other keeps its tag and meets at run time. */
static void loom_sim_meet_settle(loom_sim_prog_t *prog)
{
    const loom_sim_key_t *k;
    loom_sim_meet_t *m;
    long i, slot;

    for (i = 0; i < prog->nsettle; ++i) {
        k = &prog->settle[i];
        slot = loom_sim_meet_slot(prog->meets, prog->cap_meets, k->src, k->dst, k->tag);
        m = &prog->meets[slot];
        if (m->src < 0) {
            continue;   /* listed twice, settled already */
        }
        if (m->nsend == 1 && m->nrecv == 1) {
            prog->steps[m->send].link = (uint32_t)m->recv;
            prog->steps[m->send].flags |= LOOM_SIM_STEP_PAIRED;
            prog->steps[m->recv].link = (uint32_t)m->send;
            prog->steps[m->recv].flags |= LOOM_SIM_STEP_PAIRED;
        }
        loom_sim_meet_remove(prog, slot);
    }
    prog->nsettle = 0;
}

/* ----------------------------------------------------------- building */

/* What step d of sched does in the run (exec.h): its type, or
 * LOOM_SIM_STEP_SKIP for a step of an arm not taken or of run-time length
 * 0, and its bytes, its run-time length read now; -1 when that length is
 * over the step's bound. */
static int loom_sim_prog_runs(const loom_sched_t *sched, long i, uint8_t *type_p,
                              uint64_t *bytes_p)
{
    const loom_step_desc_t *d = &sched->steps[i].desc;

    *type_p = (uint8_t)d->type;
    *bytes_p = d->bytes;
    if (__builtin_expect(d->arm == 0 && d->len_at == NULL, 1)) {
        return 0;
    }
    if (d->len_at != NULL) {
        if (*d->len_at > d->bytes) {
            loom_error("coll", "sim: rank %d step %ld has run-time length %zu, over its "
                       "bound of %zu bytes", sched->team->rank, i, *d->len_at, d->bytes);
            return -1;
        }
        *bytes_p = *d->len_at;
    }
    if ((d->arm != 0 && d->arm != loom_sched_taken_arm(sched)) || *bytes_p == 0) {
        *type_p = LOOM_SIM_STEP_SKIP;
        *bytes_p = 0;
    }
    return 0;
}

/* Puts rank r's schedule into place: its k-th step at k * p + r, who
 * waits on whom turned around into per-step lists of dependents (in the
 * record, or rank r's together in the array), its messages noted for
 * pairing.  LOOM_ERR_NO_MEMORY, or LOOM_ERR_TRUNCATED for a run-time
 * length over its bound. */
static loom_status_t loom_sim_prog_add(loom_sim_prog_t *prog, int r, const loom_sched_t *sched)
{
    long n = sched->nsteps, p = prog->p, i, at, s;
    int32_t *cnt, *fill, *dep0, *dep1;
    const loom_step_desc_t *d;
    int k, ndeps, is_recv;
    uint8_t type;
    uint64_t bytes;

    /* Indices are 32-bit: 2^31 steps would be some 64 GB. */
    if (n * p >= INT32_MAX ||
        loom_sim_prog_grow((void **)&prog->tmp, &prog->cap_tmp, 4 * n, sizeof(int32_t)) != 0) {
        return LOOM_ERR_NO_MEMORY;
    }
    if (n > prog->cap_levels) {
        long levels = prog->cap_levels;

        if (loom_sim_prog_grow((void **)&prog->steps, &levels, n,
                               sizeof(*prog->steps) * (size_t)p) != 0) {
            return LOOM_ERR_NO_MEMORY;
        }
        prog->cap_levels = levels;
    }
    cnt = prog->tmp;
    fill = prog->tmp + n;
    dep0 = prog->tmp + 2 * n;
    dep1 = prog->tmp + 3 * n;
    memset(cnt, 0, sizeof(*cnt) * (size_t)n);
    for (i = 0; i < n; ++i) {
        d = &sched->steps[i].desc;
        for (k = 0; k < d->ndeps; ++k) {
            if (d->deps[k] >= 0) {
                cnt[d->deps[k]]++;
            }
        }
    }
    /* Up to two dependents sit in the record; a step with more has them
     * in the array, dep1 of them from dep0 on. */
    at = prog->nedges;
    for (i = 0; i < n; ++i) {
        fill[i] = 0;
        dep0[i] = dep1[i] = -1;
        if (cnt[i] > LOOM_SIM_STEP_INLINE_DEPS) {
            dep0[i] = (int32_t)at;
            dep1[i] = cnt[i];
            at += cnt[i];
        }
    }
    if (at >= INT32_MAX ||
        loom_sim_prog_grow((void **)&prog->dependents, &prog->cap_edges, at,
                           sizeof(int32_t)) != 0) {
        return LOOM_ERR_NO_MEMORY;
    }
    for (i = 0; i < n; ++i) {
        d = &sched->steps[i].desc;
        for (k = 0; k < d->ndeps; ++k) {
            int dep = d->deps[k];

            if (dep < 0) {
                continue;
            }
            if (cnt[dep] > LOOM_SIM_STEP_INLINE_DEPS) {
                prog->dependents[dep0[dep] + fill[dep]++] = (int32_t)(i * p + r);
            } else if (fill[dep]++ == 0) {
                dep0[dep] = (int32_t)(i * p + r);
            } else {
                dep1[dep] = (int32_t)(i * p + r);
            }
        }
    }
    prog->nedges = at;
    for (i = 0; i < n; ++i) {
        d = &sched->steps[i].desc;
        s = i * p + r;
        for (ndeps = 0, k = 0; k < d->ndeps; ++k) {
            ndeps += d->deps[k] >= 0;
        }
        if (loom_sim_prog_runs(sched, i, &type, &bytes) != 0) {
            return LOOM_ERR_TRUNCATED;
        }
        prog->steps[s] = (loom_sim_step_t){
            .bytes = bytes, .peer = d->peer, .owner = r, .link = d->tag_step,
            .dep0 = (uint32_t)dep0[i], .dep1 = (uint32_t)dep1[i],
            .type = type, .ndeps = (uint8_t)ndeps, .pending = (uint8_t)ndeps,
            .flags = (uint8_t)((cnt[i] > LOOM_SIM_STEP_INLINE_DEPS ? LOOM_SIM_STEP_INLINE_DEPS + 1
                                                                   : cnt[i])
                               << LOOM_SIM_STEP_NDEP_SHIFT) };
        if (type == LOOM_STEP_SEND && r == 0) {
            prog->sent0 += bytes;
        }
        if (type == LOOM_STEP_SEND || type == LOOM_STEP_RECV) {
            int32_t src, dst;

            is_recv = d->type == LOOM_STEP_RECV;
            src = is_recv ? d->peer : r;
            dst = is_recv ? r : d->peer;
            loom_sim_prog_key(prog, &src, &dst);
            if (loom_sim_meet_note(prog, r, s, src, dst, d->tag_step, is_recv) != 0) {
                return LOOM_ERR_NO_MEMORY;
            }
        }
    }
    if (r == 0) {
        prog->arm = loom_sched_taken_arm(sched);
    }
    prog->count[r] = (int32_t)n;
    prog->levels = n > prog->levels ? n : prog->levels;
    prog->real_steps += n;
    loom_sim_meet_settle(prog);
    return LOOM_OK;
}

/* Fills the places of the ranks with fewer steps than the most. */
static void loom_sim_prog_holes(loom_sim_prog_t *prog)
{
    long k, r, p = prog->p;

    for (r = 0; r < p; ++r) {
        for (k = prog->count[r]; k < prog->levels; ++k) {
            prog->steps[k * p + r] = (loom_sim_step_t){ .type = LOOM_SIM_STEP_NONE,
                                                        .owner = (int32_t)r, .ndeps = 1,
                                                        .pending = 1 };
        }
    }
    prog->nsteps = prog->levels * p;
}

loom_status_t loom_sim_layout_team(const loom_sim_layout_t *lay, loom_team_t **team_p)
{
    int p = lay->p, r;
    uint64_t *keys = malloc(sizeof(uint64_t) * 2 * (size_t)p);
    int *peers = malloc(sizeof(int) * (size_t)p);
    loom_status_t status = LOOM_ERR_NO_MEMORY;

    if (keys != NULL && peers != NULL) {
        for (r = 0; r < p; ++r) {
            peers[r] = r;
            keys[r] = (uint64_t)lay->node_of[r] + 1;
            keys[p + r] = (uint64_t)lay->rack_of[r] + 1;
        }
        status = loom_team_create(&(loom_team_params_t){
                                      .size = p, .rank = 0, .transport = NULL, /* never called */
                                      .peers = peers, .node_keys = keys, .rack_keys = keys + p,
                                      .context_id = 1 }, team_p);
    }
    if (status == LOOM_OK && lay->order != NULL) {
        /* From the team's first collective on, as set before any call. */
        status = loom_team_set_order(*team_p, lay->order, p, (*team_p)->next_seq);
        if (status != LOOM_OK) {
            loom_team_destroy(*team_p);
        }
    }
    free(keys);
    free(peers);
    return status;
}

loom_status_t loom_sim_prog_create(const loom_sim_layout_t *layout, loom_sim_prog_t **prog_p)
{
    loom_sim_prog_t *prog = calloc(1, sizeof(*prog));

    if (prog == NULL) {
        return LOOM_ERR_NO_MEMORY;
    }
    prog->layout = layout;
    prog->p = layout->p;
    prog->count = malloc(sizeof(*prog->count) * (size_t)layout->p);
    if (prog->count == NULL) {
        free(prog);
        return LOOM_ERR_NO_MEMORY;
    }
    *prog_p = prog;
    return LOOM_OK;
}

/* Back to no steps, keeping the memory; the pairing table is empty after
 * every complete build, and emptied here after a failed one. */
static void loom_sim_prog_reset(loom_sim_prog_t *prog)
{
    long i;

    prog->levels = prog->nsteps = prog->real_steps = prog->nedges = 0;
    prog->as_built = 0;
    prog->arm = 0;
    prog->sent0 = 0;
    prog->nsettle = 0;
    if (prog->nmeets > 0) {
        for (i = 0; i < prog->cap_meets; ++i) {
            prog->meets[i].src = -1;
        }
        prog->nmeets = 0;
    }
}

/* Runs p ranks from now on, keeping the steps' memory (counted in
 * levels of p records). */
static void loom_sim_prog_stride(loom_sim_prog_t *prog, int p)
{
    prog->cap_levels = prog->cap_levels * prog->p / p;
    prog->p = p;
}

/* Whether ranks r + d, r + 2d, ... of the layout plan rank r's schedule
 * rep, rotated (fold.h).  Their plans are compared while rep's is at
 * hand, and the first mismatch ends the check (an asymmetric plan
 * usually shows it at rank d). */
static int loom_sim_fold_orbit(const loom_sim_build_params_t *pa, const loom_coll_args_t *args,
                               loom_team_t *team, int r, int d, const loom_sched_t *rep)
{
    int q, same;
    loom_sched_t *sched;

    for (q = r + d; q < team->size; q += d) {
        team->rank = q;
        if (pa->plan(args, team, &sched) != LOOM_OK) {
            return 0;
        }
        same = loom_sim_fold_same(rep, r, sched, q, team->size);
        loom_sched_destroy(sched);
        if (!same) {
            return 0;
        }
    }
    return 1;
}

/* Plans ranks 0..prog->p - 1 into prog.  When prog runs fewer ranks than
 * the layout has (folded), *symmetric_p says whether every other rank
 * planned its representative's schedule, rotated; the build stops at the
 * first that did not. */
static loom_status_t loom_sim_prog_ranks(loom_sim_prog_t *prog, const loom_sim_build_params_t *pa,
                                         const loom_coll_args_t *args, loom_team_t *team,
                                         int *symmetric_p)
{
    int p = prog->p, r;
    loom_status_t status;
    loom_sched_t *sched;

    *symmetric_p = 1;
    for (r = 0; r < p; ++r) {
        /* Plans depend on the team only through size, rank and the
         * node/rack maps: one team serves every rank in turn. */
        team->rank = r;
        status = pa->plan(args, team, &sched);
        if (status != LOOM_OK) {
            return status;
        }
        if (p < team->size && !loom_sim_fold_orbit(pa, args, team, r, p, sched)) {
            loom_sched_destroy(sched);
            *symmetric_p = 0;
            return LOOM_OK;
        }
        status = loom_sim_prog_add(prog, r, sched);
        if (status != LOOM_OK) {
            loom_sched_destroy(sched);
            return status;
        }
        loom_sched_destroy(sched);
        /* Room for every rank at once, rather than growing in steps. */
        if (r == 0 && prog->cap_levels < prog->levels + prog->levels / 16 + 1) {
            long levels = prog->cap_levels;

            if (loom_sim_prog_grow((void **)&prog->steps, &levels,
                                   prog->levels + prog->levels / 16 + 1,
                                   sizeof(*prog->steps) * (size_t)p) != 0) {
                return LOOM_ERR_NO_MEMORY;
            }
            prog->cap_levels = levels;
        }
    }
    return LOOM_OK;
}

loom_status_t loom_sim_prog_plan(loom_sim_prog_t *prog, const loom_sim_build_params_t *pa)
{
    const loom_sim_layout_t *lay = pa->layout;
    int d;
    size_t esize = pa->elem_size ? pa->elem_size : 4;
    loom_status_t status;
    loom_team_t *team = NULL;
    loom_coll_args_t args;
    int symmetric;

    loom_sim_prog_reset(prog);
    if (lay != prog->layout) {
        return LOOM_ERR_INVALID_PARAM;
    }
    status = loom_sim_layout_team(lay, &team);
    if (status != LOOM_OK) {
        return status;
    }
    /* The buffers are never touched: plans only record addresses, so any
     * two disjoint ranges will do (no memory of n bytes per rank). */
    args = (loom_coll_args_t){
        .sendbuf = (const void *)(uintptr_t)0x1000, .recvbuf = NULL,
        .count = pa->bytes / (pa->total ? (size_t)lay->p : 1) / esize, .elem_size = esize,
        .op = { .fn = loom_sim_no_reduce, .ctx = NULL, .commutative = 1 },
        .in_place = pa->in_place, .seg_bytes = pa->seg_bytes, .depth = pa->depth,
        .sparse = pa->sparse,
    };
    args.recvbuf = (void *)(uintptr_t)(0x1000 + ((pa->bytes + 4095) & ~(size_t)4095) + 4096);
    /* Under a rank order a rotated rank's schedule is not its
     * neighbour's: every rank runs. */
    d = pa->fold && lay->order == NULL ? loom_sim_fold_distance(lay) : lay->p;
    if (d < lay->p) {
        loom_sim_prog_stride(prog, d);
        status = loom_sim_prog_ranks(prog, pa, &args, team, &symmetric);
        if (status == LOOM_OK && symmetric) {
            goto built;
        }
        if (status != LOOM_OK && status != LOOM_ERR_UNSUPPORTED) {
            goto out;
        }
        loom_sim_prog_reset(prog);   /* not symmetric: every rank runs */
    }
    loom_sim_prog_stride(prog, lay->p);
    status = loom_sim_prog_ranks(prog, pa, &args, team, &symmetric);
    if (status != LOOM_OK) {
        goto out;
    }
built:
    loom_sim_prog_holes(prog);
    prog->as_built = 1;
out:
    team->rank = 0;
    loom_team_destroy(team);
    if (status != LOOM_OK) {
        loom_sim_prog_reset(prog);
    }
    return status;
}

int loom_sim_prog_arm(const loom_sim_prog_t *prog)
{
    return prog->arm;
}

uint64_t loom_sim_prog_sent0(const loom_sim_prog_t *prog)
{
    return prog->sent0;
}

loom_status_t loom_sim_prog_build(const loom_sim_build_params_t *params,
                                  loom_sim_prog_t **prog_p)
{
    loom_sim_prog_t *prog;
    loom_status_t status = loom_sim_prog_create(params->layout, &prog);

    if (status != LOOM_OK) {
        return status;
    }
    status = loom_sim_prog_plan(prog, params);
    if (status != LOOM_OK) {
        loom_sim_prog_destroy(prog);
        return status;
    }
    *prog_p = prog;
    return LOOM_OK;
}

void loom_sim_prog_destroy(loom_sim_prog_t *prog)
{
    if (prog == NULL) {
        return;
    }
    free(prog->steps);
    free(prog->dependents);
    free(prog->count);
    free(prog->tmp);
    free(prog->meets);
    free(prog->settle);
    free(prog);
}
