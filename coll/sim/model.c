/* The modeled cluster: defaults, checks, the model file (model.h). */
#include "model.h"

#include <errno.h>
#include <stddef.h>
#include <math.h>
#include <stdlib.h>
#include <string.h>

const char *const loom_sim_class_names[LOOM_SIM_CLASS_COUNT] = {
    [LOOM_SIM_INTRA_NODE] = "intra_node",
    [LOOM_SIM_INTRA_RACK] = "intra_rack",
    [LOOM_SIM_INTER_RACK] = "inter_rack",
};

void loom_sim_model_default(loom_sim_model_t *model)
{
    /* NVLink-class links inside a node, 400 Gbit/s = 50 GB/s per NIC,
     * a switch hop more between racks; reductions at accelerator memory
     * speed.  Round figures of today's training clusters, not a vendor's
     * data sheet: calibrate for a real one. */
    *model = (loom_sim_model_t){
        .ranks_per_node = 8, .nodes_per_rack = 16, .nics_per_node = 8,
        .map = LOOM_SIM_MAP_CORE, .nodes = 0,
        .alpha_us = { 2.0, 5.0, 7.0 },
        .gbs = { 150.0, 50.0, 50.0 },
        .reduce_gbs = 500.0, .copy_gbs = 1000.0,
        .nic_gbs = 0, .uplink_gbs = 0, .oversubscription = 4.0, .node_mem_gbs = 0,
        .overhead_us = 0,
    };
}

double loom_sim_model_nic_bps(const loom_sim_model_t *model)
{
    return (model->nic_gbs > 0 ? model->nic_gbs : model->gbs[LOOM_SIM_INTRA_RACK]) * 1e9;
}

double loom_sim_model_uplink_bps(const loom_sim_model_t *model)
{
    if (model->uplink_gbs > 0) {
        return model->uplink_gbs * 1e9;
    }
    return loom_sim_model_nic_bps(model) * model->nics_per_node * model->nodes_per_rack /
           model->oversubscription;
}

#define LOOM_SIM_BAD(...) (snprintf(err, len, __VA_ARGS__), LOOM_ERR_INVALID_PARAM)

loom_status_t loom_sim_model_check(const loom_sim_model_t *m, char *err, size_t len)
{
    int c;

    if (m->ranks_per_node < 1 || m->nodes_per_rack < 1 || m->nics_per_node < 1) {
        return LOOM_SIM_BAD("ranks_per_node, nodes_per_rack and nics_per_node must be "
                            "integers >= 1 (got %d, %d, %d)", m->ranks_per_node,
                            m->nodes_per_rack, m->nics_per_node);
    }
    if (m->nodes < 0) {
        return LOOM_SIM_BAD("nodes must be >= 0 (0: as many as the ranks fill)");
    }
    for (c = 0; c < LOOM_SIM_CLASS_COUNT; ++c) {
        if (!(m->alpha_us[c] >= 0) || !isfinite(m->alpha_us[c])) {
            return LOOM_SIM_BAD("%s_alpha_us must be a number >= 0", loom_sim_class_names[c]);
        }
        if (!(m->gbs[c] > 0) || !isfinite(m->gbs[c])) {
            return LOOM_SIM_BAD("%s_gbs must be a number > 0", loom_sim_class_names[c]);
        }
    }
    if (!(m->reduce_gbs > 0) || !(m->copy_gbs > 0)) {
        return LOOM_SIM_BAD("reduce_gbs and copy_gbs must be numbers > 0");
    }
    if (!(m->nic_gbs >= 0) || !(m->uplink_gbs >= 0) || !(m->node_mem_gbs >= 0)) {
        return LOOM_SIM_BAD("nic_gbs, uplink_gbs and node_mem_gbs must be numbers >= 0 "
                            "(0: derived, see docs/loom-sim.md)");
    }
    if (!(m->overhead_us >= 0) || !isfinite(m->overhead_us)) {
        return LOOM_SIM_BAD("overhead_us must be a number >= 0 (the CPU time per message, "
                            "0: none)");
    }
    if (!(m->oversubscription >= 1) || !isfinite(m->oversubscription)) {
        return LOOM_SIM_BAD("oversubscription must be a number >= 1 (4 for 4:1)");
    }
    return LOOM_OK;
}

/* Whether a strtod or strtol called with errno cleared read a number from
 * all of text (end: where it stopped), without a range error: what both
 * kinds of model value ask. */
static int loom_sim_read_whole(const char *text, const char *end)
{
    return end != text && *end == '\0' && errno == 0;
}

static loom_status_t loom_sim_parse_double(const char *key, const char *text, double *v_p,
                                           char *err, size_t len)
{
    char *end;
    double v;

    errno = 0;
    v = strtod(text, &end);
    if (!loom_sim_read_whole(text, end) || !isfinite(v)) {
        return LOOM_SIM_BAD("%s: '%s' is not a number", key, text);
    }
    *v_p = v;
    return LOOM_OK;
}

static loom_status_t loom_sim_parse_int(const char *key, const char *text, int *v_p,
                                        char *err, size_t len)
{
    char *end;
    long v;

    errno = 0;
    v = strtol(text, &end, 10);
    if (!loom_sim_read_whole(text, end) || v < 0 || v > 1 << 24) {
        return LOOM_SIM_BAD("%s: '%s' is not an integer in 0..%d", key, text, 1 << 24);
    }
    *v_p = (int)v;
    return LOOM_OK;
}

loom_status_t loom_sim_model_set(loom_sim_model_t *m, const char *key, const char *value,
                                 char *err, size_t len)
{
    static const struct { const char *key; size_t off; } dbl[] = {
        { "intra_node_alpha_us", offsetof(loom_sim_model_t, alpha_us[0]) },
        { "intra_rack_alpha_us", offsetof(loom_sim_model_t, alpha_us[1]) },
        { "inter_rack_alpha_us", offsetof(loom_sim_model_t, alpha_us[2]) },
        { "intra_node_gbs", offsetof(loom_sim_model_t, gbs[0]) },
        { "intra_rack_gbs", offsetof(loom_sim_model_t, gbs[1]) },
        { "inter_rack_gbs", offsetof(loom_sim_model_t, gbs[2]) },
        { "reduce_gbs", offsetof(loom_sim_model_t, reduce_gbs) },
        { "copy_gbs", offsetof(loom_sim_model_t, copy_gbs) },
        { "nic_gbs", offsetof(loom_sim_model_t, nic_gbs) },
        { "uplink_gbs", offsetof(loom_sim_model_t, uplink_gbs) },
        { "oversubscription", offsetof(loom_sim_model_t, oversubscription) },
        { "node_mem_gbs", offsetof(loom_sim_model_t, node_mem_gbs) },
        { "overhead_us", offsetof(loom_sim_model_t, overhead_us) },
    };
    static const struct { const char *key; size_t off; } ints[] = {
        { "ranks_per_node", offsetof(loom_sim_model_t, ranks_per_node) },
        { "nodes_per_rack", offsetof(loom_sim_model_t, nodes_per_rack) },
        { "nics_per_node", offsetof(loom_sim_model_t, nics_per_node) },
        { "nodes", offsetof(loom_sim_model_t, nodes) },
    };
    size_t i;

    for (i = 0; i < sizeof(dbl) / sizeof(dbl[0]); ++i) {
        if (strcmp(key, dbl[i].key) == 0) {
            return loom_sim_parse_double(key, value, (double *)((char *)m + dbl[i].off),
                                         err, len);
        }
    }
    for (i = 0; i < sizeof(ints) / sizeof(ints[0]); ++i) {
        if (strcmp(key, ints[i].key) == 0) {
            return loom_sim_parse_int(key, value, (int *)((char *)m + ints[i].off), err, len);
        }
    }
    if (strcmp(key, "map") == 0) {
        if (strcmp(value, "core") == 0 || strcmp(value, "node") == 0) {
            m->map = value[0] == 'c' ? LOOM_SIM_MAP_CORE : LOOM_SIM_MAP_NODE;
            return LOOM_OK;
        }
        return LOOM_SIM_BAD("map: '%s' is not one of core, node", value);
    }
    return LOOM_SIM_BAD("unknown model key '%s' (keys: ranks_per_node, nodes_per_rack, "
                        "nics_per_node, nodes, map, {intra_node,intra_rack,inter_rack}_"
                        "{alpha_us,gbs}, reduce_gbs, copy_gbs, nic_gbs, uplink_gbs, "
                        "oversubscription, node_mem_gbs, overhead_us)", key);
}

static char *loom_sim_trim(char *s)
{
    char *end;

    while (*s == ' ' || *s == '\t') {
        ++s;
    }
    end = s + strlen(s);
    while (end > s && (end[-1] == ' ' || end[-1] == '\t' || end[-1] == '\n' ||
                       end[-1] == '\r')) {
        *--end = '\0';
    }
    return s;
}

loom_status_t loom_sim_model_load(loom_sim_model_t *model, const char *path, char *err,
                                  size_t len)
{
    char line[512], sub[400], *hash, *eq, *key, *value;
    loom_sim_model_t m = *model;
    loom_status_t status = LOOM_OK;
    int lineno = 0;
    FILE *f = fopen(path, "r");

    if (f == NULL) {
        return LOOM_SIM_BAD("--model %s: %s", path, strerror(errno));
    }
    while (status == LOOM_OK && fgets(line, sizeof(line), f) != NULL) {
        ++lineno;
        hash = strchr(line, '#');
        if (hash != NULL) {
            *hash = '\0';
        }
        key = loom_sim_trim(line);
        if (*key == '\0') {
            continue;
        }
        eq = strchr(key, '=');
        if (eq == NULL) {
            status = LOOM_SIM_BAD("%s:%d: expected 'key = value'", path, lineno);
            break;
        }
        *eq = '\0';
        value = loom_sim_trim(eq + 1);
        key = loom_sim_trim(key);
        status = loom_sim_model_set(&m, key, value, sub, sizeof(sub));
        if (status != LOOM_OK) {
            snprintf(err, len, "%s:%d: %s", path, lineno, sub);
        }
    }
    fclose(f);
    if (status == LOOM_OK) {
        status = loom_sim_model_check(&m, sub, sizeof(sub));
        if (status != LOOM_OK) {
            snprintf(err, len, "%s: %s", path, sub);
        }
    }
    if (status == LOOM_OK) {
        *model = m;
    }
    return status;
}

void loom_sim_model_write(FILE *out, const loom_sim_model_t *m)
{
    int c;

    fprintf(out, "# loom-sim model (docs/loom-sim.md); alpha in microseconds, "
            "speeds in GB/s (1e9 bytes/s)\n");
    fprintf(out, "ranks_per_node = %d\nnodes_per_rack = %d\nnics_per_node = %d\n"
            "nodes = %d\nmap = %s\n", m->ranks_per_node, m->nodes_per_rack,
            m->nics_per_node, m->nodes, m->map == LOOM_SIM_MAP_CORE ? "core" : "node");
    for (c = 0; c < LOOM_SIM_CLASS_COUNT; ++c) {
        fprintf(out, "%s_alpha_us = %.6g\n%s_gbs = %.6g\n", loom_sim_class_names[c],
                m->alpha_us[c], loom_sim_class_names[c], m->gbs[c]);
    }
    fprintf(out, "reduce_gbs = %.6g\ncopy_gbs = %.6g\nnic_gbs = %.6g\nuplink_gbs = %.6g\n"
            "oversubscription = %.6g\nnode_mem_gbs = %.6g\noverhead_us = %.6g\n", m->reduce_gbs,
            m->copy_gbs, m->nic_gbs, m->uplink_gbs, m->oversubscription, m->node_mem_gbs,
            m->overhead_us);
}

loom_status_t loom_sim_layout_create(const loom_sim_model_t *m, int p,
                                     loom_sim_layout_t **layout_p)
{
    loom_sim_layout_t *lay = calloc(1, sizeof(*lay));
    int r, node, local;

    if (lay == NULL) {
        return LOOM_ERR_NO_MEMORY;
    }
    lay->p = p;
    lay->nodes = m->nodes > 0 ? m->nodes : (p + m->ranks_per_node - 1) / m->ranks_per_node;
    lay->racks = (lay->nodes + m->nodes_per_rack - 1) / m->nodes_per_rack;
    lay->node_of = malloc(sizeof(int) * (size_t)p * 3);
    if (lay->node_of == NULL) {
        free(lay);
        return LOOM_ERR_NO_MEMORY;
    }
    lay->rack_of = lay->node_of + p;
    lay->nic_of = lay->node_of + 2 * p;
    for (r = 0; r < p; ++r) {
        if (m->map == LOOM_SIM_MAP_CORE) {
            node = (r / m->ranks_per_node) % lay->nodes;
            local = r % m->ranks_per_node;
        } else {
            node = r % lay->nodes;
            local = r / lay->nodes;
        }
        lay->node_of[r] = node;
        lay->rack_of[r] = node / m->nodes_per_rack;
        lay->nic_of[r] = node * m->nics_per_node + local % m->nics_per_node;
    }
    *layout_p = lay;
    return LOOM_OK;
}

loom_status_t loom_sim_layout_set_order(loom_sim_layout_t *layout, const int *order)
{
    int p = layout->p, i, *copy = NULL;

    if (order != NULL) {
        copy = calloc((size_t)p * 2, sizeof(int));
        if (copy == NULL) {
            return LOOM_ERR_NO_MEMORY;
        }
        /* The second half counts each rank, to see a permutation. */
        for (i = 0; i < p; ++i) {
            if (order[i] < 0 || order[i] >= p || copy[p + order[i]]++ > 0) {
                free(copy);
                return LOOM_ERR_INVALID_PARAM;
            }
            copy[i] = order[i];
        }
    }
    free(layout->order);
    layout->order = copy;
    return LOOM_OK;
}

void loom_sim_layout_destroy(loom_sim_layout_t *layout)
{
    if (layout != NULL) {
        free(layout->order);
        free(layout->node_of);
        free(layout);
    }
}
