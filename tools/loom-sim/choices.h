/*
 * loom-sim choices: what the engine would run at each point of the
 * options (collective, rank count, size) on the model's layout and links,
 * with nothing simulated: a table to compare the selection against.
 */
#ifndef LOOM_SIM_CHOICES_H
#define LOOM_SIM_CHOICES_H

#include "options.h"

#include <stdio.h>

/* Prints the table on out; 0, or -1 after a message on stderr. */
int loom_sim_choices_main(const loom_sim_options_t *o, FILE *out);

#endif
