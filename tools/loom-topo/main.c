/*
 * loom-topo: look at a topology file, check it, place ranks by traffic.
 *
 *   loom-topo [map] [--format text|json|dot] [-o OUT] FILE
 *       the map: switches, racks, nodes, sockets and ranks.  OUT ending in
 *       .png or .svg is drawn by Graphviz's dot.
 *   loom-topo check FILE
 *       validate; say exactly what is wrong.
 *   mpirun ... loom-topo job [--topology FILE] [--format ...] [-o OUT]
 *       the map of the running job: each rank's node, NUMA node and
 *       socket (job.c), racks from FILE when given; rank 0 prints it.
 *   loom-topo rankfile --traffic MATRIX [--slots N] [-o RANKFILE] FILE
 *       place ranks so that the heaviest traffic takes the fastest links
 *       (topo/traffic.c), write an Open MPI rankfile, report the bytes
 *       over each level before and after.
 *
 * FILE is a Slurm topology.conf or a Loom topology file (JSON); see
 * docs/topology.md.  Exit status: 0 done (check: valid), 1 invalid input
 * or failure, 2 bad usage.
 */
#include "topo/topo.h"
#include "topo/traffic.h"
#include "tools/loom-topo/job.h"
#include "tools/loom-topo/print.h"

#include <errno.h>
#include <getopt.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

enum { EXIT_INVALID = 1, EXIT_USAGE = 2 };

typedef enum { FORMAT_TEXT, FORMAT_JSON, FORMAT_DOT } format_t;
static const char *const format_names[] = { "text", "json", "dot", NULL };

typedef struct options {
    format_t    format;
    const char *output;
    const char *traffic;
    const char *topology;
    unsigned    slots;
} options_t;

static void usage(FILE *out)
{
    fprintf(out,
        "usage: loom-topo [map] [--format text|json|dot] [-o OUT] FILE\n"
        "       loom-topo check FILE\n"
        "       mpirun ... loom-topo job [--topology FILE] [--format F] [-o OUT]\n"
        "       loom-topo rankfile --traffic MATRIX [--slots N] [-o RANKFILE] FILE\n"
        "\n"
        "FILE: a Slurm topology.conf or a Loom topology file (JSON), docs/topology.md.\n"
        "  map        print the topology: a text tree (default), JSON or Graphviz DOT;\n"
        "             -o OUT.png or OUT.svg draws it with Graphviz's dot\n"
        "  check      validate FILE; exit 0 when valid, 1 with the reason when not\n"
        "  rankfile   place ranks by a traffic matrix (one row of bytes per rank),\n"
        "             write an Open MPI rankfile (to RANKFILE, or stdout) and report\n"
        "             the bytes over node, rack and spine links before and after\n"
        "  job        under mpirun: the map of this job (each rank's node, NUMA node\n"
        "             and socket), with racks from --topology FILE when given\n"
        "  --slots N  ranks per node where FILE gives no slots\n"
        "exit status: 0 done, 1 invalid input or failure, 2 bad usage\n");
}

static loom_topo_t *load(const char *path)
{
    loom_topo_t *topo = NULL;
    loom_topo_error_t err = { 0 };
    loom_status_t st = loom_topo_load(path, &topo, &err);

    if (st != LOOM_OK) {
        fprintf(stderr, "loom-topo: %s\n", st == LOOM_ERR_NO_MEMORY ? "out of memory"
                                                                    : err.msg);
        return NULL;
    }
    return topo;
}

static int ends_with(const char *s, const char *tail)
{
    size_t a = strlen(s), b = strlen(tail);
    return a >= b && strcmp(s + a - b, tail) == 0;
}

/* Show topo as the options say; source names it in the text form. */
static int show(const options_t *opt, const loom_topo_t *topo, const char *source)
{
    int rc = EXIT_SUCCESS;

    if (opt->output != NULL && (ends_with(opt->output, ".png") || ends_with(opt->output, ".svg"))) {
        return loom_topo_render(topo, opt->output, ends_with(opt->output, ".png") ? "png" : "svg");
    }
    FILE *out = stdout;
    if (opt->output != NULL && (out = fopen(opt->output, "w")) == NULL) {
        fprintf(stderr, "loom-topo: cannot write %s: %s\n", opt->output, strerror(errno));
        return EXIT_INVALID;
    }
    switch (opt->format) {
    case FORMAT_TEXT: loom_topo_print_text(out, topo, source); break;
    case FORMAT_DOT:  loom_topo_print_dot(out, topo); break;
    case FORMAT_JSON:
        if (loom_topo_dump_json(topo, out) != LOOM_OK) {
            fprintf(stderr, "loom-topo: cannot write the JSON form\n");
            rc = EXIT_INVALID;
        }
        break;
    }
    if (out != stdout && fclose(out) != 0) {
        fprintf(stderr, "loom-topo: cannot write %s: %s\n", opt->output, strerror(errno));
        rc = EXIT_INVALID;
    }
    return rc;
}

static int cmd_map(const options_t *opt, const char *path)
{
    loom_topo_t *topo = load(path);

    if (topo == NULL) {
        return EXIT_INVALID;
    }
    int rc = show(opt, topo, path);
    loom_topo_destroy(topo);
    return rc;
}

static int cmd_job(const options_t *opt)
{
    loom_topo_t *topo = NULL;
    int rc = loom_topo_job_gather(opt->topology, &topo);

    if (rc == 0 && topo != NULL) {
        char source[1200];
        snprintf(source, sizeof(source), "of this job%s%s",
                 opt->topology != NULL ? ", racks from " : "",
                 opt->topology != NULL ? opt->topology : "");
        rc = show(opt, topo, source);
    }
    loom_topo_destroy(topo);
    loom_topo_job_end();
    return rc;
}

static int cmd_check(const char *path)
{
    loom_topo_t *topo = load(path);

    if (topo == NULL) {
        return EXIT_INVALID;
    }
    printf("%s: valid: %zu switches, %zu racks, %zu nodes, %zu ranks\n", path,
           topo->nswitches, loom_topo_rack_count(topo), topo->nnodes, topo->nranks);
    loom_topo_destroy(topo);
    return EXIT_SUCCESS;
}

static void report(FILE *out, const double before[], const double after[])
{
    fprintf(out, "%-6s %18s %18s\n", "level", "bytes before", "bytes after");
    for (int l = 0; l < LOOM_TOPO_LEVEL_COUNT; l++) {
        fprintf(out, "%-6s %18.0f %18.0f\n", loom_topo_level_names[l], before[l], after[l]);
    }
}

static int cmd_rankfile(const options_t *opt, const char *path)
{
    loom_topo_t *topo;
    loom_traffic_t *traffic = NULL;
    loom_topo_error_t err = { 0 };
    size_t *current = NULL, *proposed = NULL;
    double before[LOOM_TOPO_LEVEL_COUNT], after[LOOM_TOPO_LEVEL_COUNT];
    int rc = EXIT_INVALID;

    if (opt->traffic == NULL) {
        fprintf(stderr, "loom-topo: rankfile needs --traffic MATRIX (one row of bytes per "
                "rank)\n");
        return EXIT_USAGE;
    }
    if ((topo = load(path)) == NULL) {
        return EXIT_INVALID;
    }
    if (loom_traffic_load(opt->traffic, &traffic, &err) != LOOM_OK) {
        fprintf(stderr, "loom-topo: %s\n", err.msg);
        goto out;
    }
    size_t n = traffic->n;
    current = malloc(n * sizeof(*current));
    proposed = malloc(n * sizeof(*proposed));
    if (current == NULL || proposed == NULL) {
        fprintf(stderr, "loom-topo: out of memory for %zu ranks\n", n);
        goto out;
    }
    /* The current placement: the file's ranks, or mpirun's default of
     * filling each node's slots in order. */
    if (topo->nranks > 0) {
        if (topo->nranks != n) {
            fprintf(stderr, "loom-topo: %s places %zu ranks but %s has %zu; expected the "
                    "same number\n", path, topo->nranks, opt->traffic, n);
            goto out;
        }
        for (size_t r = 0; r < n; r++) {
            current[r] = topo->ranks[r].node;
        }
    }
    if (loom_topo_place_greedy(topo, traffic, opt->slots, proposed) != LOOM_OK ||
        (topo->nranks == 0 &&
         loom_topo_place_block(topo, n, opt->slots, current) != LOOM_OK)) {
        size_t total = 0;
        for (size_t m = 0; m < topo->nnodes; m++) {
            total += loom_topo_node_slots(topo, m, opt->slots);
        }
        fprintf(stderr, "loom-topo: %zu ranks do not fit: the nodes of %s hold %zu slots; "
                "expected slots in the file or --slots N with N * %zu nodes >= %zu\n",
                n, path, total, topo->nnodes, n);
        goto out;
    }
    loom_traffic_level_bytes(topo, traffic, current, before);
    loom_traffic_level_bytes(topo, traffic, proposed, after);
    int keep = !loom_traffic_better(after, before);
    if (keep) {
        memcpy(proposed, current, n * sizeof(*proposed));
        memcpy(after, before, sizeof(after));
    }
    FILE *out = stdout, *rep = opt->output != NULL ? stdout : stderr;
    if (opt->output != NULL && (out = fopen(opt->output, "w")) == NULL) {
        fprintf(stderr, "loom-topo: cannot write %s: %s\n", opt->output, strerror(errno));
        goto out;
    }
    /* slot = the rank's place among its node's ranks: one core each. */
    for (size_t r = 0; r < n; r++) {
        size_t local = 0;
        for (size_t q = 0; q < r; q++) {
            local += proposed[q] == proposed[r];
        }
        fprintf(out, "rank %zu=%s slot=%zu\n", r, topo->nodes[proposed[r]].name, local);
    }
    if (out != stdout && fclose(out) != 0) {
        fprintf(stderr, "loom-topo: cannot write %s: %s\n", opt->output, strerror(errno));
        goto out;
    }
    report(rep, before, after);
    fprintf(rep, keep ? "the current placement is as good as the proposal: kept\n"
                      : "proposed placement moves traffic to faster links\n");
    if (opt->output != NULL) {
        fprintf(rep, "rankfile: %s (mpirun --rankfile %s ...)\n", opt->output, opt->output);
    }
    rc = EXIT_SUCCESS;
out:
    free(current);
    free(proposed);
    loom_traffic_destroy(traffic);
    loom_topo_destroy(topo);
    return rc;
}

int main(int argc, char **argv)
{
    static const struct option longopts[] = {
        { "format",  required_argument, NULL, 'f' },
        { "output",  required_argument, NULL, 'o' },
        { "traffic", required_argument, NULL, 't' },
        { "slots",   required_argument, NULL, 's' },
        { "topology", required_argument, NULL, 'T' },
        { "help",    no_argument,       NULL, 'h' },
        { NULL, 0, NULL, 0 }
    };
    options_t opt = { .format = FORMAT_TEXT };
    int c;

    while ((c = getopt_long(argc, argv, "f:o:t:s:T:h", longopts, NULL)) != -1) {
        switch (c) {
        case 'f': {
            int i = 0;
            while (format_names[i] != NULL && strcmp(format_names[i], optarg) != 0) {
                i++;
            }
            if (format_names[i] == NULL) {
                fprintf(stderr, "loom-topo: unknown --format '%s'; expected text, json or "
                        "dot\n", optarg);
                return EXIT_USAGE;
            }
            opt.format = (format_t)i;
            break;
        }
        case 'o': opt.output = optarg; break;
        case 't': opt.traffic = optarg; break;
        case 'T': opt.topology = optarg; break;
        case 's': {
            char *end;
            errno = 0;
            unsigned long v = strtoul(optarg, &end, 10);
            if (errno != 0 || *end != '\0' || end == optarg || v < 1 || v > 1000000 ||
                optarg[0] == '-') {
                fprintf(stderr, "loom-topo: --slots '%s': expected an integer from 1 to "
                        "1000000\n", optarg);
                return EXIT_USAGE;
            }
            opt.slots = (unsigned)v;
            break;
        }
        case 'h': usage(stdout); return EXIT_SUCCESS;
        default:  usage(stderr); return EXIT_USAGE;
        }
    }
    int nargs = argc - optind;
    const char *cmd = nargs > 0 ? argv[optind] : NULL;
    if (cmd != NULL && (strcmp(cmd, "map") == 0 || strcmp(cmd, "check") == 0 ||
                        strcmp(cmd, "rankfile") == 0 || strcmp(cmd, "job") == 0)) {
        optind++;
        nargs--;
    } else {
        cmd = "map";
    }
    if (strcmp(cmd, "job") == 0) {
        if (nargs != 0) {
            fprintf(stderr, "loom-topo: job: expected no FILE (racks come from --topology "
                    "FILE), found %d arguments\n", nargs);
            return EXIT_USAGE;
        }
        return cmd_job(&opt);
    }
    if (nargs != 1) {
        fprintf(stderr, "loom-topo: %s: expected one topology FILE, found %d arguments\n",
                cmd, nargs);
        usage(stderr);
        return EXIT_USAGE;
    }
    const char *path = argv[optind];
    if (strcmp(cmd, "check") == 0) {
        return cmd_check(path);
    }
    if (strcmp(cmd, "rankfile") == 0) {
        return cmd_rankfile(&opt, path);
    }
    return cmd_map(&opt, path);
}
