/* Building every rank's schedule into one program (exec.h, prog.h). */
#include "prog.h"
#include "coll/core/team.h"

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

static int loom_sim_prog_reserve(loom_sim_prog_t *prog, long steps, long edges)
{
    long n;
    void *a;

    if (steps > prog->cap_steps) {
        n = prog->cap_steps ? prog->cap_steps : 4096;
        while (n < steps) {
            n *= 2;
        }
        a = realloc(prog->steps, sizeof(*prog->steps) * (size_t)n);
        if (a == NULL) {
            return -1;
        }
        prog->steps = a;
        prog->cap_steps = n;
    }
    if (edges > prog->cap_edges) {
        n = prog->cap_edges ? prog->cap_edges : 4096;
        while (n < edges) {
            n *= 2;
        }
        a = realloc(prog->dependents, sizeof(int32_t) * (size_t)n);
        if (a == NULL) {
            return -1;
        }
        prog->dependents = a;
        prog->cap_edges = n;
    }
    return 0;
}

/* Appends rank r's schedule: the steps, then who waits on whom, turned
 * around into per-step lists of dependents. */
static int loom_sim_prog_add(loom_sim_prog_t *prog, int r, const loom_sched_t *sched)
{
    long first = prog->nsteps, edges = 0, i, at;
    const loom_step_desc_t *d;
    loom_sim_step_t *st;
    int k;

    for (i = 0; i < sched->nsteps; ++i) {
        for (k = 0; k < sched->steps[i].desc.ndeps; ++k) {
            edges += sched->steps[i].desc.deps[k] >= 0;
        }
    }
    /* Indices are 32-bit: 2^31 steps would be some 60 GB. */
    if (first + sched->nsteps >= INT32_MAX || prog->nedges + edges >= INT32_MAX ||
        loom_sim_prog_reserve(prog, first + sched->nsteps, prog->nedges + edges) != 0) {
        return -1;
    }
    prog->base[r] = first;
    for (i = 0; i < sched->nsteps; ++i) {
        d = &sched->steps[i].desc;
        prog->steps[first + i] = (loom_sim_step_t){ .bytes = d->bytes, .peer = d->peer,
                                                    .tag = d->tag_step, .owner = r,
                                                    .type = (uint8_t)d->type };
    }
    for (i = 0; i < sched->nsteps; ++i) {
        d = &sched->steps[i].desc;
        for (k = 0; k < d->ndeps; ++k) {
            if (d->deps[k] >= 0) {
                prog->steps[first + i].ndeps++;
                if (prog->steps[first + d->deps[k]].ndependents == UINT16_MAX) {
                    return -1;
                }
                prog->steps[first + d->deps[k]].ndependents++;
            }
        }
    }
    at = prog->nedges;
    for (i = 0; i < sched->nsteps; ++i) {
        st = &prog->steps[first + i];
        st->dep_first = (uint32_t)at;
        at += st->ndependents;
        st->ndependents = 0;   /* counts again while filling */
    }
    for (i = 0; i < sched->nsteps; ++i) {
        d = &sched->steps[i].desc;
        for (k = 0; k < d->ndeps; ++k) {
            if (d->deps[k] >= 0) {
                st = &prog->steps[first + d->deps[k]];
                prog->dependents[st->dep_first + st->ndependents++] = (int32_t)(first + i);
            }
        }
    }
    prog->nedges = at;
    prog->nsteps = first + sched->nsteps;
    return 0;
}

/*
 * Lays the steps out as step k of rank 0, of rank 1, ... of rank p-1,
 * then step k+1: ranks run the same step at about the same time, so the
 * executor then walks memory nearly in order instead of jumping between
 * p schedules (at 4096 ranks, gigabytes apart).  Ranks with fewer steps
 * leave holes (type LOOM_SIM_STEP_NONE), never started.
 */
static int loom_sim_prog_interleave(loom_sim_prog_t *prog)
{
    long maxn = 0, n, r, k, old, nw, at = 0, i;
    loom_sim_step_t *steps;
    int32_t *deps;
    int p = prog->p;

    for (r = 0; r < p; ++r) {
        n = prog->base[r + 1] - prog->base[r];
        maxn = n > maxn ? n : maxn;
    }
    if (maxn * p >= INT32_MAX) {
        return -1;
    }
    steps = malloc(sizeof(*steps) * (size_t)(maxn * p > 0 ? maxn * p : 1));
    deps = malloc(sizeof(*deps) * (size_t)(prog->nedges > 0 ? prog->nedges : 1));
    if (steps == NULL || deps == NULL) {
        free(steps);
        free(deps);
        return -1;
    }
    /* Old index -> new: rank r's k-th step goes to k * p + r. */
    for (k = 0; k < maxn; ++k) {
        for (r = 0; r < p; ++r) {
            nw = k * p + r;
            old = prog->base[r] + k;
            if (old >= prog->base[r + 1]) {
                steps[nw] = (loom_sim_step_t){ .type = LOOM_SIM_STEP_NONE, .owner = (int32_t)r,
                                               .ndeps = 1 };
                continue;
            }
            steps[nw] = prog->steps[old];
            steps[nw].dep_first = (uint32_t)at;
            for (i = 0; i < steps[nw].ndependents; ++i) {
                long d = prog->dependents[prog->steps[old].dep_first + i];
                int dr = prog->steps[d].owner;

                deps[at++] = (int32_t)((d - prog->base[dr]) * p + dr);
            }
        }
    }
    free(prog->steps);
    free(prog->dependents);
    prog->steps = steps;
    prog->dependents = deps;
    prog->cap_steps = maxn * p;
    prog->cap_edges = prog->nedges;
    prog->nsteps = maxn * p;
    for (r = 0; r <= p; ++r) {
        prog->base[r] = -1;   /* no longer contiguous: use owner */
    }
    return 0;
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
    free(keys);
    free(peers);
    return status;
}

loom_status_t loom_sim_prog_build(const loom_sim_build_params_t *pa, loom_sim_prog_t **prog_p)
{
    const loom_sim_layout_t *lay = pa->layout;
    int p = lay->p, r;
    size_t esize = pa->elem_size ? pa->elem_size : 4;
    loom_sim_prog_t *prog = calloc(1, sizeof(*prog));
    loom_status_t status = LOOM_ERR_NO_MEMORY;
    loom_team_t *team = NULL;
    loom_sched_t *sched;
    loom_coll_args_t args;

    if (prog == NULL) {
        goto out;
    }
    prog->layout = lay;
    prog->p = p;
    prog->base = malloc(sizeof(long) * (size_t)(p + 1));
    if (prog->base == NULL) {
        goto out;
    }
    status = loom_sim_layout_team(lay, &team);
    if (status != LOOM_OK) {
        goto out;
    }
    /* The buffers are never touched: plans only record addresses, so any
     * two disjoint ranges will do (no memory of n bytes per rank). */
    args = (loom_coll_args_t){
        .sendbuf = (const void *)(uintptr_t)0x1000, .recvbuf = NULL,
        .count = pa->bytes / esize, .elem_size = esize,
        .op = { .fn = loom_sim_no_reduce, .ctx = NULL, .commutative = 1 },
        .in_place = pa->in_place, .seg_bytes = pa->seg_bytes, .depth = pa->depth,
    };
    args.recvbuf = (void *)(uintptr_t)(0x1000 + ((pa->bytes + 4095) & ~(size_t)4095) + 4096);
    for (r = 0; r < p; ++r) {
        /* Plans depend on the team only through size, rank and the
         * node/rack maps: one team serves every rank in turn. */
        team->rank = r;
        status = pa->plan(&args, team, &sched);
        if (status != LOOM_OK) {
            goto out;
        }
        if (loom_sim_prog_add(prog, r, sched) != 0) {
            loom_sched_destroy(sched);
            status = LOOM_ERR_NO_MEMORY;
            goto out;
        }
        loom_sched_destroy(sched);
        if (r == 0 && loom_sim_prog_reserve(prog, (long)(prog->nsteps * 1.05 * p) + 64,
                                            (long)(prog->nedges * 1.05 * p) + 64) != 0) {
            status = LOOM_ERR_NO_MEMORY;
            goto out;
        }
    }
    prog->base[p] = prog->nsteps;
    prog->real_steps = prog->nsteps;
    if (loom_sim_prog_interleave(prog) != 0) {
        status = LOOM_ERR_NO_MEMORY;
        goto out;
    }
    *prog_p = prog;
    prog = NULL;
    status = LOOM_OK;
out:
    if (team != NULL) {
        team->rank = 0;
        loom_team_destroy(team);
    }
    loom_sim_prog_destroy(prog);
    return status;
}

void loom_sim_prog_destroy(loom_sim_prog_t *prog)
{
    if (prog == NULL) {
        return;
    }
    free(prog->base);
    free(prog->steps);
    free(prog->dependents);
    free(prog);
}
