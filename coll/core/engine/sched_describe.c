/*
 * What a schedule is waiting for, in words, for the hang report: a
 * collective that makes no progress for too long names the steps it has
 * posted and the peers they wait on, so that a user can find the rank that
 * never arrived (NCCL and Horovod users ask for exactly this).
 */
#include "coll/core/engine/sched.h"

#include <stdarg.h>
#include <stdio.h>

static const char *loom_step_type_name(loom_step_type_t type)
{
    switch (type) {
    case LOOM_STEP_SEND:   return "send";
    case LOOM_STEP_RECV:   return "receive";
    case LOOM_STEP_REDUCE: return "reduce";
    case LOOM_STEP_COPY:   return "copy";
    case LOOM_STEP_COMPUTE: return "compute";
    }
    return "step";
}

/* Append to buf, never past len - 1 characters. */
static void loom_append(char *buf, size_t len, size_t *used_p, const char *fmt, ...)
    __attribute__((format(printf, 4, 5)));

static void loom_append(char *buf, size_t len, size_t *used_p, const char *fmt, ...)
{
    size_t room = len - *used_p;
    va_list ap;
    int n;

    va_start(ap, fmt);
    n = vsnprintf(buf + *used_p, room, fmt, ap);
    va_end(ap);
    if (n > 0) {
        *used_p += (size_t)n < room ? (size_t)n : room - 1;
    }
}

size_t loom_sched_describe_wait(const loom_sched_t *sched, char *buf, size_t len)
{
    const loom_step_t *st;
    const loom_step_desc_t *d;
    int i, shown = 0, pending = 0;
    size_t used = 0;

    buf[0] = '\0';
    loom_append(buf, len, &used, "seq %u, %d of %d steps done", sched->seq, sched->ndone,
                sched->nsteps);
    for (i = 0; i < sched->nposted; ++i) {
        if (loom_completion_is_done(&sched->steps[sched->posted[i]].comp)) {
            continue;
        }
        if (++pending > 3) {
            continue;
        }
        st = &sched->steps[sched->posted[i]];
        d = &st->desc;
        /* A step of run-time length shows the length it runs with, and
         * one of an arm names it. */
        loom_append(buf, len, &used, "%s step %d: %s of %zu bytes %s rank %d",
                    shown++ ? ";" : "; waiting on", sched->posted[i],
                    loom_step_type_name(d->type), d->len_at != NULL ? st->len : d->bytes,
                    d->type == LOOM_STEP_SEND ? "to" : "from", d->peer);
        if (d->arm != 0) {
            loom_append(buf, len, &used, " (arm %d)", d->arm);
        }
    }
    if (pending > shown) {
        loom_append(buf, len, &used, "; and %d more", pending - shown);
    } else if (pending == 0) {
        loom_append(buf, len, &used, "; no posted step is pending");
    }
    return used;
}
