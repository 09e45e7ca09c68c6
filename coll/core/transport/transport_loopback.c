#include "coll/core/transport/transport_loopback.h"
#include "common/log.h"

#include <stdlib.h>
#include <string.h>

/* A posted operation waiting for its partner. */
typedef struct loom_lb_op {
    struct loom_lb_op   *next;
    int                 peer;     /* sender for a receive, receiver for a send */
    uint64_t            tag;
    void                *buf;
    size_t              len;
    loom_completion_t   *comp;
} loom_lb_op_t;

typedef struct loom_lb_rank {
    loom_transport_t    super;    /* first: the transport handle */
    loom_loopback_t     *lb;
    int                 rank;
    loom_lb_op_t        *sends;   /* sends to this rank, not yet received, FIFO */
    loom_lb_op_t        *recvs;   /* receives posted by this rank, FIFO */
    size_t              bytes_sent;
    size_t              bytes_received;
} loom_lb_rank_t;

struct loom_loopback {
    int                 nranks;
    loom_lb_rank_t      *ranks;
};

/* Remove and return the first op in *list from peer with tag. */
static loom_lb_op_t *loom_lb_take(loom_lb_op_t **list, int peer, uint64_t tag)
{
    loom_lb_op_t *op;

    for (; *list != NULL; list = &(*list)->next) {
        op = *list;
        if (op->peer == peer && op->tag == tag) {
            *list = op->next;
            return op;
        }
    }
    return NULL;
}

static void loom_lb_append(loom_lb_op_t **list, loom_lb_op_t *op)
{
    while (*list != NULL) {
        list = &(*list)->next;
    }
    op->next = NULL;
    *list = op;
}

/* Deliver send data into a receive and complete both. */
static void loom_lb_match(loom_lb_rank_t *src, loom_lb_rank_t *dst, const void *sbuf,
                          size_t slen, loom_completion_t *scomp, void *rbuf,
                          size_t rlen, loom_completion_t *rcomp)
{
    if (slen > rlen) {
        loom_completion_finish(scomp, LOOM_OK, 0);
        loom_completion_finish(rcomp, LOOM_ERR_TRUNCATED, slen);
        return;
    }
    if (slen > 0) {
        memcpy(rbuf, sbuf, slen);
    }
    src->bytes_sent += slen;
    dst->bytes_received += slen;
    loom_completion_finish(scomp, LOOM_OK, 0);
    loom_completion_finish(rcomp, LOOM_OK, slen);
}

static loom_status_t loom_lb_send(loom_transport_t *tr, int peer, uint64_t tag,
                                  const void *buf, size_t len, loom_completion_t *comp)
{
    loom_lb_rank_t *self = (loom_lb_rank_t *)tr;
    loom_lb_rank_t *dst;
    loom_lb_op_t *recv, *op;

    if (peer < 0 || peer >= self->lb->nranks) {
        return LOOM_ERR_INVALID_PARAM;
    }
    dst = &self->lb->ranks[peer];
    recv = loom_lb_take(&dst->recvs, self->rank, tag);
    if (recv != NULL) {
        loom_lb_match(self, dst, buf, len, comp, recv->buf, recv->len, recv->comp);
        free(recv);
        return LOOM_OK;
    }
    op = malloc(sizeof(*op));
    if (op == NULL) {
        return LOOM_ERR_NO_MEMORY;
    }
    *op = (loom_lb_op_t){ .peer = self->rank, .tag = tag, .buf = (void *)buf,
                          .len = len, .comp = comp };
    loom_lb_append(&dst->sends, op);
    return LOOM_OK;
}

static loom_status_t loom_lb_recv(loom_transport_t *tr, int peer, uint64_t tag,
                                  void *buf, size_t len, loom_completion_t *comp)
{
    loom_lb_rank_t *self = (loom_lb_rank_t *)tr;
    loom_lb_op_t *send, *op;

    if (peer < 0 || peer >= self->lb->nranks) {
        return LOOM_ERR_INVALID_PARAM;
    }
    send = loom_lb_take(&self->sends, peer, tag);
    if (send != NULL) {
        loom_lb_match(&self->lb->ranks[peer], self, send->buf, send->len, send->comp,
                      buf, len, comp);
        free(send);
        return LOOM_OK;
    }
    op = malloc(sizeof(*op));
    if (op == NULL) {
        return LOOM_ERR_NO_MEMORY;
    }
    *op = (loom_lb_op_t){ .peer = peer, .tag = tag, .buf = buf, .len = len,
                          .comp = comp };
    loom_lb_append(&self->recvs, op);
    return LOOM_OK;
}

static int loom_lb_progress(loom_transport_t *tr)
{
    (void)tr;
    return 0; /* matching happens when operations are posted */
}

static const loom_transport_ops_t loom_lb_ops = {
    .name     = "loopback",
    .send     = loom_lb_send,
    .recv     = loom_lb_recv,
    .progress = loom_lb_progress,
};

loom_status_t loom_loopback_create(int nranks, loom_loopback_t **lb_p)
{
    loom_loopback_t *lb;
    int i;

    if (nranks < 1) {
        return LOOM_ERR_INVALID_PARAM;
    }
    lb = calloc(1, sizeof(*lb));
    if (lb == NULL) {
        return LOOM_ERR_NO_MEMORY;
    }
    lb->ranks = calloc((size_t)nranks, sizeof(*lb->ranks));
    if (lb->ranks == NULL) {
        free(lb);
        return LOOM_ERR_NO_MEMORY;
    }
    lb->nranks = nranks;
    for (i = 0; i < nranks; ++i) {
        lb->ranks[i].super.ops = &loom_lb_ops;
        lb->ranks[i].lb = lb;
        lb->ranks[i].rank = i;
    }
    *lb_p = lb;
    return LOOM_OK;
}

static void loom_lb_free_list(loom_lb_op_t *op)
{
    loom_lb_op_t *next;

    for (; op != NULL; op = next) {
        next = op->next;
        free(op);
    }
}

/* Complete every op in list with status and free it; returns the count. */
static int loom_lb_cancel_list(loom_lb_op_t **list, loom_status_t status)
{
    loom_lb_op_t *op, *next;
    int n = 0;

    for (op = *list; op != NULL; op = next) {
        next = op->next;
        loom_completion_finish(op->comp, status, 0);
        free(op);
        ++n;
    }
    *list = NULL;
    return n;
}

int loom_loopback_cancel_all(loom_loopback_t *lb)
{
    int i, n = 0;

    for (i = 0; i < lb->nranks; ++i) {
        n += loom_lb_cancel_list(&lb->ranks[i].sends, LOOM_ERR_TRANSPORT);
        n += loom_lb_cancel_list(&lb->ranks[i].recvs, LOOM_ERR_TRANSPORT);
    }
    return n;
}

void loom_loopback_destroy(loom_loopback_t *lb)
{
    int i;

    if (lb == NULL) {
        return;
    }
    for (i = 0; i < lb->nranks; ++i) {
        loom_lb_free_list(lb->ranks[i].sends);
        loom_lb_free_list(lb->ranks[i].recvs);
    }
    free(lb->ranks);
    free(lb);
}

loom_transport_t *loom_loopback_transport(loom_loopback_t *lb, int rank)
{
    return &lb->ranks[rank].super;
}

size_t loom_loopback_bytes_sent(const loom_loopback_t *lb, int rank)
{
    return lb->ranks[rank].bytes_sent;
}

size_t loom_loopback_bytes_received(const loom_loopback_t *lb, int rank)
{
    return lb->ranks[rank].bytes_received;
}

int loom_loopback_pending(const loom_loopback_t *lb)
{
    const loom_lb_op_t *op;
    int i, n = 0;

    for (i = 0; i < lb->nranks; ++i) {
        for (op = lb->ranks[i].sends; op != NULL; op = op->next) {
            ++n;
        }
        for (op = lb->ranks[i].recvs; op != NULL; op = op->next) {
            ++n;
        }
    }
    return n;
}
