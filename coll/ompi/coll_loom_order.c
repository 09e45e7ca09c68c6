/*
 * The rank order of a communicator through MPI_T (docs/rank_order.md).
 *
 * The control variable coll_loom_rank_order takes
 *
 *     <context id>:<sequence>:<order>
 *
 * the communicator by its context id, the collective from which the order
 * applies (its sequence number on that communicator, +N for the Nth after
 * the next one, next for +0), and the order: the rank at each position,
 * comma-separated, or identity, or reverse.  Open MPI 4.1.4's control
 * variables belong to the process (the object a handle is bound to is
 * ignored), so the value names the communicator itself.
 *
 * A write changes only the writing process, and Open MPI tells no one:
 * the next call Loom runs on any communicator of the process reads the
 * value, checks it (every fault is logged with what was wrong and what is
 * accepted, and counted in coll_loom_rank_order_rejected), and empties it:
 * a written value is taken once.  The order then waits for the next call
 * Loom runs on its communicator, which hands it to the team
 * (loom_team_set_order); +N counts from that team's next sequence number,
 * the same on every rank when every rank wrote between the same two
 * collectives.  The team switches at the collective of that sequence
 * number on every rank.
 *
 * Two performance variables bound to a communicator tell a program what
 * to write: coll_loom_comm_context_id and coll_loom_comm_next_seq.
 */
#include "coll_loom.h"
#include "coll_loom_count.h"

#include "opal/mca/base/mca_base_pvar.h"

#include <errno.h>
#include <limits.h>
#include <pthread.h>
#include <stdint.h>
#include <stdlib.h>
#include <string.h>

/* An order parsed and waiting for a call on its communicator. */
typedef struct mca_coll_loom_order_req {
    struct mca_coll_loom_order_req  *next;
    uint32_t                        cid;
    int                             relative;   /* seq counts from the team's next */
    uint32_t                        seq;
    int                             n;
    int                             *order;     /* NULL: identity */
} mca_coll_loom_order_req_t;

static pthread_mutex_t loom_order_lock = PTHREAD_MUTEX_INITIALIZER;
static mca_coll_loom_order_req_t *loom_order_reqs;

#define LOOM_ORDER_FORMAT "<context id>:<sequence>:<order> (sequence: a number, +N or " \
    "next; order: the rank at each position, comma-separated, or identity or reverse; "   \
    "e.g. 0:next:3,1,0,2)"

/* The Loom module of the communicator with context id cid, or NULL with
 * the reason logged. */
static mca_coll_loom_module_t *loom_order_module(uint32_t cid, const char *text)
{
    ompi_communicator_t *comm = ompi_comm_lookup(cid);

    if (comm == NULL || comm == &ompi_mpi_comm_null.comm) {
        loom_error("coll", "coll_loom_rank_order '%s': no communicator of this process has "
                   "context id %u (a program reads it from coll_loom_comm_context_id)",
                   text, cid);
        return NULL;
    }
    if (comm->c_coll->coll_allreduce != mca_coll_loom_allreduce ||
        ((mca_coll_loom_module_t *)comm->c_coll->coll_allreduce_module)->team == NULL) {
        loom_error("coll", "coll_loom_rank_order '%s': Loom does not run the collectives of "
                   "communicator %s (context id %u); an order applies to communicators "
                   "of two or more processes that Loom runs", text, comm->c_name, cid);
        return NULL;
    }
    return (mca_coll_loom_module_t *)comm->c_coll->coll_allreduce_module;
}

/* An unsigned 32-bit decimal number followed by sep, or (last) by the
 * end of the text: its end in *end_p, or -1. */
static int loom_order_number(const char *s, char sep, int last, uint32_t *v_p, char **end_p)
{
    unsigned long v;

    if (*s < '0' || *s > '9') {
        return -1;
    }
    errno = 0;
    v = strtoul(s, end_p, 10);
    if (errno != 0 || v > UINT32_MAX || !(**end_p == sep || (last && **end_p == '\0'))) {
        return -1;
    }
    *v_p = (uint32_t)v;
    return 0;
}

/* The order part of text for n ranks into req (allocated; NULL for the
 * identity): 0, or -1 with the fault logged. */
static int loom_order_list(const char *text, const char *s, int n,
                           mca_coll_loom_order_req_t *req)
{
    int *seen, i, k;
    uint32_t v;
    char *end;

    req->n = n;
    req->order = NULL;
    if (strcmp(s, "identity") == 0) {
        return 0;
    }
    req->order = malloc(2 * sizeof(int) * (size_t)n);
    if (req->order == NULL) {
        loom_error("coll", "coll_loom_rank_order: out of memory");
        return -1;
    }
    seen = req->order + n;
    if (strcmp(s, "reverse") == 0) {
        for (i = 0; i < n; ++i) {
            req->order[i] = n - 1 - i;
        }
        return 0;
    }
    for (i = 0; i < n; ++i) {
        seen[i] = -1;
    }
    for (k = 0; *s != '\0'; ++k) {
        if (loom_order_number(s, ',', 1, &v, &end) != 0) {
            loom_error("coll", "coll_loom_rank_order '%s': '%s' is not a rank list; the "
                       "value is " LOOM_ORDER_FORMAT, text, s);
            return -1;
        }
        if (k >= n || v >= (uint32_t)n) {
            loom_error("coll", "coll_loom_rank_order '%s': %s for a communicator of %d "
                       "ranks; the order names each rank of 0..%d once", text,
                       k >= n ? "more positions than ranks" : "a rank beyond its size", n,
                       n - 1);
            return -1;
        }
        if (seen[v] >= 0) {
            loom_error("coll", "coll_loom_rank_order '%s': rank %u stands at positions %d "
                       "and %d; the order names each rank of 0..%d once", text, v, seen[v],
                       k, n - 1);
            return -1;
        }
        seen[v] = k;
        req->order[k] = (int)v;
        s = *end == ',' ? end + 1 : end;
    }
    if (k != n) {
        loom_error("coll", "coll_loom_rank_order '%s': %d ranks for a communicator of %d; "
                   "the order names each rank of 0..%d once", text, k, n, n - 1);
        return -1;
    }
    return 0;
}

/* Parses text into a new request: NULL with the fault logged. */
static mca_coll_loom_order_req_t *loom_order_parse(const char *text)
{
    mca_coll_loom_order_req_t *req = calloc(1, sizeof(*req));
    mca_coll_loom_module_t *module;
    const char *s = text;
    char *end;

    if (req == NULL) {
        loom_error("coll", "coll_loom_rank_order: out of memory");
        return NULL;
    }
    if (loom_order_number(s, ':', 0, &req->cid, &end) != 0) {
        goto err_syntax;
    }
    s = end + 1;
    if (strncmp(s, "next:", 5) == 0) {
        req->relative = 1;
        s += 5;
    } else {
        req->relative = *s == '+';
        if (loom_order_number(s + req->relative, ':', 0, &req->seq, &end) != 0) {
            goto err_syntax;
        }
        s = end + 1;
    }
    module = loom_order_module(req->cid, text);
    if (module == NULL ||
        loom_order_list(text, s, ompi_comm_size(module->comm), req) != 0) {
        free(req->order);
        free(req);
        return NULL;
    }
    return req;

err_syntax:
    loom_error("coll", "coll_loom_rank_order '%s' is not " LOOM_ORDER_FORMAT, text);
    free(req);
    return NULL;
}

/* Hands req to module's team. */
static void loom_order_apply(mca_coll_loom_module_t *module, mca_coll_loom_order_req_t *req)
{
    mca_coll_loom_component_t *c = &mca_coll_loom_component;
    loom_team_t *team = module->team;
    uint32_t from = req->relative ? team->next_seq + req->seq : req->seq;
    loom_status_t status = loom_team_set_order(team, req->order, req->n, from);

    if (status == LOOM_OK) {
        loom_info("coll", "communicator %s (context id %u): rank order %s from collective %u "
                  "on", module->comm->c_name, req->cid,
                  req->order == NULL ? "identity" : "set", from);
        mca_coll_loom_count(&c->order_accepted, 1);
    } else {
        loom_error("coll", "coll_loom_rank_order for communicator %s (context id %u) not "
                   "applied: %s", module->comm->c_name, req->cid,
                   loom_status_string(status));
        mca_coll_loom_count(&c->order_rejected, 1);
    }
    free(req->order);
    free(req);
}

void mca_coll_loom_order_poll(mca_coll_loom_module_t *module)
{
    mca_coll_loom_component_t *c = &mca_coll_loom_component;
    mca_coll_loom_order_req_t *req, **at, *mine = NULL, **tail = &mine;

    pthread_mutex_lock(&loom_order_lock);
    if (c->rank_order != NULL && c->rank_order[0] != '\0') {
        req = loom_order_parse(c->rank_order);
        if (req != NULL) {
            for (at = &loom_order_reqs; *at != NULL; at = &(*at)->next) {
            }
            *at = req;
        } else {
            mca_coll_loom_count(&c->order_rejected, 1);
        }
        /* Taken: the storage is the MCA system's string, which it frees
         * and replaces at the next write as it would have anyway. */
        free(c->rank_order);
        c->rank_order = NULL;
    }
    for (at = &loom_order_reqs; *at != NULL;) {
        req = *at;
        if (req->cid == module->comm->c_contextid) {
            *at = req->next;
            req->next = NULL;
            *tail = req;
            tail = &req->next;
        } else {
            at = &req->next;
        }
    }
    __atomic_store_n(&c->order_waiting, loom_order_reqs != NULL, __ATOMIC_RELAXED);
    pthread_mutex_unlock(&loom_order_lock);
    /* In the order written: the last one wins. */
    while (mine != NULL) {
        req = mine;
        mine = req->next;
        loom_order_apply(module, req);
    }
}

void mca_coll_loom_order_forget(uint32_t cid)
{
    mca_coll_loom_order_req_t *req, **at;

    pthread_mutex_lock(&loom_order_lock);
    for (at = &loom_order_reqs; *at != NULL;) {
        req = *at;
        if (req->cid == cid) {
            *at = req->next;
            free(req->order);
            free(req);
        } else {
            at = &req->next;
        }
    }
    __atomic_store_n(&mca_coll_loom_component.order_waiting, loom_order_reqs != NULL,
                     __ATOMIC_RELAXED);
    pthread_mutex_unlock(&loom_order_lock);
}

void mca_coll_loom_order_close(void)
{
    mca_coll_loom_order_req_t *req;

    pthread_mutex_lock(&loom_order_lock);
    while ((req = loom_order_reqs) != NULL) {
        loom_order_reqs = req->next;
        free(req->order);
        free(req);
    }
    mca_coll_loom_component.order_waiting = 0;
    pthread_mutex_unlock(&loom_order_lock);
}

/* ------------------------------------------------- what a program reads */

/* The Loom team of the communicator a handle is bound to, or NULL.  The
 * program passes the address of its MPI_Comm to MPI_T_pvar_handle_alloc;
 * Open MPI 4.1.4's MPI layer hands the variable the communicator itself
 * (obj). */
static loom_team_t *loom_order_bound_team(void *obj, ompi_communicator_t **comm_p)
{
    ompi_communicator_t *comm = obj;

    *comm_p = comm;
    if (comm == NULL || comm->c_coll == NULL ||
        comm->c_coll->coll_allreduce != mca_coll_loom_allreduce) {
        return NULL;
    }
    return ((mca_coll_loom_module_t *)comm->c_coll->coll_allreduce_module)->team;
}

/* One value per handle, whatever the communicator. */
static int loom_order_notify(struct mca_base_pvar_t *pvar, mca_base_pvar_event_t event,
                             void *obj, int *count)
{
    (void)pvar;
    (void)obj;
    if (event == MCA_BASE_PVAR_HANDLE_BIND) {
        *count = 1;
        return 1;
    }
    return OPAL_SUCCESS;
}

static int loom_order_read_cid(const mca_base_pvar_t *pvar, void *value, void *obj)
{
    ompi_communicator_t *comm;

    (void)pvar;
    (void)loom_order_bound_team(obj, &comm);
    if (comm == NULL) {
        return OPAL_ERR_BAD_PARAM;
    }
    *(unsigned *)value = comm->c_contextid;
    return OPAL_SUCCESS;
}

/* The sequence number the next collective Loom runs on the communicator
 * takes; UINT_MAX where Loom does not run its collectives. */
static int loom_order_read_seq(const mca_base_pvar_t *pvar, void *value, void *obj)
{
    ompi_communicator_t *comm;
    loom_team_t *team = loom_order_bound_team(obj, &comm);

    (void)pvar;
    if (comm == NULL) {
        return OPAL_ERR_BAD_PARAM;
    }
    *(unsigned *)value = team != NULL ? team->next_seq : UINT_MAX;
    return OPAL_SUCCESS;
}

static int loom_order_pvar(const char *name, const char *help, int var_class,
                           mca_base_var_type_t type, int bind, mca_base_get_value_fn_t read,
                           void *ctx)
{
    int ret = mca_base_component_pvar_register(
        &mca_coll_loom_component.super.collm_version, name, help, OPAL_INFO_LVL_4,
        var_class, type, NULL, bind, MCA_BASE_PVAR_FLAG_READONLY |
        MCA_BASE_PVAR_FLAG_CONTINUOUS, read, NULL,
        bind == MCA_BASE_VAR_BIND_NO_OBJECT ? NULL : loom_order_notify, ctx);

    return ret < 0 ? ret : OMPI_SUCCESS;
}

int mca_coll_loom_order_register(void)
{
    mca_coll_loom_component_t *c = &mca_coll_loom_component;
    int ret;

    c->rank_order = NULL;
    ret = mca_base_component_var_register(
        &c->super.collm_version, "rank_order",
        "The rank order of one communicator, from one of its collectives on: "
        "<context id>:<sequence>:<order>, the sequence number a number, +N or next, the "
        "order the rank at each position, comma-separated, or identity or reverse "
        "(docs/rank_order.md).  Every algorithm places ranks by it, but non-commutative "
        "reductions and the reproducible mode keep rank order.  Written through "
        "MPI_T_cvar_write with the same value on every rank between the same two "
        "collectives; the next call Loom runs takes the value (and empties it), "
        "coll_loom_rank_order_rejected counts values refused",
        MCA_BASE_VAR_TYPE_STRING, NULL, 0, MCA_BASE_VAR_FLAG_SETTABLE, OPAL_INFO_LVL_4,
        MCA_BASE_VAR_SCOPE_ALL_EQ, &c->rank_order);
    if (ret < 0) {
        return ret;
    }
    ret = loom_order_pvar("rank_order_accepted", "Rank orders (coll_loom_rank_order) handed "
                          "to their communicator", MCA_BASE_PVAR_CLASS_COUNTER,
                          MCA_BASE_VAR_TYPE_UNSIGNED_LONG_LONG, MCA_BASE_VAR_BIND_NO_OBJECT,
                          NULL, &c->order_accepted);
    if (ret == OMPI_SUCCESS) {
        ret = loom_order_pvar("rank_order_rejected", "Values of coll_loom_rank_order "
                              "refused (the reason is logged)", MCA_BASE_PVAR_CLASS_COUNTER,
                              MCA_BASE_VAR_TYPE_UNSIGNED_LONG_LONG,
                              MCA_BASE_VAR_BIND_NO_OBJECT, NULL, &c->order_rejected);
    }
    if (ret == OMPI_SUCCESS) {
        ret = loom_order_pvar("comm_context_id", "The context id of the communicator the "
                              "handle is bound to, as coll_loom_rank_order names it",
                              MCA_BASE_PVAR_CLASS_LEVEL, MCA_BASE_VAR_TYPE_UNSIGNED_INT,
                              MCA_BASE_VAR_BIND_MPI_COMM, loom_order_read_cid, NULL);
    }
    if (ret == OMPI_SUCCESS) {
        ret = loom_order_pvar("comm_next_seq", "The sequence number of the next collective "
                              "Loom runs on the communicator the handle is bound to "
                              "(4294967295 where Loom does not run its collectives)",
                              MCA_BASE_PVAR_CLASS_LEVEL, MCA_BASE_VAR_TYPE_UNSIGNED_INT,
                              MCA_BASE_VAR_BIND_MPI_COMM, loom_order_read_seq, NULL);
    }
    return ret;
}
