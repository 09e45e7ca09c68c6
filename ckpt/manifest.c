/*
 * Writing and strictly reading manifests and commit records (see
 * manifest.h for the format).  The reader trusts nothing: every number is
 * range-checked, every count is bounded by the bytes that could hold it
 * before anything is allocated, and the checksum is verified first.
 */
#include "ckpt/manifest.h"

#include <inttypes.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include <xxhash.h>

#include "common/log.h"

#define MANIFEST_MAGIC "loom-ckpt-manifest 1"
#define COMMIT_MAGIC "loom-ckpt-commit 1"
#define CHECKSUM_TAG "checksum "
#define MAX_REGIONS 65536u

int loom_ckpt_name_valid(const char *name)
{
    size_t n = name ? strlen(name) : 0;
    if (n == 0 || n > LOOM_CKPT_NAME_MAX) {
        return 0;
    }
    for (size_t i = 0; i < n; i++) {
        char c = name[i];
        if (!((c >= 'a' && c <= 'z') || (c >= 'A' && c <= 'Z') ||
              (c >= '0' && c <= '9') || c == '_' || c == '.' || c == '-')) {
            return 0;
        }
    }
    return 1;
}

/* ------------------------------------------------------------ writing */

typedef struct text {
    char *buf;
    size_t len, cap;
    int failed;
} text_t;

static void text_printf(text_t *t, const char *fmt, ...)
    __attribute__((format(printf, 2, 3)));

static void text_printf(text_t *t, const char *fmt, ...)
{
    if (t->failed) {
        return;
    }
    for (;;) {
        va_list ap;
        va_start(ap, fmt);
        int n = vsnprintf(t->buf ? t->buf + t->len : NULL,
                          t->buf ? t->cap - t->len : 0, fmt, ap);
        va_end(ap);
        if (n < 0) {
            t->failed = 1;
            return;
        }
        if (t->buf != NULL && t->len + (size_t)n < t->cap) {
            t->len += (size_t)n;
            return;
        }
        size_t cap = t->cap ? t->cap : 4096;
        while (cap <= t->len + (size_t)n) {
            cap *= 2;
        }
        char *grown = realloc(t->buf, cap);
        if (grown == NULL) {
            t->failed = 1;
            return;
        }
        t->buf = grown;
        t->cap = cap;
    }
}

static loom_status_t text_finish(text_t *t, char **text_p, size_t *len_p)
{
    if (!t->failed) {
        uint64_t sum = XXH3_64bits(t->buf, t->len);
        text_printf(t, CHECKSUM_TAG "%016" PRIx64 "\n", sum);
    }
    if (t->failed) {
        free(t->buf);
        return LOOM_ERR_NO_MEMORY;
    }
    *text_p = t->buf;
    *len_p = t->len;
    return LOOM_OK;
}

loom_status_t loom_ckpt_manifest_format(const loom_ckpt_manifest_t *m,
                                        char **text_p, size_t *len_p)
{
    text_t t = { 0 };
    text_printf(&t, MANIFEST_MAGIC "\nstep %" PRIu64 "\nrank %" PRIu64 " %" PRIu64
                "\nchunk_size %" PRIu64 "\nregions %zu\n",
                m->step, m->rank, m->nranks, m->chunk_size, m->nregions);
    for (size_t r = 0; r < m->nregions; r++) {
        const loom_ckpt_mregion_t *g = &m->regions[r];
        text_printf(&t, "region %s %s %" PRIu64 " %" PRIu64 " %" PRIu64 " %" PRIu64
                    " %zu\n", g->name,
                    g->layout == LOOM_CKPT_SHARDED ? "sharded" : "replicated",
                    g->size, g->elem_size, g->global_offset, g->global_size,
                    g->nchunks);
        for (size_t c = 0; c < g->nchunks; c++) {
            text_printf(&t, "%s %" PRIu64 "\n", g->chunks[c].hash, g->chunks[c].len);
        }
    }
    return text_finish(&t, text_p, len_p);
}

loom_status_t loom_ckpt_commit_format(uint64_t step, uint64_t nranks,
                                      uint64_t chunk_size, char **text_p,
                                      size_t *len_p)
{
    text_t t = { 0 };
    text_printf(&t, COMMIT_MAGIC "\nstep %" PRIu64 "\nranks %" PRIu64
                "\nchunk_size %" PRIu64 "\n", step, nranks, chunk_size);
    return text_finish(&t, text_p, len_p);
}

/* ------------------------------------------------------------ reading */

typedef struct reader {
    const char *p, *end;
    const char *file;
    unsigned line;
    char cur[256];      /* the current line, NUL-terminated */
} reader_t;

static loom_status_t bad(const reader_t *rd, const char *what)
{
    if (rd->line == 0) {
        loom_error("ckpt", "%s: %s", rd->file, what);
    } else {
        loom_error("ckpt", "%s, line %u: %s", rd->file, rd->line, what);
    }
    return LOOM_ERR_IO;
}

/* Copies the next line into rd->cur; lines are short by construction. */
static loom_status_t next_line(reader_t *rd)
{
    rd->line++;
    const char *nl = memchr(rd->p, '\n', (size_t)(rd->end - rd->p));
    if (nl == NULL) {
        return bad(rd, "unexpected end of file (truncated?)");
    }
    size_t n = (size_t)(nl - rd->p);
    if (n >= sizeof(rd->cur)) {
        return bad(rd, "line too long");
    }
    memcpy(rd->cur, rd->p, n);
    rd->cur[n] = '\0';
    if (strlen(rd->cur) != n) {
        return bad(rd, "NUL byte in line");
    }
    rd->p = nl + 1;
    return LOOM_OK;
}

/* Splits rd->cur at single spaces into at most max words. */
static size_t split(char *line, char **words, size_t max)
{
    size_t n = 0;
    char *save = NULL;
    for (char *w = strtok_r(line, " ", &save); w != NULL;
         w = strtok_r(NULL, " ", &save)) {
        if (n == max) {
            return max + 1;
        }
        words[n++] = w;
    }
    return n;
}

static int parse_u64(const char *s, uint64_t *v)
{
    if (*s == '\0' || *s == '-' || *s == '+' || (s[0] == '0' && s[1] != '\0')) {
        return 0;
    }
    uint64_t x = 0;
    for (; *s; s++) {
        if (*s < '0' || *s > '9' || x > (UINT64_MAX - 9) / 10) {
            return 0;
        }
        x = x * 10 + (uint64_t)(*s - '0');
    }
    *v = x;
    return 1;
}

static int hex_valid(const char *s, size_t n)
{
    if (strlen(s) != n) {
        return 0;
    }
    for (size_t i = 0; i < n; i++) {
        if (!((s[i] >= '0' && s[i] <= '9') || (s[i] >= 'a' && s[i] <= 'f'))) {
            return 0;
        }
    }
    return 1;
}

/* Expects "key VALUE" with a decimal value. */
static loom_status_t keyed_u64(reader_t *rd, const char *key, uint64_t *v)
{
    loom_status_t st = next_line(rd);
    if (st != LOOM_OK) {
        return st;
    }
    char *w[3];
    if (split(rd->cur, w, 2) != 2 || strcmp(w[0], key) != 0 || !parse_u64(w[1], v)) {
        char msg[128];
        snprintf(msg, sizeof(msg), "expected '%s <number>'", key);
        return bad(rd, msg);
    }
    return LOOM_OK;
}

/* Verifies the trailing checksum line and the magic line; on success the
 * reader stands after the magic and rd->end before the checksum line. */
static loom_status_t open_checked(reader_t *rd, const char *text, size_t len,
                                  const char *file, const char *magic)
{
    *rd = (reader_t){ .p = text, .end = text + len, .file = file };
    const size_t tail = strlen(CHECKSUM_TAG) + 16 + 1;
    if (len < tail || text[len - 1] != '\n') {
        return bad(rd, "no checksum line at the end (truncated?)");
    }
    const char *sumline = text + len - tail;
    if ((sumline != text && sumline[-1] != '\n') ||
        memcmp(sumline, CHECKSUM_TAG, strlen(CHECKSUM_TAG)) != 0) {
        return bad(rd, "no checksum line at the end (truncated?)");
    }
    char hex[17];
    memcpy(hex, sumline + strlen(CHECKSUM_TAG), 16);
    hex[16] = '\0';
    char want[17];
    snprintf(want, sizeof(want), "%016" PRIx64,
             (uint64_t)XXH3_64bits(text, (size_t)(sumline - text)));
    if (!hex_valid(hex, 16) || strcmp(hex, want) != 0) {
        return bad(rd, "checksum does not match the contents (corrupt)");
    }
    rd->end = sumline;
    loom_status_t st = next_line(rd);
    if (st == LOOM_OK && strcmp(rd->cur, magic) != 0) {
        char msg[128];
        snprintf(msg, sizeof(msg), "expected '%s'", magic);
        return bad(rd, msg);
    }
    return st;
}

static loom_status_t parse_region(reader_t *rd, uint64_t chunk_size,
                                  loom_ckpt_mregion_t *g)
{
    loom_status_t st = next_line(rd);
    if (st != LOOM_OK) {
        return st;
    }
    char *w[9];
    uint64_t nchunks;
    if (split(rd->cur, w, 8) != 8 || strcmp(w[0], "region") != 0) {
        return bad(rd, "expected 'region NAME replicated|sharded SIZE ELEM "
                   "GLOBAL_OFFSET GLOBAL_SIZE CHUNKS'");
    }
    if (!loom_ckpt_name_valid(w[1])) {
        return bad(rd, "region name must be 1 to 64 of [A-Za-z0-9_.-]");
    }
    strcpy(g->name, w[1]);
    if (strcmp(w[2], "replicated") == 0) {
        g->layout = LOOM_CKPT_REPLICATED;
    } else if (strcmp(w[2], "sharded") == 0) {
        g->layout = LOOM_CKPT_SHARDED;
    } else {
        return bad(rd, "region layout must be 'replicated' or 'sharded'");
    }
    if (!parse_u64(w[3], &g->size) || !parse_u64(w[4], &g->elem_size) ||
        !parse_u64(w[5], &g->global_offset) || !parse_u64(w[6], &g->global_size) ||
        !parse_u64(w[7], &nchunks)) {
        return bad(rd, "region numbers must be decimal integers");
    }
    if (g->global_offset > g->global_size ||
        g->size > g->global_size - g->global_offset) {
        return bad(rd, "region slice lies outside its global size");
    }
    if (nchunks != g->size / chunk_size + (g->size % chunk_size != 0)) {
        return bad(rd, "region chunk count does not match its size");
    }
    /* Each chunk line takes at least 34 bytes: bound before allocating. */
    if (nchunks > (uint64_t)(rd->end - rd->p) / (LOOM_CKPT_HASH_HEX + 2)) {
        return bad(rd, "region lists more chunks than the file holds");
    }
    g->nchunks = (size_t)nchunks;
    g->chunks = calloc(nchunks ? nchunks : 1, sizeof(*g->chunks));
    if (g->chunks == NULL) {
        return LOOM_ERR_NO_MEMORY;
    }
    for (size_t c = 0; c < g->nchunks; c++) {
        if ((st = next_line(rd)) != LOOM_OK) {
            return st;
        }
        uint64_t want = g->size - c * chunk_size;
        want = want < chunk_size ? want : chunk_size;
        if (split(rd->cur, w, 2) != 2 || !hex_valid(w[0], LOOM_CKPT_HASH_HEX) ||
            !parse_u64(w[1], &g->chunks[c].len) || g->chunks[c].len != want) {
            return bad(rd, "expected '<32 lowercase hex digits> <chunk length>'");
        }
        strcpy(g->chunks[c].hash, w[0]);
    }
    return LOOM_OK;
}

loom_status_t loom_ckpt_manifest_parse(const char *text, size_t len,
                                       const char *file,
                                       loom_ckpt_manifest_t *m)
{
    memset(m, 0, sizeof(*m));
    reader_t rd;
    loom_status_t st = open_checked(&rd, text, len, file, MANIFEST_MAGIC);
    if (st != LOOM_OK) {
        return st;
    }
    uint64_t nregions;
    char *w[4];
    if ((st = keyed_u64(&rd, "step", &m->step)) != LOOM_OK) {
        return st;
    }
    if ((st = next_line(&rd)) != LOOM_OK) {
        return st;
    }
    if (split(rd.cur, w, 3) != 3 || strcmp(w[0], "rank") != 0 ||
        !parse_u64(w[1], &m->rank) || !parse_u64(w[2], &m->nranks) ||
        m->rank >= m->nranks) {
        return bad(&rd, "expected 'rank R N' with R < N");
    }
    if ((st = keyed_u64(&rd, "chunk_size", &m->chunk_size)) != LOOM_OK) {
        return st;
    }
    if (m->chunk_size == 0) {
        return bad(&rd, "chunk_size must be positive");
    }
    if ((st = keyed_u64(&rd, "regions", &nregions)) != LOOM_OK) {
        return st;
    }
    if (nregions > MAX_REGIONS ||
        nregions > (uint64_t)(rd.end - rd.p) / 16) {
        return bad(&rd, "more regions than the file can hold");
    }
    m->regions = calloc(nregions ? nregions : 1, sizeof(*m->regions));
    if (m->regions == NULL) {
        return LOOM_ERR_NO_MEMORY;
    }
    m->nregions = (size_t)nregions;
    for (size_t r = 0; r < m->nregions && st == LOOM_OK; r++) {
        st = parse_region(&rd, m->chunk_size, &m->regions[r]);
        for (size_t q = 0; q < r && st == LOOM_OK; q++) {
            if (strcmp(m->regions[q].name, m->regions[r].name) == 0) {
                st = bad(&rd, "region name appears twice");
            }
        }
    }
    if (st == LOOM_OK && rd.p != rd.end) {
        rd.line++;
        st = bad(&rd, "unexpected text after the last region");
    }
    if (st != LOOM_OK) {
        loom_ckpt_manifest_free(m);
    }
    return st;
}

loom_status_t loom_ckpt_commit_parse(const char *text, size_t len,
                                     const char *file, uint64_t *step_p,
                                     uint64_t *nranks_p,
                                     uint64_t *chunk_size_p)
{
    reader_t rd;
    uint64_t step, nranks, chunk_size;
    loom_status_t st = open_checked(&rd, text, len, file, COMMIT_MAGIC);
    if (st == LOOM_OK) {
        st = keyed_u64(&rd, "step", &step);
    }
    if (st == LOOM_OK) {
        st = keyed_u64(&rd, "ranks", &nranks);
    }
    if (st == LOOM_OK) {
        st = keyed_u64(&rd, "chunk_size", &chunk_size);
    }
    if (st == LOOM_OK && (nranks == 0 || chunk_size == 0)) {
        st = bad(&rd, "ranks and chunk_size must be positive");
    }
    if (st == LOOM_OK && rd.p != rd.end) {
        rd.line++;
        st = bad(&rd, "unexpected text after the record");
    }
    if (st == LOOM_OK) {
        *step_p = step;
        *nranks_p = nranks;
        *chunk_size_p = chunk_size;
    }
    return st;
}

void loom_ckpt_manifest_free(loom_ckpt_manifest_t *m)
{
    for (size_t r = 0; r < m->nregions; r++) {
        free(m->regions[r].chunks);
    }
    free(m->regions);
    memset(m, 0, sizeof(*m));
}
