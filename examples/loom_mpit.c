/*
 * loom_mpit: read Loom's MPI_T variables from a program.
 *
 *   mpirun -np 2 --mca coll_loom_priority 100 examples/loom_mpit [off]
 *
 * Runs a few allreduces (with "off": after writing coll_loom_enable = 0 on
 * every rank), then prints every coll_loom_ performance variable of rank 0
 * and the value of coll_loom_enable.  docs/observability.md explains each.
 */
#include <mpi.h>
#include <stdio.h>
#include <string.h>

#define MAX_PVARS 64

int main(int argc, char **argv)
{
    MPI_T_pvar_handle handle[MAX_PVARS];
    MPI_T_pvar_session session;
    MPI_T_cvar_handle cvar;
    char name[MAX_PVARS][128], desc[512];
    int provided, num, i, n = 0, len, dlen, verb, cls, bind, ro, cont,
        atomic, count, rank, enable = 1;
    unsigned long long value;
    double in[4096] = { 0 }, out[4096];
    MPI_Datatype dtype;
    MPI_T_enum et;

    MPI_Init(&argc, &argv);
    MPI_T_init_thread(MPI_THREAD_SINGLE, &provided);
    MPI_Comm_rank(MPI_COMM_WORLD, &rank);
    MPI_T_pvar_session_create(&session);

    /* Counters count from the moment their handle exists: open them first. */
    MPI_T_pvar_get_num(&num);
    for (i = 0; i < num && n < MAX_PVARS; ++i) {
        len = sizeof(name[n]);
        dlen = sizeof(desc);
        MPI_T_pvar_get_info(i, name[n], &len, &verb, &cls, &dtype, &et, desc, &dlen, &bind,
                            &ro, &cont, &atomic);
        if (strncmp(name[n], "coll_loom_", 10) == 0 && dtype == MPI_UNSIGNED_LONG_LONG &&
            MPI_T_pvar_handle_alloc(session, i, NULL, &handle[n], &count) == MPI_SUCCESS) {
            ++n;
        }
    }

    /* The control variable: the same value on every rank, between collectives. */
    if (argc > 1 && strcmp(argv[1], "off") == 0 &&
        MPI_T_cvar_get_index("coll_loom_enable", &i) == MPI_SUCCESS &&
        MPI_T_cvar_handle_alloc(i, NULL, &cvar, &count) == MPI_SUCCESS) {
        enable = 0;
        MPI_T_cvar_write(cvar, &enable);
        MPI_T_cvar_handle_free(&cvar);
    }
    for (i = 0; i < 10; ++i) {
        MPI_Allreduce(in, out, 4096, MPI_DOUBLE, MPI_SUM, MPI_COMM_WORLD);
    }

    if (rank == 0) {
        printf("coll_loom_enable = %d\n", enable);
        if (n == 0) {
            printf("no coll_loom_ variables: is Loom loaded (OMPI_MCA_coll_loom_priority)?\n");
        }
    }
    for (i = 0; i < n; ++i) {
        MPI_T_pvar_read(session, handle[i], &value);
        if (rank == 0) {
            printf("%-45s %llu\n", name[i], value);
        }
        MPI_T_pvar_handle_free(session, &handle[i]);
    }
    MPI_T_pvar_session_free(&session);
    MPI_T_finalize();
    MPI_Finalize();
    return 0;
}
