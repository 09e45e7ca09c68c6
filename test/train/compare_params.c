/*
 * compare_params A B RTOL: two parameter dumps of train_mlp (raw doubles)
 * agree when every element satisfies |a - b| <= RTOL * max(|a|, |b|).
 * Prints the worst element and the normwise relative difference
 * max|a - b| / max|b|, and exits 0 when they agree, 1 when not, 2 when the
 * files cannot be compared.
 */
#include <errno.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

typedef struct dump {
    double *v;
    size_t  n;
} dump_t;

static int read_dump(const char *path, dump_t *d)
{
    FILE *f = fopen(path, "rb");
    long size;

    if (f == NULL || fseek(f, 0, SEEK_END) != 0 || (size = ftell(f)) < 0 ||
        fseek(f, 0, SEEK_SET) != 0) {
        fprintf(stderr, "compare_params: cannot read %s: %s\n", path, strerror(errno));
        return -1;
    }
    if (size == 0 || size % sizeof(double) != 0) {
        fprintf(stderr, "compare_params: %s has %ld bytes, not a nonzero number of doubles\n",
                path, size);
        fclose(f);
        return -1;
    }
    d->n = (size_t)size / sizeof(double);
    d->v = malloc((size_t)size);
    if (d->v == NULL || fread(d->v, sizeof(double), d->n, f) != d->n) {
        fprintf(stderr, "compare_params: cannot read %s\n", path);
        fclose(f);
        return -1;
    }
    fclose(f);
    return 0;
}

int main(int argc, char **argv)
{
    dump_t a, b;
    double rtol, rel, worst = 0, max_diff = 0, max_b = 0, mag;
    size_t i, worst_i = 0, bad = 0;
    char *end;

    if (argc != 4 || (rtol = strtod(argv[3], &end), *end != '\0') || !(rtol > 0)) {
        fprintf(stderr, "usage: compare_params A.bin B.bin RTOL (RTOL > 0, e.g. 1e-5)\n");
        return 2;
    }
    if (read_dump(argv[1], &a) != 0 || read_dump(argv[2], &b) != 0) {
        return 2;
    }
    if (a.n != b.n) {
        fprintf(stderr, "compare_params: %s holds %zu parameters, %s %zu: different models\n",
                argv[1], a.n, argv[2], b.n);
        return 2;
    }
    for (i = 0; i < a.n; ++i) {
        if (!isfinite(a.v[i]) || !isfinite(b.v[i])) {
            fprintf(stderr, "compare_params: parameter %zu is %g and %g: not finite\n", i,
                    a.v[i], b.v[i]);
            return 1;
        }
        mag = fmax(fabs(a.v[i]), fabs(b.v[i]));
        rel = mag > 0 ? fabs(a.v[i] - b.v[i]) / mag : 0.0;
        bad += rel > rtol;
        if (rel > worst) {
            worst = rel;
            worst_i = i;
        }
        max_diff = fmax(max_diff, fabs(a.v[i] - b.v[i]));
        max_b = fmax(max_b, fabs(b.v[i]));
    }
    printf("compare_params: %zu parameters, worst relative difference %.3g (parameter %zu: "
           "%.17g vs %.17g), normwise %.3g, %zu above %g\n", a.n, worst, worst_i,
           a.v[worst_i], b.v[worst_i], max_b > 0 ? max_diff / max_b : 0.0, bad, rtol);
    free(a.v);
    free(b.v);
    return bad == 0 ? 0 : 1;
}
