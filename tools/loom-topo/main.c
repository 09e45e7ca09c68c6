/*
 * loom-topo: look at a topology file, check it, place ranks by traffic.
 *
 *   loom-topo [map] [--format text|json|dot] [-o OUT] FILE
 *       the map: switches, racks, nodes, sockets and ranks.  OUT ending in
 *       .png or .svg is drawn by Graphviz's dot.
 *   loom-topo check FILE
 *       validate; say exactly what is wrong.
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

#include <errno.h>
#include <getopt.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/wait.h>
#include <unistd.h>

enum { EXIT_INVALID = 1, EXIT_USAGE = 2 };

typedef enum { FORMAT_TEXT, FORMAT_JSON, FORMAT_DOT } format_t;
static const char *const format_names[] = { "text", "json", "dot", NULL };

typedef struct options {
    format_t    format;
    const char *output;
    const char *traffic;
    unsigned    slots;
} options_t;

static void usage(FILE *out)
{
    fprintf(out,
        "usage: loom-topo [map] [--format text|json|dot] [-o OUT] FILE\n"
        "       loom-topo check FILE\n"
        "       loom-topo rankfile --traffic MATRIX [--slots N] [-o RANKFILE] FILE\n"
        "\n"
        "FILE: a Slurm topology.conf or a Loom topology file (JSON), docs/topology.md.\n"
        "  map        print the topology: a text tree (default), JSON or Graphviz DOT;\n"
        "             -o OUT.png or OUT.svg draws it with Graphviz's dot\n"
        "  check      validate FILE; exit 0 when valid, 1 with the reason when not\n"
        "  rankfile   place ranks by a traffic matrix (one row of bytes per rank),\n"
        "             write an Open MPI rankfile (to RANKFILE, or stdout) and report\n"
        "             the bytes over node, rack and spine links before and after\n"
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

/* Ranks as "0-3,6": consecutive runs folded. */
static void print_ranks(FILE *out, const loom_topo_t *topo, size_t node, int socket,
                        int any_socket)
{
    const char *sep = "";
    size_t r = 0;

    while (r < topo->nranks) {
        int hit = topo->ranks[r].node == node && (any_socket || topo->ranks[r].socket == socket);
        if (!hit) {
            r++;
            continue;
        }
        size_t last = r;
        while (last + 1 < topo->nranks && topo->ranks[last + 1].node == node &&
               (any_socket || topo->ranks[last + 1].socket == socket)) {
            last++;
        }
        fprintf(out, last > r ? "%s%zu-%zu" : "%s%zu", sep, r, last);
        sep = ",";
        r = last + 1;
    }
}

static size_t ranks_on(const loom_topo_t *topo, size_t node)
{
    size_t n = 0;

    for (size_t r = 0; r < topo->nranks; r++) {
        n += topo->ranks[r].node == node;
    }
    return n;
}

static void text_node(FILE *out, const loom_topo_t *topo, size_t n, int depth)
{
    fprintf(out, "%*snode %s", depth * 2, "", topo->nodes[n].name);
    if (topo->nodes[n].slots > 0) {
        fprintf(out, "  slots %u", topo->nodes[n].slots);
    }
    if (ranks_on(topo, n) > 0) {
        fprintf(out, "  ranks ");
        print_ranks(out, topo, n, 0, 1);
    }
    fputc('\n', out);
    /* Sockets, in the order of their lowest index, where ranks name them. */
    int seen = -1;
    for (;;) {
        int next = -1;
        for (size_t r = 0; r < topo->nranks; r++) {
            int s = topo->ranks[r].socket;
            if (topo->ranks[r].node == n && s > seen && (next < 0 || s < next)) {
                next = s;
            }
        }
        if (next < 0) {
            break;
        }
        fprintf(out, "%*ssocket %d  ranks ", depth * 2 + 2, "", next);
        print_ranks(out, topo, n, next, 0);
        fputc('\n', out);
        seen = next;
    }
}

static void text_switch(FILE *out, const loom_topo_t *topo, size_t s, int depth)
{
    int leaf = 1;

    for (size_t c = 0; c < topo->nswitches; c++) {
        leaf &= topo->switches[c].parent != s;
    }
    fprintf(out, "%*sswitch %s%s\n", depth * 2, "", topo->switches[s].name,
            leaf ? " (rack)" : "");
    for (size_t c = 0; c < topo->nswitches; c++) {
        if (topo->switches[c].parent == s) {
            text_switch(out, topo, c, depth + 1);
        }
    }
    for (size_t n = 0; n < topo->nnodes; n++) {
        if (topo->nodes[n].sw == s) {
            text_node(out, topo, n, depth + 1);
        }
    }
}

static void print_text(FILE *out, const loom_topo_t *topo, const char *path)
{
    fprintf(out, "topology %s: %zu switches, %zu racks, %zu nodes, %zu ranks\n", path,
            topo->nswitches, loom_topo_rack_count(topo), topo->nnodes, topo->nranks);
    for (int l = 0; l < LOOM_TOPO_LEVEL_COUNT; l++) {
        const loom_topo_link_t *lk = &topo->links[l];
        if (lk->bandwidth_gbps > 0 || lk->latency_us > 0) {
            fprintf(out, "link %-5s", loom_topo_level_names[l]);
            if (lk->bandwidth_gbps > 0) {
                fprintf(out, "  %g Gbit/s", lk->bandwidth_gbps);
            }
            if (lk->latency_us > 0) {
                fprintf(out, "  %g us", lk->latency_us);
            }
            fputc('\n', out);
        }
    }
    for (size_t s = 0; s < topo->nswitches; s++) {
        if (topo->switches[s].parent == LOOM_TOPO_NONE) {
            text_switch(out, topo, s, 0);
        }
    }
    int header = 0;
    for (size_t n = 0; n < topo->nnodes; n++) {
        if (topo->nodes[n].sw == LOOM_TOPO_NONE) {
            if (!header) {
                fprintf(out, "(under no switch: one flat rack)\n");
                header = 1;
            }
            text_node(out, topo, n, 1);
        }
    }
}

/* A DOT string: names in JSON files may hold quotes. */
static void dot_quoted(FILE *out, const char *kind, const char *name)
{
    fprintf(out, "\"%s:", kind);
    for (const char *c = name; *c != '\0'; c++) {
        if (*c == '"' || *c == '\\') {
            fputc('\\', out);
        }
        fputc(*c, out);
    }
    fputc('"', out);
}

static void dot_link_label(FILE *out, const loom_topo_t *topo, loom_topo_level_t level)
{
    const loom_topo_link_t *lk = &topo->links[level];

    if (lk->bandwidth_gbps > 0) {
        fprintf(out, " [label=\"%g Gbit/s\"]", lk->bandwidth_gbps);
    }
    fprintf(out, ";\n");
}

static void print_dot(FILE *out, const loom_topo_t *topo)
{
    fprintf(out, "graph topology {\n  node [shape=box];\n");
    for (size_t s = 0; s < topo->nswitches; s++) {
        fprintf(out, "  ");
        dot_quoted(out, "switch", topo->switches[s].name);
        fprintf(out, " [shape=ellipse, label=\"");
        for (const char *c = topo->switches[s].name; *c != '\0'; c++) {
            fprintf(out, *c == '"' || *c == '\\' ? "\\%c" : "%c", *c);
        }
        fprintf(out, "\"];\n");
        if (topo->switches[s].parent != LOOM_TOPO_NONE) {
            fprintf(out, "  ");
            dot_quoted(out, "switch", topo->switches[topo->switches[s].parent].name);
            fprintf(out, " -- ");
            dot_quoted(out, "switch", topo->switches[s].name);
            dot_link_label(out, topo, LOOM_TOPO_LEVEL_SPINE);
        }
    }
    for (size_t n = 0; n < topo->nnodes; n++) {
        fprintf(out, "  ");
        dot_quoted(out, "node", topo->nodes[n].name);
        fprintf(out, " [label=\"%s", topo->nodes[n].name);
        if (ranks_on(topo, n) > 0) {
            fprintf(out, "\\nranks ");
            print_ranks(out, topo, n, 0, 1);
        }
        fprintf(out, "\"];\n");
        if (topo->nodes[n].sw != LOOM_TOPO_NONE) {
            fprintf(out, "  ");
            dot_quoted(out, "switch", topo->switches[topo->nodes[n].sw].name);
            fprintf(out, " -- ");
            dot_quoted(out, "node", topo->nodes[n].name);
            dot_link_label(out, topo, LOOM_TOPO_LEVEL_RACK);
        }
    }
    fprintf(out, "}\n");
}

/* Graphviz's dot on PATH, or NULL. */
static char *find_dot(void)
{
    const char *path = getenv("PATH");
    static char exe[4096];

    if (path == NULL) {
        return NULL;
    }
    while (*path != '\0') {
        size_t len = strcspn(path, ":");
        if (len > 0 && len < sizeof(exe) - 5) {
            snprintf(exe, sizeof(exe), "%.*s/dot", (int)len, path);
            if (access(exe, X_OK) == 0) {
                return exe;
            }
        }
        path += len + (path[len] == ':');
    }
    return NULL;
}

static int render(const loom_topo_t *topo, const char *output, const char *type)
{
    char *dot = find_dot();

    if (dot == NULL) {
        fprintf(stderr, "loom-topo: cannot draw %s: Graphviz's 'dot' is not on PATH "
                "(apt-get install graphviz); --format dot writes the graph for drawing "
                "elsewhere\n", output);
        return EXIT_INVALID;
    }
    char cmd[8192];
    /* The output name goes to dot through a quoted argument: refuse quotes. */
    if (strchr(output, '\'') != NULL) {
        fprintf(stderr, "loom-topo: %s: expected a file name without a single quote\n",
                output);
        return EXIT_USAGE;
    }
    snprintf(cmd, sizeof(cmd), "'%s' -T%s -o '%s'", dot, type, output);
    FILE *p = popen(cmd, "w");
    if (p == NULL) {
        fprintf(stderr, "loom-topo: cannot run %s: %s\n", dot, strerror(errno));
        return EXIT_INVALID;
    }
    print_dot(p, topo);
    int rc = pclose(p);
    if (rc != 0) {
        fprintf(stderr, "loom-topo: %s failed (status %d) drawing %s\n", dot,
                WIFEXITED(rc) ? WEXITSTATUS(rc) : rc, output);
        return EXIT_INVALID;
    }
    printf("loom-topo: drew %s\n", output);
    return EXIT_SUCCESS;
}

static int ends_with(const char *s, const char *tail)
{
    size_t a = strlen(s), b = strlen(tail);
    return a >= b && strcmp(s + a - b, tail) == 0;
}

static int cmd_map(const options_t *opt, const char *path)
{
    loom_topo_t *topo = load(path);
    int rc = EXIT_SUCCESS;

    if (topo == NULL) {
        return EXIT_INVALID;
    }
    if (opt->output != NULL && (ends_with(opt->output, ".png") || ends_with(opt->output, ".svg"))) {
        rc = render(topo, opt->output, ends_with(opt->output, ".png") ? "png" : "svg");
        loom_topo_destroy(topo);
        return rc;
    }
    FILE *out = stdout;
    if (opt->output != NULL && (out = fopen(opt->output, "w")) == NULL) {
        fprintf(stderr, "loom-topo: cannot write %s: %s\n", opt->output, strerror(errno));
        loom_topo_destroy(topo);
        return EXIT_INVALID;
    }
    switch (opt->format) {
    case FORMAT_TEXT: print_text(out, topo, path); break;
    case FORMAT_DOT:  print_dot(out, topo); break;
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
    loom_topo_destroy(topo);
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
        { "help",    no_argument,       NULL, 'h' },
        { NULL, 0, NULL, 0 }
    };
    options_t opt = { .format = FORMAT_TEXT };
    int c;

    while ((c = getopt_long(argc, argv, "f:o:t:s:h", longopts, NULL)) != -1) {
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
                        strcmp(cmd, "rankfile") == 0)) {
        optind++;
        nargs--;
    } else {
        cmd = "map";
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
