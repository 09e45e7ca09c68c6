#include "coll/core/parts/blocks.h"

#include <stdlib.h>

loom_status_t loom_blocks_init(loom_blocks_t *b, int p, size_t count,
                               const size_t *counts, const size_t *displs)
{
    size_t *prefix = NULL, max = count;
    int i;

    if (counts != NULL) {
        prefix = malloc(sizeof(*prefix) * ((size_t)p + 1));
        if (prefix == NULL) {
            return LOOM_ERR_NO_MEMORY;
        }
        prefix[0] = 0;
        max = 0;
        for (i = 0; i < p; ++i) {
            prefix[i + 1] = prefix[i] + counts[i];
            max = counts[i] > max ? counts[i] : max;
        }
    }
    b->p      = p;
    b->count  = count;
    b->counts = counts;
    b->displs = counts != NULL ? displs : NULL;
    b->prefix = prefix;
    b->total  = counts != NULL ? prefix[p] : (size_t)p * count;
    b->max    = max;
    return LOOM_OK;
}

void loom_blocks_fini(loom_blocks_t *b)
{
    free(b->prefix);
    b->prefix = NULL;
}
