/*
 * Residuals survive a restart (include/loom/filter.h, docs/filter_api.md):
 * nothing of the gradients is lost when a filtered job is killed after a
 * checkpoint and resumed on another rank count.
 *
 *   mpi_filter_restart save DIR     phase 1 (3 ranks): steps 0 .. S1-1 on
 *                                   a filtered communicator, two named
 *                                   slots, steps marked; at S1 a
 *                                   checkpoint of the results' running
 *                                   sum and the residuals, then SIGKILL
 *   mpi_filter_restart resume DIR   phase 2 (any rank count): restore,
 *                                   steps S1 .. S2-1, then the proof
 *   mpi_filter_restart api          the API's checks without a restart
 *   mpi_filter_restart nocomp       run with mca_coll_loomfilter
 *                                   excluded: every call is unsupported
 *
 * Gradients are integer multiples of 2^-10 below 1 in magnitude, a
 * function of (step, rank, slot, index); every sum below is of at most a
 * few hundred of them, so it is exact in doubles whatever the order, and
 * the checks compare bits.  The proof:
 *   sum of every allreduce result (both phases)
 *     + sum over ranks of the residuals left at the end
 *   == sum of every gradient produced (3 ranks for steps < S1, the new
 *      rank count after),
 * and right after the restore, the residuals' sum over the new ranks
 * equals their sum over the old ranks at the save.
 */
#include "loom_test.h"

#include <loom/ckpt_mpi.h>
#include <loom/filter.h>

#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#define S1 6
#define S2 12
#define NSLOTS 2
#define OLD_RANKS 3

static const char *const slot_names[NSLOTS] = { "mlp.w1", "mlp.w2" };
static const size_t slot_counts[NSLOTS] = { 4096, 1536 };

/* One gradient element: a multiple of 2^-10 in (-1, 1). */
static double gradient(int step, int rank, int slot, size_t i)
{
    long v = ((long)step * 7919 + (long)rank * 104729 + (long)slot * 1299709 +
              (long)i * 15485863) % 2047;

    return (double)(v - 1023) / 1024.0;
}

/* The test's state, saved in phase 1 and restored in phase 2: the
 * results' running sum and the residuals' sum over ranks at the save
 * (both the same on every rank). */
typedef struct restart_state {
    double *results[NSLOTS];
    double *saved_residuals[NSLOTS];
} restart_state_t;

static MPI_Comm filtered_comm(void)
{
    MPI_Info info;
    MPI_Comm comm;

    MPI_Info_create(&info);
    MPI_Info_set(info, "loom_filter", "topk:0.01");
    MPI_Comm_dup_with_info(MPI_COMM_WORLD, info, &comm);
    MPI_Info_free(&info);
    return comm;
}

static void state_alloc(restart_state_t *st)
{
    int s;

    for (s = 0; s < NSLOTS; s++) {
        st->results[s] = calloc(slot_counts[s], sizeof(double));
        st->saved_residuals[s] = calloc(slot_counts[s], sizeof(double));
    }
}

static void state_free(restart_state_t *st)
{
    int s;

    for (s = 0; s < NSLOTS; s++) {
        free(st->results[s]);
        free(st->saved_residuals[s]);
    }
}

/* Registers the state as replicated regions of ck. */
static void state_register(loom_ckpt_t *ck, restart_state_t *st)
{
    char name[64];
    int s;

    for (s = 0; s < NSLOTS; s++) {
        loom_ckpt_region_t r = { .name = name, .size = slot_counts[s] * sizeof(double),
                                 .elem_size = sizeof(double),
                                 .layout = LOOM_CKPT_REPLICATED };
        snprintf(name, sizeof(name), "test.results.%d", s);
        r.ptr = st->results[s];
        CHECK(loom_ckpt_register(ck, &r) == LOOM_OK, "register %s", name);
        snprintf(name, sizeof(name), "test.saved_residuals.%d", s);
        r.ptr = st->saved_residuals[s];
        CHECK(loom_ckpt_register(ck, &r) == LOOM_OK, "register %s", name);
    }
}

/* One training step: mark it, then one named filtered allreduce per
 * slot, the results added to the running sum. */
static void train_step(MPI_Comm comm, int step, restart_state_t *st)
{
    int rank, s;
    size_t i;

    MPI_Comm_rank(comm, &rank);
    CHECK(loom_filter_step(comm) == LOOM_OK, "loom_filter_step: %s", loom_filter_last_error());
    for (s = 0; s < NSLOTS; s++) {
        double *g = malloc(slot_counts[s] * sizeof(double));
        for (i = 0; i < slot_counts[s]; i++) {
            g[i] = gradient(step, rank, s, i);
        }
        CHECK(loom_filter_name(comm, slot_names[s]) == LOOM_OK, "loom_filter_name: %s",
              loom_filter_last_error());
        MPI_Allreduce(MPI_IN_PLACE, g, (int)slot_counts[s], MPI_DOUBLE, MPI_SUM, comm);
        for (i = 0; i < slot_counts[s]; i++) {
            st->results[s][i] += g[i];
        }
        free(g);
    }
}

/* The residuals' sum over comm's ranks, slot s, into sum (on every rank:
 * MPI_COMM_WORLD is not filtered). */
static void residual_sum(MPI_Comm comm, int s, double *sum)
{
    loom_status_t st;

    st = loom_filter_residual_read(comm, slot_names[s], MPI_DOUBLE, sum, slot_counts[s]);
    CHECK(st == LOOM_OK, "loom_filter_residual_read(%s): %s", slot_names[s],
          loom_filter_last_error());
    MPI_Allreduce(MPI_IN_PLACE, sum, (int)slot_counts[s], MPI_DOUBLE, MPI_SUM, MPI_COMM_WORLD);
}

static size_t count_zero(const double *a, size_t n)
{
    size_t i, zero = 0;

    for (i = 0; i < n; i++) {
        zero += a[i] == 0.0;
    }
    return zero;
}

/* Elements where a != b, bit for bit (all values are exact). */
static size_t count_differ(const double *a, const double *b, size_t n)
{
    size_t i, bad = 0;

    for (i = 0; i < n; i++) {
        bad += a[i] != b[i];
    }
    return bad;
}

static loom_ckpt_t *open_ckpt(const char *dir, loom_ckpt_coord_t *coord)
{
    loom_ckpt_t *ck = NULL;

    loom_ckpt_coord_mpi(MPI_COMM_WORLD, coord);
    CHECK(loom_ckpt_open(dir, coord, NULL, &ck) == LOOM_OK, "loom_ckpt_open %s", dir);
    return ck;
}

static int phase_save(const char *dir)
{
    MPI_Comm comm = filtered_comm();
    restart_state_t st;
    loom_ckpt_coord_t coord;
    loom_ckpt_t *ck;
    int size, step, s;

    MPI_Comm_size(comm, &size);
    if (size != OLD_RANKS) {
        return loom_test_skip("mpi_filter_restart save", "phase 1 runs on 3 ranks");
    }
    state_alloc(&st);
    ck = open_ckpt(dir, &coord);
    state_register(ck, &st);
    for (step = 0; step < S1; step++) {
        train_step(comm, step, &st);
    }
    for (s = 0; s < NSLOTS; s++) {
        residual_sum(comm, s, st.saved_residuals[s]);
        /* At 1% most of every gradient is still delayed: a restart that
         * lost the residuals could not pass the proof. */
        CHECK(slot_counts[s] - count_zero(st.saved_residuals[s], slot_counts[s]) >
              slot_counts[s] / 2, "slot %s: residuals mostly zero at the save", slot_names[s]);
    }
    CHECK(loom_filter_save(ck, comm) == LOOM_OK, "loom_filter_save: %s",
          loom_filter_last_error());
    CHECK(loom_ckpt_save(ck, S1) == LOOM_OK, "loom_ckpt_save step %d", S1);
    if (loom_test_failures == 0) {
        /* The commit is durable on every rank once save returned: die
         * as a killed job would, with nothing flushed or finalized. */
        MPI_Barrier(MPI_COMM_WORLD);
        raise(SIGKILL);
    }
    return loom_test_finish("mpi_filter_restart save");
}

/* The proof, after the last step: results + residuals == gradients. */
static void check_nothing_lost(MPI_Comm comm, restart_state_t *st)
{
    int size, s, step, r;
    size_t i;

    MPI_Comm_size(comm, &size);
    for (s = 0; s < NSLOTS; s++) {
        double *left = malloc(slot_counts[s] * sizeof(double));
        double *produced = calloc(slot_counts[s], sizeof(double));
        double *got = malloc(slot_counts[s] * sizeof(double));
        size_t bad;

        residual_sum(comm, s, left);
        for (step = 0; step < S2; step++) {
            for (r = 0; r < (step < S1 ? OLD_RANKS : size); r++) {
                for (i = 0; i < slot_counts[s]; i++) {
                    produced[i] += gradient(step, r, s, i);
                }
            }
        }
        for (i = 0; i < slot_counts[s]; i++) {
            got[i] = st->results[s][i] + left[i];
        }
        bad = count_differ(got, produced, slot_counts[s]);
        CHECK(bad == 0, "slot %s: results + residuals differ from the gradients produced in "
              "%zu of %zu elements (first: %.17g + %.17g vs %.17g)", slot_names[s], bad,
              slot_counts[s], st->results[s][0], left[0], produced[0]);
        free(left);
        free(produced);
        free(got);
    }
}

static int phase_resume(const char *dir)
{
    MPI_Comm comm = filtered_comm();
    restart_state_t st;
    loom_ckpt_coord_t coord;
    loom_ckpt_t *ck;
    uint64_t step = 0;
    size_t bytes = 0;
    unsigned long long calls, switches;
    int s, k;

    state_alloc(&st);
    ck = open_ckpt(dir, &coord);
    state_register(ck, &st);
    CHECK(loom_ckpt_restore(ck, LOOM_CKPT_NEWEST, &step) == LOOM_OK && step == S1,
          "loom_ckpt_restore: step %llu, expected %d", (unsigned long long)step, S1);
    CHECK(loom_filter_restore(ck, comm, dir, step) == LOOM_OK, "loom_filter_restore: %s",
          loom_filter_last_error());
    CHECK(loom_filter_residual_bytes(&bytes) == LOOM_OK && bytes > 0,
          "restored residual bytes %zu", bytes);
    for (s = 0; s < NSLOTS; s++) {
        double *now = malloc(slot_counts[s] * sizeof(double));
        size_t bad;

        residual_sum(comm, s, now);
        bad = count_differ(now, st.saved_residuals[s], slot_counts[s]);
        CHECK(bad == 0, "slot %s: the restored residuals' sum differs from the saved sum in "
              "%zu elements", slot_names[s], bad);
        free(now);
    }
    calls = loom_test_pvar("coll_loomfilter_calls");
    switches = loom_test_pvar("coll_loomfilter_dense_switches");
    for (k = S1; k < S2; k++) {
        train_step(comm, k, &st);
    }
    /* Every call filtered, none run dense: named slots need no learning. */
    CHECK(loom_test_pvar("coll_loomfilter_calls") - calls == NSLOTS * (S2 - S1) &&
          loom_test_pvar("coll_loomfilter_dense_switches") == switches,
          "filtered calls %llu (expected %d), dense switches %llu",
          loom_test_pvar("coll_loomfilter_calls") - calls, NSLOTS * (S2 - S1),
          loom_test_pvar("coll_loomfilter_dense_switches") - switches);
    check_nothing_lost(comm, &st);
    /* Saving again after the restore: the residuals are registered with
     * this job's layout. */
    CHECK(loom_filter_save(ck, comm) == LOOM_OK, "loom_filter_save: %s",
          loom_filter_last_error());
    CHECK(loom_ckpt_save(ck, S2) == LOOM_OK, "loom_ckpt_save step %d after a restore", S2);
    loom_filter_forget(ck);
    loom_ckpt_close(ck);
    loom_ckpt_coord_mpi_free(&coord);
    state_free(&st);
    MPI_Comm_free(&comm);
    return loom_test_finish("mpi_filter_restart resume");
}

/* Names, bytes and the unfiltered communicator, on a live job. */
static int phase_api(void)
{
    MPI_Comm comm = filtered_comm();
    char longest[LOOM_FILTER_NAME_MAX + 2];
    restart_state_t st;
    size_t bytes = 0;
    unsigned long long pvar;
    loom_status_t rc;

    state_alloc(&st);
    rc = loom_filter_name(comm, "bad name!");
    CHECK(rc == LOOM_ERR_INVALID_PARAM, "a bad name gave %d", rc);
    CHECK(strstr(loom_filter_last_error(), "'bad name!'") != NULL &&
          strstr(loom_filter_last_error(), "[A-Za-z0-9_.-]") != NULL,
          "the message names neither the name nor what is accepted: %s",
          loom_filter_last_error());
    memset(longest, 'a', sizeof(longest));
    longest[LOOM_FILTER_NAME_MAX + 1] = '\0';
    CHECK(loom_filter_name(comm, longest) == LOOM_ERR_INVALID_PARAM, "a name of %d accepted",
          LOOM_FILTER_NAME_MAX + 1);
    CHECK(loom_filter_name(comm, "") == LOOM_ERR_INVALID_PARAM, "an empty name accepted");
    longest[LOOM_FILTER_NAME_MAX] = '\0';
    CHECK(loom_filter_name(comm, longest) == LOOM_OK, "a name of %d refused: %s",
          LOOM_FILTER_NAME_MAX, loom_filter_last_error());
    rc = loom_filter_name(MPI_COMM_WORLD, "w");
    CHECK(rc == LOOM_ERR_UNSUPPORTED && strstr(loom_filter_last_error(), "not filtered"),
          "an unfiltered communicator gave %d: %s", rc, loom_filter_last_error());
    CHECK(loom_filter_step(MPI_COMM_WORLD) == LOOM_ERR_UNSUPPORTED, "step on world");

    /* The long name is still pending: the step's first name replaces it
     * (only the two slots below exist after).  Named slots are filtered
     * from their first call: two steps hold both residuals. */
    train_step(comm, 0, &st);
    train_step(comm, 1, &st);
    CHECK(loom_filter_residual_bytes(&bytes) == LOOM_OK, "residual bytes: %s",
          loom_filter_last_error());
    pvar = loom_test_pvar("coll_loomfilter_residual_bytes");
    CHECK(pvar == bytes, "loom_filter_residual_bytes %zu, MPI_T residual_bytes %llu", bytes,
          pvar);
    CHECK(bytes == (slot_counts[0] + slot_counts[1]) * sizeof(double),
          "residual bytes %zu, expected the two named slots' %zu", bytes,
          (slot_counts[0] + slot_counts[1]) * sizeof(double));
    state_free(&st);
    MPI_Comm_free(&comm);
    return loom_test_finish("mpi_filter_restart api");
}

/* Without the component every call says so. */
static int phase_nocomp(void)
{
    size_t bytes = 7;
    loom_status_t rc[5];
    double buf[1];

    rc[0] = loom_filter_name(MPI_COMM_WORLD, "x");
    rc[1] = loom_filter_step(MPI_COMM_WORLD);
    rc[2] = loom_filter_residual_bytes(&bytes);
    /* No context is needed to learn that there is no component. */
    rc[3] = loom_filter_save(NULL, MPI_COMM_WORLD);
    rc[4] = loom_filter_residual_read(MPI_COMM_WORLD, "x", MPI_DOUBLE, buf, 1);
    for (int i = 0; i < 5; i++) {
        CHECK(rc[i] == LOOM_ERR_UNSUPPORTED, "call %d without the component gave %d", i, rc[i]);
    }
    CHECK(bytes == 7, "residual_bytes wrote %zu without the component", bytes);
    CHECK(strstr(loom_filter_last_error(), "not available") != NULL, "message: %s",
          loom_filter_last_error());
    return loom_test_finish("mpi_filter_restart nocomp");
}

int main(int argc, char **argv)
{
    loom_test_init(&argc, &argv, MPI_THREAD_SINGLE);
    if (argc == 3 && strcmp(argv[1], "save") == 0) {
        return phase_save(argv[2]);
    }
    if (argc == 3 && strcmp(argv[1], "resume") == 0) {
        return phase_resume(argv[2]);
    }
    if (argc == 2 && strcmp(argv[1], "api") == 0) {
        return phase_api();
    }
    if (argc == 2 && strcmp(argv[1], "nocomp") == 0) {
        return phase_nocomp();
    }
    fprintf(stderr, "usage: %s save DIR | resume DIR | api | nocomp\n", argv[0]);
    MPI_Abort(MPI_COMM_WORLD, 2);
    return 2;
}
