/*
 * loom-sim: Loom's real collective schedules on a modeled cluster of up to
 * thousands of ranks, no MPI needed (docs/loom-sim.md); and
 * `loom-sim calibrate`, which fits the model to measurements.
 */
#include "calibrate.h"
#include "choices.h"
#include "options.h"
#include "output.h"
#include "sweep.h"

#include <stdio.h>
#include <stdlib.h>
#include <unistd.h>

int main(int argc, char **argv)
{
    loom_sim_options_t o;
    loom_sim_sweep_t sw;
    loom_status_t status;
    int rc = EXIT_SUCCESS;

    switch (loom_sim_options_parse(argc, argv, stderr, &o)) {
    case LOOM_SIM_PARSE_EXIT:
        return EXIT_SUCCESS;
    case LOOM_SIM_PARSE_ERROR:
        return 2;
    case LOOM_SIM_PARSE_OK:
        break;
    }
    if (o.mode == LOOM_SIM_MODE_CALIBRATE) {
        return loom_sim_calibrate_main(&o) == 0 ? EXIT_SUCCESS : EXIT_FAILURE;
    }
    if (o.mode == LOOM_SIM_MODE_CHOICES) {
        return loom_sim_choices_main(&o, stdout) == 0 ? EXIT_SUCCESS : EXIT_FAILURE;
    }
    status = loom_sim_sweep_run(&o, isatty(STDERR_FILENO) ? stderr : NULL, &sw);
    if (status != LOOM_OK) {
        fprintf(stderr, "loom-sim: simulation failed: %s\n", loom_status_string(status));
        return EXIT_FAILURE;
    }
    if (!o.quiet) {
        loom_sim_output_table(stdout, &o, &sw);
    }
    if (o.csv_path != NULL && loom_sim_output_csv(o.csv_path, &o, &sw) != 0) {
        rc = EXIT_FAILURE;
    }
    if (o.plot_path != NULL && loom_sim_output_plot(o.plot_path, &o, &sw) != 0) {
        rc = EXIT_FAILURE;
    }
    loom_sim_sweep_free(&sw);
    return rc;
}
