/*
 * The filter spec: what a communicator asks of gradient filtering, from
 * the info key "loom_filter" or the MCA parameter coll_loomfilter_filter.
 *
 *     spec    := "" | "none" | "dense" | "topk:" density [ "," option ]*
 *     density := a decimal in (0, 1]             e.g. 0.01, 1e-3
 *              | a decimal in (0, 100] then "%"  e.g. 1%, 0.1%
 *     option  := "warmup=" N         steps of warm-up, 0 .. 1000000 (default 0)
 *              | "min_bytes=" SIZE   smallest call filtered (default 4K)
 *              | "momentum=" M       momentum correction, 0 <= M < 1
 *                                    (default 0: off)
 *              | "exact_max=" N      largest count selected exactly,
 *                                    1 .. 2^32-1 (default 65536)
 *              | "residual_max=" SIZE bound on this process's residual
 *                                    memory, >= 1 (default 1G)
 *              | "every=" N          calls between re-estimates of the
 *                                    split-and-reduce's global threshold,
 *                                    1 .. 1000000 (default 16)
 *              | "exchange=" NAME    the sparse exchange: auto (the cost
 *                                    model's choice for the call's size,
 *                                    ranks and density), allgather, merge
 *                                    or split (default auto)
 *     SIZE, N := decimal digits, optionally followed by K, M or G (either
 *                case, powers of 1024); N takes suffixes too
 *
 * Spaces around the spec, a token or an "=" are ignored; each option may
 * be given once.  Names are lowercase.  "none", "dense" and the empty
 * string mean off (spec.enabled == 0, every field at its default).
 *
 * Why these defaults: min_bytes 4K keeps small calls (biases, norms),
 * where the pairs would cost more than the dense data and the latency
 * dominates, dense.  exact_max 64Ki elements is where exact selection's
 * passes over the buffer (topk.h) still cost less than a few
 * microseconds more than the sampled estimate.  residual_max 1G is one
 * float copy of a 256M-parameter model (half that with momentum, which
 * keeps two buffers): enough for the models data-parallel training
 * filters, small next to a training node's memory; what does not fit
 * runs dense and is counted (residual.h), it never evicts a residual.
 * every 16: the global threshold (coll/core/sparse/sparse_split.c) follows
 * the gradients' magnitudes, which drift slowly from step to step (Ok-Topk
 * re-estimates its thresholds every few dozen iterations for the same
 * reason); an estimate call costs each owner a sort of its region, so
 * every step would pay it for nothing, while 16 keeps a stale threshold
 * at most 15 steps old.
 *
 * A wrong spec is a user's mistake, not a failure: the caller warns with
 * the message loom_filter_spec_parse wrote and runs dense.
 */
#ifndef LOOM_FILTER_SPEC_H
#define LOOM_FILTER_SPEC_H

#include "loom/status.h"

#include <stddef.h>

#define LOOM_FILTER_WARMUP_MAX          1000000u
#define LOOM_FILTER_MIN_BYTES_DEFAULT   ((size_t)4 << 10)
#define LOOM_FILTER_EXACT_MAX_DEFAULT   ((size_t)1 << 16)
#define LOOM_FILTER_RESIDUAL_MAX_DEFAULT ((size_t)1 << 30)
#define LOOM_FILTER_EVERY_MAX           1000000u
#define LOOM_FILTER_EVERY_DEFAULT       16u

typedef struct loom_filter_spec {
    int         enabled;        /* 0: dense ("none", "dense", "") */
    double      density;        /* fraction of elements sent, (0, 1]; 1 when off */
    unsigned    warmup;         /* steps from dense to density (feedback.h) */
    size_t      min_bytes;      /* calls below this many bytes run dense */
    double      momentum;       /* 0: no momentum correction; else in (0, 1) */
    size_t      exact_max;      /* counts above this use the sampled threshold */
    size_t      residual_max;   /* bytes of residual memory per process */
    unsigned    every;          /* split: calls between threshold estimates */
    int         exchange;       /* loom_filter_exchange_t */
} loom_filter_spec_t;

/* The sparse exchange a spec asks for; the values are the sparse
 * allreduce's algorithms (coll/core/sparse/sparse.h, which this layer does
 * not see: the component checks that they agree). */
typedef enum loom_filter_exchange {
    LOOM_FILTER_EXCHANGE_AUTO = 0,
    LOOM_FILTER_EXCHANGE_ALLGATHER = 1,
    LOOM_FILTER_EXCHANGE_MERGE = 2,
    LOOM_FILTER_EXCHANGE_SPLIT = 3,
    LOOM_FILTER_EXCHANGE_COUNT
} loom_filter_exchange_t;

extern const char *const loom_filter_exchange_names[LOOM_FILTER_EXCHANGE_COUNT];

/* The spec meaning "off", every field at its default. */
void loom_filter_spec_set_dense(loom_filter_spec_t *spec);

/*
 * Parse text (NULL means "") into *spec_p.  On success returns LOOM_OK and
 * fills *spec_p.  On a wrong value returns LOOM_ERR_INVALID_PARAM, leaves
 * *spec_p untouched and writes into why (when why_len > 0, always
 * terminated, truncated to why_len) one lowercase sentence naming the
 * wrong part and what is accepted, e.g.
 *     "loom_filter: density '2' is not in (0, 1] (or (0%, 100%])"
 * Nothing is logged here: the caller warns once, where it decides.
 */
loom_status_t loom_filter_spec_parse(const char *text,
                                     loom_filter_spec_t *spec_p,
                                     char *why, size_t why_len);

/* Writes the canonical text of spec ("none" or "topk:0.01,warmup=0,...")
 * into buf, always terminated; returns what snprintf returns. */
int loom_filter_spec_format(const loom_filter_spec_t *spec, char *buf,
                            size_t len);

#endif
