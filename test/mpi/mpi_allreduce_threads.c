/*
 * Two threads, each on its own duplicate of MPI_COMM_WORLD, run allreduces
 * at the same time (MPI_THREAD_MULTIPLE): Loom's process-wide UCX worker
 * and counters are shared by both, its teams are not.
 */
#include "loom_test.h"

#include <pthread.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>

#define NUM_THREADS 2
#define CALLS_PER_THREAD 200
#define MAX_COUNT 100000

static int world_rank, world_size;

typedef struct thread_arg {
    int         id;
    MPI_Comm    comm;
} thread_arg_t;

/* Mostly small messages, as a training step's many small tensors, with a
 * large one every 20 calls: sizes differ between the threads, so their
 * calls interleave unevenly. */
static int call_count(int id, int call)
{
    uint32_t h = (uint32_t)(call * 2654435761u) ^ (uint32_t)(id * 40503u);

    if (call % 20 == id) {
        return MAX_COUNT - (int)(h % 1000);
    }
    return 1 + (int)(h % 3000);
}

/* Integer-valued, so the sum is exact in any order. */
static double input(int rank, int id, int call, int i)
{
    return (double)((rank + 1) * (i % 17) + 3 * id + call % 5);
}

static double expected(int id, int call, int i)
{
    return (double)(i % 17) * world_size * (world_size + 1) / 2 +
           (double)world_size * (3 * id + call % 5);
}

static void check_call(const thread_arg_t *arg, int call, double *in, double *out)
{
    int count = call_count(arg->id, call), in_place = call % 2, i, bad = 0, first = -1;
    int rc;

    for (i = 0; i < count; ++i) {
        in[i] = input(world_rank, arg->id, call, i);
        out[i] = in_place ? in[i] : -1.0;
    }
    rc = MPI_Allreduce(in_place ? MPI_IN_PLACE : in, out, count, MPI_DOUBLE, MPI_SUM,
                       arg->comm);
    CHECK(rc == MPI_SUCCESS, "thread %d call %d: MPI_Allreduce returned %d", arg->id, call,
          rc);
    for (i = 0; i < count; ++i) {
        if (out[i] != expected(arg->id, call, i)) {
            first = first < 0 ? i : first;
            ++bad;
        }
    }
    CHECK(bad == 0, "thread %d call %d (%d doubles, %s): %d wrong, first [%d] = %g, "
          "expected %g", arg->id, call, count, in_place ? "in place" : "out of place", bad,
          first, out[first < 0 ? 0 : first], expected(arg->id, call, first < 0 ? 0 : first));
}

static void *thread_main(void *p)
{
    const thread_arg_t *arg = p;
    double *in = malloc(sizeof(double) * MAX_COUNT);
    double *out = malloc(sizeof(double) * MAX_COUNT);
    int call;

    CHECK(in != NULL && out != NULL, "thread %d: out of memory", arg->id);
    for (call = 0; in != NULL && out != NULL && call < CALLS_PER_THREAD; ++call) {
        check_call(arg, call, in, out);
    }
    free(in);
    free(out);
    return NULL;
}

int main(int argc, char **argv)
{
    thread_arg_t args[NUM_THREADS];
    pthread_t threads[NUM_THREADS];
    loom_test_counters_t before;
    int t, provided;

    provided = loom_test_init(&argc, &argv, MPI_THREAD_MULTIPLE);
    if (provided < MPI_THREAD_MULTIPLE) {
        return loom_test_skip("mpi_allreduce_threads", "no MPI_THREAD_MULTIPLE");
    }
    MPI_Comm_rank(MPI_COMM_WORLD, &world_rank);
    MPI_Comm_size(MPI_COMM_WORLD, &world_size);
    for (t = 0; t < NUM_THREADS; ++t) {
        args[t].id = t;
        MPI_Comm_dup(MPI_COMM_WORLD, &args[t].comm);
    }
    before = loom_test_counters();
    for (t = 0; t < NUM_THREADS; ++t) {
        CHECK(pthread_create(&threads[t], NULL, thread_main, &args[t]) == 0,
              "pthread_create failed");
    }
    for (t = 0; t < NUM_THREADS; ++t) {
        pthread_join(threads[t], NULL);
    }
    CHECK_LOOM_COUNTERS(before, world_size >= 2 ? NUM_THREADS * CALLS_PER_THREAD : 0, 0,
                        "two threads");
    for (t = 0; t < NUM_THREADS; ++t) {
        MPI_Comm_free(&args[t].comm);
    }
    return loom_test_finish("mpi_allreduce_threads");
}
