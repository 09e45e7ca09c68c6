# LOOM_CHECK_HPCC: Debian's HPC Challenge benchmark (package hpcc), an
# unmodified MPI program built against Open MPI, which test/pmpi/
# hpcc_small.sh runs as the PMPI profiler's real-world workload.  Only
# that test needs it; without it the test is not run and configure says so.
AC_DEFUN([LOOM_CHECK_HPCC], [
    AC_PATH_PROG([HPCC], [hpcc], [])
    AS_IF([test -n "$HPCC"],
        [loom_hpcc_summary="$HPCC"],
        [loom_hpcc_summary="no: test/pmpi/hpcc_small.sh not run (apt-get install hpcc)"])
    AM_CONDITIONAL([HAVE_HPCC], [test -n "$HPCC"])
])
