/*
 * The component: its process-wide UCX transport, published in the modex,
 * the rules and calibration every rank must share, and the node keys
 * (its parameters: coll_loom_params.c).
 *
 * Open MPI runs coll components' init_query after MPI_Init's PMIx fence,
 * so the worker address is published earlier, when the component opens
 * (during MPI_Init, before the fence), as pml/ucx does in its init.  Peers
 * read it from the modex when they first talk to this process: creating a
 * communicator never communicates.  The same blob carries the hash of the
 * selection rules and, from world rank 0, the optional calibration of the
 * cost model, which every rank adopts after the fence (docs/rules.md).
 */
#include "coll_loom.h"

#include "coll/core/select/calibrate.h"
#include "coll/core/select/rules.h"

#include "common/log.h"
#include "coll/core/engine/pool.h"
#include "opal/mca/pmix/pmix.h"
#include "opal/runtime/opal_progress.h"
#include "ompi/proc/proc.h"
#include "ompi/runtime/mpiruntime.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

static int loom_open(void);
static int loom_close(void);

mca_coll_loom_component_t mca_coll_loom_component = {
    .super = {
        .collm_version = {
            MCA_COLL_BASE_VERSION_2_0_0,
            .mca_component_name            = "loom",
            MCA_BASE_MAKE_VERSION(component, 0, 1, 0),
            .mca_open_component            = loom_open,
            .mca_close_component           = loom_close,
            .mca_register_component_params = mca_coll_loom_register,
        },
        .collm_data = {
            MCA_BASE_METADATA_PARAM_CHECKPOINT
        },
        .collm_init_query = mca_coll_loom_init_query,
        .collm_comm_query = mca_coll_loom_comm_query,
    },
    /* Above tuned (30), so Loom wins where it is loaded; documented. */
    .priority = 40,
};

static int loom_progress(void)
{
    loom_transport_t *tr = loom_ucx_transport(mca_coll_loom_component.ucx);

    return tr->ops->progress(tr) + mca_coll_loom_progress_requests();
}

/* What each process publishes in the modex at open, ahead of its UCX
 * address.  The hash covers the selection rules, their constants and
 * whether the process calibrates: every rank must hold the same.  Only
 * world rank 0's calibration is read; 0 there: none. */
typedef struct loom_modex_head {
    uint64_t    hash;
    uint64_t    topo_hash;      /* what its topology file says (coll_loom_topo.c) */
    int32_t     calib_bandwidth_mbs;
    int32_t     calib_reduce_mbs;
} loom_modex_head_t;

#define LOOM_MODEX_HEAD_BYTES sizeof(loom_modex_head_t)

/* Folded into the hash when the process calibrates, so that ranks that
 * differ in coll_loom_calibrate differ in hash. */
#define LOOM_MODEX_CALIBRATE_MARK UINT64_C(0x6c6f6f6d63616c69)

static int loom_modex_blob(int peer, unsigned char **blob_p, size_t *len_p)
{
    opal_process_name_t name = { .jobid = OMPI_PROC_MY_NAME->jobid,
                                 .vpid = (opal_vpid_t)peer };
    int ret;

    *blob_p = NULL;
    *len_p = 0;
    OPAL_MODEX_RECV(ret, &mca_coll_loom_component.super.collm_version, &name,
                    (void **)blob_p, len_p);
    if (ret != OPAL_SUCCESS || *blob_p == NULL || *len_p <= LOOM_MODEX_HEAD_BYTES) {
        free(*blob_p);
        return OPAL_ERR_NOT_FOUND;
    }
    return OPAL_SUCCESS;
}

/* Peer addresses come from the modex, published by loom_open everywhere. */
static loom_status_t loom_modex_address(void *ctx, int peer, void **addr_p,
                                        size_t *len_p)
{
    unsigned char *blob;
    size_t len;
    void *addr;

    (void)ctx;
    if (loom_modex_blob(peer, &blob, &len) != OPAL_SUCCESS) {
        return LOOM_ERR_NOT_FOUND;
    }
    addr = malloc(len - LOOM_MODEX_HEAD_BYTES);
    if (addr == NULL) {
        free(blob);
        return LOOM_ERR_NO_MEMORY;
    }
    memcpy(addr, blob + LOOM_MODEX_HEAD_BYTES, len - LOOM_MODEX_HEAD_BYTES);
    free(blob);
    *addr_p = addr;
    *len_p = len - LOOM_MODEX_HEAD_BYTES;
    return LOOM_OK;
}

/* The user's rules, from coll_loom_rules or coll_loom_rules_file.  A bad
 * one has been reported by the parser; Loom then runs without rules. */
static void loom_load_rules(mca_coll_loom_component_t *c)
{
    int have_text = c->rules_text != NULL && c->rules_text[0] != '\0';
    int have_file = c->rules_file != NULL && c->rules_file[0] != '\0';

    c->rules = NULL;
    if (have_text && have_file) {
        loom_error("coll", "coll_loom_rules and coll_loom_rules_file are both set; give one "
                   "of them: Loom keeps its defaults");
    } else if (have_text) {
        (void)loom_rules_parse(c->rules_text, "coll_loom_rules", &c->rules);
    } else if (have_file) {
        (void)loom_rules_load(c->rules_file, &c->rules);
    }
    c->config.rules = c->rules;
    if (c->rules != NULL) {
        /* The text's constants replace the coll_loom_cost_* settings in
         * place, so those variables show what the model uses. */
        loom_rules_apply_cost(c->rules, &c->config);
        loom_info("coll", "%d selection rules loaded (hash %016llx); cost model: alpha %d ns, "
                  "bandwidth %d MB/s, reduce %d MB/s", c->rules->count,
                  (unsigned long long)c->rules->hash, c->config.cost_alpha_ns,
                  c->config.cost_bandwidth_mbs, c->config.cost_reduce_mbs);
    }
}

/* The head this process publishes; world rank 0 measures here, before
 * the fence, so that its numbers travel with the fence's exchange and no
 * rank has to communicate for them. */
static void loom_modex_head(mca_coll_loom_component_t *c, loom_modex_head_t *head)
{
    loom_calibration_t calib;

    memset(head, 0, sizeof(*head));
    head->hash = c->rules != NULL ? c->rules->hash : 0;
    head->topo_hash = mca_coll_loom_topo_open(c);
    if (!c->calibrate) {
        return;
    }
    head->hash ^= LOOM_MODEX_CALIBRATE_MARK;
    if (OMPI_PROC_MY_NAME->vpid == 0) {
        if (loom_calibrate_measure(&calib) == LOOM_OK) {
            head->calib_bandwidth_mbs = calib.bandwidth_mbs;
            head->calib_reduce_mbs = calib.reduce_mbs;
        } else {
            loom_warn("coll", "calibration failed: every rank keeps the cost settings");
        }
    }
}

static int loom_open(void)
{
    mca_coll_loom_component_t *c = &mca_coll_loom_component;
    loom_modex_head_t head;
    loom_ucx_params_t params;
    unsigned char *blob;
    const void *addr;
    char prefix[32];
    size_t len;
    int ret;

    loom_log_set_level((loom_log_level_t)c->config.verbose);
    /* ompi_info and MPI_T open components too; only MPI_Init gets UCX. */
    if (ompi_mpi_state != OMPI_MPI_STATE_INIT_STARTED || c->priority < 0) {
        return OMPI_SUCCESS;
    }
    snprintf(prefix, sizeof(prefix), "rank %u", OMPI_PROC_MY_NAME->vpid);
    loom_log_set_prefix(prefix);

    c->world_size = ompi_proc_world_size();
    params = (loom_ucx_params_t){
        .env_prefix = "LOOM", .thread_multiple = ompi_mpi_thread_multiple,
        .progress_thread = c->progress_thread,
        .num_peers = c->world_size, .get_address = loom_modex_address,
    };
    if (loom_ucx_create(&params, &c->ucx) != LOOM_OK) {
        loom_warn("coll", "ucx is not usable: Loom steps aside on every communicator");
        c->ucx = NULL;
        return OMPI_SUCCESS;
    }
    if (c->progress_thread && !loom_ucx_has_thread(c->ucx)) {
        loom_warn("coll", "coll_loom_progress_thread=1 needs a ucx worker in multi-thread "
                  "mode, which this ucx cannot provide: running without the progress "
                  "thread (nonblocking collectives advance only inside MPI calls)");
    }
    loom_load_rules(c);
    loom_ucx_address(c->ucx, &addr, &len);
    blob = malloc(LOOM_MODEX_HEAD_BYTES + len);
    if (blob == NULL) {
        loom_ucx_destroy(c->ucx);
        c->ucx = NULL;
        return OMPI_ERR_OUT_OF_RESOURCE;
    }
    loom_modex_head(c, &head);
    memcpy(blob, &head, LOOM_MODEX_HEAD_BYTES);
    memcpy(blob + LOOM_MODEX_HEAD_BYTES, addr, len);
    OPAL_MODEX_SEND(ret, OPAL_PMIX_GLOBAL, &c->super.collm_version, blob,
                    LOOM_MODEX_HEAD_BYTES + len);
    free(blob);
    if (ret != OPAL_SUCCESS) {
        loom_warn("coll", "cannot publish the ucx address (%d): Loom steps aside", ret);
        loom_ucx_destroy(c->ucx);
        c->ucx = NULL;
        return OMPI_SUCCESS;
    }
    opal_progress_register(loom_progress);
    loom_debug("coll", "ucx worker ready, %zu-byte address published", len);
    return OMPI_SUCCESS;
}

static int loom_close(void)
{
    mca_coll_loom_component_t *c = &mca_coll_loom_component;

    if (c->ucx != NULL) {
        opal_progress_unregister(loom_progress);
        loom_ucx_destroy(c->ucx);
        c->ucx = NULL;
    }
    free(c->node_keys);
    c->node_keys = NULL;
    mca_coll_loom_topo_close(c);
    free(c->rules_hashes);
    c->rules_hashes = NULL;
    loom_rules_destroy(c->rules);
    c->rules = NULL;
    c->config.rules = NULL;
    mca_coll_loom_sum_destroy();
    loom_pool_trim();
    return OMPI_SUCCESS;
}

/* The host PMIx reports for a world rank, or NULL. */
static char *loom_host_of(int world_rank)
{
    opal_process_name_t name = { .jobid = OMPI_PROC_MY_NAME->jobid,
                                 .vpid = (opal_vpid_t)world_rank };
    char *host = NULL;
    int ret;

    OPAL_MODEX_RECV_VALUE_OPTIONAL(ret, OPAL_PMIX_HOSTNAME, &name, &host, OPAL_STRING);
    return ret == OPAL_SUCCESS ? host : NULL;
}

/* Node keys of every world rank: the lowest world rank on the same host;
 * and rack keys from the topology file, when every rank read the same
 * one (topo_hashes).  Computed once, in MPI_Init (single-threaded, after
 * the fence), so that communicator creation only reads them. */
static int loom_compute_node_keys(mca_coll_loom_component_t *c, const uint64_t *topo_hashes)
{
    char **hosts = calloc((size_t)c->world_size, sizeof(char *));
    int i, j;

    c->node_keys = calloc((size_t)c->world_size, sizeof(uint64_t));
    if (hosts == NULL || c->node_keys == NULL) {
        free(hosts);
        return OMPI_ERR_OUT_OF_RESOURCE;
    }
    for (i = 0; i < c->world_size; ++i) {
        hosts[i] = loom_host_of(i);
        /* Unknown host: a node of its own, never merged with another. */
        c->node_keys[i] = UINT64_C(1) << 63 | (uint64_t)i;
        for (j = 0; hosts[i] != NULL && j <= i; ++j) {
            if (hosts[j] != NULL && strcmp(hosts[j], hosts[i]) == 0) {
                c->node_keys[i] = (uint64_t)j;
                break;
            }
        }
    }
    mca_coll_loom_topo_racks(c, hosts, topo_hashes);
    for (i = 0; i < c->world_size; ++i) {
        free(hosts[i]);
    }
    free(hosts);
    return OMPI_SUCCESS;
}

/* Every rank that calibrates takes world rank 0's numbers, so that all
 * price alike; rank 0 without numbers leaves everyone on the settings. */
static void loom_adopt_calibration(mca_coll_loom_component_t *c, const loom_modex_head_t *head0)
{
    if (!c->calibrate || head0->calib_bandwidth_mbs <= 0 || head0->calib_reduce_mbs <= 0) {
        return;
    }
    c->config.cost_bandwidth_mbs = head0->calib_bandwidth_mbs;
    c->config.cost_reduce_mbs = head0->calib_reduce_mbs;
    if (OMPI_PROC_MY_NAME->vpid == 0) {
        loom_info("coll", "cost model calibrated on world rank 0, used by every rank: "
                  "bandwidth %d MB/s (memcpy), reduce %d MB/s (double sum), alpha %d ns "
                  "(not measured: coll_loom_cost_alpha_ns or a cost: line)",
                  c->config.cost_bandwidth_mbs, c->config.cost_reduce_mbs,
                  c->config.cost_alpha_ns);
    }
}

/* Every world rank's hash (0: no rules, no calibration), read once from
 * the modex after the fence, so that communicator creation compares
 * without communicating; and rank 0's calibration. */
static int loom_collect_rules_hashes(mca_coll_loom_component_t *c, uint64_t *topo_hashes)
{
    loom_modex_head_t head;
    unsigned char *blob;
    size_t len;
    int i;

    c->rules_hashes = calloc((size_t)c->world_size, sizeof(uint64_t));
    if (c->rules_hashes == NULL) {
        return OMPI_ERR_OUT_OF_RESOURCE;
    }
    for (i = 0; i < c->world_size; ++i) {
        if (loom_modex_blob(i, &blob, &len) == OPAL_SUCCESS) {
            memcpy(&head, blob, LOOM_MODEX_HEAD_BYTES);
            free(blob);
            c->rules_hashes[i] = head.hash;
            topo_hashes[i] = head.topo_hash;
            if (i == 0) {
                loom_adopt_calibration(c, &head);
            }
        } else {
            c->rules_hashes[i] = UINT64_MAX;  /* unknown: never equal to ours */
            topo_hashes[i] = UINT64_MAX;
        }
    }
    return OMPI_SUCCESS;
}

int mca_coll_loom_init_query(bool enable_progress_threads, bool enable_mpi_threads)
{
    mca_coll_loom_component_t *c = &mca_coll_loom_component;

    (void)enable_progress_threads;
    (void)enable_mpi_threads;
    /* No usable transport: decline here, so no communicator asks. */
    if (c->ucx == NULL) {
        return OMPI_ERR_NOT_AVAILABLE;
    }
    uint64_t *topo_hashes = calloc((size_t)c->world_size, sizeof(uint64_t));
    int ret;

    if (topo_hashes == NULL || loom_collect_rules_hashes(c, topo_hashes) != OMPI_SUCCESS) {
        free(topo_hashes);
        return OMPI_ERR_OUT_OF_RESOURCE;
    }
    ret = loom_compute_node_keys(c, topo_hashes);
    free(topo_hashes);
    if (ret != OMPI_SUCCESS) {
        return ret;
    }
    return mca_coll_loom_sum_create();
}
