/*
 * The verifier's fingerprints: inputs that are pure functions of
 * (seed, rank, element), and the two ops that combine them.
 *
 * Inputs are recomputed wherever they are needed (expected results, the
 * unchanged-send-buffer check) instead of being stored: at thousands of
 * ranks a second copy of every input would double the verifier's memory.
 */
#include "verifier.h"
#include "verifier_internal.h"

#include <string.h>

#define VF_PRIME 0x7FFFFFFFu   /* 2^31 - 1 */

typedef struct vf_sum_elem {
    uint64_t lane[2];
} vf_sum_elem_t;

typedef struct vf_matrix_elem {
    uint32_t m[4];   /* row major: a b / c d */
} vf_matrix_elem_t;

/* splitmix64's finalizer: a bijection that mixes every input bit. */
uint64_t vf_mix64(uint64_t x)
{
    x += UINT64_C(0x9E3779B97F4A7C15);
    x = (x ^ (x >> 30)) * UINT64_C(0xBF58476D1CE4E5B9);
    x = (x ^ (x >> 27)) * UINT64_C(0x94D049BB133111EB);
    return x ^ (x >> 31);
}

/* One independent 64-bit hash per (seed, rank, element, lane). */
uint64_t vf_hash(uint64_t seed, int rank, size_t i, unsigned lane)
{
    uint64_t key = vf_mix64(seed ^ ((uint64_t)lane << 56));

    key = vf_mix64(key ^ (uint64_t)(uint32_t)rank);
    return vf_mix64(key ^ (uint64_t)i);
}

static uint32_t vf_mod_prime(uint64_t x)
{
    /* x < 2^63: fold the Mersenne prime's high bits down twice. */
    x = (x & VF_PRIME) + (x >> 31);
    x = (x & VF_PRIME) + (x >> 31);
    return (uint32_t)(x >= VF_PRIME ? x - VF_PRIME : x);
}

void loom_verify_input(loom_verify_op_t op, uint64_t seed, int rank, size_t i,
                       void *elem)
{
    vf_sum_elem_t s;
    vf_matrix_elem_t m;
    unsigned k;

    if (op == LOOM_VERIFY_OP_SUM) {
        s.lane[0] = vf_hash(seed, rank, i, 0);
        s.lane[1] = vf_hash(seed, rank, i, 1);
        memcpy(elem, &s, sizeof(s));
        return;
    }
    for (k = 0; k < 4; ++k) {
        m.m[k] = vf_mod_prime(vf_hash(seed, rank, i, 2 + k) >> 1);
    }
    /* A diagonal matrix commutes with every other diagonal one: keep the
     * off-diagonal entries nonzero so that order always matters. */
    m.m[1] |= 1;
    m.m[2] |= 1;
    memcpy(elem, &m, sizeof(m));
}

static void vf_sum_fn(const void *src, void *dst, size_t count, void *ctx)
{
    const vf_sum_elem_t *s = src;
    vf_sum_elem_t *d = dst;
    size_t i;

    (void)ctx;
    for (i = 0; i < count; ++i) {
        d[i].lane[0] = s[i].lane[0] + d[i].lane[0];
        d[i].lane[1] = s[i].lane[1] + d[i].lane[1];
    }
}

/* dst = src x dst: src holds the lower ranks, so it multiplies from the left. */
static void vf_matrix_fn(const void *src, void *dst, size_t count, void *ctx)
{
    const vf_matrix_elem_t *s = src;
    vf_matrix_elem_t *d = dst;
    uint64_t a, b, c, e;
    size_t i;

    (void)ctx;
    for (i = 0; i < count; ++i) {
        a = (uint64_t)s[i].m[0] * d[i].m[0] + (uint64_t)s[i].m[1] * d[i].m[2];
        b = (uint64_t)s[i].m[0] * d[i].m[1] + (uint64_t)s[i].m[1] * d[i].m[3];
        c = (uint64_t)s[i].m[2] * d[i].m[0] + (uint64_t)s[i].m[3] * d[i].m[2];
        e = (uint64_t)s[i].m[2] * d[i].m[1] + (uint64_t)s[i].m[3] * d[i].m[3];
        d[i].m[0] = vf_mod_prime(a);
        d[i].m[1] = vf_mod_prime(b);
        d[i].m[2] = vf_mod_prime(c);
        d[i].m[3] = vf_mod_prime(e);
    }
}

loom_reduce_fn_t loom_verify_reduce_fn(loom_verify_op_t op)
{
    return op == LOOM_VERIFY_OP_SUM ? vf_sum_fn : vf_matrix_fn;
}

/* The result every rank must hold: a fold in rank order, computed here
 * without any schedule. */
void loom_verify_fold(const loom_verify_params_t *params, size_t i, void *elem)
{
    loom_reduce_fn_t fn = loom_verify_reduce_fn(params->op);
    unsigned char acc[LOOM_VERIFY_ELEM_SIZE], next[LOOM_VERIFY_ELEM_SIZE];
    int r;

    loom_verify_input(params->op, params->seed, 0, i, acc);
    for (r = 1; r < params->nranks; ++r) {
        /* next = acc (op) next: the lower ranks on the src side. */
        loom_verify_input(params->op, params->seed, r, i, next);
        fn(acc, next, 1, NULL);
        memcpy(acc, next, sizeof(acc));
    }
    memcpy(elem, acc, sizeof(acc));
}

/* For a wrong sum: does the difference equal one rank's contribution, i.e.
 * was that contribution counted twice (sign 1) or never (sign -1)?
 * Returns the rank, or -1. */
int vf_sum_explain(const loom_verify_params_t *params, size_t i, const void *got,
                   const void *want, int *sign_p)
{
    vf_sum_elem_t g, w;
    uint64_t d0, d1;
    int r;

    memcpy(&g, got, sizeof(g));
    memcpy(&w, want, sizeof(w));
    d0 = g.lane[0] - w.lane[0];
    d1 = g.lane[1] - w.lane[1];
    for (r = 0; r < params->nranks; ++r) {
        if (d0 == vf_hash(params->seed, r, i, 0) && d1 == vf_hash(params->seed, r, i, 1)) {
            *sign_p = 1;
            return r;
        }
        if (-d0 == vf_hash(params->seed, r, i, 0) && -d1 == vf_hash(params->seed, r, i, 1)) {
            *sign_p = -1;
            return r;
        }
    }
    return -1;
}
