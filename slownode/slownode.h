/*
 * libloom-slownode's shared state (docs/slownode.md).  The library wraps
 * the blocking collectives of an unmodified MPI program, times each rank's
 * arrival at them, and every K collectives on a communicator that spans
 * MPI_COMM_WORLD gathers every rank's window on its own duplicate of
 * MPI_COMM_WORLD.  Every rank runs the same detector on the same gathered
 * numbers, so every rank reaches the same verdict at the same collective.
 * Standard MPI only: Loom's component is reached through MPI_T alone.
 */
#ifndef LOOM_SLOWNODE_H
#define LOOM_SLOWNODE_H

#include <stdint.h>
#include <stdio.h>

#include <mpi.h>

#include "detect.h"

#define LOOM_SN_MAX_COMMS 16
#define LOOM_SN_HOST_LEN 64
#define LOOM_SN_MAX_EVENTS 256

typedef enum {
    LOOM_SN_INJECT_NONE = 0,
    LOOM_SN_INJECT_FACTOR,      /* sleep (factor - 1) x the time since the last collective */
    LOOM_SN_INJECT_STALL        /* sleep a fixed time before each collective */
} loom_sn_inject_kind_t;

/* LOOM_SLOWNODE_REORDER: what to do with Loom's rank order after a verdict. */
typedef enum {
    LOOM_SN_REORDER_OFF = 0,
    LOOM_SN_REORDER_TRIAL = 1, /* write it, keep it only if the next window pays */
    LOOM_SN_REORDER_ALWAYS = 2 /* write it and keep it (to measure it: bench_slownode.sh) */
} loom_sn_reorder_t;

typedef struct {
    int enable;
    loom_sn_reorder_t reorder;
    loom_sn_detect_params_t detect;
    loom_sn_inject_kind_t inject;
    int inject_rank;
    double inject_factor;
    double inject_stall_ms;
    char json[512];             /* "" for none; "%r" is replaced by the rank */
    char error[768];            /* the first bad setting, "" when all are good */
} loom_sn_settings_t;

/* A communicator that spans the world: its calls and the open window. */
typedef struct {
    MPI_Comm comm;
    int index;                  /* in the report: the order communicators were met */
    uint64_t calls;             /* blocking collectives seen on it */
    int n;                      /* entries in the open window */
    double *entry;              /* K corrected entry times (ns) */
    double *gap;                /* K times since the previous collective (ns) */
} loom_sn_comm_t;

typedef enum {
    LOOM_SN_EVENT_FLAG,
    LOOM_SN_EVENT_CLEAR,
    LOOM_SN_EVENT_REORDER,
    LOOM_SN_EVENT_KEEP,
    LOOM_SN_EVENT_REVERT,
    LOOM_SN_EVENT_RESTORE       /* the rank cleared: a kept order goes back to rank order */
} loom_sn_event_kind_t;

typedef struct {
    loom_sn_event_kind_t kind;
    int rank;
    int comm;                   /* loom_sn_comm_t.index */
    uint64_t collective;        /* the call on that communicator after which it happened */
    double slower_pct;          /* flag: time between collectives over the median */
    double late_ms;             /* flag: arrival after the median rank */
    int windows;
    double step_before_ms;      /* keep/revert: median step before and after */
    double step_after_ms;
    double tail_before_ms;      /* keep/revert: median time after the last arrival */
    double tail_after_ms;
} loom_sn_event_t;

/* Loom's rank order, reached through MPI_T (reorder.c). */
typedef enum {
    LOOM_SN_ORDER_IDLE = 0,     /* identity, nothing pending */
    LOOM_SN_ORDER_TRIAL,        /* written; judged at the end of the next window */
    LOOM_SN_ORDER_KEPT,         /* it paid: stays until the rank clears */
    LOOM_SN_ORDER_DONE          /* it did not pay: not tried again until the rank clears */
} loom_sn_order_state_t;

typedef struct {
    int available;              /* Loom's cvar and pvars exist */
    int cvar_index, ctx_index, seq_index, accepted_index;
    MPI_T_pvar_session session;
    MPI_T_pvar_handle accepted_handle;
    int session_open;
    loom_sn_order_state_t state;
    int rank;                   /* the rank placed last */
    int comm;                   /* loom_sn_comm_t.index it was written for */
    double step_before_ns;
    double tail_before_ns;
    unsigned long long accepted; /* coll_loom_rank_order_accepted at MPI_Finalize */
} loom_sn_order_t;

typedef struct {
    int active;
    int mpit_open;
    int world_rank, world_size;
    MPI_Comm lib_comm;
    loom_sn_settings_t settings;
    int64_t clock_offset_ns;    /* this rank's clock minus rank 0's */
    char (*hosts)[LOOM_SN_HOST_LEN];
    uint64_t last_exit_ns;
    uint64_t nonblocking_calls;
    uint64_t blocking_calls;
    uint64_t exchanges;
    loom_sn_comm_t comms[LOOM_SN_MAX_COMMS];
    int comm_count;
    int comms_met;
    loom_sn_detector_t detector;
    double *gathered;           /* world_size x 2K doubles: entries then gaps */
    loom_sn_change_t *changes;  /* room for one change per rank */
    loom_sn_event_t events[LOOM_SN_MAX_EVENTS];
    int event_count;
    loom_sn_order_t order;
} loom_sn_state_t;

extern loom_sn_state_t loom_sn;

uint64_t loom_sn_now(void);

/* settings.c: reads the environment into s; s->error says what was wrong. */
void loom_sn_settings_read(loom_sn_settings_t *s);

/* clock.c: this rank's clock offset against rank 0, on the library's comm. */
int64_t loom_sn_clock_offset(MPI_Comm comm, int rank, int size);

/* inject.c: sleeps on the chosen rank before a collective. */
void loom_sn_inject(uint64_t now_ns);

/* window.c: the windows of the watched communicators and their exchange. */
int loom_sn_window_init(void);
void loom_sn_window_record(MPI_Comm comm, uint64_t entry_ns, uint64_t gap_ns);
void loom_sn_window_forget(MPI_Comm comm);
void loom_sn_window_free_all(void);
/* Keeps ev for the record (the first LOOM_SN_MAX_EVENTS) and logs it. */
void loom_sn_event_add(const loom_sn_event_t *ev);

/* report.c: the log lines and the JSON record. */
void loom_sn_report_event(const loom_sn_event_t *ev);
void loom_sn_report_json(void);

/* reorder.c: Loom's rank order through MPI_T. */
void loom_sn_order_open(void);
void loom_sn_order_after_window(const loom_sn_comm_t *c, const loom_sn_detector_t *d);
void loom_sn_order_close(void);

/* state.c: start at MPI_Init, stop before MPI_Finalize. */
void loom_sn_start(int thread_level);
void loom_sn_stop(void);

#endif
