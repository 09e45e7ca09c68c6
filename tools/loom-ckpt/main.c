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
 * Built on libloom-ckpt's public inspection API (loom/ckpt_inspect.h) alone.
 */
#include <errno.h>
#include <inttypes.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include <loom/ckpt_inspect.h>

/* Opens step in dir; a step that is not committed is named. */
static loom_ckpt_view_t *view_open(loom_ckpt_dir_t *dir, const char *path, uint64_t step)
{
    loom_ckpt_view_t *v;
    loom_status_t st = loom_ckpt_view_open(dir, step, &v);

    if (st == LOOM_ERR_NOT_FOUND) {
        fprintf(stderr, "loom-ckpt: step %" PRIu64 " is not committed in %s\n", step, path);
    }
    return st == LOOM_OK ? v : NULL;
}

/* Bytes and count of v's chunks (each counted once) that prev does not
 * hold, and the bytes of all of them. */
static void count_new(const loom_ckpt_view_t *v, const loom_ckpt_view_t *prev,
                      uint64_t *chunks_p, uint64_t *bytes_p, uint64_t *total_p)
{
    loom_ckpt_chunk_info_t ch;

    *chunks_p = *bytes_p = *total_p = 0;
    for (size_t i = 0; i < loom_ckpt_view_nunique(v); i++) {
        loom_ckpt_view_unique(v, i, &ch);
        *total_p += ch.len;
        if (!loom_ckpt_view_has(prev, ch.hash)) {
            *chunks_p += 1;
            *bytes_p += ch.len;
        }
    }
}

static int cmd_list(loom_ckpt_dir_t *dir, const char *path)
{
    uint64_t *steps;
    size_t n;
    if (loom_ckpt_dir_steps(dir, &steps, &n) != LOOM_OK) {
        return 1;
    }
    printf("%-12s %6s %8s %14s %10s %14s\n", "step", "ranks", "regions",
           "bytes", "new chunks", "new bytes");
    loom_ckpt_view_t *prev = NULL, *cur;
    int rc = 0;
    for (size_t i = 0; i < n; i++) {
        if ((cur = view_open(dir, path, steps[i])) == NULL) {
            printf("%-12" PRIu64 " unreadable (run verify)\n", steps[i]);
            rc = 1;
            continue;
        }
        uint64_t nc, nb, total;
        count_new(cur, prev, &nc, &nb, &total);
        printf("%-12" PRIu64 " %6" PRIu64 " %8zu %14" PRIu64 " %10" PRIu64
               " %14" PRIu64 "\n", steps[i], loom_ckpt_view_nranks(cur),
               loom_ckpt_view_nregions(cur, 0), total, nc, nb);
        loom_ckpt_view_close(prev);
        prev = cur;
    }
    loom_ckpt_view_close(prev);
    free(steps);
    return rc;
}

/* The committed step before `step`, or 0 with *found_p = 0. */
static uint64_t previous_step(loom_ckpt_dir_t *dir, uint64_t step, int *found_p)
{
    uint64_t *steps, prev = 0;
    size_t n;
    *found_p = 0;
    if (loom_ckpt_dir_steps(dir, &steps, &n) == LOOM_OK) {
        for (size_t i = 0; i < n && steps[i] < step; i++) {
            prev = steps[i];
            *found_p = 1;
        }
        free(steps);
    }
    return prev;
}

static int cmd_show(loom_ckpt_dir_t *dir, const char *path, uint64_t step)
{
    loom_ckpt_view_t *v = view_open(dir, path, step), *p = NULL;
    loom_ckpt_region_info_t reg;
    loom_ckpt_chunk_info_t ch;
    int have_prev;
    if (v == NULL) {
        return 1;
    }
    uint64_t ps = previous_step(dir, step, &have_prev);
    if (have_prev && (p = view_open(dir, path, ps)) == NULL) {
        have_prev = 0;
    }
    printf("step %" PRIu64 ": %" PRIu64 " ranks, %" PRIu64 "-byte chunks",
           step, loom_ckpt_view_nranks(v), loom_ckpt_view_chunk_size(v));
    if (have_prev) {
        printf(", compared with step %" PRIu64, ps);
    }
    printf("\n%-6s %-24s %-10s %14s %14s %8s %8s\n", "rank", "region", "layout",
           "bytes", "global offset", "chunks", "new");
    for (uint64_t r = 0; r < loom_ckpt_view_nranks(v); r++) {
        for (size_t g = 0; g < loom_ckpt_view_nregions(v, r); g++) {
            loom_ckpt_view_region(v, r, g, &reg);
            size_t fresh = 0;
            for (size_t c = 0; c < reg.nchunks; c++) {
                loom_ckpt_view_chunk(v, r, g, c, &ch);
                fresh += !loom_ckpt_view_has(p, ch.hash);
            }
            printf("%-6" PRIu64 " %-24s %-10s %14" PRIu64 " %14" PRIu64
                   " %8zu %8zu\n", r, reg.name,
                   reg.layout == LOOM_CKPT_SHARDED ? "sharded" : "replicated",
                   reg.size, reg.global_offset, reg.nchunks, fresh);
        }
    }
    uint64_t nc, nb, total;
    count_new(v, p, &nc, &nb, &total);
    printf("unique bytes %" PRIu64 ", new chunks %" PRIu64 " (%" PRIu64
           " bytes), reused %" PRIu64 " bytes\n", total, nc, nb, total - nb);
    loom_ckpt_view_close(v);
    loom_ckpt_view_close(p);
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

static void verify_step(loom_ckpt_dir_t *dir, const char *path, uint64_t step, size_t *bad_p)
{
    loom_ckpt_view_t *v = view_open(dir, path, step);
    loom_ckpt_region_info_t reg;
    if (v == NULL) {
        *bad_p += 1;
        return;
    }
    size_t total = 0, done = 0;
    for (uint64_t r = 0; r < loom_ckpt_view_nranks(v); r++) {
        for (size_t g = 0; g < loom_ckpt_view_nregions(v, r); g++) {
            loom_ckpt_view_region(v, r, g, &reg);
            total += reg.nchunks;
        }
    }
    for (uint64_t r = 0; r < loom_ckpt_view_nranks(v); r++) {
        for (size_t g = 0; g < loom_ckpt_view_nregions(v, r); g++) {
            loom_ckpt_view_region(v, r, g, &reg);
            for (size_t c = 0; c < reg.nchunks; c++) {
                if (loom_ckpt_view_check_chunk(v, r, g, c) != LOOM_OK) {
                    *bad_p += 1;
                }
                progress("verify", ++done, total);
            }
        }
    }
    loom_ckpt_view_close(v);
}

static int cmd_verify(loom_ckpt_dir_t *dir, const char *path, int have_step, uint64_t step)
{
    size_t bad = 0, nsteps = 1;
    if (have_step) {
        verify_step(dir, path, step, &bad);
    } else {
        uint64_t *steps;
        if (loom_ckpt_dir_steps(dir, &steps, &nsteps) != LOOM_OK) {
            return 1;
        }
        for (size_t i = 0; i < nsteps; i++) {
            verify_step(dir, path, steps[i], &bad);
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

static int cmd_diff(loom_ckpt_dir_t *dir, const char *path, uint64_t a, uint64_t b)
{
    loom_ckpt_view_t *va = view_open(dir, path, a), *vb;
    loom_ckpt_region_info_t rb, ra;
    loom_ckpt_chunk_info_t cb, ca;
    if (va == NULL) {
        return 1;
    }
    if ((vb = view_open(dir, path, b)) == NULL) {
        loom_ckpt_view_close(va);
        return 1;
    }
    printf("%-6s %-24s %10s %10s %14s\n", "rank", "region", "chunks",
           "changed", "changed bytes");
    for (uint64_t r = 0; r < loom_ckpt_view_nranks(vb); r++) {
        for (size_t g = 0; g < loom_ckpt_view_nregions(vb, r); g++) {
            loom_ckpt_view_region(vb, r, g, &rb);
            size_t qa = 0;
            int found = 0;
            for (size_t q = 0; r < loom_ckpt_view_nranks(va) && q < loom_ckpt_view_nregions(va, r); q++) {
                loom_ckpt_view_region(va, r, q, &ra);
                if (strcmp(ra.name, rb.name) == 0) {
                    found = 1;
                    qa = q;
                }
            }
            if (found) {
                loom_ckpt_view_region(va, r, qa, &ra);
            }
            size_t changed = 0;
            uint64_t bytes = 0;
            for (size_t c = 0; c < rb.nchunks; c++) {
                loom_ckpt_view_chunk(vb, r, g, c, &cb);
                if (found && c < ra.nchunks) {
                    loom_ckpt_view_chunk(va, r, qa, c, &ca);
                }
                if (!found || c >= ra.nchunks || strcmp(ca.hash, cb.hash) != 0) {
                    changed++;
                    bytes += cb.len;
                }
            }
            printf("%-6" PRIu64 " %-24s %10zu %10zu %14" PRIu64 "%s\n", r,
                   rb.name, rb.nchunks, changed, bytes,
                   found ? "" : "  (not in the first step)");
        }
    }
    loom_ckpt_view_close(va);
    loom_ckpt_view_close(vb);
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

static int cmd_export(loom_ckpt_dir_t *dir, const char *path, uint64_t step, const char *file)
{
    loom_ckpt_view_t *v = view_open(dir, path, step);
    if (v == NULL) {
        return 1;
    }
    FILE *out = fopen(file, "wb");
    if (out == NULL) {
        fprintf(stderr, "loom-ckpt: cannot create %s: %s\n", file, strerror(errno));
        loom_ckpt_view_close(v);
        return 1;
    }
    size_t nfiles = loom_ckpt_view_nfiles(v), nchunks = loom_ckpt_view_nunique(v);
    size_t head = nfiles - nchunks;     /* the commit record and the manifests */
    char rel[256];
    int rc = 0;
    for (size_t i = 0; i < nfiles && rc == 0; i++) {
        void *buf;
        size_t len;
        if (loom_ckpt_view_read_file(v, i, rel, sizeof(rel), &buf, &len) != LOOM_OK) {
            rc = -1;
            break;
        }
        rc = tar_entry(out, rel, buf, len);
        free(buf);
        if (i >= head) {
            progress("export", i + 1 - head, nchunks);
        }
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
               "with: mkdir D && tar -xf %s -C D\n", step, nchunks, file, file);
    }
    loom_ckpt_view_close(v);
    return rc == 0 ? 0 : 1;
}

/* ------------------------------------------------------------ gc */

static int cmd_gc(loom_ckpt_dir_t *dir, unsigned keep, unsigned grace)
{
    uint64_t steps, chunks;
    if (loom_ckpt_dir_gc(dir, keep, grace, &steps, &chunks) != LOOM_OK) {
        return 1;
    }
    printf("deleted %" PRIu64 " committed step%s and %" PRIu64 " chunk%s no step "
           "refers to (spared: anything changed in the last %u s)\n",
           steps, steps == 1 ? "" : "s", chunks, chunks == 1 ? "" : "s", grace);
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

/* The command line from argv[i] on, cmd its first word, on the opened
 * directory ck (at path dir). */
static int run(loom_ckpt_dir_t *ck, const char *dir, const char *cmd, int argc, char **argv,
               int i)
{
    int nargs = argc - i;
    uint64_t a, b;
    if (strcmp(cmd, "list") == 0 && nargs == 0) {
        return cmd_list(ck, dir);
    }
    if (strcmp(cmd, "show") == 0 && nargs == 1) {
        return parse_step(argv[i], &a) ? 2 : cmd_show(ck, dir, a);
    }
    if (strcmp(cmd, "verify") == 0 && nargs <= 1) {
        if (nargs == 1 && parse_step(argv[i], &a)) {
            return 2;
        }
        return cmd_verify(ck, dir, nargs == 1, nargs == 1 ? a : 0);
    }
    if (strcmp(cmd, "diff") == 0 && nargs == 2) {
        return parse_step(argv[i], &a) || parse_step(argv[i + 1], &b)
               ? 2 : cmd_diff(ck, dir, a, b);
    }
    if (strcmp(cmd, "export") == 0 && nargs == 2) {
        return parse_step(argv[i], &a) ? 2 : cmd_export(ck, dir, a, argv[i + 1]);
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
        return cmd_gc(ck, keep, grace);
    }
    fprintf(stderr, "loom-ckpt: unknown command or wrong arguments: '%s'; "
            "commands are list, show, verify, diff, export, gc\n", cmd);
    return usage(stderr, 2);
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
    loom_ckpt_dir_t *ck;
    loom_status_t st = loom_ckpt_dir_open(dir, &ck);
    if (st != LOOM_OK) {
        fprintf(stderr, "loom-ckpt: %s is not a checkpoint directory%s\n", dir,
                st == LOOM_ERR_NOT_FOUND ? "" : " (out of memory)");
        return 1;
    }
    int rc = run(ck, dir, cmd, argc, argv, i);
    loom_ckpt_dir_close(ck);
    return rc;
}
