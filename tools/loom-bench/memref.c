/* The memcpy reference's copies (memref.h). */
#include "memref.h"

#include <mpi.h>
#include <stdlib.h>
#include <string.h>

loom_bench_layout_t loom_bench_memref_layout(size_t bytes, int batch, int fresh, size_t span)
{
    /* Unchecked: copies need no distinct outputs to verify. */
    return loom_bench_layout(bytes, bytes, batch, fresh, span, 0);
}

int loom_bench_memref_create(size_t arena_bytes, loom_bench_memref_t *ref_p)
{
    loom_bench_buffers_t bufs;

    memset(ref_p, 0, sizeof(*ref_p));
    if (loom_bench_buffers_create(arena_bytes, arena_bytes, &bufs) != 0) {
        return -1;
    }
    ref_p->src = bufs.in;
    ref_p->dst = bufs.out;
    ref_p->bytes = arena_bytes;
    return 0;
}

void loom_bench_memref_destroy(loom_bench_memref_t *ref)
{
    loom_bench_buffers_t bufs = {
        .in = ref->src, .out = ref->dst, .in_bytes = ref->bytes, .out_bytes = ref->bytes,
    };

    loom_bench_buffers_destroy(&bufs);
    memset(ref, 0, sizeof(*ref));
}

double loom_bench_memref_batch(loom_bench_memref_t *ref, const loom_bench_layout_t *layout,
                               size_t bytes, int batch)
{
    double t0 = MPI_Wtime();
    size_t i;

    for (i = 0; i < (size_t)batch; ++i) {
        memcpy(ref->dst + (ref->cursor + i) % layout->out_slots * layout->out_stride,
               ref->src + (ref->cursor + i) % layout->in_slots * layout->in_stride, bytes);
    }
    ref->cursor += (size_t)batch;
    return (MPI_Wtime() - t0) / batch;
}
