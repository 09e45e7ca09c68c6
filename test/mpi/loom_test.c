#include "loom_test.h"


#include <stdarg.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

int loom_test_failures;

static void loom_test_free_pvars(void);

/* Enough lines to see the pattern of a failure; a broken reduction can fail
 * a million elements, and every one of them printed helps nobody. */
#define LOOM_TEST_MAX_REPORTS 30

void loom_test_fail(const char *file, int line, const char *fmt, ...)
{
    char msg[512];
    va_list ap;
    int rank = -1, initialized = 0, failures;

    /* Threads of one test check at the same time. */
    failures = __atomic_add_fetch(&loom_test_failures, 1, __ATOMIC_RELAXED);
    if (failures > LOOM_TEST_MAX_REPORTS) {
        return;
    }
    MPI_Initialized(&initialized);
    if (initialized) {
        MPI_Comm_rank(MPI_COMM_WORLD, &rank);
    }
    va_start(ap, fmt);
    vsnprintf(msg, sizeof(msg), fmt, ap);
    va_end(ap);
    fprintf(stderr, "%s:%d: rank %d: %s%s\n", file, line, rank, msg,
            failures == LOOM_TEST_MAX_REPORTS ? " (further failures not shown)" : "");
    fflush(stderr);
}

int loom_test_init(int *argc, char ***argv, int required)
{
    int provided = MPI_THREAD_SINGLE, t_provided;

    if (MPI_Init_thread(argc, argv, required, &provided) != MPI_SUCCESS) {
        fprintf(stderr, "MPI_Init_thread failed\n");
        exit(1);
    }
    if (MPI_T_init_thread(required, &t_provided) != MPI_SUCCESS) {
        fprintf(stderr, "MPI_T_init_thread failed\n");
        MPI_Abort(MPI_COMM_WORLD, 1);
    }
    return provided;
}

int loom_test_finish(const char *name)
{
    int rank, size, total = 0, status;

    MPI_Comm_rank(MPI_COMM_WORLD, &rank);
    MPI_Comm_size(MPI_COMM_WORLD, &size);
    MPI_Reduce(&loom_test_failures, &total, 1, MPI_INT, MPI_SUM, 0, MPI_COMM_WORLD);
    if (rank == 0) {
        if (total == 0) {
            printf("PASS %s np=%d\n", name, size);
        } else {
            printf("FAIL %s np=%d: %d failed checks\n", name, size, total);
        }
        fflush(stdout);
    }
    /* Every rank exits with the verdict, whichever rank failed. */
    MPI_Bcast(&total, 1, MPI_INT, 0, MPI_COMM_WORLD);
    status = total == 0 ? 0 : 1;
    loom_test_free_pvars();
    /* Open MPI 4.1 crashes when MPI_T_finalize follows MPI_Finalize. */
    MPI_T_finalize();
    MPI_Finalize();
    return status;
}

int loom_test_skip(const char *name, const char *reason)
{
    int rank, size;

    MPI_Comm_rank(MPI_COMM_WORLD, &rank);
    MPI_Comm_size(MPI_COMM_WORLD, &size);
    if (rank == 0) {
        printf("SKIP %s np=%d: %s\n", name, size, reason);
        fflush(stdout);
    }
    loom_test_free_pvars();
    MPI_T_finalize();
    MPI_Finalize();
    return 77;
}

/* The index of the performance variable called name, or -1. */
static int loom_test_pvar_index(const char *name, MPI_Datatype *type_p)
{
    int i, num = 0, verbosity, var_class, bind, readonly, continuous, atomic;
    int name_len, desc_len;
    char var_name[256], desc[256];
    MPI_T_enum enumtype;

    if (MPI_T_pvar_get_num(&num) != MPI_SUCCESS) {
        return -1;
    }
    for (i = 0; i < num; ++i) {
        name_len = sizeof(var_name);
        desc_len = sizeof(desc);
        if (MPI_T_pvar_get_info(i, var_name, &name_len, &verbosity, &var_class, type_p,
                                &enumtype, desc, &desc_len, &bind, &readonly,
                                &continuous, &atomic) != MPI_SUCCESS) {
            continue;
        }
        if (strcmp(var_name, name) == 0) {
            return i;
        }
    }
    return -1;
}

/* Widen whichever unsigned type the variable has. */
static unsigned long long loom_test_widen(const void *buf, MPI_Datatype type)
{
    if (type == MPI_UNSIGNED_LONG_LONG) {
        return *(const unsigned long long *)buf;
    } else if (type == MPI_UNSIGNED_LONG) {
        return *(const unsigned long *)buf;
    } else if (type == MPI_UNSIGNED) {
        return *(const unsigned *)buf;
    }
    return LOOM_TEST_NO_PVAR;
}

/* MPI_T counters start at 0 when their handle starts (MPI 3.1, 14.3.7), and
 * a continuous one starts when allocated: a fresh handle per read would
 * always read 0.  So each name gets one handle, kept until
 * loom_test_finish, and reads count from the first read of that name. */
#define LOOM_TEST_MAX_PVARS 96

static struct {
    char                name[128];
    MPI_T_pvar_handle   handle;
    MPI_Datatype        type;
} loom_test_pvars[LOOM_TEST_MAX_PVARS];
static int loom_test_num_pvars;
static MPI_T_pvar_session loom_test_session = MPI_T_PVAR_SESSION_NULL;

/* The slot of name's handle, allocated on first use; -1 if there is none. */
static int loom_test_pvar_slot(const char *name)
{
    MPI_Datatype type;
    int i, index, count;

    for (i = 0; i < loom_test_num_pvars; ++i) {
        if (strcmp(loom_test_pvars[i].name, name) == 0) {
            return i;
        }
    }
    index = loom_test_pvar_index(name, &type);
    if (index < 0 || loom_test_num_pvars == LOOM_TEST_MAX_PVARS) {
        return -1;
    }
    if (loom_test_session == MPI_T_PVAR_SESSION_NULL &&
        MPI_T_pvar_session_create(&loom_test_session) != MPI_SUCCESS) {
        return -1;
    }
    i = loom_test_num_pvars;
    if (MPI_T_pvar_handle_alloc(loom_test_session, index, NULL,
                                &loom_test_pvars[i].handle, &count) != MPI_SUCCESS) {
        return -1;
    }
    if (count != 1) {
        MPI_T_pvar_handle_free(loom_test_session, &loom_test_pvars[i].handle);
        return -1;
    }
    snprintf(loom_test_pvars[i].name, sizeof(loom_test_pvars[i].name), "%s", name);
    loom_test_pvars[i].type = type;
    ++loom_test_num_pvars;
    return i;
}

unsigned long long loom_test_pvar(const char *name)
{
    unsigned long long buf[4] = { 0 };
    int slot = loom_test_pvar_slot(name);

    if (slot < 0 || MPI_T_pvar_read(loom_test_session, loom_test_pvars[slot].handle,
                                    buf) != MPI_SUCCESS) {
        return LOOM_TEST_NO_PVAR;
    }
    return loom_test_widen(buf, loom_test_pvars[slot].type);
}

static void loom_test_free_pvars(void)
{
    int i;

    for (i = 0; i < loom_test_num_pvars; ++i) {
        MPI_T_pvar_handle_free(loom_test_session, &loom_test_pvars[i].handle);
    }
    loom_test_num_pvars = 0;
    if (loom_test_session != MPI_T_PVAR_SESSION_NULL) {
        MPI_T_pvar_session_free(&loom_test_session);
    }
}

int loom_test_expect_loom(void)
{
    const char *env = getenv("LOOM_TEST_EXPECT_LOOM");

    return env == NULL || strcmp(env, "0") != 0;
}

loom_test_counters_t loom_test_counters(void)
{
    return (loom_test_counters_t){
        .calls = loom_test_pvar("coll_loom_allreduce_calls"),
        .fallbacks = loom_test_pvar("coll_loom_allreduce_fallbacks"),
    };
}

void loom_test_check_counters(const char *file, int line, loom_test_counters_t before,
                              unsigned long long calls, unsigned long long fallbacks,
                              const char *what)
{
    loom_test_counters_t now;

    if (!loom_test_expect_loom()) {
        return;
    }
    now = loom_test_counters();
    if (before.calls == LOOM_TEST_NO_PVAR || now.calls == LOOM_TEST_NO_PVAR ||
        before.fallbacks == LOOM_TEST_NO_PVAR || now.fallbacks == LOOM_TEST_NO_PVAR) {
        loom_test_fail(file, line, "%s: Loom's MPI_T counters do not exist "
                       "(is mca_coll_loom loaded?)", what);
        return;
    }
    if (now.calls - before.calls != calls) {
        loom_test_fail(file, line, "%s: Loom executed %llu allreduce calls, expected %llu",
                       what, now.calls - before.calls, calls);
    }
    if (now.fallbacks - before.fallbacks != fallbacks) {
        loom_test_fail(file, line, "%s: Loom handed %llu allreduce calls to the previous "
                       "module, expected %llu", what, now.fallbacks - before.fallbacks,
                       fallbacks);
    }
}

static char loom_test_capture_path[64];
static int loom_test_saved_stderr = -1;

void loom_test_capture_start(void)
{
    int fd;

    strcpy(loom_test_capture_path, "/tmp/loom-test-stderr-XXXXXX");
    fd = mkstemp(loom_test_capture_path);
    if (fd < 0) {
        return;
    }
    fflush(stderr);
    loom_test_saved_stderr = dup(2);
    dup2(fd, 2);
    close(fd);
}

char *loom_test_capture_end(void)
{
    char *text = calloc(1, 65536);
    size_t n = 0;
    FILE *f;

    if (loom_test_saved_stderr < 0 || text == NULL) {
        return text;
    }
    fflush(stderr);
    dup2(loom_test_saved_stderr, 2);
    close(loom_test_saved_stderr);
    loom_test_saved_stderr = -1;
    f = fopen(loom_test_capture_path, "r");
    if (f != NULL) {
        n = fread(text, 1, 65535, f);
        fclose(f);
    }
    text[n] = '\0';
    unlink(loom_test_capture_path);
    return text;
}

size_t loom_test_cvar_size(const char *name)
{
    MPI_T_cvar_handle handle;
    uint64_t value = 0;
    int index, count;

    if (MPI_T_cvar_get_index(name, &index) != MPI_SUCCESS ||
        MPI_T_cvar_handle_alloc(index, NULL, &handle, &count) != MPI_SUCCESS) {
        return 0;
    }
    MPI_T_cvar_read(handle, &value);
    MPI_T_cvar_handle_free(&handle);
    return (size_t)value;
}

int loom_test_cvar_write_int(const char *name, int value)
{
    MPI_T_cvar_handle handle;
    int index, count, ok;

    if (MPI_T_cvar_get_index(name, &index) != MPI_SUCCESS ||
        MPI_T_cvar_handle_alloc(index, NULL, &handle, &count) != MPI_SUCCESS) {
        return 0;
    }
    ok = MPI_T_cvar_write(handle, &value) == MPI_SUCCESS;
    MPI_T_cvar_handle_free(&handle);
    return ok;
}

int loom_test_cvar_enum_names(const char *name, char names[][64], int max)
{
    int index, verbosity, bind, scope, name_len, desc_len, n = 0, i, value, len;
    char var_name[256], desc[1024], title[64];
    MPI_Datatype type;
    MPI_T_enum enumtype = MPI_T_ENUM_NULL;

    name_len = sizeof(var_name);
    desc_len = sizeof(desc);
    if (MPI_T_cvar_get_index(name, &index) != MPI_SUCCESS ||
        MPI_T_cvar_get_info(index, var_name, &name_len, &verbosity, &type, &enumtype, desc,
                            &desc_len, &bind, &scope) != MPI_SUCCESS ||
        enumtype == MPI_T_ENUM_NULL) {
        return 0;
    }
    len = sizeof(title);
    if (MPI_T_enum_get_info(enumtype, &n, title, &len) != MPI_SUCCESS) {
        return 0;
    }
    for (i = 0; i < n && i < max; ++i) {
        len = 64;
        if (MPI_T_enum_get_item(enumtype, i, &value, names[i], &len) != MPI_SUCCESS ||
            value != i) {
            return 0;
        }
    }
    return i;
}
