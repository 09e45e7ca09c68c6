/* Command-line parsing (options.h). */
#include "options.h"
#include "tools/common/size.h"

#include <errno.h>
#include <getopt.h>
#include <limits.h>
#include <stdlib.h>
#include <string.h>

#define LOOM_BENCH_SIZE_HELP "a byte count with an optional suffix K, M or G (8, 256K, 64M)"

enum {   /* long options without a short form */
    LOOM_BENCH_OPT_CSV = 256, LOOM_BENCH_OPT_PLOT, LOOM_BENCH_OPT_NO_COMPARE,
    LOOM_BENCH_OPT_SWITCH, LOOM_BENCH_OPT_PROGRESS, LOOM_BENCH_OPT_NO_PROGRESS,
    LOOM_BENCH_OPT_NO_MEMCPY_REF, LOOM_BENCH_OPT_TIMING
};

const char *const loom_bench_timing_names[] = {
    [LOOM_BENCH_TIMING_BATCH] = "batch", [LOOM_BENCH_TIMING_SINGLE] = "single",
};

static const struct option loom_bench_long_options[] = {
    { "coll", required_argument, NULL, 'c' },
    { "minbytes", required_argument, NULL, 'b' },
    { "maxbytes", required_argument, NULL, 'e' },
    { "stepfactor", required_argument, NULL, 'f' },
    { "warmup_iters", required_argument, NULL, 'w' },
    { "iters", required_argument, NULL, 'n' },
    { "batch", required_argument, NULL, 'B' },
    { "timing", required_argument, NULL, LOOM_BENCH_OPT_TIMING },
    { "datatype", required_argument, NULL, 'd' },
    { "op", required_argument, NULL, 'o' },
    { "root", required_argument, NULL, 'r' },
    { "fresh", optional_argument, NULL, 'F' },
    { "check", no_argument, NULL, 'C' },
    { "csv", required_argument, NULL, LOOM_BENCH_OPT_CSV },
    { "plot", required_argument, NULL, LOOM_BENCH_OPT_PLOT },
    { "no-compare", no_argument, NULL, LOOM_BENCH_OPT_NO_COMPARE },
    { "no-memcpy-ref", no_argument, NULL, LOOM_BENCH_OPT_NO_MEMCPY_REF },
    { "switch", required_argument, NULL, LOOM_BENCH_OPT_SWITCH },
    { "progress", no_argument, NULL, LOOM_BENCH_OPT_PROGRESS },
    { "no-progress", no_argument, NULL, LOOM_BENCH_OPT_NO_PROGRESS },
    { "help", no_argument, NULL, 'h' },
    { NULL, 0, NULL, 0 },
};

static void loom_bench_usage(FILE *out)
{
    fprintf(out,
        "usage: mpirun -np N [--mca mpi_yield_when_idle 1] loom-bench [options]\n"
        "\n"
        "Times a collective with Loom and with the module Open MPI uses without\n"
        "it, interleaved size by size in one job (docs/loom-bench.md).\n"
        "\n"
        "  -c, --coll NAME          %s\n"
        "                           (default allreduce)\n"
        "  -b, --minbytes SIZE      smallest message (default 8)\n"
        "  -e, --maxbytes SIZE      largest message (default 64M)\n"
        "  -f, --stepfactor N       multiply the size by N each step, N >= 2 (default 2)\n"
        "  -w, --warmup_iters N     untimed batches per contender and size (default 2;\n"
        "                           100 calls with --timing single)\n"
        "  -n, --iters N            timed batches per contender and size (default 20;\n"
        "                           200 with --timing single)\n"
        "  -B, --batch N            calls per timed batch (default 0: about 1 ms worth)\n"
        "      --timing MODE        batch: back-to-back calls, the slowest rank's time\n"
        "                           per call (default); single: barrier, one call,\n"
        "                           barrier, each rank's time averaged over the ranks,\n"
        "                           as many benchmarks and users time one call\n"
        "  -d, --datatype NAME      %s\n"
        "                           (default float)\n"
        "  -o, --op NAME            %s\n"
        "                           (default sum)\n"
        "  -r, --root N             the root of bcast, reduce and their nonblocking\n"
        "                           forms, 0 to ranks - 1 (default 0)\n"
        "  -F, --fresh[=SIZE]       rotate through buffers larger than the last-level\n"
        "                           cache (default SIZE: the cache's, from hwloc)\n"
        "  -C, --check              verify every result of every call\n"
        "      --csv FILE           also write the results as CSV\n"
        "      --plot FILE.png      plot busbw against size with gnuplot\n"
        "      --no-compare         time Loom alone\n"
        "      --no-memcpy-ref      skip the memcpy of each size timed in turn with\n"
        "                           the contenders (memcpy GB/s column)\n"
        "      --switch MODE        how the default is reached: auto, cvar (Loom's\n"
        "                           coll_loom_enable control variable), comm (a\n"
        "                           communicator that refuses Loom); default auto\n"
        "      --progress, --no-progress\n"
        "                           a progress line on stderr (default: when a\n"
        "                           terminal shows it)\n"
        "  -h, --help               this text\n"
        "\n"
        "SIZE is " LOOM_BENCH_SIZE_HELP ".\n"
        "Environment: LOOM_BENCH_GNUPLOT, the gnuplot program (default gnuplot).\n",
        loom_bench_coll_names(), loom_bench_dtype_names(), loom_bench_op_names());
}

/* A whole number in [min, max] for option name; 0 on success. */
static int loom_bench_int_parse(FILE *err, const char *name, const char *text, long min,
                                long max, long *value_p)
{
    char *end;
    long value;

    errno = 0;
    value = strtol(text, &end, 10);
    if (errno != 0 || end == text || *end != '\0' || value < min || value > max) {
        if (err != NULL) {
            fprintf(err, "loom-bench: %s '%s': expected a whole number from %ld to %ld\n",
                    name, text, min, max);
        }
        return -1;
    }
    *value_p = value;
    return 0;
}

static int loom_bench_size_option(FILE *err, const char *name, const char *text,
                                  size_t *bytes_p)
{
    if (loom_tool_size_parse(text, bytes_p) != 0) {
        if (err != NULL) {
            fprintf(err, "loom-bench: %s '%s': expected " LOOM_BENCH_SIZE_HELP "\n", name,
                    text);
        }
        return -1;
    }
    return 0;
}

/* Checks that involve more than one option. */
static int loom_bench_options_validate(FILE *err, loom_bench_options_t *o)
{
    if (o->min_bytes == 0) {
        if (err != NULL) {
            fprintf(err, "loom-bench: -b 0: the smallest message must be at least 1 byte\n");
        }
        return -1;
    }
    if (o->max_bytes < o->min_bytes) {
        if (err != NULL) {
            fprintf(err, "loom-bench: -e %zu is below -b %zu: the largest message must not "
                    "be smaller than the smallest\n", o->max_bytes, o->min_bytes);
        }
        return -1;
    }
    if (o->max_bytes / o->dtype->size > INT_MAX) {
        if (err != NULL) {
            fprintf(err, "loom-bench: -e %zu: more than %d %s elements, the most an MPI "
                    "count holds\n", o->max_bytes, INT_MAX, o->dtype->name);
        }
        return -1;
    }
    if (o->max_bytes < o->dtype->size) {
        if (err != NULL) {
            fprintf(err, "loom-bench: -e %zu: smaller than one %s element (%zu bytes)\n",
                    o->max_bytes, o->dtype->name, o->dtype->size);
        }
        return -1;
    }
    /* --check keeps every output of a batch (buffers.h): bound that. */
    if (o->check && o->batch > 0 && o->max_bytes > ((size_t)1 << 30) / (size_t)o->batch) {
        if (err != NULL) {
            fprintf(err, "loom-bench: -B %d with --check keeps %d outputs of -e %zu bytes, "
                    "more than 1 GiB; lower -B or -e\n", o->batch, o->batch, o->max_bytes);
        }
        return -1;
    }
    if (o->dtype->is_float && !o->op->floats_ok) {
        if (err != NULL) {
            fprintf(err, "loom-bench: -o %s does not apply to -d %s; accepted for %s: sum, "
                    "prod, min, max\n", o->op->name, o->dtype->name, o->dtype->name);
        }
        return -1;
    }
    return 0;
}

int loom_bench_options_check_ranks(const loom_bench_options_t *opts, int nranks, FILE *err)
{
    if (opts->root >= nranks) {
        if (err != NULL) {
            fprintf(err, "loom-bench: --root %d: no such rank in a job of %d; accepted: 0 to "
                    "%d\n", opts->root, nranks, nranks - 1);
        }
        return -1;
    }
    return 0;
}

loom_bench_parse_t loom_bench_options_parse(int argc, char **argv, FILE *err,
                                            loom_bench_options_t *opts_p)
{
    loom_bench_options_t o = {
        .coll = &loom_bench_coll_allreduce, .dtype = loom_bench_dtype_find("float"),
        .op = loom_bench_op_find("sum"), .min_bytes = 8, .max_bytes = 64u << 20,
        .step_factor = 2, .warmup = 2, .iters = 20, .compare = 1, .memcpy_ref = 1,
    };
    int iters_given = 0, batch_given = 0, warmup_given = 0;
    long value;
    int c;

    opterr = 0;      /* the messages below name the accepted values */
    optind = 1;
    while ((c = getopt_long(argc, argv, ":c:b:e:f:w:n:B:d:o:r:F::Ch",
                            loom_bench_long_options, NULL)) != -1) {
        switch (c) {
        case 'c':
            o.coll = loom_bench_coll_find(optarg);
            if (o.coll == NULL) {
                if (err != NULL) {
                    fprintf(err, "loom-bench: -c '%s': unknown collective; accepted: %s\n",
                            optarg, loom_bench_coll_names());
                }
                return LOOM_BENCH_PARSE_ERROR;
            }
            break;
        case 'b':
            if (loom_bench_size_option(err, "-b", optarg, &o.min_bytes) != 0) {
                return LOOM_BENCH_PARSE_ERROR;
            }
            break;
        case 'e':
            if (loom_bench_size_option(err, "-e", optarg, &o.max_bytes) != 0) {
                return LOOM_BENCH_PARSE_ERROR;
            }
            break;
        case 'f':
            if (loom_bench_int_parse(err, "-f", optarg, 2, 1024, &value) != 0) {
                return LOOM_BENCH_PARSE_ERROR;
            }
            o.step_factor = (size_t)value;
            break;
        case 'w':
            if (loom_bench_int_parse(err, "-w", optarg, 0, 100000, &value) != 0) {
                return LOOM_BENCH_PARSE_ERROR;
            }
            o.warmup = (int)value;
            warmup_given = 1;
            break;
        case 'n':
            if (loom_bench_int_parse(err, "-n", optarg, 1, 100000, &value) != 0) {
                return LOOM_BENCH_PARSE_ERROR;
            }
            o.iters = (int)value;
            iters_given = 1;
            break;
        case 'B':
            if (loom_bench_int_parse(err, "-B", optarg, 0, 100000, &value) != 0) {
                return LOOM_BENCH_PARSE_ERROR;
            }
            o.batch = (int)value;
            batch_given = o.batch > 1;
            break;
        case LOOM_BENCH_OPT_TIMING:
            if (strcmp(optarg, "batch") == 0) {
                o.timing = LOOM_BENCH_TIMING_BATCH;
            } else if (strcmp(optarg, "single") == 0) {
                o.timing = LOOM_BENCH_TIMING_SINGLE;
            } else {
                if (err != NULL) {
                    fprintf(err, "loom-bench: --timing '%s': accepted: batch, single\n",
                            optarg);
                }
                return LOOM_BENCH_PARSE_ERROR;
            }
            break;
        case 'd':
            o.dtype = loom_bench_dtype_find(optarg);
            if (o.dtype == NULL) {
                if (err != NULL) {
                    fprintf(err, "loom-bench: -d '%s': unknown datatype; accepted: %s\n",
                            optarg, loom_bench_dtype_names());
                }
                return LOOM_BENCH_PARSE_ERROR;
            }
            break;
        case 'o':
            o.op = loom_bench_op_find(optarg);
            if (o.op == NULL) {
                if (err != NULL) {
                    fprintf(err, "loom-bench: -o '%s': unknown op; accepted: %s\n", optarg,
                            loom_bench_op_names());
                }
                return LOOM_BENCH_PARSE_ERROR;
            }
            break;
        case 'r':
            /* The upper bound needs the rank count: options_check_ranks. */
            if (loom_bench_int_parse(err, "--root", optarg, 0, INT_MAX, &value) != 0) {
                return LOOM_BENCH_PARSE_ERROR;
            }
            o.root = (int)value;
            break;
        case 'F':
            o.fresh = 1;
            if (optarg != NULL &&
                loom_bench_size_option(err, "--fresh", optarg, &o.fresh_span) != 0) {
                return LOOM_BENCH_PARSE_ERROR;
            }
            break;
        case 'C':
            o.check = 1;
            break;
        case LOOM_BENCH_OPT_CSV:
            o.csv_path = optarg;
            break;
        case LOOM_BENCH_OPT_PLOT:
            o.plot_path = optarg;
            break;
        case LOOM_BENCH_OPT_NO_COMPARE:
            o.compare = 0;
            break;
        case LOOM_BENCH_OPT_NO_MEMCPY_REF:
            o.memcpy_ref = 0;
            break;
        case LOOM_BENCH_OPT_SWITCH:
            if (strcmp(optarg, "auto") == 0) {
                o.switch_mode = LOOM_BENCH_SWITCH_AUTO;
            } else if (strcmp(optarg, "cvar") == 0) {
                o.switch_mode = LOOM_BENCH_SWITCH_CVAR;
            } else if (strcmp(optarg, "comm") == 0) {
                o.switch_mode = LOOM_BENCH_SWITCH_COMM;
            } else {
                if (err != NULL) {
                    fprintf(err, "loom-bench: --switch '%s': accepted: auto, cvar, comm\n",
                            optarg);
                }
                return LOOM_BENCH_PARSE_ERROR;
            }
            break;
        case LOOM_BENCH_OPT_PROGRESS:
            o.progress = LOOM_BENCH_PROGRESS_ON;
            break;
        case LOOM_BENCH_OPT_NO_PROGRESS:
            o.progress = LOOM_BENCH_PROGRESS_OFF;
            break;
        case 'h':
            if (err != NULL) {
                loom_bench_usage(stdout);
            }
            return LOOM_BENCH_PARSE_HELP;
        case ':':
            if (err != NULL) {
                fprintf(err, "loom-bench: %s needs an argument; see loom-bench --help\n",
                        argv[optind - 1]);
            }
            return LOOM_BENCH_PARSE_ERROR;
        default:
            if (err != NULL) {
                fprintf(err, "loom-bench: unknown option '%s'; see loom-bench --help\n",
                        argv[optind - 1]);
            }
            return LOOM_BENCH_PARSE_ERROR;
        }
    }
    if (optind < argc) {
        if (err != NULL) {
            fprintf(err, "loom-bench: unexpected argument '%s'; see loom-bench --help\n",
                    argv[optind]);
        }
        return LOOM_BENCH_PARSE_ERROR;
    }
    if (o.timing == LOOM_BENCH_TIMING_SINGLE) {
        /* One call is the batch: its samples are calls, so take more. */
        if (batch_given) {
            if (err != NULL) {
                fprintf(err, "loom-bench: -B %d: --timing single times one call at a time; "
                        "-B applies to --timing batch\n", o.batch);
            }
            return LOOM_BENCH_PARSE_ERROR;
        }
        o.batch = 1;
        if (!iters_given) {
            o.iters = 200;
        }
        /* Two batches warm a few hundred calls up; two calls would not:
         * UCX touches its shared-memory receive buffers for the first
         * time over the first few dozen eager messages to a peer, at
         * about 8 us a message here (docs/loom-bench.md). */
        if (!warmup_given) {
            o.warmup = 100;
        }
    }
    if (loom_bench_options_validate(err, &o) != 0) {
        return LOOM_BENCH_PARSE_ERROR;
    }
    *opts_p = o;
    return LOOM_BENCH_PARSE_RUN;
}
