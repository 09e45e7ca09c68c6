/* loom-sim's command line (options.h). */
#include "options.h"
#include "coll/core/allreduce/allreduce.h"
#include "coll/core/sparse/sparse.h"
#include "tools/common/size.h"

#include <errno.h>
#include <math.h>
#include <stdint.h>
#include <getopt.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

enum {   /* long options without a short form */
    LOOM_SIM_OPT_CSV = 256, LOOM_SIM_OPT_PLOT, LOOM_SIM_OPT_PLOT_BYTES, LOOM_SIM_OPT_MODEL,
    LOOM_SIM_OPT_RPN, LOOM_SIM_OPT_NPR, LOOM_SIM_OPT_NICS, LOOM_SIM_OPT_MAP,
    LOOM_SIM_OPT_OVERSUB, LOOM_SIM_OPT_NODES, LOOM_SIM_OPT_SET, LOOM_SIM_OPT_IN_PLACE,
    LOOM_SIM_OPT_PINGPONG, LOOM_SIM_OPT_BENCH, LOOM_SIM_OPT_BENCH_ALG, LOOM_SIM_OPT_BENCH_NP,
    LOOM_SIM_OPT_NO_FOLD, LOOM_SIM_OPT_ORDER, LOOM_SIM_OPT_DENSITY, LOOM_SIM_OPT_SPARSE_PATH
};

static const struct option loom_sim_long_options[] = {
    { "coll", required_argument, NULL, 'c' },
    { "algorithms", required_argument, NULL, 'a' },
    { "ranks", required_argument, NULL, 'p' },
    { "minbytes", required_argument, NULL, 'b' },
    { "maxbytes", required_argument, NULL, 'e' },
    { "stepfactor", required_argument, NULL, 'f' },
    { "quiet", no_argument, NULL, 'q' },
    { "jobs", required_argument, NULL, 'j' },
    { "output", required_argument, NULL, 'o' },
    { "csv", required_argument, NULL, LOOM_SIM_OPT_CSV },
    { "plot", required_argument, NULL, LOOM_SIM_OPT_PLOT },
    { "plot-bytes", required_argument, NULL, LOOM_SIM_OPT_PLOT_BYTES },
    { "model", required_argument, NULL, LOOM_SIM_OPT_MODEL },
    { "ranks-per-node", required_argument, NULL, LOOM_SIM_OPT_RPN },
    { "nodes-per-rack", required_argument, NULL, LOOM_SIM_OPT_NPR },
    { "nics-per-node", required_argument, NULL, LOOM_SIM_OPT_NICS },
    { "nodes", required_argument, NULL, LOOM_SIM_OPT_NODES },
    { "map-by", required_argument, NULL, LOOM_SIM_OPT_MAP },
    { "oversubscription", required_argument, NULL, LOOM_SIM_OPT_OVERSUB },
    { "set", required_argument, NULL, LOOM_SIM_OPT_SET },
    { "in-place", no_argument, NULL, LOOM_SIM_OPT_IN_PLACE },
    { "no-fold", no_argument, NULL, LOOM_SIM_OPT_NO_FOLD },
    { "order", required_argument, NULL, LOOM_SIM_OPT_ORDER },
    { "density", required_argument, NULL, LOOM_SIM_OPT_DENSITY },
    { "sparse-path", required_argument, NULL, LOOM_SIM_OPT_SPARSE_PATH },
    { "pingpong", required_argument, NULL, LOOM_SIM_OPT_PINGPONG },
    { "bench", required_argument, NULL, LOOM_SIM_OPT_BENCH },
    { "bench-algorithm", required_argument, NULL, LOOM_SIM_OPT_BENCH_ALG },
    { "bench-ranks", required_argument, NULL, LOOM_SIM_OPT_BENCH_NP },
    { "help", no_argument, NULL, 'h' },
    { NULL, 0, NULL, 0 },
};

static void loom_sim_usage(FILE *out)
{
    fprintf(out,
        "usage: loom-sim [options]\n"
        "       loom-sim calibrate --pingpong FILE [--bench FILE --bench-algorithm NAME\n"
        "                          --bench-ranks N] [layout options] [-o MODEL]\n"
        "       loom-sim choices [-c NAME] [-p LIST] [-b SIZE] [-e SIZE] [-f N] [model options]\n"
        "\n"
        "Runs the schedules of Loom's collective algorithms, as the engine builds\n"
        "them, on a modeled cluster, and prints the predicted time, algbw and\n"
        "busbw per algorithm, rank count and size, with the algorithm Loom's cost\n"
        "model chooses (docs/loom-sim.md).\n"
        "\n"
        "  -c, --coll NAME          allreduce (default), bcast, reduce, allgather,\n"
        "                           reduce_scatter or sparse_allreduce; sizes as\n"
        "                           nccl-tests: allgather's and reduce_scatter's are\n"
        "                           the whole vector, sparse_allreduce's the dense one\n"
        "  -a, --algorithms LIST    comma-separated names of the collective's\n"
        "                           algorithms, auto (Loom's choice), or all (all but\n"
        "                           reproducible).  allreduce: ring, recursive_doubling,\n"
        "                           rabenseifner, double_binary_tree, hierarchical,\n"
        "                           reproducible (default ring,rabenseifner,\n"
        "                           double_binary_tree,hierarchical); bcast: binomial,\n"
        "                           chain, scatter_allgather, hierarchical; reduce:\n"
        "                           binomial, reduce_scatter_gather, chain,\n"
        "                           hierarchical, reproducible; allgather: bruck, ring,\n"
        "                           hierarchical; reduce_scatter: recursive_halving,\n"
        "                           ring, hierarchical, reproducible; sparse_allreduce:\n"
        "                           allgather, merge, split (default: all)\n"
        "  -p, --ranks LIST         comma-separated rank counts, or A:B for the powers\n"
        "                           of two from A to B (default 8:4096)\n"
        "  -b, --minbytes SIZE      smallest message (default 1K)\n"
        "  -e, --maxbytes SIZE      largest message (default 512M)\n"
        "  -f, --stepfactor N       multiply the size by N each step, N >= 2 (default 2)\n"
        "      --model FILE         the cluster model (key = value lines, as\n"
        "                           loom-sim calibrate writes); options below override\n"
        "      --ranks-per-node N   (default 8)\n"
        "      --nodes-per-rack N   (default 16)\n"
        "      --nics-per-node N    (default 8: one per accelerator)\n"
        "      --nodes N            place the ranks on N nodes (default: as they fill)\n"
        "      --map-by core|node   consecutive ranks on one node, or round-robin\n"
        "      --oversubscription X rack uplink = rack NIC capacity / X (default 4)\n"
        "      --set KEY=VALUE      any model key (docs/loom-sim.md)\n"
        "      --in-place           MPI_IN_PLACE (default: separate buffers, one copy)\n"
        "      --no-fold            run every rank even when the run is symmetric\n"
        "                           (by default a symmetric run is simulated on one\n"
        "                           rack and stands for all: the same times, faster)\n"
        "      --order ORDER        the team's rank order, every algorithm placing\n"
        "                           ranks by it (docs/rank_order.md): reverse,\n"
        "                           random:SEED, or the rank at each position,\n"
        "                           comma-separated (e.g. 3,1,0,2; then -p must be\n"
        "                           that one rank count).  Default: rank order\n"
        "      --density D          sparse_allreduce: the fraction of the vector (of\n"
        "                           floats) every rank selects, 0 < D <= 1: k =\n"
        "                           ceil(D * count) pairs each (default 0.01)\n"
        "      --sparse-path PATH   sparse_allreduce: model (the engine's cost model\n"
        "                           picks pairs or dense, the default), sparse or\n"
        "                           dense (forced)\n"
        "      --csv FILE           also write the results as CSV\n"
        "      --plot FILE.png      busbw against rank count (against size when one\n"
        "                           rank count), one line per algorithm, with gnuplot\n"
        "      --plot-bytes SIZE    the size of that plot (default the largest)\n"
        "  -j, --jobs N             simulate N points at once, in threads (default the\n"
        "                           cores online, at most 4: each holds a program, at\n"
        "                           4096 ranks 2 GB for allreduce, up to 11 GB for a\n"
        "                           pipelined reduce); results do not depend on N\n"
        "  -q, --quiet              no table\n"
        "  -h, --help               this text\n"
        "\n"
        "calibrate: fits alpha and beta per link class from test/cluster/pingpong\n"
        "output (several sizes per link class; labels same-node, same-rack,\n"
        "cross-rack), then gamma from one algorithm's loom-bench --csv on\n"
        "--bench-ranks ranks placed by the layout options; writes the model to\n"
        "-o FILE (default stdout).\n"
        "\n"
        "choices: simulates nothing; prints, per collective (-c, or every one),\n"
        "rank count and size, the algorithm, segment and pipeline depth Loom's\n"
        "engine chooses on the model's layout and links, one line each, for\n"
        "comparing the engine's selection before and after a change.\n"
        "\n"
        "SIZE is a byte count with an optional suffix K, M or G (8, 256K, 64M).\n");
}

#define LOOM_SIM_ERR(...) (fprintf(err, "loom-sim: " __VA_ARGS__), LOOM_SIM_PARSE_ERROR)

/* The cores online, 1 to LOOM_SIM_DEFAULT_JOBS_MAX. */
int loom_sim_default_jobs(void)
{
    long n = sysconf(_SC_NPROCESSORS_ONLN);

    return n < 1 ? 1 : n > LOOM_SIM_DEFAULT_JOBS_MAX ? LOOM_SIM_DEFAULT_JOBS_MAX : (int)n;
}

static int loom_sim_int_arg(const char *text, long lo, long hi, int *v_p)
{
    char *end;
    long v;

    errno = 0;
    v = strtol(text, &end, 10);
    if (text[0] < '0' || text[0] > '9' || *end != '\0' || errno != 0 || v < lo || v > hi) {
        return -1;
    }
    *v_p = (int)v;
    return 0;
}

static int loom_sim_alg_by_name(const char *name)
{
    return loom_sim_coll_alg(&loom_sim_coll_allreduce, name);
}

/* Appends algorithm a to o's list unless it is there. */
static void loom_sim_add_alg(loom_sim_options_t *o, int a)
{
    int i;

    for (i = 0; i < o->nalgs && o->algs[i] != a; ++i) {
    }
    if (i == o->nalgs) {
        o->algs[o->nalgs++] = a;
    }
}

/* The algorithms of o->coll named in text (NULL: its default set); "all"
 * is every one but auto and the on-request reproducible one. */
static loom_sim_parse_t loom_sim_parse_algs(const char *text, FILE *err, loom_sim_options_t *o)
{
    const loom_sim_coll_t *coll = o->coll;
    char buf[512], accepted[256] = "", *tok, *save = NULL;
    int a, i;

    o->nalgs = 0;
    if (text == NULL) {
        for (i = 0; i < coll->ndefaults; ++i) {
            loom_sim_add_alg(o, coll->defaults[i]);
        }
        return LOOM_SIM_PARSE_OK;
    }
    if (strlen(text) >= sizeof(buf)) {
        return LOOM_SIM_ERR("-a: list too long\n");
    }
    strcpy(buf, text);
    for (tok = strtok_r(buf, ",", &save); tok != NULL; tok = strtok_r(NULL, ",", &save)) {
        if (strcmp(tok, "all") == 0) {
            for (a = 1; a < coll->engine->alg_count; ++a) {
                if (a != coll->engine->reproducible) {
                    loom_sim_add_alg(o, a);
                }
            }
            continue;
        }
        a = loom_sim_coll_alg(coll, tok);
        if (a < 0) {
            for (i = 1; i < coll->engine->alg_count; ++i) {
                strcat(accepted, coll->engine->alg_names[i]);
                strcat(accepted, ", ");
            }
            return LOOM_SIM_ERR("-a: %s has no algorithm '%s' (accepted: %sauto, all)\n",
                                coll->engine->name, tok, accepted);
        }
        loom_sim_add_alg(o, a);
    }
    if (o->nalgs == 0) {
        return LOOM_SIM_ERR("-a: no algorithm named\n");
    }
    return LOOM_SIM_PARSE_OK;
}

static loom_sim_parse_t loom_sim_parse_ranks(const char *text, FILE *err, loom_sim_options_t *o)
{
    char buf[512], *tok, *save = NULL, *colon;
    int a, b, v;

    if (strlen(text) >= sizeof(buf)) {
        return LOOM_SIM_ERR("-p: list too long\n");
    }
    strcpy(buf, text);
    o->nranks = 0;
    colon = strchr(buf, ':');
    if (colon != NULL) {
        *colon = '\0';
        if (loom_sim_int_arg(buf, 2, LOOM_SIM_MAX_RANKS, &a) != 0 ||
            loom_sim_int_arg(colon + 1, 2, LOOM_SIM_MAX_RANKS, &b) != 0 || a > b) {
            return LOOM_SIM_ERR("-p: '%s' is not A:B with 2 <= A <= B <= %d\n", text,
                                LOOM_SIM_MAX_RANKS);
        }
        for (v = a; v <= b && o->nranks < LOOM_SIM_MAX_RANK_COUNTS; v *= 2) {
            o->ranks[o->nranks++] = v;
        }
        return LOOM_SIM_PARSE_OK;
    }
    for (tok = strtok_r(buf, ",", &save); tok != NULL; tok = strtok_r(NULL, ",", &save)) {
        if (loom_sim_int_arg(tok, 2, LOOM_SIM_MAX_RANKS, &v) != 0) {
            return LOOM_SIM_ERR("-p: '%s' is not a rank count from 2 to %d\n", tok,
                                LOOM_SIM_MAX_RANKS);
        }
        if (o->nranks == LOOM_SIM_MAX_RANK_COUNTS) {
            return LOOM_SIM_ERR("-p: at most %d rank counts\n", LOOM_SIM_MAX_RANK_COUNTS);
        }
        o->ranks[o->nranks++] = v;
    }
    if (o->nranks == 0) {
        return LOOM_SIM_ERR("-p: no rank count given\n");
    }
    return LOOM_SIM_PARSE_OK;
}

/* The comma-separated list text as the rank at each position: its length
 * in *n_p, and whether it is a permutation of 0..n-1 (0, or -1 with the
 * message on err).  order: room for LOOM_SIM_MAX_RANKS entries, or NULL
 * to check only. */
static int loom_sim_order_list(const char *text, FILE *err, int *order, int *n_p)
{
    unsigned char *seen = calloc(LOOM_SIM_MAX_RANKS, 1);
    const char *at = text;
    char *end;
    long v;
    int n = 0, rc = -1;

    if (seen == NULL) {
        fprintf(err, "loom-sim: --order: out of memory\n");
        return -1;
    }
    for (;;) {
        errno = 0;
        v = strtol(at, &end, 10);
        if (at[0] < '0' || at[0] > '9' || errno != 0 || (*end != ',' && *end != '\0')) {
            fprintf(err, "loom-sim: --order: '%s' is not reverse, random:SEED or a "
                    "comma-separated list of ranks\n", text);
            goto out;
        }
        if (v >= LOOM_SIM_MAX_RANKS || seen[v]) {
            fprintf(err, "loom-sim: --order: rank %ld %s; the list names every rank of "
                    "0..p-1 once\n", v, v >= LOOM_SIM_MAX_RANKS ? "is too large" :
                    "appears twice");
            goto out;
        }
        seen[v] = 1;
        if (order != NULL) {
            order[n] = (int)v;
        }
        ++n;
        if (*end == '\0') {
            break;
        }
        at = end + 1;
    }
    for (v = 0; v < n; ++v) {
        if (!seen[v]) {
            fprintf(err, "loom-sim: --order: rank %ld is missing; a list of %d ranks names "
                    "every rank of 0..%d once\n", v, n, n - 1);
            goto out;
        }
    }
    *n_p = n;
    rc = 0;
out:
    free(seen);
    return rc;
}

static loom_sim_parse_t loom_sim_parse_order(const char *text, FILE *err,
                                             loom_sim_options_t *o)
{
    char *end;
    int n;

    if (strcmp(text, "reverse") == 0) {
        o->order_kind = LOOM_SIM_ORDER_REVERSE;
        return LOOM_SIM_PARSE_OK;
    }
    if (strncmp(text, "random:", 7) == 0) {
        errno = 0;
        o->order_seed = strtoull(text + 7, &end, 0);
        if (text[7] < '0' || text[7] > '9' || *end != '\0' || errno != 0) {
            return LOOM_SIM_ERR("--order: '%s' is not random:SEED with SEED an unsigned "
                                "integer\n", text);
        }
        o->order_kind = LOOM_SIM_ORDER_RANDOM;
        return LOOM_SIM_PARSE_OK;
    }
    if (loom_sim_order_list(text, err, NULL, &n) != 0) {
        return LOOM_SIM_PARSE_ERROR;
    }
    o->order_kind = LOOM_SIM_ORDER_LIST;
    o->order_list = text;
    return LOOM_SIM_PARSE_OK;
}

/* splitmix64: the random order's numbers, the same on every machine. */
static uint64_t loom_sim_order_next(uint64_t *state)
{
    uint64_t z = (*state += UINT64_C(0x9E3779B97F4A7C15));

    z = (z ^ (z >> 30)) * UINT64_C(0xBF58476D1CE4E5B9);
    z = (z ^ (z >> 27)) * UINT64_C(0x94D049BB133111EB);
    return z ^ (z >> 31);
}

int loom_sim_order_fill(const loom_sim_options_t *o, int p, int *order)
{
    uint64_t state = o->order_seed;
    int i, j, t, n = 0;

    switch (o->order_kind) {
    case LOOM_SIM_ORDER_REVERSE:
        for (i = 0; i < p; ++i) {
            order[i] = p - 1 - i;
        }
        return 1;
    case LOOM_SIM_ORDER_RANDOM:
        for (i = 0; i < p; ++i) {
            order[i] = i;
        }
        for (i = p - 1; i > 0; --i) {   /* Fisher-Yates */
            j = (int)(loom_sim_order_next(&state) % (uint64_t)(i + 1));
            t = order[i];
            order[i] = order[j];
            order[j] = t;
        }
        return 1;
    case LOOM_SIM_ORDER_LIST:
        /* Checked at parsing, p among them. */
        return loom_sim_order_list(o->order_list, stderr, order, &n) == 0 && n == p;
    default:
        return 0;
    }
}

/* --density: a fraction of the vector, 0 < D <= 1. */
static loom_sim_parse_t loom_sim_parse_density(const char *text, FILE *err,
                                               loom_sim_options_t *o)
{
    char *end;
    double d;

    errno = 0;
    d = strtod(text, &end);
    if (end == text || *end != '\0' || errno != 0 || !isfinite(d) || !(d > 0) || d > 1) {
        return LOOM_SIM_ERR("--density: '%s' is not a fraction of the vector in (0, 1] "
                            "(e.g. 0.01: every rank selects 1%% of its elements)\n", text);
    }
    o->sparse.density = d;
    return LOOM_SIM_PARSE_OK;
}

static loom_sim_parse_t loom_sim_parse_sparse_path(const char *text, FILE *err,
                                                   loom_sim_options_t *o)
{
    static const char *const names[] = {
        [LOOM_SPARSE_PATH_MODEL] = "model", [LOOM_SPARSE_PATH_SPARSE] = "sparse",
        [LOOM_SPARSE_PATH_DENSE] = "dense",
    };
    int i;

    for (i = 0; i < (int)(sizeof(names) / sizeof(names[0])); ++i) {
        if (strcmp(text, names[i]) == 0) {
            o->sparse.path = i;
            return LOOM_SIM_PARSE_OK;
        }
    }
    return LOOM_SIM_ERR("--sparse-path: '%s' is not model, sparse or dense\n", text);
}

static loom_sim_parse_t loom_sim_model_opt(const char *opt, const char *key, const char *value,
                                           FILE *err, loom_sim_options_t *o)
{
    char msg[512];

    if (loom_sim_model_set(&o->model, key, value, msg, sizeof(msg)) != LOOM_OK) {
        return LOOM_SIM_ERR("%s: %s\n", opt, msg);
    }
    return LOOM_SIM_PARSE_OK;
}

loom_sim_parse_t loom_sim_options_parse(int argc, char **argv, FILE *err,
                                        loom_sim_options_t *opts_p)
{
    loom_sim_options_t o = {
        .mode = LOOM_SIM_MODE_RUN, .coll = &loom_sim_coll_allreduce,
        .min_bytes = 1 << 10, .max_bytes = (size_t)512 << 20, .factor = 2,
        .bench_alg = LOOM_ALLREDUCE_RING, .bench_ranks = 0, .jobs = loom_sim_default_jobs(),
        .sparse = { .density = LOOM_SIM_SPARSE_DENSITY, .path = LOOM_SPARSE_PATH_MODEL },
    };
    const char *sparse_opt = NULL;  /* the first sparse option given */
    /* Model options apply after --model, whatever their order. */
    const char *model_path = NULL, *sets[64], *set_opts[64], *algs_text = NULL;
    loom_sim_parse_t rc;
    char msg[512], key[64];
    int c, nsets = 0, i;
    size_t klen;

    loom_sim_model_default(&o.model);
    if (argc > 1 && (strcmp(argv[1], "calibrate") == 0 || strcmp(argv[1], "choices") == 0)) {
        o.mode = argv[1][1] == 'a' ? LOOM_SIM_MODE_CALIBRATE : LOOM_SIM_MODE_CHOICES;
        --argc;
        ++argv;
    }
    opterr = 0;
    optind = 1;
    while ((c = getopt_long(argc, argv, ":c:a:p:b:e:f:j:qo:h", loom_sim_long_options,
                            NULL)) != -1) {
        rc = LOOM_SIM_PARSE_OK;
        switch (c) {
        case 'c':
            o.coll = loom_sim_coll_find(optarg);
            o.coll_given = 1;
            if (o.coll == NULL) {
                return LOOM_SIM_ERR("-c: '%s' is not simulated (accepted: %s)\n", optarg,
                                    loom_sim_coll_list(msg, sizeof(msg)));
            }
            break;
        case 'a':
            algs_text = optarg;   /* read once -c is known, whatever the order */
            break;
        case 'p':
            rc = loom_sim_parse_ranks(optarg, err, &o);
            break;
        case 'b':
        case 'e':
            if (loom_tool_size_parse(optarg, c == 'b' ? &o.min_bytes : &o.max_bytes) != 0 ||
                (c == 'b' ? o.min_bytes : o.max_bytes) == 0) {
                return LOOM_SIM_ERR("-%c: '%s' is not a size (a byte count >= 1 with an "
                                    "optional suffix K, M or G)\n", c, optarg);
            }
            break;
        case 'f':
            if (loom_sim_int_arg(optarg, 2, 1024, &o.factor) != 0) {
                return LOOM_SIM_ERR("-f: '%s' is not an integer from 2 to 1024\n", optarg);
            }
            break;
        case 'j':
            if (loom_sim_int_arg(optarg, 1, LOOM_SIM_MAX_JOBS, &o.jobs) != 0) {
                return LOOM_SIM_ERR("-j: '%s' is not an integer from 1 to %d\n", optarg,
                                    LOOM_SIM_MAX_JOBS);
            }
            break;
        case 'q':
            o.quiet = 1;
            break;
        case 'o':
            o.out_path = optarg;
            break;
        case LOOM_SIM_OPT_CSV:
            o.csv_path = optarg;
            break;
        case LOOM_SIM_OPT_PLOT:
            o.plot_path = optarg;
            break;
        case LOOM_SIM_OPT_PLOT_BYTES:
            if (loom_tool_size_parse(optarg, &o.plot_bytes) != 0 || o.plot_bytes == 0) {
                return LOOM_SIM_ERR("--plot-bytes: '%s' is not a size (a byte count >= 1 "
                                    "with an optional suffix K, M or G)\n", optarg);
            }
            break;
        case LOOM_SIM_OPT_MODEL:
            model_path = optarg;
            break;
        case LOOM_SIM_OPT_RPN: case LOOM_SIM_OPT_NPR: case LOOM_SIM_OPT_NICS:
        case LOOM_SIM_OPT_NODES: case LOOM_SIM_OPT_MAP: case LOOM_SIM_OPT_OVERSUB:
        case LOOM_SIM_OPT_SET:
            if (nsets == 64) {
                return LOOM_SIM_ERR("at most 64 model options\n");
            }
            set_opts[nsets] = c == LOOM_SIM_OPT_RPN ? "ranks_per_node"
                            : c == LOOM_SIM_OPT_NPR ? "nodes_per_rack"
                            : c == LOOM_SIM_OPT_NICS ? "nics_per_node"
                            : c == LOOM_SIM_OPT_NODES ? "nodes"
                            : c == LOOM_SIM_OPT_MAP ? "map"
                            : c == LOOM_SIM_OPT_OVERSUB ? "oversubscription" : NULL;
            sets[nsets++] = optarg;
            break;
        case LOOM_SIM_OPT_IN_PLACE:
            o.in_place = 1;
            break;
        case LOOM_SIM_OPT_NO_FOLD:
            o.no_fold = 1;
            break;
        case LOOM_SIM_OPT_ORDER:
            rc = loom_sim_parse_order(optarg, err, &o);
            break;
        case LOOM_SIM_OPT_DENSITY:
            sparse_opt = sparse_opt != NULL ? sparse_opt : "--density";
            rc = loom_sim_parse_density(optarg, err, &o);
            break;
        case LOOM_SIM_OPT_SPARSE_PATH:
            sparse_opt = sparse_opt != NULL ? sparse_opt : "--sparse-path";
            rc = loom_sim_parse_sparse_path(optarg, err, &o);
            break;
        case LOOM_SIM_OPT_PINGPONG:
            o.pingpong_path = optarg;
            break;
        case LOOM_SIM_OPT_BENCH:
            o.bench_path = optarg;
            break;
        case LOOM_SIM_OPT_BENCH_ALG:
            o.bench_alg = loom_sim_alg_by_name(optarg);
            if (o.bench_alg <= 0) {
                return LOOM_SIM_ERR("--bench-algorithm: '%s' is not one of ring, "
                                    "recursive_doubling, rabenseifner, double_binary_tree, "
                                    "hierarchical, reproducible\n", optarg);
            }
            break;
        case LOOM_SIM_OPT_BENCH_NP:
            if (loom_sim_int_arg(optarg, 2, LOOM_SIM_MAX_RANKS, &o.bench_ranks) != 0) {
                return LOOM_SIM_ERR("--bench-ranks: '%s' is not a rank count from 2 to %d\n",
                                    optarg, LOOM_SIM_MAX_RANKS);
            }
            break;
        case 'h':
            loom_sim_usage(stdout);
            return LOOM_SIM_PARSE_EXIT;
        case ':':
            return LOOM_SIM_ERR("%s needs a value (see loom-sim --help)\n", argv[optind - 1]);
        default:
            return LOOM_SIM_ERR("unknown option '%s' (see loom-sim --help)\n",
                                argv[optind - 1]);
        }
        if (rc != LOOM_SIM_PARSE_OK) {
            return rc;
        }
    }
    if (optind < argc) {
        return LOOM_SIM_ERR("unexpected argument '%s' (see loom-sim --help)\n", argv[optind]);
    }
    if (model_path != NULL && loom_sim_model_load(&o.model, model_path, msg, sizeof(msg)) !=
                              LOOM_OK) {
        return LOOM_SIM_ERR("%s\n", msg);
    }
    for (i = 0; i < nsets; ++i) {
        const char *value = sets[i];

        if (set_opts[i] == NULL) {   /* --set KEY=VALUE */
            const char *eq = strchr(sets[i], '=');

            klen = eq != NULL ? (size_t)(eq - sets[i]) : 0;
            if (eq == NULL || klen == 0 || klen >= sizeof(key)) {
                return LOOM_SIM_ERR("--set: '%s' is not KEY=VALUE\n", sets[i]);
            }
            memcpy(key, sets[i], klen);
            key[klen] = '\0';
            value = eq + 1;
            rc = loom_sim_model_opt("--set", key, value, err, &o);
        } else {
            snprintf(key, sizeof(key), "--%s", set_opts[i]);
            for (char *k = key; *k; ++k) {
                *k = *k == '_' ? '-' : *k;
            }
            if (strcmp(key, "--map") == 0) {
                strcpy(key, "--map-by");
            }
            rc = loom_sim_model_opt(key, set_opts[i], value, err, &o);
        }
        if (rc != LOOM_SIM_PARSE_OK) {
            return rc;
        }
    }
    if (loom_sim_model_check(&o.model, msg, sizeof(msg)) != LOOM_OK) {
        return LOOM_SIM_ERR("model: %s\n", msg);
    }
    if (sparse_opt != NULL && (o.mode != LOOM_SIM_MODE_RUN || !o.coll->sparse)) {
        return LOOM_SIM_ERR("%s: applies to a run of -c sparse_allreduce only\n", sparse_opt);
    }
    rc = loom_sim_parse_algs(algs_text, err, &o);
    if (rc != LOOM_SIM_PARSE_OK) {
        return rc;
    }
    if (o.min_bytes > o.max_bytes) {
        return LOOM_SIM_ERR("-b %zu is larger than -e %zu\n", o.min_bytes, o.max_bytes);
    }
    if (o.nranks == 0) {
        loom_sim_parse_ranks("8:4096", err, &o);
    }
    if (o.order_kind == LOOM_SIM_ORDER_LIST) {
        int n = 0;

        loom_sim_order_list(o.order_list, err, NULL, &n);
        if (o.nranks != 1 || o.ranks[0] != n) {
            return LOOM_SIM_ERR("--order: a list of %d ranks needs -p %d (one rank count, "
                                "that one); reverse and random:SEED fit any\n", n, n);
        }
    }
    if (o.mode == LOOM_SIM_MODE_CALIBRATE && o.pingpong_path == NULL) {
        return LOOM_SIM_ERR("calibrate: --pingpong FILE is required\n");
    }
    if (o.mode == LOOM_SIM_MODE_CALIBRATE && o.bench_path != NULL && o.bench_ranks == 0) {
        return LOOM_SIM_ERR("calibrate: --bench needs --bench-ranks N (the ranks it ran on)\n");
    }
    *opts_p = o;
    return LOOM_SIM_PARSE_OK;
}
