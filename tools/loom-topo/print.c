/* How loom-topo shows a topology: text tree, DOT, a drawing (print.h). */
#include "tools/loom-topo/print.h"

#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/wait.h>
#include <unistd.h>

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

void loom_topo_print_text(FILE *out, const loom_topo_t *topo, const char *path)
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

void loom_topo_print_dot(FILE *out, const loom_topo_t *topo)
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

int loom_topo_render(const loom_topo_t *topo, const char *output, const char *type)
{
    char *dot = find_dot();

    if (dot == NULL) {
        fprintf(stderr, "loom-topo: cannot draw %s: Graphviz's 'dot' is not on PATH "
                "(apt-get install graphviz); --format dot writes the graph for drawing "
                "elsewhere\n", output);
        return 1;
    }
    char cmd[8192];
    /* The output name goes to dot through a quoted argument: refuse quotes. */
    if (strchr(output, '\'') != NULL) {
        fprintf(stderr, "loom-topo: %s: expected a file name without a single quote\n",
                output);
        return 2;
    }
    snprintf(cmd, sizeof(cmd), "'%s' -T%s -o '%s'", dot, type, output);
    FILE *p = popen(cmd, "w");
    if (p == NULL) {
        fprintf(stderr, "loom-topo: cannot run %s: %s\n", dot, strerror(errno));
        return 1;
    }
    loom_topo_print_dot(p, topo);
    int rc = pclose(p);
    if (rc != 0) {
        fprintf(stderr, "loom-topo: %s failed (status %d) drawing %s\n", dot,
                WIFEXITED(rc) ? WEXITSTATUS(rc) : rc, output);
        return 1;
    }
    printf("loom-topo: drew %s\n", output);
    return EXIT_SUCCESS;
}

