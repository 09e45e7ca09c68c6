/*
 * Helpers shared by the MPI tests run under mpirun (test/mpi/run.sh).
 *
 * A test checks values it computed itself, and proves through Loom's
 * MPI_T counters that the calls it meant for Loom went through Loom: a
 * test that passes because Open MPI's own allreduce answered would prove
 * nothing about Loom.
 */
#ifndef LOOM_TEST_H
#define LOOM_TEST_H

#include <stddef.h>

#include <mpi.h>

/* Failed checks in this process so far. */
extern int loom_test_failures;

void loom_test_fail(const char *file, int line, const char *fmt, ...)
    __attribute__((format(printf, 3, 4)));

/* CHECK(cond, fmt, ...): on failure print file:line, the world rank and
 * the message, and count the failure; the test goes on, so one run shows
 * every broken case. */
#define CHECK(cond, ...)                                    \
    do {                                                    \
        if (!(cond)) {                                      \
            loom_test_fail(__FILE__, __LINE__, __VA_ARGS__); \
        }                                                   \
    } while (0)

/* MPI_Init_thread, then MPI_T_init_thread (the counters need MPI_T).
 * Returns the thread level MPI provides. */
int loom_test_init(int *argc, char ***argv, int required);

/* Reduce the failure counts of all ranks to rank 0 (MPI_Reduce: Loom only
 * handles allreduce), print "PASS <name> np=<n>" or "FAIL ..." there,
 * finalize MPI_T and MPI.  Returns the exit status for every rank. */
int loom_test_finish(const char *name);

/* Print "SKIP <name> np=<n>: <reason>" on rank 0 and finalize as
 * loom_test_finish does.  Returns 77, automake's exit status for a skip. */
int loom_test_skip(const char *name, const char *reason);

/* The value of a process-wide unsigned MPI_T performance variable, or
 * (unsigned long long)-1 when there is none by that name.  MPI_T_init_thread
 * must have been called.  A counter reads as the count since the first
 * read of that name (MPI_T counters start at 0 with their handle), so
 * compare two reads. */
unsigned long long loom_test_pvar(const char *name);

#define LOOM_TEST_NO_PVAR ((unsigned long long)-1)

/* A size_t control variable through MPI_T, or 0 when there is none. */
size_t loom_test_cvar_size(const char *name);

/* Write an int (or enum) control variable through MPI_T on this rank;
 * 1 when it took the value, 0 when there is no such variable or it was
 * refused (not settable, or a value it does not accept). */
int loom_test_cvar_write_int(const char *name, int value);

/* The names of an enum control variable's values, in value order (value i
 * is names[i]): how many (at most max), or 0 when it is no enum. */
int loom_test_cvar_enum_names(const char *name, char names[][64], int max);

/* 0 when LOOM_TEST_EXPECT_LOOM=0 (running against plain Open MPI): the
 * counter checks are skipped then. */
int loom_test_expect_loom(void);

/* Loom's allreduce counters at one point of the test. */
typedef struct loom_test_counters {
    unsigned long long calls;      /* coll_loom_allreduce_calls */
    unsigned long long fallbacks;  /* coll_loom_allreduce_fallbacks */
} loom_test_counters_t;

loom_test_counters_t loom_test_counters(void);

/* Check that since `before`, Loom executed exactly `calls` allreduces and
 * handed exactly `fallbacks` to the previous module. */
#define CHECK_LOOM_COUNTERS(before, calls, fallbacks, what) \
    loom_test_check_counters(__FILE__, __LINE__, (before), (calls), (fallbacks), (what))

void loom_test_check_counters(const char *file, int line, loom_test_counters_t before,
                              unsigned long long calls, unsigned long long fallbacks,
                              const char *what);

/* Send this process's stderr to a temporary file until
 * loom_test_capture_end, which restores it and returns what was written
 * (malloc'd, NUL-terminated): for tests that check the messages Loom
 * prints, which run.sh would otherwise count as failures. */
void loom_test_capture_start(void);
char *loom_test_capture_end(void);

#endif
