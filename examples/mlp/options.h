/*
 * The command line of train_mlp: long flags, each value checked, with an
 * error that names the flag, the value and what is accepted.
 */
#ifndef MLP_OPTIONS_H
#define MLP_OPTIONS_H

#include <stdint.h>
#include <stdio.h>

#include "common.h"

#define MLP_MAX_HIDDEN 6

typedef struct mlp_options {
    const char *data_dir;
    int         epochs;
    int         batch;          /* global batch: all ranks together */
    double      lr;
    double      momentum;
    uint64_t    seed;
    int         hidden[MLP_MAX_HIDDEN];
    int         num_hidden;
    int         accum;          /* micro-batches per optimizer step */
    int         overlap;        /* bucketed MPI_Iallreduce during backward */
    long        train_limit;    /* 0: the whole set */
    long        test_limit;
    long        steps;          /* 0: no limit */
    const char *dump_params;    /* NULL: none */
    const char *checkpoint_dir; /* NULL: no checkpoints */
    long        checkpoint_every;   /* optimizer steps; 0: only resume */
    long        step_sleep_ms;  /* after each step: a slower model, for tests */
    const char *filter;         /* NULL: dense; else the info key loom_filter's
                                 * value, passed through as given */
    int         quiet;
} mlp_options_t;

#define MLP_DEFAULT_DATA_DIR "/usr/share/datasets/fashion-mnist"

/* The longest --filter SPEC: an MPI info value's limit (MPI_MAX_INFO_VAL
 * is 256 in Open MPI, terminator included). */
#define MLP_FILTER_SPEC_MAX 255

/* Parse argv into opts (defaults first).  MLP_HELP when --help was given,
 * MLP_ERR_ARG with err filled for a bad option. */
mlp_status_t mlp_options_parse(int argc, char **argv, mlp_options_t *opts, mlp_error_t *err);

/* The momentum=M option of a filter spec, 0 without one.  With it the
 * filter applies momentum (its correction keeps momentum for the entries
 * it delays), so the optimizer's is off: mlp_options_parse sets
 * momentum to 0, never applying it twice. */
double mlp_filter_momentum(const char *spec);

/* The usage text, for --help. */
void mlp_options_usage(FILE *out, const char *prog);

/* "512,256" for the log lines. */
void mlp_options_hidden_str(const mlp_options_t *opts, char *buf, int len);

#endif
