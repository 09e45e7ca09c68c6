/*
 * What the component does in MPI_Init beyond its transport, one file per
 * concept: what each process publishes in the modex at open and reads
 * back after the fence (coll_loom_modex.c), the selection rules and the
 * calibration every rank must share (coll_loom_rules.c), and the node and
 * rack keys of every world rank (coll_loom_nodes.c).  The component
 * (coll_loom_component.c) calls them in that order; nothing else does.
 */
#ifndef MCA_COLL_LOOM_WIREUP_H
#define MCA_COLL_LOOM_WIREUP_H

#include "coll_loom.h"

BEGIN_C_DECLS

/* What each process publishes in the modex at open, ahead of its UCX
 * address.  The hash covers the selection rules, their constants and
 * whether the process calibrates: every rank must hold the same.  Only
 * world rank 0's calibration is read; 0 there: none. */
typedef struct mca_coll_loom_modex_head {
    uint64_t    hash;
    uint64_t    topo_hash;      /* what its topology file says (coll_loom_topo.c) */
    int32_t     calib_bandwidth_mbs;
    int32_t     calib_reduce_mbs;
} mca_coll_loom_modex_head_t;

/* Publishes head (at open, before the fence; libloom_ompi publishes the
 * UCX address).  An error: the modex refused it (said at level warn), and
 * Loom steps aside. */
loom_status_t mca_coll_loom_modex_publish(mca_coll_loom_component_t *c,
                                          const mca_coll_loom_modex_head_t *head);
/* World rank peer's head; OPAL_ERR_NOT_FOUND when it published none. */
int mca_coll_loom_modex_head_of(int peer, mca_coll_loom_modex_head_t *head_p);

/* Parses the user's rules (coll_loom_rules or coll_loom_rules_file) into
 * c->rules, whose constants then replace the cost settings. */
void mca_coll_loom_rules_load(mca_coll_loom_component_t *c);
/* Fills head's rules hash and, on world rank 0 of a job that calibrates,
 * the calibration measured now. */
void mca_coll_loom_rules_head(mca_coll_loom_component_t *c, mca_coll_loom_modex_head_t *head);
/* After the fence: every world rank's rules hash into c->rules_hashes and
 * topology hash into topo_hashes (world_size of them), and rank 0's
 * calibration adopted. */
int mca_coll_loom_rules_collect(mca_coll_loom_component_t *c, uint64_t *topo_hashes);
/* Frees what the two above made. */
void mca_coll_loom_rules_close(mca_coll_loom_component_t *c);

/* After the fence: c->node_keys (libloom_ompi's) and, through
 * coll_loom_topo.c, the rack keys, from every rank's host and topology
 * hash. */
int mca_coll_loom_nodes_compute(mca_coll_loom_component_t *c, const uint64_t *topo_hashes);
/* Forgets the node keys, frees the rack keys and the topology. */
void mca_coll_loom_nodes_close(mca_coll_loom_component_t *c);

END_C_DECLS

#endif
