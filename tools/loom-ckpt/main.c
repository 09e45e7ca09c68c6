/*
 * loom-ckpt: look into a libloom-ckpt directory without the job.
 *
 *   loom-ckpt [-d DIR] list              committed steps, bytes new and reused
 *   loom-ckpt [-d DIR] show STEP         a step's regions and chunks
 *   loom-ckpt [-d DIR] verify [STEP]     check every chunk's hash
 *   loom-ckpt [-d DIR] diff A B          what changed between two steps
 *   loom-ckpt [-d DIR] export STEP FILE  the step alone, as a tar archive
 *   loom-ckpt [-d DIR] gc [--keep K] [--grace S]  delete what no step needs
 *
 * Exit status: 0 done (verify: valid), 1 invalid or failed, 2 bad usage.
 * Read-only except export, which writes FILE, and gc.  "New" chunks are those the
 * previous committed step does not hold: what that save had to write.
 */
#include <errno.h>
#include <inttypes.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include "ckpt/chunks.h"
#include "ckpt/context.h"
#include "common/log.h"

typedef struct step_view {
    uint64_t step, nranks, chunk_size;
    loom_ckpt_manifest_t *ms;
    loom_ckpt_chunk_ref_t *hashes;   /* every chunk once, sorted by hash */
    size_t nhashes;
} step_view_t;

static int cmp_hash(const void *a, const void *b)
{
    return strcmp(((const loom_ckpt_chunk_ref_t *)a)->hash,
                  ((const loom_ckpt_chunk_ref_t *)b)->hash);
}

static void view_free(step_view_t *v)
{
    for (uint64_t r = 0; v->ms != NULL && r < v->nranks; r++) {
        loom_ckpt_manifest_free(&v->ms[r]);
    }
    free(v->ms);
    free(v->hashes);
    memset(v, 0, sizeof(*v));
}

static loom_status_t view_load(const loom_ckpt_t *ck, uint64_t step,
                               step_view_t *v)
{
    memset(v, 0, sizeof(*v));
    v->step = step;
    loom_status_t st = loom_ckpt_read_commit(ck, step, &v->nranks, &v->chunk_size);
    if (st == LOOM_ERR_NOT_FOUND) {
        fprintf(stderr, "loom-ckpt: step %" PRIu64 " is not committed in %s\n",
                step, ck->dir);
    }
    if (st != LOOM_OK) {
        return st;
    }
    if ((v->ms = calloc(v->nranks, sizeof(*v->ms))) == NULL) {
        return LOOM_ERR_NO_MEMORY;
    }
    st = loom_ckpt_read_manifests(ck, step, v->nranks, v->chunk_size, v->ms);
    size_t n = 0;
    for (uint64_t r = 0; st == LOOM_OK && r < v->nranks; r++) {
        for (size_t g = 0; g < v->ms[r].nregions; g++) {
            n += v->ms[r].regions[g].nchunks;
        }
    }
    if (st == LOOM_OK && (v->hashes = malloc((n ? n : 1) * sizeof(*v->hashes))) == NULL) {
        st = LOOM_ERR_NO_MEMORY;
    }
    for (uint64_t r = 0; st == LOOM_OK && r < v->nranks; r++) {
        for (size_t g = 0; g < v->ms[r].nregions; g++) {
            const loom_ckpt_mregion_t *reg = &v->ms[r].regions[g];
            for (size_t c = 0; c < reg->nchunks; c++) {
                v->hashes[v->nhashes++] = reg->chunks[c];
            }
        }
    }
    if (st == LOOM_OK) {
        qsort(v->hashes, v->nhashes, sizeof(*v->hashes), cmp_hash);
        size_t u = 0;
        for (size_t i = 0; i < v->nhashes; i++) {
            if (u == 0 || strcmp(v->hashes[u - 1].hash, v->hashes[i].hash) != 0) {
                v->hashes[u++] = v->hashes[i];
            }
        }
        v->nhashes = u;
    } else {
        view_free(v);
    }
    return st;
}

static int view_has(const step_view_t *v, const char *hash)
{
    loom_ckpt_chunk_ref_t key;
    snprintf(key.hash, sizeof(key.hash), "%s", hash);
    return v != NULL && v->hashes != NULL &&
           bsearch(&key, v->hashes, v->nhashes, sizeof(*v->hashes), cmp_hash) != NULL;
}

/* Bytes and count of v's chunks (each counted once) that prev does not
 * hold, and the bytes of all of them. */
static void count_new(const step_view_t *v, const step_view_t *prev,
                      uint64_t *chunks_p, uint64_t *bytes_p, uint64_t *total_p)
{
    *chunks_p = *bytes_p = *total_p = 0;
    for (size_t i = 0; i < v->nhashes; i++) {
        *total_p += v->hashes[i].len;
        if (!view_has(prev, v->hashes[i].hash)) {
            *chunks_p += 1;
            *bytes_p += v->hashes[i].len;
        }
    }
}

static int cmd_list(loom_ckpt_t *ck)
{
    uint64_t *steps;
    size_t n;
    if (loom_ckpt_list(ck, &steps, &n) != LOOM_OK) {
        return 1;
    }
    printf("%-12s %6s %8s %14s %10s %14s\n", "step", "ranks", "regions",
           "bytes", "new chunks", "new bytes");
    step_view_t prev = { 0 }, cur;
    int rc = 0;
    for (size_t i = 0; i < n; i++) {
        if (view_load(ck, steps[i], &cur) != LOOM_OK) {
            printf("%-12" PRIu64 " unreadable (run verify)\n", steps[i]);
            rc = 1;
            continue;
        }
        uint64_t nc, nb, total;
        count_new(&cur, i > 0 && prev.ms ? &prev : NULL, &nc, &nb, &total);
        printf("%-12" PRIu64 " %6" PRIu64 " %8zu %14" PRIu64 " %10" PRIu64
               " %14" PRIu64 "\n", cur.step, cur.nranks, cur.ms[0].nregions,
               total, nc, nb);
        view_free(&prev);
        prev = cur;
    }
    view_free(&prev);
    free(steps);
    return rc;
}

/* The committed step before `step`, or 0 with *found_p = 0. */
static uint64_t previous_step(loom_ckpt_t *ck, uint64_t step, int *found_p)
{
    uint64_t *steps, prev = 0;
    size_t n;
    *found_p = 0;
    if (loom_ckpt_list(ck, &steps, &n) == LOOM_OK) {
        for (size_t i = 0; i < n && steps[i] < step; i++) {
            prev = steps[i];
            *found_p = 1;
        }
        free(steps);
    }
    return prev;
}

static int cmd_show(loom_ckpt_t *ck, uint64_t step)
{
    step_view_t v, p;
    int have_prev;
    if (view_load(ck, step, &v) != LOOM_OK) {
        return 1;
    }
    uint64_t ps = previous_step(ck, step, &have_prev);
    if (have_prev && view_load(ck, ps, &p) != LOOM_OK) {
        have_prev = 0;
    }
    printf("step %" PRIu64 ": %" PRIu64 " ranks, %" PRIu64 "-byte chunks",
           step, v.nranks, v.chunk_size);
    if (have_prev) {
        printf(", compared with step %" PRIu64, ps);
    }
    printf("\n%-6s %-24s %-10s %14s %14s %8s %8s\n", "rank", "region", "layout",
           "bytes", "global offset", "chunks", "new");
    for (uint64_t r = 0; r < v.nranks; r++) {
        for (size_t g = 0; g < v.ms[r].nregions; g++) {
            const loom_ckpt_mregion_t *reg = &v.ms[r].regions[g];
            size_t fresh = 0;
            for (size_t c = 0; c < reg->nchunks; c++) {
                fresh += !view_has(have_prev ? &p : NULL, reg->chunks[c].hash);
            }
            printf("%-6" PRIu64 " %-24s %-10s %14" PRIu64 " %14" PRIu64
                   " %8zu %8zu\n", r, reg->name,
                   reg->layout == LOOM_CKPT_SHARDED ? "sharded" : "replicated",
                   reg->size, reg->global_offset, reg->nchunks, fresh);
        }
    }
    uint64_t nc, nb, total;
    count_new(&v, have_prev ? &p : NULL, &nc, &nb, &total);
    printf("unique bytes %" PRIu64 ", new chunks %" PRIu64 " (%" PRIu64
           " bytes), reused %" PRIu64 " bytes\n", total, nc, nb, total - nb);
    view_free(&v);
    if (have_prev) {
        view_free(&p);
    }
    return 0;
}

static void progress(const char *what, size_t done, size_t total)
{
    if (isatty(STDERR_FILENO) && total > 0 &&
        (done == total || done % 64 == 0)) {
        int width = 40, fill = (int)((double)done / (double)total * width);
        fprintf(stderr, "\r%s [%.*s%*s] %zu/%zu", what, fill,
                "########################################", width - fill, "",
                done, total);
        if (done == total) {
            fputc('\n', stderr);
        }
    }
}

static int verify_step(loom_ckpt_t *ck, uint64_t step, size_t *bad_p)
{
    step_view_t v;
    if (view_load(ck, step, &v) != LOOM_OK) {
        *bad_p += 1;
        return 1;
    }
    size_t total = 0, done = 0;
    for (uint64_t r = 0; r < v.nranks; r++) {
        for (size_t g = 0; g < v.ms[r].nregions; g++) {
            total += v.ms[r].regions[g].nchunks;
        }
    }
    for (uint64_t r = 0; r < v.nranks; r++) {
        for (size_t g = 0; g < v.ms[r].nregions; g++) {
            const loom_ckpt_mregion_t *reg = &v.ms[r].regions[g];
            for (size_t c = 0; c < reg->nchunks; c++) {
                char *buf = malloc(reg->chunks[c].len + 1);
                if (buf == NULL || loom_ckpt_chunk_load(ck->io, ck->dir, &reg->chunks[c],
                                                        reg->name, c, 0,
                                                        reg->chunks[c].len,
                                                        buf) != LOOM_OK) {
                    *bad_p += 1;
                }
                free(buf);
                progress("verify", ++done, total);
            }
        }
    }
    view_free(&v);
    return 0;
}

static int cmd_verify(loom_ckpt_t *ck, int have_step, uint64_t step)
{
    size_t bad = 0, nsteps = 1;
    if (have_step) {
        verify_step(ck, step, &bad);
    } else {
        uint64_t *steps;
        if (loom_ckpt_list(ck, &steps, &nsteps) != LOOM_OK) {
            return 1;
        }
        for (size_t i = 0; i < nsteps; i++) {
            verify_step(ck, steps[i], &bad);
        }
        free(steps);
    }
    if (bad != 0) {
        printf("INVALID: %zu problems (above)\n", bad);
        return 1;
    }
    printf("valid: %zu committed step%s, every chunk matches its hash\n",
           nsteps, nsteps == 1 ? "" : "s");
    return 0;
}

static int cmd_diff(loom_ckpt_t *ck, uint64_t a, uint64_t b)
{
    step_view_t va, vb;
    if (view_load(ck, a, &va) != LOOM_OK) {
        return 1;
    }
    if (view_load(ck, b, &vb) != LOOM_OK) {
        view_free(&va);
        return 1;
    }
    printf("%-6s %-24s %10s %10s %14s\n", "rank", "region", "chunks",
           "changed", "changed bytes");
    for (uint64_t r = 0; r < vb.nranks; r++) {
        for (size_t g = 0; g < vb.ms[r].nregions; g++) {
            const loom_ckpt_mregion_t *rb = &vb.ms[r].regions[g];
            const loom_ckpt_mregion_t *ra = NULL;
            for (size_t q = 0; r < va.nranks && q < va.ms[r].nregions; q++) {
                if (strcmp(va.ms[r].regions[q].name, rb->name) == 0) {
                    ra = &va.ms[r].regions[q];
                }
            }
            size_t changed = 0;
            uint64_t bytes = 0;
            for (size_t c = 0; c < rb->nchunks; c++) {
                if (ra == NULL || c >= ra->nchunks ||
                    strcmp(ra->chunks[c].hash, rb->chunks[c].hash) != 0) {
                    changed++;
                    bytes += rb->chunks[c].len;
                }
            }
            printf("%-6" PRIu64 " %-24s %10zu %10zu %14" PRIu64 "%s\n", r,
                   rb->name, rb->nchunks, changed, bytes,
                   ra == NULL ? "  (not in the first step)" : "");
        }
    }
    view_free(&va);
    view_free(&vb);
    return 0;
}

/* ------------------------------------------------------------ export */

static int tar_entry(FILE *out, const char *name, const void *data, size_t len)
{
    unsigned char h[512] = { 0 };
    if (strlen(name) >= 100) {
        fprintf(stderr, "loom-ckpt: name too long for the archive: %s\n", name);
        return -1;
    }
    memcpy(h, name, strlen(name));
    snprintf((char *)h + 100, 8, "%07o", 0600);
    snprintf((char *)h + 108, 8, "%07o", 0);
    snprintf((char *)h + 116, 8, "%07o", 0);
    snprintf((char *)h + 124, 12, "%011zo", len);
    snprintf((char *)h + 136, 12, "%011o", 0);
    memset(h + 148, ' ', 8);
    h[156] = '0';
    memcpy(h + 257, "ustar", 6);
    memcpy(h + 263, "00", 2);
    unsigned sum = 0;
    for (int i = 0; i < 512; i++) {
        sum += h[i];
    }
    snprintf((char *)h + 148, 8, "%06o", sum);
    static const unsigned char zero[512];
    size_t pad = (512 - len % 512) % 512;
    return fwrite(h, 1, 512, out) == 512 && fwrite(data, 1, len, out) == len &&
           fwrite(zero, 1, pad, out) == pad ? 0 : -1;
}

static int export_file(loom_ckpt_t *ck, FILE *out, const char *rel)
{
    char path[4096];
    void *buf;
    size_t len;
    snprintf(path, sizeof(path), "%s/%s", ck->dir, rel);
    int rc = ck->io->read_all(ck->io->ctx, path, &buf, &len);
    if (rc == -ENOENT && strncmp(rel, "chunks/", 7) == 0) {
        /* The chunk may be stored compressed. */
        char zrel[300];
        snprintf(zrel, sizeof(zrel), "%s" LOOM_CKPT_ZST_SUFFIX, rel);
        snprintf(path, sizeof(path), "%s/%s", ck->dir, zrel);
        if ((rc = ck->io->read_all(ck->io->ctx, path, &buf, &len)) == 0) {
            rc = tar_entry(out, zrel, buf, len);
            free(buf);
            return rc;
        }
    }
    if (rc != 0) {
        fprintf(stderr, "loom-ckpt: cannot read %s: %s\n", path, strerror(-rc));
        return -1;
    }
    rc = tar_entry(out, rel, buf, len);
    free(buf);
    return rc;
}

static int cmd_export(loom_ckpt_t *ck, uint64_t step, const char *file)
{
    step_view_t v;
    if (view_load(ck, step, &v) != LOOM_OK) {
        return 1;
    }
    FILE *out = fopen(file, "wb");
    if (out == NULL) {
        fprintf(stderr, "loom-ckpt: cannot create %s: %s\n", file, strerror(errno));
        view_free(&v);
        return 1;
    }
    char rel[256];
    int rc = 0;
    snprintf(rel, sizeof(rel), "step-%020" PRIu64 "/COMMIT", step);
    rc |= export_file(ck, out, rel);
    for (uint64_t r = 0; r < v.nranks && rc == 0; r++) {
        snprintf(rel, sizeof(rel), "step-%020" PRIu64 "/rank-%06" PRIu64 ".manifest",
                 step, r);
        rc |= export_file(ck, out, rel);
    }
    for (size_t i = 0; i < v.nhashes && rc == 0; i++) {
        snprintf(rel, sizeof(rel), "chunks/%.2s/%s", v.hashes[i].hash,
                 v.hashes[i].hash);
        rc |= export_file(ck, out, rel);
        progress("export", i + 1, v.nhashes);
    }
    static const unsigned char zero[1024];
    if (fwrite(zero, 1, sizeof(zero), out) != sizeof(zero)) {
        rc = -1;
    }
    if (fclose(out) != 0) {
        rc = -1;
    }
    if (rc == 0) {
        printf("exported step %" PRIu64 " (%zu chunks) to %s; restore from it "
               "with: mkdir D && tar -xf %s -C D\n", step, v.nhashes, file, file);
    }
    view_free(&v);
    return rc == 0 ? 0 : 1;
}

/* ------------------------------------------------------------ gc */

static int cmd_gc(loom_ckpt_t *ck, unsigned keep, unsigned grace)
{
    if (loom_ckpt_gc(ck, keep, grace, 1) != LOOM_OK) {
        return 1;
    }
    printf("deleted %" PRIu64 " committed step%s and %" PRIu64 " chunk%s no step "
           "refers to (spared: anything changed in the last %u s)\n",
           ck->stats.steps_deleted, ck->stats.steps_deleted == 1 ? "" : "s",
           ck->stats.chunks_deleted, ck->stats.chunks_deleted == 1 ? "" : "s", grace);
    return 0;
}

static int parse_count(const char *flag, const char *s, unsigned *v)
{
    char *end;
    errno = 0;
    unsigned long x = strtoul(s ? s : "", &end, 10);
    if (s == NULL || errno != 0 || end == s || *end != '\0' || *s == '-' || x > 100000000) {
        fprintf(stderr, "loom-ckpt: %s needs a whole number from 0 to 100000000, "
                "not '%s'\n", flag, s ? s : "");
        return -1;
    }
    *v = (unsigned)x;
    return 0;
}

/* ------------------------------------------------------------ main */

static int usage(FILE *f, int status)
{
    fprintf(f,
        "usage: loom-ckpt [-d DIR] COMMAND\n"
        "  list              committed steps: ranks, regions, bytes, new chunks\n"
        "  show STEP         a step's regions, chunks, and chunks new since the previous step\n"
        "  verify [STEP]     read every chunk of every (or one) committed step, check its hash;\n"
        "                    exit status 0: valid, 1: not\n"
        "  diff A B          chunks and bytes that changed from step A to step B\n"
        "  export STEP FILE  the step alone as a tar archive (untar into an empty directory)\n"
        "  gc [--keep K] [--grace S]\n"
        "                    keep the newest K committed steps (default: all), delete the\n"
        "                    rest, unfinished saves and chunks no step refers to; spare\n"
        "                    anything changed in the last S seconds (default 3600), which\n"
        "                    a running job may still be saving\n"
        "DIR defaults to $LOOM_CKPT_DIR, then the current directory.\n");
    return status;
}

static int parse_step(const char *s, uint64_t *step)
{
    char *end;
    errno = 0;
    unsigned long long v = strtoull(s, &end, 10);
    if (errno != 0 || end == s || *end != '\0' || *s == '-') {
        fprintf(stderr, "loom-ckpt: '%s' is not a step number (a decimal integer)\n", s);
        return -1;
    }
    *step = v;
    return 0;
}

int main(int argc, char **argv)
{
    const char *dir = getenv("LOOM_CKPT_DIR");
    int i = 1;
    if (i < argc && (strcmp(argv[i], "-h") == 0 || strcmp(argv[i], "--help") == 0)) {
        return usage(stdout, 0);
    }
    if (i + 1 < argc && strcmp(argv[i], "-d") == 0) {
        dir = argv[i + 1];
        i += 2;
    }
    if (dir == NULL || *dir == '\0') {
        dir = ".";
    }
    if (i >= argc) {
        return usage(stderr, 2);
    }
    const char *cmd = argv[i++];
    int nargs = argc - i;
    struct stat st;
    if (stat(dir, &st) != 0 || !S_ISDIR(st.st_mode)) {
        fprintf(stderr, "loom-ckpt: %s is not a checkpoint directory\n", dir);
        return 1;
    }
    loom_ckpt_t ck = { .dir = (char *)dir, .io = loom_ckpt_io_posix() };
    uint64_t a, b;
    if (strcmp(cmd, "list") == 0 && nargs == 0) {
        return cmd_list(&ck);
    }
    if (strcmp(cmd, "show") == 0 && nargs == 1) {
        return parse_step(argv[i], &a) ? 2 : cmd_show(&ck, a);
    }
    if (strcmp(cmd, "verify") == 0 && nargs <= 1) {
        if (nargs == 1 && parse_step(argv[i], &a)) {
            return 2;
        }
        return cmd_verify(&ck, nargs == 1, nargs == 1 ? a : 0);
    }
    if (strcmp(cmd, "diff") == 0 && nargs == 2) {
        return parse_step(argv[i], &a) || parse_step(argv[i + 1], &b)
               ? 2 : cmd_diff(&ck, a, b);
    }
    if (strcmp(cmd, "export") == 0 && nargs == 2) {
        return parse_step(argv[i], &a) ? 2 : cmd_export(&ck, a, argv[i + 1]);
    }
    if (strcmp(cmd, "gc") == 0) {
        unsigned keep = 0, grace = 3600;
        for (int k = i; k < argc; k += 2) {
            if (strcmp(argv[k], "--keep") == 0) {
                if (parse_count("--keep", k + 1 < argc ? argv[k + 1] : NULL, &keep)) {
                    return 2;
                }
            } else if (strcmp(argv[k], "--grace") == 0) {
                if (parse_count("--grace", k + 1 < argc ? argv[k + 1] : NULL, &grace)) {
                    return 2;
                }
            } else {
                fprintf(stderr, "loom-ckpt: gc takes --keep K and --grace S, not '%s'\n",
                        argv[k]);
                return 2;
            }
        }
        return cmd_gc(&ck, keep, grace);
    }
    fprintf(stderr, "loom-ckpt: unknown command or wrong arguments: '%s'; "
            "commands are list, show, verify, diff, export, gc\n", cmd);
    return usage(stderr, 2);
}
