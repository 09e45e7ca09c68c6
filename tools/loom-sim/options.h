/*
 * loom-sim's command line (docs/loom-sim.md).  Every bad value is
 * rejected with a message naming the option and what it accepts.
 */
#ifndef LOOM_SIM_OPTIONS_H
#define LOOM_SIM_OPTIONS_H

#include "coll/sim/model.h"
#include "coll.h"

#include <stddef.h>
#include <stdio.h>

#define LOOM_SIM_MAX_RANK_COUNTS 64
#define LOOM_SIM_MAX_RANKS (1 << 16)
#define LOOM_SIM_MAX_JOBS 64
/* -j by default: the cores online, at most this many (each job holds a
 * program, up to 2 GB at 4096 ranks). */
#define LOOM_SIM_DEFAULT_JOBS_MAX 4

typedef enum loom_sim_mode {
    LOOM_SIM_MODE_RUN = 0,
    LOOM_SIM_MODE_CALIBRATE,
    LOOM_SIM_MODE_CHOICES   /* the engine's choices only, nothing simulated */
} loom_sim_mode_t;

/* --order: how the simulated team's ranks are placed (engine/team.h). */
typedef enum loom_sim_order_kind {
    LOOM_SIM_ORDER_RANKS = 0,   /* rank order (the default) */
    LOOM_SIM_ORDER_REVERSE,     /* position i holds rank p-1-i */
    LOOM_SIM_ORDER_RANDOM,      /* a permutation drawn from order_seed */
    LOOM_SIM_ORDER_LIST         /* order_list: the rank at each position */
} loom_sim_order_kind_t;

typedef struct loom_sim_options {
    loom_sim_mode_t     mode;
    loom_sim_model_t    model;
    const loom_sim_coll_t *coll;
    int                 coll_given;     /* -c was given (choices: else every collective) */
    int                 algs[LOOM_SIM_MAX_ALGS];    /* of coll, in order; 0 = Loom's choice */
    int                 nalgs;
    int                 ranks[LOOM_SIM_MAX_RANK_COUNTS];
    int                 nranks;
    size_t              min_bytes, max_bytes;
    int                 factor;
    int                 in_place;
    int                 no_fold;        /* every rank runs, symmetric or not */
    loom_sim_order_kind_t order_kind;
    unsigned long long  order_seed;     /* RANDOM */
    const char          *order_list;    /* LIST: as given, checked (one rank count) */
    const char          *csv_path;
    const char          *plot_path;
    size_t              plot_bytes;     /* 0: the largest size */
    int                 quiet;          /* no table */
    int                 jobs;           /* points simulated at once (threads) */
    loom_sim_sparse_t   sparse;         /* -c sparse_allreduce: --density, --sparse-path */
    /* calibrate */
    const char          *pingpong_path;
    const char          *bench_path;
    int                 bench_alg;      /* the algorithm the bench ran */
    int                 bench_ranks;
    const char          *out_path;      /* the model file written; NULL: stdout */
} loom_sim_options_t;

typedef enum loom_sim_parse {
    LOOM_SIM_PARSE_OK,
    LOOM_SIM_PARSE_EXIT,    /* --help printed */
    LOOM_SIM_PARSE_ERROR    /* message on err */
} loom_sim_parse_t;

loom_sim_parse_t loom_sim_options_parse(int argc, char **argv, FILE *err,
                                        loom_sim_options_t *opts_p);

/* The order --order asks for on p ranks into order (p entries): 1 when
 * there is one, 0 for rank order (order untouched). */
int loom_sim_order_fill(const loom_sim_options_t *o, int p, int *order);

/* The -j a run gets unless told: the cores online, at most
 * LOOM_SIM_DEFAULT_JOBS_MAX. */
int loom_sim_default_jobs(void);

#endif
