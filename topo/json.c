/*
 * The Loom topology file (JSON), read and written with jansson:
 *
 *   {
 *     "loom_topology": 1,
 *     "links": { "node":  { "bandwidth_gbps": 100, "latency_us": 0.5 },
 *                "rack":  { "bandwidth_gbps": 1,   "latency_us": 20 },
 *                "spine": { "bandwidth_gbps": 0.3, "latency_us": 40 } },
 *     "nodes": [ { "name": "node[0-3]", "slots": 2 } ],
 *     "switches": [ { "name": "rack0", "nodes": "node[0-1]" },
 *                   { "name": "rack1", "nodes": ["node2", "node3"] },
 *                   { "name": "spine", "switches": "rack[0-1]" } ],
 *     "ranks": [ { "node": "node0", "numa": 0, "socket": 0 }, ... ]
 *   }
 *
 * Only "loom_topology" (the format version, 1) is required.  "nodes"
 * gives slots and nodes under no switch; it is read before "switches" so
 * that a dump, which lists every node there, loads back in the same
 * order.  Syntax errors carry jansson's line and column; errors in the
 * structure name the JSON path, since jansson keeps no positions.
 */
#include "topo/build.h"

#include <jansson.h>
#include <stdlib.h>
#include <string.h>

static const char *type_name(const json_t *v)
{
    switch (json_typeof(v)) {
    case JSON_OBJECT:  return "an object";
    case JSON_ARRAY:   return "an array";
    case JSON_STRING:  return "a string";
    case JSON_INTEGER: return "an integer";
    case JSON_REAL:    return "a number";
    case JSON_TRUE:
    case JSON_FALSE:   return "a boolean";
    default:           return "null";
    }
}

/* Every key of obj must be one of keys (NULL-terminated). */
static loom_status_t check_keys(json_t *obj, const char *const *keys, const char *list,
                                topo_where_t *where)
{
    const char *key;
    json_t *v;

    json_object_foreach(obj, key, v) {
        int known = 0;
        for (int i = 0; keys[i] != NULL; i++) {
            known |= strcmp(keys[i], key) == 0;
        }
        if (!known) {
            return topo_where_fail(where, "unknown key \"%s\"; expected %s", key, list);
        }
    }
    return LOOM_OK;
}

/* A host-list member: a string, or an array of strings, each a host list. */
static loom_status_t each_hostlist(loom_topo_t *topo, size_t sw, json_t *v, int nodes,
                                   topo_where_t *where)
{
    size_t i;
    json_t *item;

    if (json_is_string(v)) {
        return nodes ? topo_build_nodes(topo, sw, json_string_value(v), where)
                     : topo_build_children(topo, sw, json_string_value(v), where);
    }
    if (!json_is_array(v)) {
        return topo_where_fail(where, "expected a host list string such as \"node[0-3]\" "
                               "or an array of them, found %s", type_name(v));
    }
    json_array_foreach(v, i, item) {
        if (!json_is_string(item)) {
            return topo_where_fail(where, "element %zu: expected a string, found %s", i,
                                   type_name(item));
        }
        loom_status_t st = nodes ? topo_build_nodes(topo, sw, json_string_value(item), where)
                                 : topo_build_children(topo, sw, json_string_value(item), where);
        if (st != LOOM_OK) {
            return st;
        }
    }
    return LOOM_OK;
}

/* obj[key], when present, must be a number > 0, or >= 0 when zero_ok. */
static loom_status_t get_number(json_t *obj, const char *key, int zero_ok, double *out,
                                topo_where_t *where)
{
    json_t *v = json_object_get(obj, key);

    if (v == NULL) {
        return LOOM_OK;
    }
    double x = json_is_number(v) ? json_number_value(v) : -1;
    if (!json_is_number(v) || x < 0 || (x == 0 && !zero_ok)) {
        return topo_where_fail(where, "\"%s\": expected a number %s, found %s", key,
                               zero_ok ? ">= 0" : "> 0",
                               json_is_number(v) ? "a value out of range" : type_name(v));
    }
    *out = x;
    return LOOM_OK;
}

static loom_status_t read_links(loom_topo_t *topo, json_t *links, topo_where_t *where)
{
    static const char *const kinds[] = { "bandwidth_gbps", "latency_us", NULL };
    char path[64];

    where->path = "links";
    if (!json_is_object(links)) {
        return topo_where_fail(where, "expected an object with \"node\", \"rack\" and/or "
                               "\"spine\", found %s", type_name(links));
    }
    loom_status_t st = check_keys(links, loom_topo_level_names,
                                  "\"node\", \"rack\" or \"spine\"", where);
    for (int l = 0; st == LOOM_OK && l < LOOM_TOPO_LEVEL_COUNT; l++) {
        json_t *lk = json_object_get(links, loom_topo_level_names[l]);
        if (lk == NULL) {
            continue;
        }
        snprintf(path, sizeof(path), "links.%s", loom_topo_level_names[l]);
        where->path = path;
        if (!json_is_object(lk)) {
            return topo_where_fail(where, "expected an object with \"bandwidth_gbps\" "
                                   "and/or \"latency_us\", found %s", type_name(lk));
        }
        st = check_keys(lk, kinds, "\"bandwidth_gbps\" or \"latency_us\"", where);
        if (st == LOOM_OK) {
            st = get_number(lk, "bandwidth_gbps", 0, &topo->links[l].bandwidth_gbps, where);
        }
        if (st == LOOM_OK) {
            st = get_number(lk, "latency_us", 1, &topo->links[l].latency_us, where);
        }
    }
    return st;
}

static loom_status_t read_nodes(loom_topo_t *topo, json_t *nodes, topo_where_t *where)
{
    static const char *const keys[] = { "name", "slots", NULL };
    char path[64];
    size_t i;
    json_t *nd;

    where->path = "nodes";
    if (!json_is_array(nodes)) {
        return topo_where_fail(where, "expected an array of {\"name\", \"slots\"} objects, "
                               "found %s", type_name(nodes));
    }
    json_array_foreach(nodes, i, nd) {
        snprintf(path, sizeof(path), "nodes[%zu]", i);
        where->path = path;
        if (!json_is_object(nd)) {
            return topo_where_fail(where, "expected an object, found %s", type_name(nd));
        }
        loom_status_t st = check_keys(nd, keys, "\"name\" or \"slots\"", where);
        if (st != LOOM_OK) {
            return st;
        }
        json_t *name = json_object_get(nd, "name"), *slots = json_object_get(nd, "slots");
        if (!json_is_string(name)) {
            return topo_where_fail(where, "\"name\": expected a host list string, found %s",
                                   name == NULL ? "nothing" : type_name(name));
        }
        if (slots != NULL && (!json_is_integer(slots) || json_integer_value(slots) < 1 ||
                              json_integer_value(slots) > 1000000)) {
            return topo_where_fail(where, "\"slots\": expected an integer from 1 to 1000000");
        }
        /* Nodes listed here are declared under no switch yet. */
        size_t before = topo->nnodes;
        st = topo_build_nodes(topo, LOOM_TOPO_NONE, json_string_value(name), where);
        if (st != LOOM_OK) {
            return st;
        }
        for (size_t n = before; n < topo->nnodes; n++) {
            topo->nodes[n].slots = slots ? (unsigned)json_integer_value(slots) : 0;
        }
    }
    return LOOM_OK;
}

static loom_status_t read_switches(loom_topo_t *topo, json_t *sws, topo_where_t *where)
{
    static const char *const keys[] = { "name", "nodes", "switches", NULL };
    char path[64];
    size_t i;
    json_t *sw;
    size_t base = topo->nswitches;

    where->path = "switches";
    if (!json_is_array(sws)) {
        return topo_where_fail(where, "expected an array of {\"name\", \"nodes\" or "
                               "\"switches\"} objects, found %s", type_name(sws));
    }
    /* First every name, so that "switches" may name later entries. */
    json_array_foreach(sws, i, sw) {
        snprintf(path, sizeof(path), "switches[%zu]", i);
        where->path = path;
        if (!json_is_object(sw)) {
            return topo_where_fail(where, "expected an object, found %s", type_name(sw));
        }
        loom_status_t st = check_keys(sw, keys, "\"name\", \"nodes\" or \"switches\"", where);
        if (st != LOOM_OK) {
            return st;
        }
        json_t *name = json_object_get(sw, "name");
        if (!json_is_string(name) || json_string_length(name) == 0) {
            return topo_where_fail(where, "\"name\": expected a switch name, found %s",
                                   name == NULL ? "nothing" : type_name(name));
        }
        if (json_object_get(sw, "nodes") != NULL && json_object_get(sw, "switches") != NULL) {
            return topo_where_fail(where, "switch '%s' has both \"nodes\" and \"switches\"; "
                                   "expected one of them", json_string_value(name));
        }
        st = topo_build_switch(topo, json_string_value(name), where);
        if (st != LOOM_OK) {
            return st;
        }
    }
    json_array_foreach(sws, i, sw) {
        json_t *v;
        loom_status_t st = LOOM_OK;
        if ((v = json_object_get(sw, "nodes")) != NULL) {
            snprintf(path, sizeof(path), "switches[%zu].nodes", i);
            where->path = path;
            st = each_hostlist(topo, base + i, v, 1, where);
        } else if ((v = json_object_get(sw, "switches")) != NULL) {
            snprintf(path, sizeof(path), "switches[%zu].switches", i);
            where->path = path;
            st = each_hostlist(topo, base + i, v, 0, where);
        }
        if (st != LOOM_OK) {
            return st;
        }
    }
    return LOOM_OK;
}

static loom_status_t read_ranks(loom_topo_t *topo, json_t *ranks, topo_where_t *where)
{
    static const char *const keys[] = { "node", "numa", "socket", NULL };
    char path[64];
    size_t i;
    json_t *rk;

    where->path = "ranks";
    if (!json_is_array(ranks)) {
        return topo_where_fail(where, "expected an array of {\"node\", \"numa\", \"socket\"} "
                               "objects, one per rank, found %s", type_name(ranks));
    }
    json_array_foreach(ranks, i, rk) {
        snprintf(path, sizeof(path), "ranks[%zu]", i);
        where->path = path;
        if (!json_is_object(rk)) {
            return topo_where_fail(where, "expected an object, found %s", type_name(rk));
        }
        loom_status_t st = check_keys(rk, keys, "\"node\", \"numa\" or \"socket\"", where);
        if (st != LOOM_OK) {
            return st;
        }
        json_t *node = json_object_get(rk, "node");
        if (!json_is_string(node)) {
            return topo_where_fail(where, "\"node\": expected a node name, found %s",
                                   node == NULL ? "nothing" : type_name(node));
        }
        size_t n = loom_topo_node_find(topo, json_string_value(node));
        if (n == LOOM_TOPO_NONE) {
            return topo_where_fail(where, "node '%s' is not declared; expected a node of "
                                   "\"nodes\" or of a switch", json_string_value(node));
        }
        int place[2] = { -1, -1 };
        static const char *const pk[2] = { "numa", "socket" };
        for (int k = 0; k < 2; k++) {
            json_t *v = json_object_get(rk, pk[k]);
            if (v == NULL) {
                continue;
            }
            if (!json_is_integer(v) || json_integer_value(v) < 0 ||
                json_integer_value(v) > 65535) {
                return topo_where_fail(where, "\"%s\": expected an integer from 0 to 65535",
                                       pk[k]);
            }
            place[k] = (int)json_integer_value(v);
        }
        st = loom_topo_rank_add(topo, n, place[0], place[1]);
        if (st != LOOM_OK) {
            return st;
        }
    }
    return LOOM_OK;
}

loom_status_t loom_topo_parse_json(const char *text, const char *name,
                                   loom_topo_t **topo_p, loom_topo_error_t *err)
{
    static const char *const keys[] = { "loom_topology", "links", "nodes", "switches",
                                        "ranks", NULL };
    topo_where_t where = { .file = name, .err = err };
    json_error_t jerr;
    loom_topo_t *topo = NULL;
    loom_status_t st;
    json_t *root = json_loads(text, JSON_REJECT_DUPLICATES, &jerr), *v;

    if (root == NULL) {
        loom_topo_error_set(err, name, jerr.line > 0 ? (unsigned)jerr.line : 0,
                            "column %d: invalid JSON: %s", jerr.column, jerr.text);
        return LOOM_ERR_INVALID_PARAM;
    }
    if (!json_is_object(root)) {
        st = topo_where_fail(&where, "expected a JSON object at the top, found %s",
                             type_name(root));
        goto out;
    }
    st = check_keys(root, keys, "\"loom_topology\", \"links\", \"nodes\", \"switches\" or "
                    "\"ranks\"", &where);
    if (st != LOOM_OK) {
        goto out;
    }
    v = json_object_get(root, "loom_topology");
    if (!json_is_integer(v) || json_integer_value(v) != 1) {
        st = topo_where_fail(&where, "\"loom_topology\": expected the format version 1, "
                             "found %s", v == NULL ? "nothing" :
                             json_is_integer(v) ? "another version" : type_name(v));
        goto out;
    }
    st = loom_topo_create(&topo);
    if (st == LOOM_OK && (v = json_object_get(root, "links")) != NULL) {
        st = read_links(topo, v, &where);
    }
    if (st == LOOM_OK && (v = json_object_get(root, "nodes")) != NULL) {
        st = read_nodes(topo, v, &where);
    }
    if (st == LOOM_OK && (v = json_object_get(root, "switches")) != NULL) {
        st = read_switches(topo, v, &where);
    }
    if (st == LOOM_OK && (v = json_object_get(root, "ranks")) != NULL) {
        st = read_ranks(topo, v, &where);
    }
    if (st == LOOM_OK && topo->nnodes == 0) {
        where.path = NULL;
        st = topo_where_fail(&where, "no nodes; expected \"switches\" with \"nodes\", or "
                             "\"nodes\"");
    }
out:
    json_decref(root);
    if (st != LOOM_OK) {
        loom_topo_destroy(topo);
        return st;
    }
    *topo_p = topo;
    return LOOM_OK;
}

/* jansson's constructors return NULL on no memory; json_object_set_new
 * and json_array_append_new then fail and free nothing twice. */
static int put(json_t *obj, const char *key, json_t *v)
{
    return json_object_set_new(obj, key, v) == 0 ? 0 : -1;
}

static json_t *dump_tree(const loom_topo_t *topo)
{
    json_t *root = json_object(), *links = json_object(), *nodes = json_array(),
           *sws = json_array(), *ranks = json_array();
    int bad = root == NULL || links == NULL || nodes == NULL || sws == NULL || ranks == NULL;

    bad |= put(root, "loom_topology", json_integer(1));
    for (int l = 0; !bad && l < LOOM_TOPO_LEVEL_COUNT; l++) {
        const loom_topo_link_t *lk = &topo->links[l];
        if (lk->bandwidth_gbps == 0 && lk->latency_us == 0) {
            continue;
        }
        json_t *o = json_object();
        if (lk->bandwidth_gbps > 0) {
            bad |= put(o, "bandwidth_gbps", json_real(lk->bandwidth_gbps));
        }
        if (lk->latency_us > 0) {
            bad |= put(o, "latency_us", json_real(lk->latency_us));
        }
        bad |= put(links, loom_topo_level_names[l], o);
    }
    for (size_t n = 0; !bad && n < topo->nnodes; n++) {
        json_t *o = json_object();
        bad |= put(o, "name", json_string(topo->nodes[n].name));
        if (topo->nodes[n].slots > 0) {
            bad |= put(o, "slots", json_integer(topo->nodes[n].slots));
        }
        bad |= json_array_append_new(nodes, o);
    }
    for (size_t s = 0; !bad && s < topo->nswitches; s++) {
        json_t *o = json_object(), *nl = json_array(), *sl = json_array();
        bad |= put(o, "name", json_string(topo->switches[s].name));
        for (size_t n = 0; n < topo->nnodes; n++) {
            if (topo->nodes[n].sw == s) {
                bad |= json_array_append_new(nl, json_string(topo->nodes[n].name));
            }
        }
        for (size_t c = 0; c < topo->nswitches; c++) {
            if (topo->switches[c].parent == s) {
                bad |= json_array_append_new(sl, json_string(topo->switches[c].name));
            }
        }
        /* A switch holds nodes or switches; an empty one is kept as a leaf. */
        if (json_array_size(sl) > 0) {
            bad |= put(o, "switches", sl);
            json_decref(nl);
        } else {
            bad |= put(o, "nodes", nl);
            json_decref(sl);
        }
        bad |= json_array_append_new(sws, o);
    }
    for (size_t r = 0; !bad && r < topo->nranks; r++) {
        json_t *o = json_object();
        bad |= put(o, "node", json_string(topo->nodes[topo->ranks[r].node].name));
        if (topo->ranks[r].numa >= 0) {
            bad |= put(o, "numa", json_integer(topo->ranks[r].numa));
        }
        if (topo->ranks[r].socket >= 0) {
            bad |= put(o, "socket", json_integer(topo->ranks[r].socket));
        }
        bad |= json_array_append_new(ranks, o);
    }
    bad |= put(root, "links", links);
    bad |= put(root, "nodes", nodes);
    bad |= put(root, "switches", sws);
    bad |= put(root, "ranks", ranks);
    if (bad) {
        json_decref(root);
        return NULL;
    }
    return root;
}

loom_status_t loom_topo_dump_json(const loom_topo_t *topo, FILE *out)
{
    json_t *root = dump_tree(topo);

    if (root == NULL) {
        return LOOM_ERR_NO_MEMORY;
    }
    int rc = json_dumpf(root, out, JSON_INDENT(2) | JSON_PRESERVE_ORDER | JSON_REAL_PRECISION(17));
    json_decref(root);
    if (rc != 0 || fputc('\n', out) == EOF) {
        return LOOM_ERR_IO;
    }
    return LOOM_OK;
}
