/*
 * The sweep: every rank count, algorithm and size of the options through
 * the simulator, and what Loom's cost model would choose at each point.
 */
#ifndef LOOM_SIM_SWEEP_H
#define LOOM_SIM_SWEEP_H

#include "options.h"

typedef struct loom_sim_row {
    int     ranks, nodes, racks;
    size_t  bytes;
    int     alg;            /* of the options' collective; 0 (auto): Loom's choice */
    int     ran_alg;        /* what ran (the choice for AUTO) */
    size_t  seg_bytes;
    int     ok;             /* 0: the plan refused (time and bandwidths unset) */
    int     arm;            /* the arm its plans took (coll.h's arm_names), 0: none */
    double  time_s, algbw_gbs, busbw_gbs;
    int     choice_alg;     /* Loom's cost model at this point */
    size_t  choice_seg;
    int     chosen;         /* this row is what Loom would run */
    uint64_t sent_bytes;    /* what rank 0 sends (exec.h: loom_sim_prog_sent0) */
} loom_sim_row_t;

typedef struct loom_sim_sweep {
    loom_sim_row_t  *rows;
    int             nrows;
    double          wall_s;
} loom_sim_sweep_t;

/* Runs it all; progress on progress (NULL: silent).  Rows in the order
 * rank count, size, algorithm. */
loom_status_t loom_sim_sweep_run(const loom_sim_options_t *o, FILE *progress,
                                 loom_sim_sweep_t *sweep_p);
void loom_sim_sweep_free(loom_sim_sweep_t *sweep);

/* The settings a Loom told this cluster's links would price with (as a
 * topology file's link speeds set them): a rank's share inside a node,
 * each node's links together, each rack's uplink; the team gives the
 * nodes and racks, so the model's choice is the engine's. */
void loom_sim_config(const loom_sim_model_t *m, loom_coll_config_t *cfg);

/* The prediction of one algorithm of coll (0, auto: Loom's choice) at one
 * point; sp: the sparse allreduce's selection (NULL: --density's
 * default; ignored by the other collectives). */
loom_status_t loom_sim_predict(const loom_sim_coll_t *coll, const loom_sim_model_t *model, int p,
                               size_t bytes, int alg, int in_place, const loom_sim_sparse_t *sp,
                               loom_sim_row_t *row_p);

#endif
