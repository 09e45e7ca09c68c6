/* Reading a topology file: which format, and the file's text. */
#include "topo/topo.h"

#include <ctype.h>
#include <errno.h>
#include <stdlib.h>
#include <string.h>

/* A topology file larger than this is not a topology file. */
#define TOPO_FILE_MAX (64u << 20)

loom_status_t loom_topo_parse(const char *text, const char *name,
                              loom_topo_t **topo_p, loom_topo_error_t *err)
{
    const char *p = text;

    while (isspace((unsigned char)*p)) {
        p++;
    }
    return *p == '{' ? loom_topo_parse_json(text, name, topo_p, err)
                     : loom_topo_parse_slurm(text, name, topo_p, err);
}

loom_status_t loom_topo_load(const char *path, loom_topo_t **topo_p,
                             loom_topo_error_t *err)
{
    FILE *f = fopen(path, "r");
    char *text = NULL;
    size_t len = 0, cap = 0, n;
    loom_status_t st;

    if (f == NULL) {
        loom_topo_error_set(err, path, 0, "cannot open: %s; expected a readable "
                            "topology.conf or Loom topology file (JSON)", strerror(errno));
        return LOOM_ERR_NOT_FOUND;
    }
    do {
        if (cap - len < 4096) {
            cap = cap ? cap * 2 : 16384;
            char *t = realloc(text, cap + 1);
            if (t == NULL) {
                free(text);
                fclose(f);
                return LOOM_ERR_NO_MEMORY;
            }
            text = t;
        }
        n = fread(text + len, 1, cap - len, f);
        len += n;
    } while (n > 0 && len <= TOPO_FILE_MAX);
    if (ferror(f)) {
        loom_topo_error_set(err, path, 0, "cannot read: %s", strerror(errno));
        st = LOOM_ERR_IO;
    } else if (len > TOPO_FILE_MAX) {
        loom_topo_error_set(err, path, 0, "larger than %u MiB; expected a topology file",
                            TOPO_FILE_MAX >> 20);
        st = LOOM_ERR_INVALID_PARAM;
    } else if (memchr(text, '\0', len) != NULL) {
        loom_topo_error_set(err, path, 0, "holds a NUL byte; expected a text file");
        st = LOOM_ERR_INVALID_PARAM;
    } else {
        text[len] = '\0';
        st = loom_topo_parse(text, path, topo_p, err);
    }
    free(text);
    fclose(f);
    return st;
}
