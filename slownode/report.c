/*
 * What the library tells (docs/slownode.md, "Report"): one line on rank 0's
 * stderr per verdict change or rank-order step, and at MPI_Finalize a JSON
 * record of every event.  Every rank holds the same events (they come from
 * the same gathered windows), so rank 0 alone writes the record unless the
 * path names each rank's own file with %r.
 */
#include <stdio.h>
#include <string.h>

#include "slownode.h"

static const char *loom_sn_event_names[] = {
    [LOOM_SN_EVENT_FLAG] = "flag", [LOOM_SN_EVENT_CLEAR] = "clear",
    [LOOM_SN_EVENT_REORDER] = "reorder", [LOOM_SN_EVENT_KEEP] = "keep",
    [LOOM_SN_EVENT_REVERT] = "revert", [LOOM_SN_EVENT_RESTORE] = "restore",
};

static const char *loom_sn_host(int rank)
{
    return loom_sn.hosts != NULL ? loom_sn.hosts[rank] : "?";
}

void loom_sn_report_event(const loom_sn_event_t *ev)
{
    int k = loom_sn.settings.detect.window;

    if (loom_sn.world_rank != 0) {
        return;
    }
    switch (ev->kind) {
    case LOOM_SN_EVENT_FLAG:
        fprintf(stderr, "loom-slownode: rank %d on %s is %.0f%% slower (over %d collectives: "
                "arrives %.2f ms after the median rank; flagged at collective %llu of "
                "communicator %d)\n", ev->rank, loom_sn_host(ev->rank), ev->slower_pct,
                ev->windows * k, ev->late_ms, (unsigned long long)ev->collective, ev->comm);
        break;
    case LOOM_SN_EVENT_CLEAR:
        fprintf(stderr, "loom-slownode: rank %d on %s is on time again (over %d collectives; "
                "cleared at collective %llu of communicator %d)\n", ev->rank,
                loom_sn_host(ev->rank), ev->windows * k, (unsigned long long)ev->collective,
                ev->comm);
        break;
    case LOOM_SN_EVENT_REORDER:
        fprintf(stderr, "loom-slownode: asked Loom to place rank %d last on communicator %d "
                "(after collective %llu)\n", ev->rank, ev->comm,
                (unsigned long long)ev->collective);
        break;
    case LOOM_SN_EVENT_RESTORE:
        fprintf(stderr, "loom-slownode: rank %d is on time again: communicator %d back to rank "
                "order (after collective %llu)\n", ev->rank, ev->comm,
                (unsigned long long)ev->collective);
        break;
    case LOOM_SN_EVENT_KEEP:
    case LOOM_SN_EVENT_REVERT:
        fprintf(stderr, "loom-slownode: rank %d last on communicator %d: step %.3f ms before, "
                "%.3f ms after; after the last arrival %.3f ms before, %.3f ms after: %s\n",
                ev->rank, ev->comm, ev->step_before_ms, ev->step_after_ms, ev->tail_before_ms,
                ev->tail_after_ms, ev->kind == LOOM_SN_EVENT_KEEP ? "kept" :
                "not better, back to rank order");
        break;
    }
}

static void loom_sn_json_event(FILE *f, const loom_sn_event_t *ev)
{
    fprintf(f, "{\"event\": \"%s\", \"rank\": %d, \"host\": \"%s\", \"comm\": %d, "
            "\"collective\": %llu", loom_sn_event_names[ev->kind], ev->rank,
            loom_sn_host(ev->rank), ev->comm, (unsigned long long)ev->collective);
    if (ev->kind == LOOM_SN_EVENT_FLAG) {
        fprintf(f, ", \"slower_pct\": %.2f, \"late_ms\": %.3f, \"windows\": %d",
                ev->slower_pct, ev->late_ms, ev->windows);
    } else if (ev->kind == LOOM_SN_EVENT_CLEAR) {
        fprintf(f, ", \"windows\": %d", ev->windows);
    } else if (ev->kind == LOOM_SN_EVENT_KEEP || ev->kind == LOOM_SN_EVENT_REVERT) {
        fprintf(f, ", \"step_before_ms\": %.4f, \"step_after_ms\": %.4f, "
                "\"tail_before_ms\": %.4f, \"tail_after_ms\": %.4f", ev->step_before_ms,
                ev->step_after_ms, ev->tail_before_ms, ev->tail_after_ms);
    }
    fputc('}', f);
}

/* The path with %r replaced by this rank; 0 when this rank writes none. */
static int loom_sn_json_path(char *buf, size_t len)
{
    const char *path = loom_sn.settings.json, *mark = strstr(path, "%r");

    if (path[0] == '\0' || (mark == NULL && loom_sn.world_rank != 0)) {
        return 0;
    }
    if (mark == NULL) {
        snprintf(buf, len, "%s", path);
    } else {
        snprintf(buf, len, "%.*s%d%s", (int)(mark - path), path, loom_sn.world_rank, mark + 2);
    }
    return 1;
}

void loom_sn_report_json(void)
{
    const loom_sn_detect_params_t *p = &loom_sn.settings.detect;
    char path[600];
    FILE *f;
    int i;

    if (!loom_sn_json_path(path, sizeof(path))) {
        return;
    }
    f = fopen(path, "w");
    if (f == NULL) {
        fprintf(stderr, "loom-slownode: cannot write %s: %m\n", path);
        return;
    }
    fprintf(f, "{\"rank\": %d, \"ranks\": %d, \"window\": %d, \"windows\": %d, "
            "\"floor_ms\": %g, \"floor_pct\": %g, \"mad\": %g, \"min_ms\": %g, "
            "\"clock_offset_ns\": %lld, "
            "\"blocking_calls\": %llu, \"nonblocking_calls\": %llu, \"exchanges\": %llu, "
            "\"max_late_ms\": %.3f, \"max_late_rank\": %d, \"loom_rank_order\": %s, \"rank_order_accepted\": %llu,\n \"events\": [",
            loom_sn.world_rank, loom_sn.world_size, p->window, p->windows, p->floor_ms,
            p->floor_pct, p->mad_k, p->min_ms, (long long)loom_sn.clock_offset_ns,
            (unsigned long long)loom_sn.blocking_calls,
            (unsigned long long)loom_sn.nonblocking_calls,
            (unsigned long long)loom_sn.exchanges, loom_sn.detector.max_excess_ns / 1e6,
            loom_sn.detector.max_excess_rank, loom_sn.order.available ? "true" : "false",
            loom_sn.order.accepted);
    for (i = 0; i < loom_sn.event_count; ++i) {
        fputs(i ? ",\n  " : "\n  ", f);
        loom_sn_json_event(f, &loom_sn.events[i]);
    }
    fputs("]}\n", f);
    if (fclose(f) != 0) {
        fprintf(stderr, "loom-slownode: cannot write %s: %m\n", path);
    }
}
