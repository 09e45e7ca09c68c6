/* The topology model: building it, comparing it, the level of a link. */
#include "topo/topo.h"

#include <stdarg.h>
#include <stdlib.h>
#include <string.h>

const char *const loom_topo_level_names[] = { "node", "rack", "spine", NULL };

loom_status_t loom_topo_create(loom_topo_t **topo_p)
{
    loom_topo_t *topo = calloc(1, sizeof(*topo));

    if (topo == NULL) {
        return LOOM_ERR_NO_MEMORY;
    }
    *topo_p = topo;
    return LOOM_OK;
}

void loom_topo_destroy(loom_topo_t *topo)
{
    if (topo == NULL) {
        return;
    }
    for (size_t i = 0; i < topo->nswitches; i++) {
        free(topo->switches[i].name);
    }
    for (size_t i = 0; i < topo->nnodes; i++) {
        free(topo->nodes[i].name);
    }
    free(topo->switches);
    free(topo->nodes);
    free(topo->ranks);
    free(topo);
}

/* Make room for one more element of an array that doubles as it grows. */
static loom_status_t grow(void **array, size_t *cap, size_t count, size_t elem)
{
    if (count < *cap) {
        return LOOM_OK;
    }
    size_t ncap = *cap ? *cap * 2 : 8;
    void *p = realloc(*array, ncap * elem);
    if (p == NULL) {
        return LOOM_ERR_NO_MEMORY;
    }
    *array = p;
    *cap = ncap;
    return LOOM_OK;
}

loom_status_t loom_topo_switch_add(loom_topo_t *topo, const char *name, size_t *index_p)
{
    loom_status_t st = grow((void **)&topo->switches, &topo->switches_cap,
                            topo->nswitches, sizeof(*topo->switches));
    if (st != LOOM_OK) {
        return st;
    }
    char *copy = strdup(name);
    if (copy == NULL) {
        return LOOM_ERR_NO_MEMORY;
    }
    topo->switches[topo->nswitches] = (loom_topo_switch_t){ .name = copy,
                                                            .parent = LOOM_TOPO_NONE };
    if (index_p != NULL) {
        *index_p = topo->nswitches;
    }
    topo->nswitches++;
    return LOOM_OK;
}

loom_status_t loom_topo_node_add(loom_topo_t *topo, const char *name, size_t *index_p)
{
    loom_status_t st = grow((void **)&topo->nodes, &topo->nodes_cap,
                            topo->nnodes, sizeof(*topo->nodes));
    if (st != LOOM_OK) {
        return st;
    }
    char *copy = strdup(name);
    if (copy == NULL) {
        return LOOM_ERR_NO_MEMORY;
    }
    topo->nodes[topo->nnodes] = (loom_topo_node_t){ .name = copy, .sw = LOOM_TOPO_NONE };
    if (index_p != NULL) {
        *index_p = topo->nnodes;
    }
    topo->nnodes++;
    return LOOM_OK;
}

loom_status_t loom_topo_rank_add(loom_topo_t *topo, size_t node, int numa, int socket)
{
    if (node >= topo->nnodes) {
        return LOOM_ERR_INVALID_PARAM;
    }
    loom_status_t st = grow((void **)&topo->ranks, &topo->ranks_cap,
                            topo->nranks, sizeof(*topo->ranks));
    if (st != LOOM_OK) {
        return st;
    }
    topo->ranks[topo->nranks++] = (loom_topo_rank_t){ .node = node, .numa = numa,
                                                      .socket = socket };
    return LOOM_OK;
}

size_t loom_topo_switch_find(const loom_topo_t *topo, const char *name)
{
    for (size_t i = 0; i < topo->nswitches; i++) {
        if (strcmp(topo->switches[i].name, name) == 0) {
            return i;
        }
    }
    return LOOM_TOPO_NONE;
}

size_t loom_topo_node_find(const loom_topo_t *topo, const char *name)
{
    for (size_t i = 0; i < topo->nnodes; i++) {
        if (strcmp(topo->nodes[i].name, name) == 0) {
            return i;
        }
    }
    return LOOM_TOPO_NONE;
}

loom_topo_level_t loom_topo_node_level(const loom_topo_t *topo, size_t a, size_t b)
{
    if (a == b) {
        return LOOM_TOPO_LEVEL_NODE;
    }
    /* Nodes under no switch share the implicit rack of a flat cluster. */
    if (topo->nodes[a].sw == topo->nodes[b].sw) {
        return LOOM_TOPO_LEVEL_RACK;
    }
    return LOOM_TOPO_LEVEL_SPINE;
}

loom_topo_level_t loom_topo_rank_level(const loom_topo_t *topo, size_t a, size_t b)
{
    return loom_topo_node_level(topo, topo->ranks[a].node, topo->ranks[b].node);
}

size_t loom_topo_rack_count(const loom_topo_t *topo)
{
    size_t racks = 0;

    for (size_t n = 0; n < topo->nnodes; n++) {
        size_t first = n;
        for (size_t m = 0; m < n; m++) {
            if (topo->nodes[m].sw == topo->nodes[n].sw) {
                first = m;
                break;
            }
        }
        racks += first == n;
    }
    return racks;
}

int loom_topo_equal(const loom_topo_t *a, const loom_topo_t *b)
{
    if (a->nswitches != b->nswitches || a->nnodes != b->nnodes ||
        a->nranks != b->nranks) {
        return 0;
    }
    for (size_t i = 0; i < a->nswitches; i++) {
        if (strcmp(a->switches[i].name, b->switches[i].name) != 0 ||
            a->switches[i].parent != b->switches[i].parent) {
            return 0;
        }
    }
    for (size_t i = 0; i < a->nnodes; i++) {
        if (strcmp(a->nodes[i].name, b->nodes[i].name) != 0 ||
            a->nodes[i].sw != b->nodes[i].sw || a->nodes[i].slots != b->nodes[i].slots) {
            return 0;
        }
    }
    for (size_t i = 0; i < a->nranks; i++) {
        if (a->ranks[i].node != b->ranks[i].node || a->ranks[i].numa != b->ranks[i].numa ||
            a->ranks[i].socket != b->ranks[i].socket) {
            return 0;
        }
    }
    for (int l = 0; l < LOOM_TOPO_LEVEL_COUNT; l++) {
        if (a->links[l].bandwidth_gbps != b->links[l].bandwidth_gbps ||
            a->links[l].latency_us != b->links[l].latency_us) {
            return 0;
        }
    }
    return 1;
}

void loom_topo_error_set(loom_topo_error_t *err, const char *name, unsigned line,
                         const char *fmt, ...)
{
    va_list ap;
    int n;

    if (err == NULL) {
        return;
    }
    err->line = line;
    if (line > 0) {
        n = snprintf(err->msg, sizeof(err->msg), "%s:%u: ", name, line);
    } else {
        n = snprintf(err->msg, sizeof(err->msg), "%s: ", name);
    }
    if (n < 0 || (size_t)n >= sizeof(err->msg)) {
        return;
    }
    va_start(ap, fmt);
    vsnprintf(err->msg + n, sizeof(err->msg) - (size_t)n, fmt, ap);
    va_end(ap);
}
