/*
 * A checkpoint directory's steps: their names, the commit record that
 * makes one committed, and the list of the committed ones.  Saving
 * (ckpt.c), retention (retain.c), restoring and inspecting read them here.
 */
#include "ckpt/context.h"

#include <errno.h>
#include <inttypes.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "common/log.h"

int loom_ckpt_step_from_name(const char *name, uint64_t *step_p)
{
    const size_t prefix = strlen(LOOM_CKPT_STEP_PREFIX);
    uint64_t step = 0;
    if (strncmp(name, LOOM_CKPT_STEP_PREFIX, prefix) != 0 || strlen(name) != prefix + 20) {
        return 0;
    }
    for (const char *d = name + prefix; *d; d++) {
        if (*d < '0' || *d > '9' || step > (UINT64_MAX - 9) / 10) {
            return 0;
        }
        step = step * 10 + (uint64_t)(*d - '0');
    }
    *step_p = step;
    return 1;
}

int loom_ckpt_step_path(const loom_ckpt_t *ckpt, uint64_t step,
                        const char *name, char *path, size_t size)
{
    int n = name ? snprintf(path, size, "%s/" LOOM_CKPT_STEP_PREFIX "%020" PRIu64 "/%s",
                            ckpt->dir, step, name)
                 : snprintf(path, size, "%s/" LOOM_CKPT_STEP_PREFIX "%020" PRIu64,
                            ckpt->dir, step);
    return n >= 0 && (size_t)n < size ? 0 : -1;
}

loom_status_t loom_ckpt_read_commit(const loom_ckpt_t *ckpt, uint64_t step,
                                    uint64_t *nranks_p, uint64_t *chunk_size_p)
{
    char path[4096];
    if (loom_ckpt_step_path(ckpt, step, LOOM_CKPT_COMMIT_NAME, path, sizeof(path)) != 0) {
        return LOOM_ERR_INVALID_PARAM;
    }
    void *text;
    size_t len;
    int rc = ckpt->io->read_all(ckpt->io->ctx, path, &text, &len);
    if (rc == -ENOENT) {
        return LOOM_ERR_NOT_FOUND;
    }
    if (rc != 0) {
        loom_error("ckpt", "cannot read %s: %s", path, strerror(-rc));
        return LOOM_ERR_IO;
    }
    uint64_t got_step;
    loom_status_t st = loom_ckpt_commit_parse(text, len, path, &got_step,
                                              nranks_p, chunk_size_p);
    free(text);
    if (st == LOOM_OK && got_step != step) {
        loom_error("ckpt", "%s records step %" PRIu64 ", not %" PRIu64, path,
                   got_step, step);
        st = LOOM_ERR_IO;
    }
    return st;
}

static int cmp_u64(const void *a, const void *b)
{
    uint64_t x = *(const uint64_t *)a, y = *(const uint64_t *)b;
    return x < y ? -1 : x > y;
}

loom_status_t loom_ckpt_list(loom_ckpt_t *ckpt, uint64_t **steps_p,
                             size_t *count_p)
{
    char **names;
    size_t n;
    int rc = ckpt->io->list(ckpt->io->ctx, ckpt->dir, &names, &n);
    if (rc != 0) {
        loom_error("ckpt", "cannot list %s: %s", ckpt->dir, strerror(-rc));
        return LOOM_ERR_IO;
    }
    uint64_t *steps = malloc((n ? n : 1) * sizeof(*steps));
    size_t count = 0;
    for (size_t i = 0; steps != NULL && i < n; i++) {
        uint64_t step, nranks, cs;
        if (loom_ckpt_step_from_name(names[i], &step) &&
            loom_ckpt_read_commit(ckpt, step, &nranks, &cs) == LOOM_OK) {
            steps[count++] = step;
        }
    }
    loom_ckpt_io_free_list(names, n);
    if (steps == NULL) {
        return LOOM_ERR_NO_MEMORY;
    }
    qsort(steps, count, sizeof(*steps), cmp_u64);
    *steps_p = steps;
    *count_p = count;
    return LOOM_OK;
}
