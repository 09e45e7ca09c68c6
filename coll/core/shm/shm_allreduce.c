/*
 * Allreduce and reduce through a node's shared segment, pipelined by
 * segment (reduce is the same walk with only the root copying out).
 *
 *   per segment:   rank r copies its input into its slot      (n/s bytes)
 *                  rank r reduces share r of all p slots,
 *                  in place in its own slot                     (n/(s p))
 *                  rank r copies every share out                (n/s bytes)
 *
 *   slot 0: [A0 A1 A2]   share 0 = A0+B0+C0 is written into slot 0 by rank 0,
 *   slot 1: [B0 B1 B2]   share 1 into slot 1 by rank 1, ...; then every rank
 *   slot 2: [C0 C1 C2]   copies share q out of slot q.
 *
 * Cost per rank: n/c (copy in) + (p-1)/p n/g (reduce) + n/c (copy out),
 * c the copy rate, g the reduce rate, plus a few cache-line handshakes per
 * segment: about two copies and one reduction of n/p, the bound of any
 * allreduce that cannot read a peer's buffer directly.  Because a segment
 * is small, what one rank wrote is still in the shared cache when the
 * others read it.  Wins over messages on one host from about a hundred KiB
 * (the measured threshold is coll_loom_shm_min_bytes).
 *
 * Reduce: the root alone copies out, so a rank other than the root costs
 * n/c + (p-1)/p n/g.  The root reduces its own share straight from its
 * input into its recvbuf, so it neither copies that share in nor out:
 * (p-1)/p n/c in, n/p copy and (p-1)/p n/g, (p-1)/p n/c out; at 2 ranks
 * that is two passes over n instead of two and a half (measured: 64 KiB
 * of floats, single calls, see docs/benchmarks.md).  The elements are
 * combined in the same order as before, so the result is the same.  On
 * two ranks, below 64 KiB, and wherever ranks outnumber cores, the root
 * instead reduces every input itself (loom_shm_reduce_gather).
 *
 * Commutative ops only: each share's owner starts from its own
 * contribution.  Each element is reduced once and copied to every rank, so
 * all ranks end bitwise identical.
 */
#include "coll/core/shm/shm_sync.h"

#include "coll/core/parts/partition.h"

#include <string.h>

/* Below this many bytes a reduce on more than two ranks goes to the root
 * whole (loom_shm_reduce_gather): the root then reduces (p-1) n instead
 * of (p-1)/p n, a few microseconds at most, against two more rounds of
 * waiting on every peer. */
#define LOOM_SHM_GATHER_BYTES 65536

/* Shares are cut at cache-line multiples where the element size allows,
 * so two owners never write one line and kernels start aligned. */
static size_t loom_shm_unit(size_t elem_size)
{
    return elem_size <= 64 && 64 % elem_size == 0 ? 64 / elem_size : 1;
}

/* Elements [*first, *first + *count) of a segment of n elements are share q. */
static void loom_shm_share(size_t n, size_t elem_size, int p, int q, size_t *first,
                           size_t *count)
{
    size_t unit = loom_shm_unit(elem_size), units = (n + unit - 1) / unit;
    size_t lo = loom_block_offset(units, p, q) * unit;
    size_t hi = lo + loom_block_count(units, p, q) * unit;

    lo = lo < n ? lo : n;
    hi = hi < n ? hi : n;
    *first = lo;
    *count = hi - lo;
}

/* out_rank: the rank that gets the result, or -1 for every rank. */
static void loom_shm_reduce_to(loom_shm_t *shm, const loom_coll_args_t *args, int out_rank)
{
    const int p = shm->params.size, r = shm->params.rank;
    /* A reduce's root keeps its own share out of the segment: it is
     * reduced into recvbuf below and no one else reads it. */
    const int direct = out_rank == r;
    const size_t es = args->elem_size, seg_elems = shm->params.slot_bytes / es;
    const char *in = args->in_place ? args->recvbuf : args->sendbuf;
    char *out = args->recvbuf, *acc;
    size_t done_elems, n, first, count;
    uint64_t g;
    int q;

    for (done_elems = 0; done_elems < args->count; done_elems += n) {
        n = args->count - done_elems < seg_elems ? args->count - done_elems : seg_elems;
        g = shm->next_seg++;

        loom_shm_share(n, es, p, r, &first, &count);
        loom_shm_wait_slot(shm, g);
        if (direct) {
            memcpy(loom_shm_slot(shm, r, g), in + done_elems * es, first * es);
            memcpy(loom_shm_slot(shm, r, g) + (first + count) * es,
                   in + (done_elems + first + count) * es, (n - first - count) * es);
        } else {
            memcpy(loom_shm_slot(shm, r, g), in + done_elems * es, n * es);
        }
        loom_shm_publish(shm, LOOM_SHM_ARRIVED, g + 1);

        acc = direct ? out + (done_elems + first) * es : loom_shm_slot(shm, r, g) + first * es;
        if (direct && in != out && count > 0) {
            memcpy(acc, in + (done_elems + first) * es, count * es);
        }
        for (q = 0; q < p; ++q) {
            if (q != r) {
                loom_shm_wait(shm, q, LOOM_SHM_ARRIVED, g + 1);
                if (count > 0) {
                    args->op.fn(loom_shm_slot(shm, q, g) + first * es, acc, count,
                                args->op.ctx);
                }
            }
        }
        loom_shm_publish(shm, LOOM_SHM_REDUCED, g + 1);

        for (q = direct ? 1 : 0; (out_rank < 0 || out_rank == r) && q < p; ++q) {
            /* Start with this rank's own share: it is ready already. */
            int owner = (r + q) % p;

            loom_shm_wait(shm, owner, LOOM_SHM_REDUCED, g + 1);
            loom_shm_share(n, es, p, owner, &first, &count);
            memcpy(out + (done_elems + first) * es, loom_shm_slot(shm, owner, g) + first * es,
                   count * es);
        }
        loom_shm_publish(shm, LOOM_SHM_DONE, g + 1);
    }
}

/* A reduce whose root combines every input itself: the other ranks only
 * copy their input in, and the root reduces each peer's slot straight
 * into recvbuf, one pass per peer that overlaps the next piece's copies.
 *
 * On two ranks this always wins: splitting the reduction would make the
 * root copy half of the input in and the result out again, 1.15 to 1.6 of
 * Open MPI's reduce from 32 KiB to 512 KiB on single calls here, where
 * this is one copy and one reduction, as Open MPI's single-copy receive
 * and reduction are.  On more ranks it costs the root (p-1) n/g instead
 * of (p-1)/p n/g, but no rank waits for another's share to be reduced:
 * only the root waits, on each peer once, and a peer leaves as soon as
 * its copy is in.  Below LOOM_SHM_GATHER_BYTES the root's extra
 * reduction is cheaper than the shared walk's three waits on every peer.
 * With more ranks than cores (params.crowded) it is so at every size:
 * the ranks' work runs one after another anyway, and this walk does less
 * of it (no copy of shares in and out).  Measured with 4 ranks on 2
 * cores, ranks yielding while they wait, Loom / Open MPI's reduce: 0.24
 * to 0.41 of single calls from 4 KiB to 1 MiB against 0.67 to 0.90 for
 * the shared walk, and 0.35 to 1.02 of batches against 0.87 to 1.44
 * (docs/benchmarks.md).  Pieces of a quarter of the call (at least
 * 16 KiB, at most a slot) let the copies and the reductions overlap. */
static void loom_shm_reduce_gather(loom_shm_t *shm, const loom_coll_args_t *args)
{
    const size_t es = args->elem_size;
    const size_t piece = loom_shm_quarter(shm, args->count * es, 16384) / es;
    const int p = shm->params.size, r = shm->params.rank, root = args->root == r;
    const char *in = args->in_place ? args->recvbuf : args->sendbuf;
    char *out = args->recvbuf;
    size_t done_elems, n;
    uint64_t g;
    int q;

    for (done_elems = 0; done_elems < args->count; done_elems += n) {
        n = args->count - done_elems < piece ? args->count - done_elems : piece;
        g = shm->next_seg++;
        if (root) {
            if (in != out) {
                memcpy(out + done_elems * es, in + done_elems * es, n * es);
            }
            for (q = 0; q < p; ++q) {
                if (q != r) {
                    loom_shm_wait(shm, q, LOOM_SHM_ARRIVED, g + 1);
                    args->op.fn(loom_shm_slot(shm, q, g), out + done_elems * es, n,
                                args->op.ctx);
                }
            }
        } else {
            loom_shm_wait_slot(shm, g);
            memcpy(loom_shm_slot(shm, r, g), in + done_elems * es, n * es);
            loom_shm_publish(shm, LOOM_SHM_ARRIVED, g + 1);
        }
        loom_shm_publish(shm, LOOM_SHM_DONE, g + 1);
    }
}

void loom_shm_allreduce(loom_shm_t *shm, const loom_coll_args_t *args)
{
    loom_shm_reduce_to(shm, args, -1);
}

void loom_shm_reduce(loom_shm_t *shm, const loom_coll_args_t *args)
{
    if (shm->params.size == 2 || shm->params.crowded ||
        args->count * args->elem_size < LOOM_SHM_GATHER_BYTES) {
        loom_shm_reduce_gather(shm, args);
        return;
    }
    loom_shm_reduce_to(shm, args, args->root);
}
