/*
 * The selection rules and the calibration every rank must share.
 *
 * The rules come from coll_loom_rules or coll_loom_rules_file when the
 * component opens; their hash, marked when the process calibrates, goes
 * into the modex head (coll_loom_modex.c) with world rank 0's measured
 * cost model.  After the fence every rank reads every rank's hash once,
 * so that communicator creation compares them without communicating
 * (coll_loom_module.c), and adopts rank 0's calibration (docs/rules.md).
 */
#include "coll_loom.h"
#include "coll_loom_wireup.h"

#include "coll/core/select/calibrate.h"
#include "coll/core/select/rules.h"

#include "common/log.h"
#include "ompi/proc/proc.h"

#include <stdlib.h>

/* Folded into the hash when the process calibrates, so that ranks that
 * differ in coll_loom_calibrate differ in hash. */
#define LOOM_MODEX_CALIBRATE_MARK UINT64_C(0x6c6f6f6d63616c69)

/* A bad one has been reported by the parser; Loom then runs without
 * rules. */
void mca_coll_loom_rules_load(mca_coll_loom_component_t *c)
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

void mca_coll_loom_rules_head(mca_coll_loom_component_t *c, mca_coll_loom_modex_head_t *head)
{
    loom_calibration_t calib;

    head->hash = c->rules != NULL ? c->rules->hash : 0;
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

/* Every rank that calibrates takes world rank 0's numbers, so that all
 * price alike; rank 0 without numbers leaves everyone on the settings. */
static void loom_adopt_calibration(mca_coll_loom_component_t *c,
                                   const mca_coll_loom_modex_head_t *head0)
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
int mca_coll_loom_rules_collect(mca_coll_loom_component_t *c, uint64_t *topo_hashes)
{
    mca_coll_loom_modex_head_t head;
    int i;

    c->rules_hashes = calloc((size_t)c->world_size, sizeof(uint64_t));
    if (c->rules_hashes == NULL) {
        return OMPI_ERR_OUT_OF_RESOURCE;
    }
    for (i = 0; i < c->world_size; ++i) {
        if (mca_coll_loom_modex_head_of(i, &head) == OPAL_SUCCESS) {
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

void mca_coll_loom_rules_close(mca_coll_loom_component_t *c)
{
    free(c->rules_hashes);
    c->rules_hashes = NULL;
    loom_rules_destroy(c->rules);
    c->rules = NULL;
    c->config.rules = NULL;
}
