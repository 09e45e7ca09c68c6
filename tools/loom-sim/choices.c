/* loom-sim choices (choices.h). */
#include "choices.h"
#include "coll/sim/exec.h"
#include "sweep.h"

/* One rank count: every collective asked for, every size. */
static loom_status_t loom_sim_choices_ranks(const loom_sim_options_t *o, int p, FILE *out)
{
    const loom_sim_coll_t *coll;
    loom_sim_layout_t *lay;
    loom_choice_t choice;
    loom_coll_config_t cfg;
    loom_team_t *team;
    loom_status_t status = loom_sim_layout_create(&o->model, p, &lay);
    size_t bytes;
    int c, ncolls = o->coll_given ? 1 : loom_sim_coll_count();

    if (status != LOOM_OK) {
        return status;
    }
    status = loom_sim_layout_team(lay, &team);
    if (status != LOOM_OK) {
        loom_sim_layout_destroy(lay);
        return status;
    }
    loom_sim_config(&o->model, &cfg);
    for (c = 0; c < ncolls; ++c) {
        coll = o->coll_given ? o->coll : loom_sim_coll_at(c);
        for (bytes = o->min_bytes; bytes <= o->max_bytes; bytes *= (size_t)o->factor) {
            loom_sim_select(coll, &cfg, team, bytes, 0, &choice);
            fprintf(out, "%-15s %5d %5d %5d %10zu  %-22s %9zu %5d\n", coll->engine->name, p,
                    lay->nodes, lay->racks, bytes, coll->engine->alg_names[choice.alg],
                    choice.seg_bytes, choice.depth);
        }
    }
    loom_team_destroy(team);
    loom_sim_layout_destroy(lay);
    return LOOM_OK;
}

int loom_sim_choices_main(const loom_sim_options_t *o, FILE *out)
{
    const loom_sim_model_t *m = &o->model;
    loom_status_t status;
    int i;

    fprintf(out, "# loom-sim choices: %d ranks per node, %d nodes per rack, %d NICs per node, "
            "map by %s\n", m->ranks_per_node, m->nodes_per_rack, m->nics_per_node,
            m->map == LOOM_SIM_MAP_NODE ? "node" : "core");
    fprintf(out, "# %-13s %5s %5s %5s %10s  %-22s %9s %5s\n", "collective", "ranks", "nodes",
            "racks", "bytes", "algorithm", "segment", "depth");
    for (i = 0; i < o->nranks; ++i) {
        status = loom_sim_choices_ranks(o, o->ranks[i], out);
        if (status != LOOM_OK) {
            fprintf(stderr, "loom-sim choices: %d ranks: %s\n", o->ranks[i],
                    loom_status_string(status));
            return -1;
        }
    }
    return 0;
}
