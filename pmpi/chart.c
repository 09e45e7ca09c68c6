/*
 * The chart at MPI_Finalize (docs/pmpi.md): rank 0 reads the JSON profile it
 * has just written and draws <prefix>.png with gnuplot, time per collective
 * (summed over ranks) above, each rank's time stacked by collective below.
 *
 * gnuplot runs as a child process on <prefix>.gp, a script that carries its
 * data inline so that a user can edit and re-run it.  It is started with
 * posix_spawnp (no fork of a process that may hold network resources),
 * without LD_PRELOAD (the profiler would load itself and an MPI library into
 * gnuplot), and killed after LOOM_PMPI_CHART_TIMEOUT seconds.  Anything that
 * goes wrong costs one warning line and no chart, never the job.
 */
#include <errno.h>
#include <fcntl.h>
#include <jansson.h>
#include <signal.h>
#include <spawn.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <sys/wait.h>
#include <time.h>
#include <unistd.h>

#include "pmpi.h"

extern char **environ;

/* Seconds per collective and rank, read back from the profile. */
typedef struct {
    int nranks;
    double *time;                       /* LOOM_PMPI_FN_COUNT x nranks */
    int used[LOOM_PMPI_FN_COUNT];       /* the collective took time somewhere */
    int nused;
} loom_pmpi_chart_t;

static int loom_pmpi_fn_index(const char *name)
{
    int fn;

    for (fn = 0; fn < LOOM_PMPI_FN_COUNT; ++fn) {
        if (strcmp(loom_pmpi_fn_names[fn], name) == 0) {
            return fn;
        }
    }
    return -1;
}

/* Adds one site's per-rank times to the table; point-to-point sites are
 * left out (the chart is about collectives). */
static void loom_pmpi_chart_add_site(loom_pmpi_chart_t *c, json_t *site)
{
    const char *name = json_string_value(json_object_get(site, "function"));
    json_t *row;
    size_t i;
    int fn = name != NULL ? loom_pmpi_fn_index(name) : -1, rank;
    double t;

    if (fn < 0 || !loom_pmpi_fn_is_coll(fn)) {
        return;
    }
    json_array_foreach(json_object_get(site, "ranks"), i, row) {
        rank = (int)json_integer_value(json_object_get(row, "rank"));
        t = json_number_value(json_object_get(row, "time_s"));
        if (rank >= 0 && rank < c->nranks && t > 0) {
            c->time[(size_t)fn * c->nranks + rank] += t;
            c->used[fn] = 1;
        }
    }
}

/* Returns 0 with a reason in why when the profile cannot be read. */
static int loom_pmpi_chart_load(const char *json_path, loom_pmpi_chart_t *c, char *why,
                                size_t len)
{
    json_error_t err;
    json_t *root = json_load_file(json_path, 0, &err), *site;
    size_t i;
    int fn;

    memset(c, 0, sizeof(*c));
    if (root == NULL) {
        snprintf(why, len, "cannot read %s: %s", json_path, err.text);
        return 0;
    }
    c->nranks = (int)json_integer_value(json_object_get(root, "ranks"));
    c->time = c->nranks > 0 ? calloc((size_t)LOOM_PMPI_FN_COUNT * c->nranks, sizeof(double))
                            : NULL;
    if (c->time == NULL) {
        snprintf(why, len, "no ranks in %s, or out of memory", json_path);
        json_decref(root);
        return 0;
    }
    json_array_foreach(json_object_get(root, "sites"), i, site) {
        loom_pmpi_chart_add_site(c, site);
    }
    json_decref(root);
    for (fn = 0; fn < LOOM_PMPI_FN_COUNT; ++fn) {
        c->nused += c->used[fn];
    }
    return 1;
}

/* A gnuplot single-quoted string: a quote inside is doubled. */
static void loom_pmpi_gp_quoted(FILE *f, const char *s)
{
    fputc('\'', f);
    for (; *s != '\0'; ++s) {
        if (*s == '\'') {
            fputc('\'', f);
        }
        fputc(*s, f);
    }
    fputc('\'', f);
}

static void loom_pmpi_gp_data(FILE *f, const loom_pmpi_chart_t *c)
{
    int fn, r;
    double sum;

    fputs("$per_collective << EOD\n", f);
    for (fn = 0; fn < LOOM_PMPI_FN_COUNT; ++fn) {
        if (c->used[fn]) {
            for (sum = 0, r = 0; r < c->nranks; ++r) {
                sum += c->time[(size_t)fn * c->nranks + r];
            }
            fprintf(f, "%s %.9g\n", loom_pmpi_fn_names[fn], sum);
        }
    }
    fputs("EOD\n$per_rank << EOD\nrank", f);
    for (fn = 0; fn < LOOM_PMPI_FN_COUNT; ++fn) {
        if (c->used[fn]) {
            fprintf(f, " %s", loom_pmpi_fn_names[fn]);
        }
    }
    for (r = 0; r < c->nranks; ++r) {
        fprintf(f, "\n%d", r);
        for (fn = 0; fn < LOOM_PMPI_FN_COUNT; ++fn) {
            if (c->used[fn]) {
                fprintf(f, " %.9g", c->time[(size_t)fn * c->nranks + r]);
            }
        }
    }
    fputs("\nEOD\n", f);
}

/* Every how many ranks a rank number is written under the bars: about 32
 * numbers at most, in steps of 1, 2 or 5 times a power of ten. */
static int loom_pmpi_rank_stride(int nranks)
{
    static const int steps[] = { 1, 2, 5 };
    int scale = 1, i;

    for (;;) {
        for (i = 0; i < 3; ++i) {
            if (nranks / (steps[i] * scale) <= 32) {
                return steps[i] * scale;
            }
        }
        scale *= 10;
    }
}

/* The script: two bar charts on one page.  The png terminal (libgd) has
 * fonts built in, so it draws on a machine without any font installed. */
static int loom_pmpi_gp_write(const char *gp_path, const char *png_path,
                              const loom_pmpi_chart_t *c)
{
    FILE *f = fopen(gp_path, "w");

    if (f == NULL) {
        return 0;
    }
    fputs("# libloom-pmpi's chart (docs/pmpi.md); re-run with: gnuplot THIS_FILE\n", f);
    fputs("set terminal png noenhanced size 1000,900\nset output ", f);
    loom_pmpi_gp_quoted(f, png_path);
    fputc('\n', f);
    loom_pmpi_gp_data(f, c);
    fprintf(f, "set multiplot layout 2,1 title 'libloom-pmpi: time in collectives, %d ranks'\n"
               "set style data histograms\n"
               "set style fill solid 0.8 border -1\n"
               "set ylabel 'time (s)'\n"
               "set yrange [0:*]\n"
               "set xtics rotate by -20\n"
               "set title 'per collective, all ranks together'\n"
               "plot $per_collective using 2:xtic(1) notitle\n"
               "set style histogram rowstacked\n"
               "set xtics norotate nomirror\n"
               "set xlabel 'rank'\n"
               "set key outside right\n"
               "set title 'per rank, by collective'\n"
               "plot for [i=2:%d] $per_rank using i:xtic(int($1) %% %d == 0 ? stringcolumn(1) : '')"
               " title columnheader(i)\n"
               "unset multiplot\n",
            c->nranks, c->nused + 1, loom_pmpi_rank_stride(c->nranks));
    return fclose(f) == 0;
}

/* The environment without LD_PRELOAD, for gnuplot; NULL when out of memory. */
static char **loom_pmpi_child_env(void)
{
    size_t n = 0, i, k = 0;
    char **env;

    while (environ[n] != NULL) {
        ++n;
    }
    env = calloc(n + 1, sizeof(*env));
    for (i = 0; env != NULL && i < n; ++i) {
        if (strncmp(environ[i], "LD_PRELOAD=", 11) != 0) {
            env[k++] = environ[i];
        }
    }
    return env;
}

/* Waits for the child up to timeout_s; kills it after.  Returns its wait
 * status, or -1 when it was killed for taking too long. */
static int loom_pmpi_child_wait(pid_t pid, int timeout_s)
{
    const struct timespec tick = { 0, 10 * 1000 * 1000 };
    long ticks = (long)timeout_s * 100;
    int status = 0;
    pid_t got;

    for (;;) {
        got = waitpid(pid, &status, WNOHANG);
        if (got == pid) {
            return status;
        }
        if (got < 0 && errno != EINTR) {
            return 0;                   /* reaped by someone else's handler */
        }
        if (ticks-- <= 0) {
            kill(pid, SIGKILL);
            waitpid(pid, &status, 0);
            return -1;
        }
        nanosleep(&tick, NULL);
    }
}

/* Runs gnuplot on the script; returns 0 with a reason in why on failure. */
static int loom_pmpi_gnuplot_run(const char *gp_path, char *why, size_t len)
{
    char *argv[] = { "gnuplot", (char *)gp_path, NULL };
    char **env = loom_pmpi_child_env();
    posix_spawn_file_actions_t acts;
    pid_t pid;
    int rc, status, timeout_s = loom_pmpi.settings.chart_timeout;

    if (env == NULL) {
        snprintf(why, len, "out of memory starting gnuplot");
        return 0;
    }
    posix_spawn_file_actions_init(&acts);
    posix_spawn_file_actions_addopen(&acts, STDIN_FILENO, "/dev/null", O_RDONLY, 0);
    posix_spawn_file_actions_addopen(&acts, STDOUT_FILENO, "/dev/null", O_WRONLY, 0);
    rc = posix_spawnp(&pid, "gnuplot", &acts, NULL, argv, env);
    posix_spawn_file_actions_destroy(&acts);
    free(env);
    if (rc == ENOENT) {
        snprintf(why, len, "gnuplot is not on PATH (apt-get install gnuplot-nox, or "
                           "LOOM_PMPI_CHART=0 to go without the chart)");
        return 0;
    }
    if (rc != 0) {
        snprintf(why, len, "cannot start gnuplot: %s", strerror(rc));
        return 0;
    }
    status = loom_pmpi_child_wait(pid, timeout_s);
    if (status == -1) {
        snprintf(why, len, "gnuplot ran longer than %d s (LOOM_PMPI_CHART_TIMEOUT) and was "
                           "stopped", timeout_s);
        return 0;
    }
    if (!WIFEXITED(status) || WEXITSTATUS(status) != 0) {
        snprintf(why, len, "gnuplot failed on %s (%s %d)", gp_path,
                 WIFEXITED(status) ? "exit status" : "signal",
                 WIFEXITED(status) ? WEXITSTATUS(status) : WTERMSIG(status));
        return 0;
    }
    return 1;
}

/* <prefix>.json -> <prefix><suffix> */
static void loom_pmpi_sibling(const char *json_path, const char *suffix, char *out, size_t len)
{
    size_t n = strlen(json_path);

    if (n >= 5 && strcmp(json_path + n - 5, ".json") == 0) {
        n -= 5;
    }
    snprintf(out, len, "%.*s%s", (int)n, json_path, suffix);
}

void loom_pmpi_chart_hook(const char *json_path)
{
    char gp[sizeof(loom_pmpi.settings.out) + 16], png[sizeof(gp)], why[400];
    loom_pmpi_chart_t c;
    struct stat st;

    if (!loom_pmpi.settings.chart) {
        return;
    }
    if (!loom_pmpi_chart_load(json_path, &c, why, sizeof(why))) {
        fprintf(stderr, "libloom-pmpi: warning: no chart: %s\n", why);
        return;
    }
    if (c.nused == 0) {
        free(c.time);                   /* no collective took time: nothing to draw */
        return;
    }
    loom_pmpi_sibling(json_path, ".gp", gp, sizeof(gp));
    loom_pmpi_sibling(json_path, ".png", png, sizeof(png));
    unlink(png);                        /* an old chart must not pass for a new one */
    if (!loom_pmpi_gp_write(gp, png, &c)) {
        fprintf(stderr, "libloom-pmpi: warning: no chart: cannot write %s: %m\n", gp);
    } else if (!loom_pmpi_gnuplot_run(gp, why, sizeof(why))) {
        fprintf(stderr, "libloom-pmpi: warning: no chart: %s\n", why);
    } else if (stat(png, &st) != 0 || st.st_size == 0) {
        /* Where SIGCHLD is ignored the exit status is lost: look at the file. */
        fprintf(stderr, "libloom-pmpi: warning: no chart: gnuplot wrote no %s\n", png);
    } else {
        fprintf(stderr, "libloom-pmpi: chart in %s\n", png);
    }
    free(c.time);
}
