/* Finding gnuplot and quoting for it (gnuplot.h). */
#include "gnuplot.h"

#include <stdlib.h>
#include <string.h>
#include <unistd.h>

const char *loom_gnuplot_program(const char *env_name)
{
    const char *env = getenv(env_name);

    return env != NULL && env[0] != '\0' ? env : "gnuplot";
}

int loom_gnuplot_available(const char *program)
{
    const char *path = getenv("PATH"), *p, *end;
    char candidate[4096];
    size_t len;

    if (strchr(program, '/') != NULL) {
        return access(program, X_OK) == 0;
    }
    for (p = path != NULL ? path : "/usr/bin:/bin"; *p != '\0'; p = *end ? end + 1 : end) {
        end = strchr(p, ':');
        end = end != NULL ? end : p + strlen(p);
        len = (size_t)(end - p);
        if (len > 0 && len + strlen(program) + 2 <= sizeof(candidate)) {
            snprintf(candidate, sizeof(candidate), "%.*s/%s", (int)len, p, program);
            if (access(candidate, X_OK) == 0) {
                return 1;
            }
        }
    }
    return 0;
}

/* text as a gnuplot single-quoted string, where '' stands for '. */
void loom_gnuplot_quote(FILE *gp, const char *text)
{
    fputc('\'', gp);
    for (; *text != '\0'; ++text) {
        if (*text == '\'') {
            fputc('\'', gp);
        }
        fputc(*text, gp);
    }
    fputc('\'', gp);
}

void loom_gnuplot_png(FILE *gp, const char *path)
{
    fprintf(gp, "set terminal png noenhanced size 1000,600\nset output ");
    loom_gnuplot_quote(gp, path);
    fputc('\n', gp);
}
