/*
 * Command-line parsing for train_mlp.  Every rank parses the same argv, so
 * every rank reaches the same verdict; rank 0 alone prints it.
 */
#include "options.h"

#include <errno.h>
#include <limits.h>
#include <stddef.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

typedef enum opt_kind {
    OPT_INT, OPT_LONG, OPT_DOUBLE, OPT_SEED, OPT_STRING, OPT_SPEC, OPT_HIDDEN, OPT_SWITCH,
    OPT_FLAG
} opt_kind_t;

typedef struct opt_spec {
    const char *name;
    opt_kind_t  kind;
    size_t      offset;
    double      min, max;       /* numbers: the closed range accepted */
    const char *metavar;
    const char *help;
} opt_spec_t;

#define OFF(field) offsetof(mlp_options_t, field)

static const opt_spec_t opt_specs[] = {
    { "data", OPT_STRING, OFF(data_dir), 0, 0, "DIR",
      "the Fashion-MNIST IDX files (default " MLP_DEFAULT_DATA_DIR ")" },
    { "epochs", OPT_INT, OFF(epochs), 1, 100000, "N", "passes over the training set (default 3)" },
    { "batch", OPT_INT, OFF(batch), 1, 1 << 20, "N",
      "global batch, split over the ranks; need not divide evenly (default 128)" },
    { "lr", OPT_DOUBLE, OFF(lr), 1e-9, 100, "X", "learning rate (default 0.02)" },
    { "momentum", OPT_DOUBLE, OFF(momentum), 0, 0.999999, "X",
      "SGD momentum, 0 <= X < 1 (default 0.9)" },
    { "seed", OPT_SEED, OFF(seed), 0, 0, "N", "initial weights and sample order (default 1)" },
    { "hidden", OPT_HIDDEN, OFF(hidden), 1, 65536, "W,W,..",
      "hidden layer widths (default 512,256)" },
    { "accum", OPT_INT, OFF(accum), 1, 4096, "K",
      "gradient accumulation: allreduce and step every K batches (default 1)" },
    { "overlap", OPT_SWITCH, OFF(overlap), 0, 0, "[on|off]",
      "allreduce each layer's gradient while backward goes on (default off)" },
    { "train-limit", OPT_LONG, OFF(train_limit), 0, 1e9, "N",
      "use the first N training images (0: all)" },
    { "test-limit", OPT_LONG, OFF(test_limit), 0, 1e9, "N",
      "use the first N test images (0: all)" },
    { "steps", OPT_LONG, OFF(steps), 0, 1e12, "N", "stop after N optimizer steps (0: no limit)" },
    { "dump-params", OPT_STRING, OFF(dump_params), 0, 0, "FILE",
      "rank 0 writes the final parameters there as raw doubles" },
    { "checkpoint-dir", OPT_STRING, OFF(checkpoint_dir), 0, 0, "DIR",
      "save checkpoints there (libloom-ckpt) and resume from its newest on start" },
    { "checkpoint-every", OPT_LONG, OFF(checkpoint_every), 0, 1e12, "N",
      "checkpoint every N optimizer steps (0: never; needs --checkpoint-dir)" },
    { "step-sleep-ms", OPT_LONG, OFF(step_sleep_ms), 0, 60000, "N",
      "sleep N ms after each optimizer step: a slower model, for crash tests (default 0)" },
    { "filter", OPT_SPEC, OFF(filter), 0, 0, "SPEC",
      "filter the gradient allreduce, e.g. topk:0.01: the info key loom_filter=SPEC on "
      "the gradient communicator, read by mca_coll_loomfilter (default: dense)" },
    { "quiet", OPT_FLAG, OFF(quiet), 0, 0, "", "print the SUMMARY line only" },
};

#define NUM_SPECS (sizeof(opt_specs) / sizeof(opt_specs[0]))

void mlp_options_usage(FILE *out, const char *prog)
{
    size_t i;

    fprintf(out, "usage: mpirun -np N %s [options]\n", prog);
    for (i = 0; i < NUM_SPECS; ++i) {
        fprintf(out, "  --%-12s %-9s %s\n", opt_specs[i].name, opt_specs[i].metavar,
                opt_specs[i].help);
    }
    fprintf(out, "  --%-12s %-9s %s\n", "help", "", "this text");
}

static void opt_defaults(mlp_options_t *o)
{
    memset(o, 0, sizeof(*o));
    o->data_dir = MLP_DEFAULT_DATA_DIR;
    o->epochs = 3;
    o->batch = 128;
    o->lr = 0.02;
    o->momentum = 0.9;
    o->seed = 1;
    o->hidden[0] = 512;
    o->hidden[1] = 256;
    o->num_hidden = 2;
    o->accum = 1;
}

static mlp_status_t bad_number(const opt_spec_t *s, const char *val, mlp_error_t *err)
{
    if (s->kind == OPT_DOUBLE) {
        return mlp_fail(err, MLP_ERR_ARG, "--%s: '%s' is not valid; give a number from %g to %g",
                        s->name, val, s->min, s->max);
    }
    return mlp_fail(err, MLP_ERR_ARG,
                    "--%s: '%s' is not valid; give a whole number from %.0f to %.0f",
                    s->name, val, s->min, s->max);
}

/* A whole number in the spec's range; the whole string must be used. */
static mlp_status_t parse_whole(const opt_spec_t *s, const char *val, long long *out,
                                mlp_error_t *err)
{
    char *end;
    long long v;

    errno = 0;
    v = strtoll(val, &end, 10);
    if (errno != 0 || end == val || *end != '\0' || v < s->min || v > s->max) {
        return bad_number(s, val, err);
    }
    *out = v;
    return MLP_OK;
}

static mlp_status_t parse_double(const opt_spec_t *s, const char *val, double *out,
                                 mlp_error_t *err)
{
    char *end;
    double v;

    errno = 0;
    v = strtod(val, &end);
    if (errno != 0 || end == val || *end != '\0' || !(v >= s->min && v <= s->max)) {
        return bad_number(s, val, err);
    }
    *out = v;
    return MLP_OK;
}

static mlp_status_t parse_seed(const char *val, uint64_t *out, mlp_error_t *err)
{
    char *end;
    unsigned long long v;

    errno = 0;
    v = strtoull(val, &end, 10);
    if (errno != 0 || end == val || *end != '\0' || val[0] == '-') {
        return mlp_fail(err, MLP_ERR_ARG,
                        "--seed: '%s' is not valid; give a whole number from 0 to %llu",
                        val, ULLONG_MAX);
    }
    *out = v;
    return MLP_OK;
}

/* "512,256": one to MLP_MAX_HIDDEN widths, each in the spec's range. */
static mlp_status_t parse_hidden(const opt_spec_t *s, const char *val, mlp_options_t *o,
                                 mlp_error_t *err)
{
    const char *p = val;
    char *end;
    long w;
    int n = 0;

    for (;;) {
        errno = 0;
        w = strtol(p, &end, 10);
        if (errno != 0 || end == p || w < s->min || w > s->max || n == MLP_MAX_HIDDEN ||
            (*end != ',' && *end != '\0')) {
            return mlp_fail(err, MLP_ERR_ARG,
                            "--hidden: '%s' is not valid; give 1 to %d widths from %.0f to %.0f "
                            "separated by commas, e.g. 512,256",
                            val, MLP_MAX_HIDDEN, s->min, s->max);
        }
        o->hidden[n++] = (int)w;
        if (*end == '\0') {
            break;
        }
        p = end + 1;
    }
    o->num_hidden = n;
    return MLP_OK;
}

double mlp_filter_momentum(const char *spec)
{
    const char *m = strstr(spec, "momentum=");

    return m != NULL ? strtod(m + strlen("momentum="), NULL) : 0;
}

/* --filter's SPEC goes to the component unread (it alone decides what a
 * spec means, and warns and runs dense on one it refuses); here only what
 * an info value cannot carry is refused. */
static mlp_status_t parse_spec(const opt_spec_t *s, const char *val, const char **out,
                               mlp_error_t *err)
{
    if (val[0] == '\0') {
        return mlp_fail(err, MLP_ERR_ARG, "--%s: the value is empty; give a spec such as "
                        "topk:0.01, or leave --%s out for dense", s->name, s->name);
    }
    if (strlen(val) > MLP_FILTER_SPEC_MAX) {
        return mlp_fail(err, MLP_ERR_ARG, "--%s: the spec has %zu characters; an MPI info "
                        "value holds at most %d", s->name, strlen(val), MLP_FILTER_SPEC_MAX);
    }
    *out = val;
    return MLP_OK;
}

static mlp_status_t parse_switch(const char *val, int *out, mlp_error_t *err)
{
    if (strcmp(val, "on") == 0) {
        *out = 1;
    } else if (strcmp(val, "off") == 0) {
        *out = 0;
    } else {
        return mlp_fail(err, MLP_ERR_ARG, "--overlap: '%s' is not valid; give on or off", val);
    }
    return MLP_OK;
}

static mlp_status_t opt_store(const opt_spec_t *s, const char *val, mlp_options_t *o,
                              mlp_error_t *err)
{
    void *field = (char *)o + s->offset;
    mlp_status_t st = MLP_OK;
    long long whole = 0;

    switch (s->kind) {
    case OPT_INT:
    case OPT_LONG:
        st = parse_whole(s, val, &whole, err);
        if (st == MLP_OK && s->kind == OPT_INT) {
            *(int *)field = (int)whole;
        } else if (st == MLP_OK) {
            *(long *)field = (long)whole;
        }
        return st;
    case OPT_DOUBLE:
        return parse_double(s, val, field, err);
    case OPT_SEED:
        return parse_seed(val, field, err);
    case OPT_STRING:
        if (val[0] == '\0') {
            return mlp_fail(err, MLP_ERR_ARG, "--%s: the value is empty; give a path", s->name);
        }
        *(const char **)field = val;
        return MLP_OK;
    case OPT_SPEC:
        return parse_spec(s, val, field, err);
    case OPT_HIDDEN:
        return parse_hidden(s, val, o, err);
    case OPT_SWITCH:
        return parse_switch(val, field, err);
    case OPT_FLAG:
        *(int *)field = 1;
        return MLP_OK;
    }
    return MLP_ERR_ARG;
}

static const opt_spec_t *opt_find(const char *name, size_t len)
{
    size_t i;

    for (i = 0; i < NUM_SPECS; ++i) {
        if (strlen(opt_specs[i].name) == len && strncmp(opt_specs[i].name, name, len) == 0) {
            return &opt_specs[i];
        }
    }
    return NULL;
}

/* The value of argv[*i]: after '=' or the next argument.  A switch takes
 * the next argument only when it is on or off, and is on when bare. */
static const char *opt_value(const opt_spec_t *s, int argc, char **argv, int *i,
                             const char *eq)
{
    const char *next;

    if (eq != NULL) {
        return eq + 1;
    }
    if (s->kind == OPT_FLAG) {
        return "";
    }
    if (s->kind == OPT_SWITCH) {
        next = *i + 1 < argc ? argv[*i + 1] : "";
        if (strcmp(next, "on") == 0 || strcmp(next, "off") == 0) {
            return argv[++*i];
        }
        return "on";
    }
    return *i + 1 < argc ? argv[++*i] : NULL;
}

mlp_status_t mlp_options_parse(int argc, char **argv, mlp_options_t *opts, mlp_error_t *err)
{
    const opt_spec_t *s;
    const char *arg, *eq, *val;
    mlp_status_t st;
    int i;

    opt_defaults(opts);
    for (i = 1; i < argc; ++i) {
        arg = argv[i];
        if (strcmp(arg, "--help") == 0 || strcmp(arg, "-h") == 0) {
            return MLP_HELP;
        }
        if (strncmp(arg, "--", 2) != 0) {
            return mlp_fail(err, MLP_ERR_ARG,
                            "unexpected argument '%s'; options are long flags, see --help", arg);
        }
        eq = strchr(arg, '=');
        s = opt_find(arg + 2, eq != NULL ? (size_t)(eq - arg - 2) : strlen(arg + 2));
        if (s == NULL) {
            return mlp_fail(err, MLP_ERR_ARG, "unknown option '%s'; see --help for the list", arg);
        }
        if (s->kind == OPT_FLAG && eq != NULL) {
            return mlp_fail(err, MLP_ERR_ARG, "--%s takes no value", s->name);
        }
        val = opt_value(s, argc, argv, &i, eq);
        if (val == NULL) {
            return mlp_fail(err, MLP_ERR_ARG, "--%s needs a value; see --help", s->name);
        }
        st = opt_store(s, val, opts, err);
        if (st != MLP_OK) {
            return st;
        }
    }
    if (opts->checkpoint_every > 0 && opts->checkpoint_dir == NULL) {
        return mlp_fail(err, MLP_ERR_ARG, "--checkpoint-every needs --checkpoint-dir DIR "
                        "(where to save)");
    }
    /* Momentum correction in the filter (Deep Gradient Compression) takes
     * the place of the optimizer's: momentum must be applied once. */
    if (opts->filter != NULL && mlp_filter_momentum(opts->filter) > 0) {
        opts->momentum = 0;
    }
    return MLP_OK;
}

void mlp_options_hidden_str(const mlp_options_t *opts, char *buf, int len)
{
    int i, used = 0;

    buf[0] = '\0';
    for (i = 0; i < opts->num_hidden && used < len; ++i) {
        used += snprintf(buf + used, (size_t)(len - used), "%s%d", i ? "," : "", opts->hidden[i]);
    }
}
