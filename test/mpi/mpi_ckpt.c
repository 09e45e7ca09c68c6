/*
 * libloom-ckpt under mpirun: a sharded and a replicated region saved by
 * one group of ranks and restored, bitwise, by a group of another size --
 * 4 -> 2 and 2 -> 3 when the job has 4 ranks or more, all ranks -> 1
 * otherwise -- through loom_ckpt_coord_mpi.  Files 0600, directories 0700.
 *
 * With Loom's component loaded, the MCA parameter coll_loom_ckpt_keep=1
 * (set in the environment, as mpirun -x or --mca would) reaches the
 * library, which keeps only the newest step, and the MPI_T variables
 * coll_loom_ckpt_* count the saves and chunks.
 */
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include <loom/ckpt_mpi.h>

#include "loom_test.h"

enum { GLOBAL = 100003, REPL = 5000, CHUNK = 4096 };

static unsigned char expected(size_t i, unsigned seed)
{
    return (unsigned char)((i * 2654435761u + seed) >> 7);
}

/* Saves (save=1) or restores and checks the regions on comm, whose
 * ranks hold uneven slices of the global array. */
static void run_group(MPI_Comm comm, const char *dir, int save, unsigned seed)
{
    int rank, size;
    MPI_Comm_rank(comm, &rank);
    MPI_Comm_size(comm, &size);
    size_t lo = (size_t)rank * GLOBAL / (size_t)size;
    size_t hi = (size_t)(rank + 1) * GLOBAL / (size_t)size;
    unsigned char *slice = malloc(hi - lo + 1), repl[REPL];

    loom_ckpt_coord_t coord;
    CHECK(loom_ckpt_coord_mpi(comm, &coord) == MPI_SUCCESS, "coord");
    loom_ckpt_options_t opts = { .chunk_size = CHUNK };
    loom_ckpt_t *ck = NULL;
    CHECK(loom_ckpt_open(dir, &coord, &opts, &ck) == LOOM_OK, "open %s", dir);
    loom_ckpt_region_t rs = { .name = "params", .ptr = slice, .size = hi - lo,
                              .elem_size = 1, .layout = LOOM_CKPT_SHARDED,
                              .global_offset = lo, .global_size = GLOBAL };
    loom_ckpt_region_t rr = { .name = "optimizer.step", .ptr = repl,
                              .size = REPL, .elem_size = 1 };
    CHECK(ck && loom_ckpt_register(ck, &rs) == LOOM_OK, "register params");
    CHECK(ck && loom_ckpt_register(ck, &rr) == LOOM_OK, "register repl");
    if (save) {
        for (size_t i = lo; i < hi; i++) {
            slice[i - lo] = expected(i, seed);
        }
        for (size_t i = 0; i < REPL; i++) {
            repl[i] = expected(i, seed + 1);
        }
        CHECK(ck && loom_ckpt_save(ck, 3) == LOOM_OK, "save step 3");
        /* An incremental save of the same bytes writes no chunk. */
        loom_ckpt_stats_t s1, s2;
        loom_ckpt_get_stats(ck, &s1);
        CHECK(ck && loom_ckpt_save(ck, 4) == LOOM_OK, "save step 4");
        loom_ckpt_get_stats(ck, &s2);
        CHECK(s2.chunks_written == s1.chunks_written,
              "unchanged save wrote %llu chunks",
              (unsigned long long)(s2.chunks_written - s1.chunks_written));
    } else {
        memset(slice, 0, hi - lo);
        memset(repl, 0, REPL);
        uint64_t step = 0;
        CHECK(ck && loom_ckpt_restore(ck, LOOM_CKPT_NEWEST, &step) == LOOM_OK,
              "restore");
        CHECK(step == 4, "restored step %llu, expected 4", (unsigned long long)step);
        size_t bad = 0;
        for (size_t i = lo; i < hi; i++) {
            bad += slice[i - lo] != expected(i, seed);
        }
        for (size_t i = 0; i < REPL; i++) {
            bad += repl[i] != expected(i, seed + 1);
        }
        CHECK(bad == 0, "%zu bytes differ after restore on %d of %d ranks",
              bad, rank, size);
    }
    loom_ckpt_close(ck);
    loom_ckpt_coord_mpi_free(&coord);
    free(slice);
}

/* The ranks [0, n) of world as a communicator (MPI_COMM_NULL elsewhere). */
static MPI_Comm first(int n)
{
    int rank;
    MPI_Comm c;
    MPI_Comm_rank(MPI_COMM_WORLD, &rank);
    MPI_Comm_split(MPI_COMM_WORLD, rank < n ? 0 : MPI_UNDEFINED, rank, &c);
    return c;
}

static void elastic(const char *dir, int from, int to, unsigned seed)
{
    MPI_Comm a = first(from), b = first(to);
    if (a != MPI_COMM_NULL) {
        run_group(a, dir, 1, seed);
        MPI_Comm_free(&a);
    }
    MPI_Barrier(MPI_COMM_WORLD);
    if (b != MPI_COMM_NULL) {
        run_group(b, dir, 0, seed);
        MPI_Comm_free(&b);
    }
}

static int committed_steps(const char *dir)
{
    char cmd[400];
    snprintf(cmd, sizeof(cmd), "ls -d '%s'/step-*/COMMIT 2>/dev/null | wc -l", dir);
    FILE *p = popen(cmd, "r");
    int n = -1;
    if (p != NULL && fscanf(p, "%d", &n) != 1) {
        n = -1;
    }
    if (p != NULL) {
        pclose(p);
    }
    return n;
}

int main(int argc, char **argv)
{
    setenv("OMPI_MCA_coll_loom_ckpt_keep", "1", 0);
    loom_test_init(&argc, &argv, MPI_THREAD_SINGLE);
    const int loom = loom_test_expect_loom();
    unsigned long long saves0 = loom_test_pvar("coll_loom_ckpt_saves");
    unsigned long long chunks0 = loom_test_pvar("coll_loom_ckpt_chunks_written");
    int rank, size;
    MPI_Comm_rank(MPI_COMM_WORLD, &rank);
    MPI_Comm_size(MPI_COMM_WORLD, &size);

    char base[256] = { 0 };
    if (rank == 0) {
        snprintf(base, sizeof(base), "%s/loom-mpi-ckpt-XXXXXX",
                 getenv("TMPDIR") ? getenv("TMPDIR") : "/tmp");
        CHECK(mkdtemp(base) != NULL, "mkdtemp");
    }
    MPI_Bcast(base, sizeof(base), MPI_CHAR, 0, MPI_COMM_WORLD);
    char d1[300], d2[300];
    snprintf(d1, sizeof(d1), "%s/a", base);
    snprintf(d2, sizeof(d2), "%s/b", base);

    int saved_first = size >= 4 ? 4 : size;
    if (size >= 4) {
        elastic(d1, 4, 2, 11);
    } else {
        elastic(d1, size, 1, 5);
    }
    /* Each rank of the saving group saved and committed steps 3 and 4,
     * and wrote chunks (its shard, and its share of the replicated
     * region); the others did not save. */
    if (loom) {
        unsigned long long saves = loom_test_pvar("coll_loom_ckpt_saves") - saves0;
        unsigned long long chunks =
            loom_test_pvar("coll_loom_ckpt_chunks_written") - chunks0;
        CHECK(saves0 != LOOM_TEST_NO_PVAR, "no coll_loom_ckpt_saves variable");
        CHECK(saves == (rank < saved_first ? 2u : 0u), "coll_loom_ckpt_saves grew by %llu",
              saves);
        CHECK(rank < saved_first ? chunks > 0 : chunks == 0,
              "coll_loom_ckpt_chunks_written grew by %llu", chunks);
    }
    if (size >= 4) {
        elastic(d2, 2, 3, 23);
    } else {
        elastic(d2, 1, size, 7);
    }

    if (rank == 0) {
        /* coll_loom_ckpt_keep=1 kept the newest step alone (restore
         * found step 4 above); without Loom, both steps stay. */
        CHECK(committed_steps(d1) == (loom ? 1 : 2), "%d committed steps in %s",
              committed_steps(d1), d1);
        struct stat st;
        char path[400];
        snprintf(path, sizeof(path), "%s/step-%020d/COMMIT", d1, 4);
        CHECK(stat(path, &st) == 0 && (st.st_mode & 0777) == 0600,
              "%s is not a 0600 file", path);
        CHECK(stat(d1, &st) == 0 && (st.st_mode & 0777) == 0700,
              "%s is not a 0700 directory", d1);
        char cmd[400];
        snprintf(cmd, sizeof(cmd), "rm -rf '%s'", base);
        CHECK(system(cmd) == 0, "%s", cmd);
    }
    return loom_test_finish("mpi_ckpt");
}
