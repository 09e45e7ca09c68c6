/*
 * Racks for the hierarchical collectives: the topology file named by
 * coll_loom_topology (or LOOM_TOPOLOGY), read when the component opens.
 *
 * Nodes come from Open MPI (the host PMIx reports for each rank); the file
 * adds which rack each node is in and, optionally, each level's link
 * speed for the cost model.  Every rank reads the file itself, so ranks
 * could see different files (a file on a node-local disk, a copy edited on
 * one node): each rank publishes a hash of what it read in the modex, and
 * racks are used only when every rank of the job read the same thing.
 * Anything else (no file anywhere, a malformed file, a host the file does
 * not name, ranks that disagree) runs flat on every rank, after one error
 * that names the file and what was wrong.
 */
#include "coll_loom.h"

#include "common/log.h"
#include "topo/topo.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <xxhash.h>

/* The hash of "no topology file": never equal to a file's. */
#define LOOM_TOPO_HASH_NONE UINT64_C(0)
/* The hash of a file that could not be read or parsed. */
#define LOOM_TOPO_HASH_BAD UINT64_C(1)

static char *loom_topo_param;   /* MCA coll_loom_topology */

int mca_coll_loom_topo_register(void)
{
    loom_topo_param = NULL;
    return mca_base_component_var_register(
        &mca_coll_loom_component.super.collm_version, "topology",
        "A topology file that puts nodes in racks: a Slurm topology.conf or a Loom "
        "topology file (JSON, which may also give each level's link speed for the cost "
        "model); docs/topology.md.  Empty: the LOOM_TOPOLOGY environment variable, else "
        "no racks.  Must name the same content on every rank, or every rank runs "
        "without racks",
        MCA_BASE_VAR_TYPE_STRING, NULL, 0, 0, OPAL_INFO_LVL_4,
        MCA_BASE_VAR_SCOPE_READONLY, &loom_topo_param);
}

static const char *loom_topo_path(void)
{
    const char *env = getenv("LOOM_TOPOLOGY");

    if (loom_topo_param != NULL && loom_topo_param[0] != '\0') {
        return loom_topo_param;
    }
    return env != NULL && env[0] != '\0' ? env : NULL;
}

/* What the file means, hashed: its JSON dump, which two files that say the
 * same thing in different words (or formats) share. */
static uint64_t loom_topo_hash(const loom_topo_t *topo)
{
    char *text = NULL;
    size_t len = 0;
    FILE *mem = open_memstream(&text, &len);
    uint64_t h = LOOM_TOPO_HASH_BAD;

    if (mem == NULL) {
        return h;
    }
    if (loom_topo_dump_json(topo, mem) == LOOM_OK && fflush(mem) == 0) {
        h = XXH3_64bits(text, len) | UINT64_C(2); /* never NONE or BAD */
    }
    fclose(mem);
    free(text);
    return h;
}

uint64_t mca_coll_loom_topo_open(mca_coll_loom_component_t *c)
{
    const char *path = loom_topo_path();
    loom_topo_error_t err;

    c->topo = NULL;
    if (path == NULL) {
        return LOOM_TOPO_HASH_NONE;
    }
    if (loom_topo_load(path, &c->topo, &err) != LOOM_OK) {
        c->topo = NULL;
        loom_error("coll", "topology file: %s; Loom runs without racks", err.msg);
        return LOOM_TOPO_HASH_BAD;
    }
    return loom_topo_hash(c->topo);
}

/* The file's node for a host: the name as given, else its first label
 * (PMIx may report node0.cluster where the file says node0). */
static size_t loom_topo_find_host(const loom_topo_t *topo, const char *host)
{
    size_t node = loom_topo_node_find(topo, host), len = strcspn(host, ".");
    char *label;

    if (node != LOOM_TOPO_NONE || host[len] == '\0') {
        return node;
    }
    label = strndup(host, len);
    if (label != NULL) {
        node = loom_topo_node_find(topo, label);
    }
    free(label);
    return node;
}

/* A level's link speed from the file, where it gives one, into the cost
 * model's settings (so they show in MPI_T and ompi_info as used). */
static void loom_topo_apply_link(const loom_topo_link_t *link, int *alpha_ns, int *mbs)
{
    if (link->bandwidth_gbps > 0) {
        *mbs = link->bandwidth_gbps * 125.0 >= 1 ? (int)(link->bandwidth_gbps * 125.0) : 1;
    }
    if (link->latency_us > 0) {
        *alpha_ns = (int)(link->latency_us * 1000.0);
    }
}

/* Per world rank, its rack's key (the leaf switch's index, or one past
 * the switches for nodes under none), or NULL and one error when racks
 * cannot be used.  hashes: every world rank's published hash. */
void mca_coll_loom_topo_racks(mca_coll_loom_component_t *c, char *const *hosts,
                              const uint64_t *hashes)
{
    const char *path = loom_topo_path();
    int i, me = (int)OMPI_PROC_MY_NAME->vpid;
    size_t node;

    c->rack_keys = NULL;
    if (c->topo == NULL && hashes[me] == LOOM_TOPO_HASH_NONE) {
        for (i = 0; i < c->world_size && hashes[i] == LOOM_TOPO_HASH_NONE; ++i) {
        }
        if (i < c->world_size && me == 0) {
            loom_error("coll", "world rank %d has a topology file and world rank 0 has "
                       "none; set coll_loom_topology alike everywhere: Loom runs without "
                       "racks", i);
        }
        return;
    }
    for (i = 0; i < c->world_size; ++i) {
        if (hashes[i] != hashes[me]) {
            if (me == 0) {
                loom_error("coll", "topology file %s: world rank %d read other content "
                           "(hash %016llx) than world rank 0 (%016llx), or none; every rank "
                           "needs the same file: Loom runs without racks",
                           path != NULL ? path : "(none)", i,
                           (unsigned long long)hashes[i], (unsigned long long)hashes[me]);
            }
            return;
        }
    }
    if (c->topo == NULL) {
        return; /* every rank failed alike and said so */
    }
    c->rack_keys = calloc((size_t)c->world_size, sizeof(*c->rack_keys));
    for (i = 0; c->rack_keys != NULL && i < c->world_size; ++i) {
        node = hosts[i] != NULL ? loom_topo_find_host(c->topo, hosts[i]) : LOOM_TOPO_NONE;
        if (node == LOOM_TOPO_NONE) {
            if (me == 0) {
                loom_error("coll", "topology file %s: no node named '%s' (the host of world "
                           "rank %d); expected every host of the job among the file's "
                           "nodes: Loom runs without racks", path,
                           hosts[i] != NULL ? hosts[i] : "(unknown)", i);
            }
            free(c->rack_keys);
            c->rack_keys = NULL;
            return;
        }
        c->rack_keys[i] = c->topo->nodes[node].sw != LOOM_TOPO_NONE
                              ? (uint64_t)c->topo->nodes[node].sw
                              : (uint64_t)c->topo->nswitches;
    }
    if (c->rack_keys == NULL) {
        return;
    }
    loom_topo_apply_link(&c->topo->links[LOOM_TOPO_LEVEL_NODE], &c->config.cost_alpha_ns,
                         &c->config.cost_bandwidth_mbs);
    loom_topo_apply_link(&c->topo->links[LOOM_TOPO_LEVEL_RACK], &c->config.cost_rack_alpha_ns,
                         &c->config.cost_rack_bandwidth_mbs);
    loom_topo_apply_link(&c->topo->links[LOOM_TOPO_LEVEL_SPINE], &c->config.cost_spine_alpha_ns,
                         &c->config.cost_spine_bandwidth_mbs);
    if (me == 0) {
        size_t racks = loom_topo_rack_count(c->topo);

        loom_info("coll", "topology file %s: %zu rack%s; cost model links: node %d MB/s, "
                  "rack %d MB/s, spine %d MB/s (0: not oversubscribed)", path,
                  racks, racks == 1 ? "" : "s", c->config.cost_bandwidth_mbs,
                  c->config.cost_rack_bandwidth_mbs, c->config.cost_spine_bandwidth_mbs);
    }
}

void mca_coll_loom_topo_close(mca_coll_loom_component_t *c)
{
    loom_topo_destroy(c->topo);
    c->topo = NULL;
    free(c->rack_keys);
    c->rack_keys = NULL;
}
