/*
 * The modex wireup: what this component publishes when it opens and what
 * it reads back of its peers.
 *
 * Open MPI runs coll components' init_query after MPI_Init's PMIx fence,
 * so what every rank must read is published earlier, when the component
 * opens (during MPI_Init, before the fence).  The UCX worker address is
 * the process's and libloom_ompi publishes it under its own key
 * (coll/ompi/shared/proc.c); under this component's key goes the head:
 * the hash of the selection rules and, from world rank 0, the optional
 * calibration of the cost model (coll_loom_rules.c), and the hash of the
 * topology file (coll_loom_topo.c), which every rank reads after the
 * fence (docs/rules.md).
 */
#include "coll_loom.h"
#include "coll_loom_wireup.h"

#include "common/log.h"
#include "opal/mca/pmix/pmix.h"
#include "ompi/proc/proc.h"

#include <stdlib.h>
#include <string.h>

#define LOOM_MODEX_HEAD_BYTES sizeof(mca_coll_loom_modex_head_t)

static int loom_modex_blob(int peer, unsigned char **blob_p, size_t *len_p)
{
    opal_process_name_t name = { .jobid = OMPI_PROC_MY_NAME->jobid,
                                 .vpid = (opal_vpid_t)peer };
    int ret;

    *blob_p = NULL;
    *len_p = 0;
    OPAL_MODEX_RECV(ret, &mca_coll_loom_component.super.collm_version, &name,
                    (void **)blob_p, len_p);
    if (ret != OPAL_SUCCESS || *blob_p == NULL || *len_p != LOOM_MODEX_HEAD_BYTES) {
        free(*blob_p);
        return OPAL_ERR_NOT_FOUND;
    }
    return OPAL_SUCCESS;
}

int mca_coll_loom_modex_head_of(int peer, mca_coll_loom_modex_head_t *head_p)
{
    unsigned char *blob;
    size_t len;

    if (loom_modex_blob(peer, &blob, &len) != OPAL_SUCCESS) {
        return OPAL_ERR_NOT_FOUND;
    }
    memcpy(head_p, blob, LOOM_MODEX_HEAD_BYTES);
    free(blob);
    return OPAL_SUCCESS;
}

loom_status_t mca_coll_loom_modex_publish(mca_coll_loom_component_t *c,
                                          const mca_coll_loom_modex_head_t *head)
{
    int ret;

    OPAL_MODEX_SEND(ret, OPAL_PMIX_GLOBAL, &c->super.collm_version, (void *)head,
                    LOOM_MODEX_HEAD_BYTES);
    if (ret != OPAL_SUCCESS) {
        loom_warn("coll", "cannot publish the selection rules' hash (%d): Loom steps aside",
                  ret);
        return LOOM_ERR_TRANSPORT;
    }
    return LOOM_OK;
}
