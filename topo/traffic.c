/*
 * Traffic matrices and placement (traffic.h).
 *
 * The greedy placement.  Let w(i,j) = bytes i->j + bytes j->i.  Nodes are
 * filled one at a time, rack after rack (racks in file order, a rack's
 * nodes in file order):
 *
 *   - the first rank of a node is the unplaced rank with the most traffic
 *     to ranks already in this rack (for the first node of a rack: the
 *     unplaced rank with the most traffic overall);
 *   - each next rank is the unplaced rank with the most traffic to ranks
 *     already on this node; ties go to the most traffic to this rack,
 *     then to the lowest rank.
 *
 * So heavy pairs land on one node (the fastest link), and a rack collects
 * ranks that talk to each other before the next rack starts.  Every rank
 * is placed exactly once and no node gets more than its slots; the
 * scores are kept up to date as ranks are placed, so a placement costs
 * O(n^2).  It is a heuristic: the caller compares it with the current
 * placement and keeps the better (loom_traffic_better).
 */
#include "topo/traffic.h"

#include <ctype.h>
#include <errno.h>
#include <math.h>
#include <stdlib.h>
#include <string.h>

#define TRAFFIC_MAX_RANKS 65536

void loom_traffic_destroy(loom_traffic_t *traffic)
{
    if (traffic != NULL) {
        free(traffic->bytes);
        free(traffic);
    }
}

/* The numbers of one line into *row (grown as needed); count in *n_p. */
static loom_status_t parse_row(char *s, const char *name, unsigned line, double **row,
                               size_t *cap, size_t *n_p, loom_topo_error_t *err)
{
    size_t n = 0;

    for (;;) {
        while (isspace((unsigned char)*s) || *s == ',') {
            s++;
        }
        if (*s == '\0') {
            break;
        }
        char *end;
        errno = 0;
        double v = strtod(s, &end);
        if (end == s || (*end != '\0' && !isspace((unsigned char)*end) && *end != ',')) {
            int len = 0;
            while (s[len] != '\0' && !isspace((unsigned char)s[len]) && s[len] != ',') {
                len++;
            }
            loom_topo_error_set(err, name, line, "column %zu: expected a number of bytes, "
                                "found '%.*s'", n + 1, len, s);
            return LOOM_ERR_INVALID_PARAM;
        }
        if (errno != 0 || !isfinite(v) || v < 0) {
            loom_topo_error_set(err, name, line, "column %zu: expected a finite number of "
                                "bytes >= 0, found '%.*s'", n + 1, (int)(end - s), s);
            return LOOM_ERR_INVALID_PARAM;
        }
        if (n == *cap) {
            *cap = *cap ? *cap * 2 : 64;
            double *p = realloc(*row, *cap * sizeof(*p));
            if (p == NULL) {
                return LOOM_ERR_NO_MEMORY;
            }
            *row = p;
        }
        (*row)[n++] = v;
        s = end;
    }
    *n_p = n;
    return LOOM_OK;
}

loom_status_t loom_traffic_parse(const char *text, const char *name,
                                 loom_traffic_t **traffic_p, loom_topo_error_t *err)
{
    char *copy = strdup(text), *s = copy;
    double *row = NULL, *bytes = NULL;
    size_t cap = 0, n = 0, rows = 0;
    unsigned line = 0;
    loom_status_t st = LOOM_OK;

    if (copy == NULL) {
        return LOOM_ERR_NO_MEMORY;
    }
    while (s != NULL && st == LOOM_OK) {
        char *next = strchr(s, '\n');
        if (next != NULL) {
            *next++ = '\0';
        }
        char *hash = strchr(s, '#');
        if (hash != NULL) {
            *hash = '\0';
        }
        line++;
        size_t k;
        st = parse_row(s, name, line, &row, &cap, &k, err);
        s = next;
        if (st != LOOM_OK || k == 0) {
            continue;
        }
        if (rows == 0) {
            if (k > TRAFFIC_MAX_RANKS) {
                loom_topo_error_set(err, name, line, "%zu columns; expected at most %d ranks",
                                    k, TRAFFIC_MAX_RANKS);
                st = LOOM_ERR_INVALID_PARAM;
                break;
            }
            n = k;
            if ((bytes = malloc(n * n * sizeof(*bytes))) == NULL) {
                st = LOOM_ERR_NO_MEMORY;
                break;
            }
        }
        if (k != n || rows == n) {
            loom_topo_error_set(err, name, line, rows == n
                                ? "row %zu; expected %zu rows, one per rank (the first row "
                                  "has %zu numbers)"
                                : "row %zu has %zu numbers; expected %zu, one per rank as "
                                  "in the first row", rows + 1, rows == n ? n : k, n);
            st = LOOM_ERR_INVALID_PARAM;
            break;
        }
        memcpy(bytes + rows * n, row, n * sizeof(*row));
        rows++;
    }
    if (st == LOOM_OK && rows < n) {
        loom_topo_error_set(err, name, line, "%zu rows; expected %zu, one per rank (the "
                            "first row has %zu numbers)", rows, n, n);
        st = LOOM_ERR_INVALID_PARAM;
    }
    if (st == LOOM_OK && rows == 0) {
        loom_topo_error_set(err, name, 0, "no rows; expected one row of bytes per rank");
        st = LOOM_ERR_INVALID_PARAM;
    }
    loom_traffic_t *t = NULL;
    if (st == LOOM_OK && (t = malloc(sizeof(*t))) == NULL) {
        st = LOOM_ERR_NO_MEMORY;
    }
    free(row);
    free(copy);
    if (st != LOOM_OK) {
        free(bytes);
        return st;
    }
    t->n = n;
    t->bytes = bytes;
    *traffic_p = t;
    return LOOM_OK;
}

loom_status_t loom_traffic_load(const char *path, loom_traffic_t **traffic_p,
                                loom_topo_error_t *err)
{
    FILE *f = fopen(path, "r");
    char *text = NULL;
    size_t len = 0;

    if (f == NULL) {
        loom_topo_error_set(err, path, 0, "cannot open: %s; expected a traffic matrix",
                            strerror(errno));
        return LOOM_ERR_NOT_FOUND;
    }
    FILE *mem = open_memstream(&text, &len);
    char buf[65536];
    size_t n;
    int bad = mem == NULL;
    while (!bad && (n = fread(buf, 1, sizeof(buf), f)) > 0) {
        bad = fwrite(buf, 1, n, mem) != n;
    }
    bad |= ferror(f);
    fclose(f);
    if (mem != NULL) {
        bad |= fclose(mem) != 0;
    }
    if (bad) {
        free(text);
        loom_topo_error_set(err, path, 0, "cannot read: %s", strerror(errno));
        return LOOM_ERR_IO;
    }
    loom_status_t st = loom_traffic_parse(text, path, traffic_p, err);
    free(text);
    return st;
}

void loom_traffic_level_bytes(const loom_topo_t *topo, const loom_traffic_t *traffic,
                              const size_t *node_of, double bytes[LOOM_TOPO_LEVEL_COUNT])
{
    size_t n = traffic->n;

    for (int l = 0; l < LOOM_TOPO_LEVEL_COUNT; l++) {
        bytes[l] = 0;
    }
    for (size_t i = 0; i < n; i++) {
        for (size_t j = 0; j < n; j++) {
            if (i != j) {
                bytes[loom_topo_node_level(topo, node_of[i], node_of[j])] +=
                    traffic->bytes[i * n + j];
            }
        }
    }
}

unsigned loom_topo_node_slots(const loom_topo_t *topo, size_t n, unsigned default_slots)
{
    return topo->nodes[n].slots > 0 ? topo->nodes[n].slots : default_slots;
}

/* Nodes rack after rack: racks in order of their first node. */
static size_t *nodes_by_rack(const loom_topo_t *topo)
{
    size_t *order = malloc((topo->nnodes ? topo->nnodes : 1) * sizeof(*order)), k = 0;
    char *done = calloc(topo->nnodes ? topo->nnodes : 1, 1);

    if (order == NULL || done == NULL) {
        free(order);
        free(done);
        return NULL;
    }
    for (size_t a = 0; a < topo->nnodes; a++) {
        for (size_t b = a; !done[a] && b < topo->nnodes; b++) {
            if (!done[b] && topo->nodes[b].sw == topo->nodes[a].sw) {
                done[b] = 1;
                order[k++] = b;
            }
        }
    }
    free(done);
    return order;
}

static loom_status_t check_capacity(const loom_topo_t *topo, size_t n, unsigned default_slots)
{
    size_t total = 0;

    for (size_t m = 0; m < topo->nnodes; m++) {
        total += loom_topo_node_slots(topo, m, default_slots);
    }
    return total >= n ? LOOM_OK : LOOM_ERR_INVALID_PARAM;
}

loom_status_t loom_topo_place_block(const loom_topo_t *topo, size_t n,
                                    unsigned default_slots, size_t *node_of)
{
    size_t r = 0;

    if (check_capacity(topo, n, default_slots) != LOOM_OK) {
        return LOOM_ERR_INVALID_PARAM;
    }
    for (size_t m = 0; m < topo->nnodes && r < n; m++) {
        for (unsigned s = 0; s < loom_topo_node_slots(topo, m, default_slots) && r < n; s++) {
            node_of[r++] = m;
        }
    }
    return LOOM_OK;
}

loom_status_t loom_topo_place_greedy(const loom_topo_t *topo, const loom_traffic_t *traffic,
                                     unsigned default_slots, size_t *node_of)
{
    size_t n = traffic->n, left = n;
    const double *t = traffic->bytes;
    double *to_node, *to_rack, *total;
    char *placed;
    size_t *order;

    if (check_capacity(topo, n, default_slots) != LOOM_OK) {
        return LOOM_ERR_INVALID_PARAM;
    }
    to_node = calloc(n, sizeof(*to_node));
    to_rack = calloc(n, sizeof(*to_rack));
    total = calloc(n, sizeof(*total));
    placed = calloc(n, 1);
    order = nodes_by_rack(topo);
    if (to_node == NULL || to_rack == NULL || total == NULL || placed == NULL ||
        order == NULL) {
        free(to_node);
        free(to_rack);
        free(total);
        free(placed);
        free(order);
        return LOOM_ERR_NO_MEMORY;
    }
    for (size_t i = 0; i < n; i++) {
        for (size_t j = 0; j < n; j++) {
            total[i] += i != j ? t[i * n + j] + t[j * n + i] : 0;
        }
    }
    for (size_t k = 0; k < topo->nnodes && left > 0; k++) {
        size_t m = order[k];
        if (k == 0 || topo->nodes[m].sw != topo->nodes[order[k - 1]].sw) {
            memset(to_rack, 0, n * sizeof(*to_rack));
        }
        memset(to_node, 0, n * sizeof(*to_node));
        unsigned slots = loom_topo_node_slots(topo, m, default_slots);
        for (unsigned s = 0; s < slots && left > 0; s++) {
            size_t best = n;
            for (size_t u = 0; u < n; u++) {
                if (placed[u]) {
                    continue;
                }
                if (best == n) {
                    best = u;
                    continue;
                }
                /* Seed (s == 0): rack, then total; then node, rack, total. */
                double a[3] = { s ? to_node[u] : to_rack[u], s ? to_rack[u] : total[u],
                                total[u] };
                double b[3] = { s ? to_node[best] : to_rack[best],
                                s ? to_rack[best] : total[best], total[best] };
                if (a[0] > b[0] || (a[0] == b[0] && (a[1] > b[1] ||
                                    (a[1] == b[1] && a[2] > b[2])))) {
                    best = u;
                }
            }
            placed[best] = 1;
            node_of[best] = m;
            left--;
            for (size_t u = 0; u < n; u++) {
                double w = u != best ? t[u * n + best] + t[best * n + u] : 0;
                to_node[u] += w;
                to_rack[u] += w;
            }
        }
    }
    free(to_node);
    free(to_rack);
    free(total);
    free(placed);
    free(order);
    return LOOM_OK;
}

int loom_traffic_better(const double a[LOOM_TOPO_LEVEL_COUNT],
                        const double b[LOOM_TOPO_LEVEL_COUNT])
{
    for (int l = LOOM_TOPO_LEVEL_COUNT - 1; l > LOOM_TOPO_LEVEL_NODE; l--) {
        if (a[l] != b[l]) {
            return a[l] < b[l];
        }
    }
    return 0;
}
