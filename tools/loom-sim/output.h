/* What loom-sim prints: the table, the CSV and the plot of a sweep. */
#ifndef LOOM_SIM_OUTPUT_H
#define LOOM_SIM_OUTPUT_H

#include "sweep.h"

#include <stdio.h>

void loom_sim_output_table(FILE *out, const loom_sim_options_t *o, const loom_sim_sweep_t *sw);

/* 0, or -1 with a message on stderr. */
int loom_sim_output_csv(const char *path, const loom_sim_options_t *o,
                        const loom_sim_sweep_t *sw);

/* busbw against rank count at one size (against size when the sweep has
 * one rank count), one line per algorithm, through gnuplot; 0 or -1 with
 * a message. */
int loom_sim_output_plot(const char *path, const loom_sim_options_t *o,
                         const loom_sim_sweep_t *sw);

#endif
